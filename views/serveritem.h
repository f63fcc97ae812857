#pragma once

#include <QColor>
#include <QGraphicsItem>
#include <QRgb>
#include <QString>

#include <vector>

namespace railyard {

class FabricItem;
class FabricLayout;
class ServerLinksItem;
class SlotItem;

/**
 * A server: its G GPU slots (SlotItem children), its NICs (rail-coloured), the scale-up
 * (NVSwitch) bar and the server-internal links it owns: GPU <-> NVSwitch and GPU <-> NIC (PCIe),
 * each coloured by the worse direction's utilisation. Keeping those 4·G short links inside the
 * server (rather than one item per link) keeps a 16,384-GPU scene small; a ServerLinksItem
 * child draws them, cached apart from the box so a new load repaints only the lines.
 * The bar, with the server's name, is the handle that drags all its ranks at once.
 * When the view is zoomed out the server paints itself as a block of chip-coloured cells.
 */
class ServerItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 1 };

    ServerItem(const FabricItem *root, int server);

    int type() const override { return Type; }
    int server() const { return m_server; }
    SlotItem *slotItem(int gpu) const { return m_slots[static_cast<std::size_t>(gpu)]; }
    int gpuCount() const { return static_cast<int>(m_slots.size()); }
    /// True when `localPos` lies on the drag handle (the NVSwitch bar with the name).
    bool isOnHandle(const QPointF &localPos) const;

    /// The load of its internal links changed: repaint them (they are read when painting).
    void syncWithModel();
    /// The child drawing its internal links (ServerLinksItem).
    QGraphicsItem *linksItem() const;
    /// Draws the internal links (ServerLinksItem's paint, or this server's when failed).
    void paintLinks(QPainter *painter, double lod) const;
    /// Route highlight of internal links: per GPU, bit i = dimension Dim(i), for the NVLink
    /// port (scaleUp = true) or the PCIe path.
    void setRouteMask(int gpu, bool scaleUp, unsigned mask);
    void clearRouteMasks();
    /// The report's bottleneck when it is one of this server's internal links (else -1).
    void setBottleneckLink(int link);
    /// Forward link ids of GPU `gpu`'s NVLink port and PCIe path.
    int scaleUpLink(int gpu) const { return m_scaleUpLinks[static_cast<std::size_t>(gpu)]; }
    int pcieLink(int gpu) const { return m_pcieLinks[static_cast<std::size_t>(gpu)]; }
    void setDropTarget(bool target);
    bool isDropTarget() const { return m_dropTarget; }

    /// Emphasis (FabricView::setEmphasis): GPU `gpu`'s NVLink port or PCIe path drawn with an
    /// outline; NIC `nic` or the NVSwitch bar outlined as an emphasised link's endpoint.
    void setLinkEmphasised(int gpu, bool scaleUp, bool emphasised);
    void setNicEmphasised(int nic, bool emphasised);
    void setBarEmphasised(bool emphasised);
    void clearEmphasis();
    bool isLinkEmphasised(int gpu, bool scaleUp) const;
    bool isNicEmphasised(int nic) const;
    bool isBarEmphasised() const { return m_barEmphasis; }
    /// The worse direction's utilisation of GPU `gpu`'s NVLink port or PCIe path, as drawn.
    double shownUtilisation(int gpu, bool scaleUp) const;
    /// Greyed and crossed out (FabricView::markFailed).
    void setFailed(bool failed);
    bool isFailed() const { return m_failed; }
    /// The overview's look of this server at `lod` device pixels per unit, in server-local
    /// coordinates: its block and, when failed, the veil (painted by OverviewBlocksItem).
    void paintOverviewBlock(QPainter *painter, double lod);
    /// What a chip shows in the overview: its rank's colour, or the empty slot's grey.
    static QRgb blockColour(const SlotItem *slot);
    /// The overview's block of a server whose chips show `chips` (one per GPU, blockColour),
    /// in server-local coordinates: the chips, or one block in their mean colour when a chip
    /// would be narrower than kSolidBelowPixels device pixels (`lod` pixels per unit).
    static void paintBlock(
        QPainter *painter, const FabricLayout &layout, const QRgb *chips, int gpus, double lod);
    /// Chips under this many device pixels apart are drawn as one image (paintBlock).
    static constexpr double kImageBelowPixels = 16.0;

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    /// The overview's block of this server (paintBlock with its chips' colours).
    void paintOverview(QPainter *painter, double lod);
    static constexpr double kSolidBelowPixels = 2.0;
    void paintFailed(QPainter *painter);
    void updateLinks();

    const FabricItem *m_root;
    int m_server;
    std::vector<SlotItem *> m_slots;
    ServerLinksItem *m_links = nullptr;
    std::vector<int> m_scaleUpLinks, m_pcieLinks;
    std::vector<unsigned char> m_scaleUpMask, m_pcieMask;
    int m_bottleneck = -1;
    bool m_dropTarget = false;
    std::vector<unsigned char> m_emphasis; ///< per GPU: bit 0 PCIe, bit 1 NVLink
    std::vector<unsigned char> m_nicEmphasis;
    bool m_barEmphasis = false;
    bool m_failed = false;
    QString m_name;

    QString m_device; ///< mixed devices: the device this server holds; empty otherwise
    int m_deviceIndex = 0; ///< into the fabric's devices (0 = the scenario's)

public:
    QString name() const { return m_name; }
    /// On a fabric of mixed devices (fabric.device_pools) the device it holds, drawn on its
    /// bar and tinting its box; empty on a fabric of one device kind.
    QString deviceName() const { return m_device; }
    /// The box's fill: white, or on a mixed fabric a light tint per device kind.
    QColor boxColour() const;
};

} // namespace railyard
