#pragma once

#include "colorscale.h"
#include "document/changeevents.h"
#include "fabric/fabric.h"
#include "fabriclayout.h"

#include <QChar>
#include <QColor>
#include <QGraphicsObject>
#include <QHash>
#include <QList>
#include <QRectF>
#include <QString>

#include <array>
#include <memory>
#include <unordered_map>
#include <vector>

namespace railyard {

class BundleItem;
class CableLayerItem;
class DetailTile;
class FrameLabelsItem;
class LinkItem;
class OverviewBlocksItem;
class ScenarioDocument;
class ServerItem;
class SlotItem;
class SwitchItem;

/**
 * The root of the fabric scene: it listens to the ScenarioDocument, builds one item per server
 * (with its slot chips), switch and inter-switch/NIC cable from the engine's Fabric and a
 * FabricLayout, keeps QHash lookups from ids to items, and pushes model changes into them:
 * scenarioChanged -> rebuild; mappingChanged -> sync the chips of the moved ranks and recolour
 * the links it names (one CableLayerItem draws all cables); reportChanged -> recolour the links it
 * names. Every link colour is its utilisation over the range; when the range over the iteration
 * time moves (a new bottleneck load, a held range under a new iteration time) every link is
 * repainted, else only those. It paints the backdrop itself (SU/ToR/pod frames, NVLink domains and
 * the rail bands, fabricitembackdrop.cpp);
 * a FrameLabelsItem names the frames above the items. The application's marks (emphasised links, an
 * external value overlay, failed servers and slots) are pushed into the items from here too
 * (fabricitemmarks.cpp).
 *
 * The detailed items (servers with their chips, switches, cable items) are children of
 * DetailTiles, a grid of patches of a few dozen servers each, owned by this root (deleted with
 * it) but not its children: the scene's BSP index culls whole tiles when painting a part of a
 * 131,072-GPU fabric (children of one parent would be visited one by one on every repaint),
 * the scene's per-frame walk of top-level items sees hundreds of tiles instead of 300,000 items,
 * and the overview hides a tile at a time (detailtile.h).
 */
class FabricItem : public QGraphicsObject
{
    Q_OBJECT

public:
    enum { Type = UserType + 10 };
    /// Partner dimensions highlighted on hover/selection (bits of Dim).
    static unsigned dimBit(Dim d) { return 1u << index(d); }

    FabricItem(ScenarioDocument *document, QGraphicsScene *scene);
    ~FabricItem() override;
    /// Forgets the items it made without deleting them: the view's scene is about to delete
    /// every item at once (QGraphicsScene::clear(), linear in the items), this item too.
    void leaveItemsToScene();

    int type() const override { return Type; }
    ScenarioDocument *document() const { return m_document; }
    const Fabric &fabric() const { return *m_fabric; }
    const FabricLayout &layout() const { return *m_layout; }

    // Lookups (QHash by id, as the document speaks ids).
    SlotItem *slotItem(int slot) const { return m_slots.value(slot); }
    SlotItem *slotItemOfRank(int rank) const;
    /// The smallest type (scene pixels) any occupied chip draws its coordinates in; 0 with no rank.
    int smallestCoordinatePixels() const;
    ServerItem *serverItem(int server) const { return m_servers.value(server); }
    SwitchItem *switchItem(int vertex) const { return m_switches.value(vertex); }
    const QHash<int, SwitchItem *> &switchItems() const { return m_switches; }
    /// The cable item drawing link `linkId` (either direction); nullptr for internal links.
    LinkItem *linkItem(int linkId) const { return m_links.value(linkId >> 1); }
    const QHash<int, LinkItem *> &linkItems() const { return m_links; }
    /// The item drawing every cable of the detailed view (the LinkItems paint nothing).
    CableLayerItem *cableLayer() const { return m_cableLayer; }
    /// The aggregated lines of a tier (Leaf, Spine or SuperSpine).
    BundleItem *bundleItem(Tier tier) const;
    /// True when the tier's cables are individual LinkItems (in the detailed view); false when
    /// there are too many and the tier is always drawn as aggregates.
    bool hasCableItems(Tier tier) const;
    static constexpr int kMaxCableItemsPerSwitchTier = 2048;

    /// Colour chips by 'd', 'p', 't', 'c' or 'e'.
    void setColourBy(QChar coordinate);
    QChar colourBy() const { return m_colourBy; }
    QColor chipColour(int rank) const;
    int colourValueCount() const;

    /// How link load maps to colour (colorscale.h); the scale follows the report being shown,
    /// a drag's preview as well as a committed edit.
    void setLoadScale(LoadScale scale);
    LoadScale loadScale() const { return m_loadScale; }
    /// The top of the colour range: 1 (100 %) on the absolute scale and while an external
    /// overlay is shown; the shown report's highest link utilisation (never 0) on the relative.
    double maxUtilisation() const
    {
        return m_overlayOn || measuredShown() || m_loadScale == LoadScale::Absolute
            ? 1.0
            : m_maxUtilisation;
    }
    /// What the items show for directed link `link`: the report's utilisation, or the
    /// overlay's value (0 when the overlay has none for it).
    double shownUtilisation(int link) const;

    /// Emphasis (A/B comparison, inference paths): these links (directed ids, either direction
    /// marks the cable) drawn on top with an outline, and their endpoints outlined; the load
    /// colours stay. Replaces the previous emphasis; an empty list clears it.
    void setEmphasis(const std::vector<int> &linkIds, const QString &caption);
    const std::vector<int> &emphasis() const { return m_emphasis; }
    QString emphasisCaption() const { return m_emphasisCaption; }
    /// Colour links by external values (utilisation, 1 = full) instead of the report.
    void setLinkOverlay(std::unordered_map<int, double> valueByLink, const QString &title);
    void clearLinkOverlay();
    bool hasLinkOverlay() const { return m_overlayOn; }
    /// The link with the largest overlay value (the lowest id among equals), -1 without one.
    int overlayPeakLink() const;
    QString overlayTitle() const { return m_overlayTitle; }
    /// Measured utilisation per directed link id (NaN where no counter measured it), from the
    /// port counters (studies/countercompare.h); replaces the previous set. Drawn only while
    /// setMeasuredShown(true): every measured cable then splits, its first half in the
    /// predicted colour and its second half in the measured one, on the absolute scale.
    void setMeasuredUtilisation(std::vector<double> measured);
    void setMeasuredShown(bool shown);
    bool measuredShown() const { return m_measuredShown && !m_measured.empty(); }
    /// The measurement of directed link `link`, NaN when none.
    double measuredUtilisation(int link) const;
    /// Several jobs on the fabric (docs/shared-fabric.md): every other job's utilisation per
    /// directed link (bytes / (bandwidth x its shared iteration), evaluateJobs()) and the active
    /// job's shared iteration. Links then show the sum over the jobs, the active job's part
    /// from the report on screen (a drag's preview too), so at rest a link shows
    /// SharedFabricReport::linkUtilisation. An empty list: one job, the report alone.
    void setJobLoads(std::vector<double> othersUtilisation, double activeIteration);
    bool hasJobLoads() const { return !m_jobOthers.empty(); }
    /// Failed servers and GPU slots drawn greyed and crossed out; replaces the previous set.
    void markFailed(const std::vector<int> &servers, const std::vector<int> &slots);
    static QColor emphasisColour() { return QColor(0x70, 0x48, 0xe8); }
    static QColor failedColour() { return QColor(0xc9, 0x2a, 0x2a); }
    /// Rack-scale NVLink domain band (FabricLayout::domains()): outline and fill.
    static QColor domainOutline() { return QColor(0x86, 0x5c, 0xd6); }
    static QColor domainFill() { return QColor(0xe9, 0xe1, 0xf9); }
    /// The backdrop's fills of a pod frame and of a scalable-unit or ToR-group frame.
    static QColor podFill() { return QColor(0xfa, 0xfb, 0xfc); }
    static QColor groupFill() { return QColor(0xf3, 0xf4, 0xf6); }
    /// A rail's band through the racks: the rail colour, translucent.
    static QColor railBandColour(int rail);
    /// `top` drawn over the opaque `below` (source over): the colour a viewer sees.
    static QColor overOpaque(const QColor &top, const QColor &below);
    /// Recolour passes so far (one per change the document announces, plus overlay edits).
    int recolourCount() const { return m_recolours; }
    /// Zoomed out: servers as blocks, chips and cable items hidden, aggregates shown; the
    /// detailed items' tiles are hidden and one OverviewBlocksItem paints servers and switches.
    void setOverview(bool overview);
    bool isOverview() const { return m_overview; }
    /// The layout's tray heights (FabricLayout::Spacing): a change lays the same fabric out
    /// again, keeping what is drawn over it (emphasis, overlay, failed parts); emits rebuilt().
    void setSpacing(FabricLayout::Spacing spacing);
    FabricLayout::Spacing spacing() const { return m_spacing; }
    /// Device-coordinate caching of servers, chips and switches (on by default). Off while
    /// exporting, so an SVG gets vectors and text rather than cached pixmaps.
    void setCaching(bool caching);

    /// Highlights the partners of `rank` (TP, PP, DP, EP, CP) and the links of its routes to
    /// them; -1 clears.
    void setFocusRank(int rank);
    int focusRank() const { return m_focusRank; }

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

Q_SIGNALS:
    /// The legend's inputs changed (range, bottleneck, colouring).
    void legendChanged();
    /// The items were rebuilt (new fabric).
    void rebuilt();

private Q_SLOTS:
    void onScenarioChanged();
    void onMappingChanged(const railyard::MappingChange &change);
    void onReportChanged(const railyard::ReportChange &change);

private:
    void build();
    void syncChips(const MappingChange &change);
    void recolour(const ReportChange &change, bool force);
    void recolourLinks(const std::vector<int> &links);
    void applyEmphasis(bool on);
    void applyFailed(bool on);
    void clear();
    void batchBands();
    void refreshFocus();
    /// Repaints the overview's blocks (the hidden server and switch items do not repaint).
    void updateOverview();

    ScenarioDocument *m_document;
    std::shared_ptr<const Fabric> m_fabric;
    std::unique_ptr<FabricLayout> m_layout;
    QHash<int, ServerItem *> m_servers;
    QHash<int, SlotItem *> m_slots;
    QHash<int, SwitchItem *> m_switches;
    QHash<int, LinkItem *> m_links; ///< by cable (link id >> 1)
    DetailTile *m_detail = nullptr; ///< parent of the tiles of the items above (detailtile.h)
    std::vector<QGraphicsItem *> m_owned; ///< m_detail and the items below, in the order made
    CableLayerItem *m_cableLayer = nullptr;
    OverviewBlocksItem *m_blocks = nullptr;
    std::array<BundleItem *, 3> m_bundles {}; ///< Leaf, Spine, SuperSpine tiers
    std::array<bool, 3> m_cableItems { true, true, true };
    std::vector<int> m_cableLine; ///< per cable: its line in its tier's BundleItem, or -1
    FrameLabelsItem *m_labels = nullptr;
    QChar m_colourBy = QLatin1Char('t');
    double m_maxUtilisation = 1.0;
    bool m_overview = false;
    bool m_blocksStale = true; ///< the hidden overview blocks missed a change (updateOverview)
    LoadScale m_loadScale = LoadScale::Absolute;
    double m_colourScale = -1.0; ///< iteration time x range of the last recolour
    int m_recolours = 0;
    int m_bottleneck = -1;
    int m_focusRank = -1;
    /// The rail bands by the colour they are drawn in (one call per colour): opaque over a
    /// uniform backdrop, translucent where they cross an edge (batchBands()).
    struct BandBatch
    {
        QColor colour;
        QList<QRectF> rects;
    };
    std::vector<BandBatch> m_bands;
    std::vector<SlotItem *> m_litSlots;
    std::vector<LinkItem *> m_litLinks;
    std::vector<ServerItem *> m_litServers;
    std::vector<BundleItem *> m_litBundles;
    // Set by the application, not the document; dropped when the fabric is replaced (the ids
    // then name other links).
    FabricLayout::Spacing m_spacing = FabricLayout::Spacing::Window;
    std::vector<int> m_emphasis;
    QString m_emphasisCaption;
    bool m_overlayOn = false;
    std::vector<double> m_jobOthers; ///< setJobLoads()
    double m_jobIteration = 0.0;
    std::unordered_map<int, double> m_overlay;
    QString m_overlayTitle;
    std::vector<int> m_failedServers, m_failedSlots;
    std::vector<double> m_measured; ///< per link id, NaN = not measured
    bool m_measuredShown = false;
    /// Repaints every cable (after the measured values or their display changed).
    void repaintCables();
};

} // namespace railyard
