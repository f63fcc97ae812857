#pragma once

#include "fabric/fabric.h"

#include <QPointF>
#include <QPolygonF>
#include <QRectF>
#include <QString>

#include <vector>

namespace railyard {

/**
 * Scene geometry of a Fabric, computed once from indices (server, GPU, NIC, rail, SU, pod):
 * super-spines on top, each pod below with its spine row, its leaves grouped by scalable unit
 * (rail-optimised: one leaf per rail above the SU) or one top-of-rack leaf above each rack, and
 * servers stacked in racks at the bottom. In a rail-optimised fabric NIC i of every server sits
 * in the same column, so a rail is a vertical band through the racks up to its leaf.
 *
 * Cables (NIC-leaf, leaf-spine, spine-super-spine) get polylines with their ends spread over
 * the switch edge in the order of the far ends, so the fan into one switch never crosses itself.
 * Server-internal links (NVLink, PCIe) are drawn by the server item from the local geometry.
 * Rack columns per scalable unit and pod columns are chosen so the whole picture is about as
 * wide as about 1.2 times its height (the view opens at its width, FabricView::fitDefault).
 */
class FabricLayout
{
public:
    // Server-local geometry (scene units = pixels at 100 % zoom).
    static constexpr double kChipWidth = 54.0;
    static constexpr double kChipHeight = 36.0;
    static constexpr double kChipGap = 5.0;
    static constexpr double kServerPad = 7.0;
    static constexpr double kNicHeight = 8.0;
    static constexpr double kBarHeight = 14.0;
    static constexpr double kSwitchHeight = 32.0;

    /// The cable trays' heights. A window's are compact, so at 1280x720 the view opens on the
    /// spines, the leaves and the first servers' chips in one picture; the stage's (presentation
    /// mode) are roomier, for the rows of large switch names staggered above and below the
    /// switches (StageLabelsItem) that a large hall's type needs.
    enum class Spacing { Window, Stage };
    static double spineTray(Spacing spacing) { return spacing == Spacing::Stage ? 150.0 : 100.0; }
    static double nicTray(Spacing spacing) { return spacing == Spacing::Stage ? 120.0 : 85.0; }

    explicit FabricLayout(const Fabric &fabric, Spacing spacing = Spacing::Window);
    Spacing spacing() const { return m_spacing; }

    QRectF bounds() const { return m_bounds; }

    // --- servers (local coordinates: origin at the server's top-left corner)
    QSizeF serverSize() const { return { m_serverWidth, m_serverHeight }; }
    QPointF serverPos(int server) const { return m_serverPos[static_cast<std::size_t>(server)]; }
    QRectF serverRect(int server) const { return { serverPos(server), serverSize() }; }
    QRectF slotRect(int gpu) const; ///< chip rectangle of GPU `gpu`, server-local
    QRectF nicRect(int nic) const; ///< server-local
    QRectF barRect() const; ///< the scale-up (NVSwitch) bar, also the drag handle
    double chipsTop() const { return kServerPad + kNicHeight + 10.0; }
    int chipsPerRow() const { return m_chipsPerRow; }
    int chipRows() const { return m_chipRows; }

    // --- switches and cables
    /// Rectangle of a leaf, spine or super-spine vertex; empty for other vertices.
    QRectF switchRect(int vertex) const;
    /// Polyline of a cable (id >> 1) of the leaf, spine or super-spine tier, from its lower end.
    const QPolygonF &cablePath(int cable) const;

    /** A column of stacked servers of one group (scalable unit or top-of-rack leaf). */
    struct Rack
    {
        QRectF rect;
        int group = 0;
        int firstServer = 0;
        int servers = 0;
    };
    /** A labelled frame drawn behind the items: a scalable unit, a ToR group or a pod. */
    struct Frame
    {
        QRectF rect;
        QString label;
        bool pod = false;
    };
    /** A rail's band through one rack (rail-optimised fabrics only). */
    struct Band
    {
        QRectF rect;
        int rail = 0;
    };
    /**
     * A rack-scale scale-up domain (fabric.scaleup_domain_servers > 1, e.g. an NVL72 rack):
     * one band around all of its trays, so the NVLink domain shows as one unit.
     */
    struct Domain
    {
        QRectF rect;
        int domain = 0;
        int firstServer = 0;
        int servers = 0;
        QString label;
    };
    /** One aggregated line of the zoomed-out view: several cables of one tier. */
    struct Bundle
    {
        QPolygonF path;
        std::vector<int> cables;
        Tier tier = Tier::Leaf;
    };
    const std::vector<Rack> &racks() const { return m_racks; }
    const std::vector<Frame> &frames() const { return m_frames; }
    const std::vector<Band> &bands() const { return m_bands; }
    /// Empty when every server is its own scale-up domain (the view looks as before).
    const std::vector<Domain> &domains() const { return m_domains; }
    const std::vector<Bundle> &bundles() const { return m_bundles; }
    int rackColumns() const { return m_rackColumns; }
    int podColumns() const { return m_podColumns; }

private:
    void chooseArrangement();
    void placeServersAndLeaves();
    void placeSpines();
    void placeDomains();
    void routeCables();
    void buildBundles();
    void setSwitchRect(int vertex, const QRectF &r);

    const Fabric &m_fabric;
    Spacing m_spacing = Spacing::Window;
    bool m_rail = true;
    int m_chipsPerRow = 8;
    int m_chipRows = 1;
    double m_serverWidth = 0.0;
    double m_serverHeight = 0.0;
    std::vector<double> m_nicX; ///< server-local centre x of each NIC

    // Grouping read from the fabric: group of a server, pod of a group, groups per pod.
    std::vector<int> m_groupOfServer;
    std::vector<int> m_groupFirstServer, m_groupServers, m_groupPod;
    std::vector<std::vector<int>> m_groupLeaves; ///< leaf indices of each group
    std::vector<std::vector<int>> m_podGroups;
    int m_maxGroupServers = 1;
    int m_rackColumns = 1;
    int m_perRack = 1;
    int m_podColumns = 1;
    double m_groupWidth = 0.0, m_podWidth = 0.0, m_podHeight = 0.0, m_podTop = 0.0;

    std::vector<QPointF> m_serverPos;
    std::vector<int> m_rowOfServer;
    std::vector<QRectF> m_groupRect;
    std::vector<QRectF> m_podRect;
    int m_firstSwitchVertex = 0;
    std::vector<QRectF> m_switchRect; ///< vertex - m_firstSwitchVertex
    std::vector<QPolygonF> m_cablePath; ///< per cable; empty for server-internal cables
    std::vector<Rack> m_racks;
    std::vector<int> m_rackOfServer;
    std::vector<Frame> m_frames;
    std::vector<Band> m_bands;
    std::vector<Domain> m_domains;
    std::vector<Bundle> m_bundles;
    QRectF m_bounds;
};

} // namespace railyard
