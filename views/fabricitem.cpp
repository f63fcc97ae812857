#include "fabricitem.h"

#include "bundleitem.h"
#include "cablelayeritem.h"
#include "colorscale.h"
#include "detailtile.h"
#include "document/scenariodocument.h"
#include "fabriclayout.h"
#include "framelabelsitem.h"
#include "linkitem.h"
#include "overviewblocksitem.h"
#include "serveritem.h"
#include "slotitem.h"
#include "switchitem.h"

#include <QGraphicsScene>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>
#include <utility>

namespace railyard {

FabricItem::FabricItem(ScenarioDocument *document, QGraphicsScene *scene)
    : m_document(document)
{
    setZValue(-10.0);
    setAcceptedMouseButtons(Qt::NoButton);
    setFlag(ItemUsesExtendedStyleOption); // exposedRect: paint only the visible frames/bands
    // The frames and rail bands never change with the load: every repaint of a drop blits
    // them instead of filling translucent bands and rounded frames again.
    setCacheMode(DeviceCoordinateCache);
    scene->addItem(this);
    connect(document, &ScenarioDocument::scenarioChanged, this, &FabricItem::onScenarioChanged);
    connect(document, &ScenarioDocument::mappingChanged, this, &FabricItem::onMappingChanged);
    connect(document, &ScenarioDocument::reportChanged, this, &FabricItem::onReportChanged);
    build();
}

FabricItem::~FabricItem()
{
    clear();
}

void FabricItem::leaveItemsToScene()
{
    m_owned.clear();
    clear(); // forgets the rest
}

int FabricItem::smallestCoordinatePixels() const
{
    int smallest = 0;
    // The stored size, not coordinateFont().pixelSize(): that makes and measures a QFont per
    // chip, a million of them when the view fits a 1,048,576-GPU fabric.
    for (const SlotItem *slot : std::as_const(m_slots))
        if (slot->rank() >= 0) {
            const int px = slot->coordinatePixels();
            smallest = smallest == 0 ? px : std::min(smallest, px);
        }
    return smallest;
}

SlotItem *FabricItem::slotItemOfRank(int rank) const
{
    const Mapping &m = m_document->mapping();
    if (rank < 0 || rank >= m.rankCount())
        return nullptr;
    return slotItem(m.slotOf(rank));
}

void FabricItem::build()
{
    QGraphicsScene *s = scene();
    prepareGeometryChange();
    m_fabric = m_document->engine().sharedFabric();
    m_layout = std::make_unique<FabricLayout>(*m_fabric, m_spacing);
    const Fabric &f = *m_fabric;

    // The detailed items go into tiles (detailtile.h) before the tiles enter the scene.
    DetailTileGrid tiles(m_layout->bounds(), f.servers());
    m_servers.reserve(f.servers());
    m_slots.reserve(f.slotCount());
    for (int server = 0; server < f.servers(); ++server) {
        auto *item = new ServerItem(this, server);
        item->setParentItem(tiles.at(m_layout->serverRect(server).center()));
        m_servers.insert(server, item);
        for (int g = 0; g < item->gpuCount(); ++g)
            m_slots.insert(server * f.gpusPerServer() + g, item->slotItem(g));
    }
    auto addSwitch = [&](int vertex) {
        auto *item = new SwitchItem(this, vertex);
        item->setParentItem(tiles.at(m_layout->switchRect(vertex).center()));
        m_switches.insert(vertex, item);
    };
    for (int i = 0; i < f.leafCount(); ++i)
        addSwitch(f.leafVertex(i));
    for (int i = 0; i < f.spineCount(); ++i)
        addSwitch(f.spineVertex(i));
    for (int i = 0; i < f.superSpineCount(); ++i)
        addSwitch(f.superSpineVertex(i));
    for (int i = 0; i < f.coreCount(); ++i)
        addSwitch(f.coreVertex(i));
    int cables[kTierCount] = {};
    for (int id = 0; id < f.linkCount(); id += 2)
        ++cables[index(f.link(id).tier)];
    // NIC cables are local to a rack: always items. Switch tiers of a very large fabric (16k
    // leaf-spine cables at 16,384 GPUs) are drawn as per-switch aggregates instead.
    m_cableItems = { true, cables[index(Tier::Spine)] <= kMaxCableItemsPerSwitchTier,
        cables[index(Tier::SuperSpine)] <= kMaxCableItemsPerSwitchTier };
    m_cableLayer = new CableLayerItem(this);
    m_cableLayer->setVisible(!m_overview);
    m_cableLayer->setRasterised(cacheMode() != NoCache);
    for (int id = 0; id < f.linkCount(); id += 2) {
        const Tier tier = f.link(id).tier;
        if (tier != Tier::Leaf && tier != Tier::Spine && tier != Tier::SuperSpine)
            continue;
        if (!hasCableItems(tier))
            continue;
        const QPolygonF &path = m_layout->cablePath(id / 2);
        auto *item = new LinkItem(this, id / 2, path);
        item->setParentItem(tiles.at(path.first())); // its lower end: a NIC's or a leaf's
        m_links.insert(id / 2, item);
        m_cableLayer->addCable(item, path);
    }
    m_detail = new DetailTile;
    for (DetailTile *tile : tiles.take()) {
        tile->fitChildren();
        tile->setParentItem(m_detail);
    }
    m_detail->fitChildren();
    m_detail->setShown(!m_overview);
    s->addItem(m_detail); // with its tiles and their items
    m_owned.push_back(m_detail);
    // What Qt does on its first visit of the items, done here once instead of in the first
    // detailed frame: each parent's children in stacking order (childItems() sorts them) and
    // each item's scene transform.
    std::function<void(QGraphicsItem *)> visit = [&visit](QGraphicsItem *item) {
        item->sceneTransform();
        for (QGraphicsItem *child : item->childItems())
            visit(child);
    };
    visit(m_detail);
    s->addItem(m_cableLayer);
    m_owned.push_back(m_cableLayer);
    batchBands();
    m_labels = new FrameLabelsItem(this);
    s->addItem(m_labels);
    m_owned.push_back(m_labels);
    m_cableLine.assign(static_cast<std::size_t>(f.linkCount() / 2), -1);
    for (Tier tier : { Tier::Leaf, Tier::Spine, Tier::SuperSpine }) {
        auto *item = new BundleItem(this, tier);
        item->setVisible(m_overview || !hasCableItems(tier));
        s->addItem(item);
        m_owned.push_back(item);
        m_bundles[static_cast<std::size_t>(index(tier) - index(Tier::Leaf))] = item;
        for (int i = 0; i < item->count(); ++i) {
            for (int cable :
                m_layout->bundles()[static_cast<std::size_t>(item->layoutIndex(i))].cables)
                m_cableLine[static_cast<std::size_t>(cable)] = i;
        }
    }
    m_blocks = new OverviewBlocksItem(this);
    m_blocks->setVisible(m_overview);
    s->addItem(m_blocks);
    m_owned.push_back(m_blocks);
    m_bottleneck = -1;
    m_focusRank = -1;
    syncChips(MappingChange { {}, true, {} });
    refreshFocus();
    recolour(ReportChange { {}, true, false }, true);
}

void FabricItem::clear()
{
    m_emphasis.clear();
    m_emphasisCaption.clear();
    m_overlayOn = false;
    m_overlay.clear();
    m_overlayTitle.clear();
    m_failedServers.clear();
    m_failedSlots.clear();
    m_measured.clear(); // the ids name the old fabric's links
    m_litSlots.clear();
    m_litLinks.clear();
    m_litServers.clear();
    // The items leave the scene last-made first: QGraphicsScene finds and unlinks the newest
    // top-level item and index entry at once, where an arbitrary order (the hashes') costs a
    // search of 150,000 items per item at 131,072 GPUs (seconds to close or rebuild).
    for (auto it = m_owned.rbegin(); it != m_owned.rend(); ++it)
        delete *it; // the detail tile deletes its tiles and their items
    m_owned.clear();
    m_detail = nullptr;
    m_blocks = nullptr;
    m_cableLayer = nullptr;
    m_links.clear();
    m_switches.clear();
    m_slots.clear(); // children of the servers
    m_servers.clear();
    m_litBundles.clear();
    m_bundles.fill(nullptr);
    m_labels = nullptr;
}

void FabricItem::onScenarioChanged()
{
    // A workload or degree edit keeps the shared Fabric: keep the items, re-read the chips.
    // The report change that follows recolours.
    if (m_document->engine().sharedFabric() == m_fabric) {
        m_focusRank = -1;
        syncChips(MappingChange { {}, true, {} });
        refreshFocus();
        Q_EMIT legendChanged();
        return;
    }
    clear();
    build();
    update();
    Q_EMIT rebuilt();
}

void FabricItem::setSpacing(FabricLayout::Spacing spacing)
{
    if (spacing == m_spacing)
        return;
    m_spacing = spacing;
    // clear() forgets the drawing's inputs with its items: the same fabric keeps them.
    const std::vector<int> emphasis = m_emphasis;
    const QString caption = m_emphasisCaption;
    const bool overlayOn = m_overlayOn;
    std::unordered_map<int, double> overlay = m_overlay;
    const QString overlayTitle = m_overlayTitle;
    const std::vector<int> failedServers = m_failedServers, failedSlots = m_failedSlots;
    clear();
    build();
    if (!failedServers.empty() || !failedSlots.empty())
        markFailed(failedServers, failedSlots);
    if (overlayOn)
        setLinkOverlay(std::move(overlay), overlayTitle);
    if (!emphasis.empty())
        setEmphasis(emphasis, caption);
    update();
    Q_EMIT rebuilt();
}

void FabricItem::onMappingChanged(const MappingChange &change)
{
    syncChips(change);
    refreshFocus();
    recolour(change.report, false);
}

void FabricItem::onReportChanged(const ReportChange &change)
{
    recolour(change, false);
}

void FabricItem::updateOverview()
{
    // Hidden, the blocks catch up when the overview comes back (setOverview): reading 131,072
    // chips there on every zoom out of the detailed view was a sixth of that frame.
    if (m_overview && m_blocks)
        m_blocks->syncAll();
    else
        m_blocksStale = true;
}

void FabricItem::syncChips(const MappingChange &change)
{
    if (change.allRanks) {
        for (SlotItem *slot : std::as_const(m_slots))
            slot->syncWithModel();
        updateOverview();
        return;
    }
    for (const MovedRank &m : change.moves) {
        for (int slot : { m.from, m.to }) {
            if (SlotItem *item = slotItem(slot)) {
                item->syncWithModel();
                // The blocks show the chip colours: re-read (and, shown, repaint) only the
                // moved chips' servers; hidden and stale, they re-read all when shown.
                if (m_blocks && (m_overview || !m_blocksStale))
                    m_blocks->syncServer(static_cast<ServerItem *>(item->parentItem())->server());
            }
        }
    }
}

void FabricItem::recolour(const ReportChange &change, bool force)
{
    // Not the overview's blocks: they show chips and marks, no link load.
    ++m_recolours;
    const CostReport &r = m_document->report();
    const int links = static_cast<int>(r.links.size());
    // The relative scale spans 0 .. the bottleneck (the shown report's most utilised link).
    double max
        = r.bottleneckLink >= 0 && r.bottleneckLink < links ? r.utilisation(r.bottleneckLink) : 0.0;
    if (!m_jobOthers.empty()) { // every job's load: the busiest link over all of them
        max = 0.0;
        for (int l = 0; l < links; ++l)
            max = std::max(max, shownUtilisation(l));
    }
    m_maxUtilisation = max > 0.0 ? max : 1.0;
    // A colour is busy time / (iteration time x range). Unless that product moved, only the
    // links whose load moved look different; an overlay's colours follow no report.
    const double scale = m_overlayOn ? 1.0 : r.iterationTime * maxUtilisation();
    // With other jobs on the fabric the range follows all of them: repaint every link.
    const bool everything
        = force || change.allLinks || scale != m_colourScale || !m_jobOthers.empty();
    m_colourScale = scale;

    if (m_bottleneck != r.bottleneckLink) {
        // The aggregated lines cache their pixels: the old and the new bottleneck's line
        // repaint their glow.
        for (int id : { m_bottleneck, r.bottleneckLink }) {
            if (id < 0 || id >= m_fabric->linkCount())
                continue;
            const int line = m_cableLine[static_cast<std::size_t>(id >> 1)];
            if (BundleItem *bundle = line >= 0 ? bundleItem(m_fabric->link(id).tier) : nullptr)
                bundle->syncLine(line);
        }
        if (m_bottleneck >= 0) {
            if (LinkItem *old = linkItem(m_bottleneck))
                old->setBottleneck(false);
            for (ServerItem *server : std::as_const(m_servers))
                server->setBottleneckLink(-1);
        }
        m_bottleneck = r.bottleneckLink;
        if (m_bottleneck >= 0 && m_bottleneck < links) {
            if (LinkItem *item = linkItem(m_bottleneck)) {
                item->setBottleneck(true);
            } else {
                const FabricLink &l = m_fabric->link(m_bottleneck);
                const FabricNode &a = m_fabric->node(l.src);
                const FabricNode &b = m_fabric->node(l.dst);
                if (ServerItem *server = serverItem(a.server >= 0 ? a.server : b.server))
                    server->setBottleneckLink(m_bottleneck);
            }
        }
    }
    if (everything) {
        if (m_cableLayer)
            m_cableLayer->update();
        for (ServerItem *server : std::as_const(m_servers))
            server->syncWithModel();
        for (BundleItem *item : m_bundles) {
            if (item)
                item->syncWithModel();
        }
    } else if (!m_overlayOn) {
        recolourLinks(change.links);
    }
    Q_EMIT legendChanged();
}

void FabricItem::recolourLinks(const std::vector<int> &links)
{
    std::vector<int> servers;
    for (int id : links) {
        if (id < 0 || id >= m_fabric->linkCount())
            continue;
        const FabricLink &l = m_fabric->link(id);
        if (l.tier == Tier::ScaleUp || l.tier == Tier::Pcie) {
            const int gpu = m_fabric->node(l.src).kind == NodeKind::Gpu ? l.src : l.dst;
            servers.push_back(m_fabric->node(gpu).server);
            continue;
        }
        if (LinkItem *item = m_links.value(id >> 1))
            item->syncWithModel();
        const int line = m_cableLine[static_cast<std::size_t>(id >> 1)];
        if (BundleItem *bundle = line >= 0 ? bundleItem(l.tier) : nullptr)
            bundle->syncLine(line);
    }
    std::sort(servers.begin(), servers.end());
    servers.erase(std::unique(servers.begin(), servers.end()), servers.end());
    for (int server : servers) {
        if (ServerItem *item = serverItem(server))
            item->syncWithModel();
    }
}

void FabricItem::setLoadScale(LoadScale scale)
{
    if (scale == m_loadScale)
        return;
    m_loadScale = scale;
    recolour(ReportChange {}, true);
}

void FabricItem::setColourBy(QChar coordinate)
{
    const QChar c = coordinate.toLower();
    if (!QStringLiteral("dptce").contains(c) || c == m_colourBy)
        return;
    m_colourBy = c;
    for (SlotItem *slot : std::as_const(m_slots))
        slot->syncWithModel();
    updateOverview();
    Q_EMIT legendChanged();
}

int FabricItem::colourValueCount() const
{
    const ParallelDegrees &d = m_document->engine().layout().degrees();
    switch (m_colourBy.toLatin1()) {
    case 'd':
        return d.dp;
    case 'p':
        return d.pp;
    case 'c':
        return d.cp;
    case 'e':
        return d.ep;
    default:
        return d.tp;
    }
}

QColor FabricItem::chipColour(int rank) const
{
    const RankCoord c = m_document->engine().layout().coord(rank);
    int value = c.t;
    switch (m_colourBy.toLatin1()) {
    case 'd':
        value = c.d;
        break;
    case 'p':
        value = c.p;
        break;
    case 'c':
        value = c.c;
        break;
    case 'e':
        value = c.e;
        break;
    default:
        break;
    }
    return ColorScale::coordinateColour(value, colourValueCount());
}

void FabricItem::setOverview(bool overview)
{
    if (overview == m_overview)
        return;
    m_overview = overview;
    // In the overview one item paints every server block and switch (overviewblocksitem.h):
    // at 131,072 GPUs the scene's per-item visit, transform and pixmap cache for 16,384
    // servers and thousands of switches were most of a frame (bench_gui's BM_Paint131k). The
    // detailed items are hidden at once, by the opacity of the tile holding their tiles, where
    // a setVisible() per item cost 0.2 s at that size (detailtile.h).
    if (m_detail)
        m_detail->setShown(!overview);
    // The whole picture changes: a full scene update lets Qt's dirty-item pass reset the tiles
    // instead of measuring where each of 170,000 items was and will be painted.
    if (QGraphicsScene *s = scene())
        s->update();
    if (m_cableLayer)
        m_cableLayer->setVisible(!overview);
    for (BundleItem *item : m_bundles) {
        if (item)
            item->setVisible(overview || !hasCableItems(item->tier()));
    }
    if (m_blocks) {
        m_blocks->setVisible(overview);
        if (overview && std::exchange(m_blocksStale, false))
            m_blocks->syncAll(); // it missed changes made while it was hidden
    }
    update();
}

void FabricItem::setCaching(bool caching)
{
    const CacheMode mode = caching ? DeviceCoordinateCache : NoCache;
    setCacheMode(mode);
    if (m_cableLayer)
        m_cableLayer->setRasterised(caching); // QPainter strokes: vectors in an SVG
    for (ServerItem *server : std::as_const(m_servers)) {
        server->setCacheMode(mode);
        server->linksItem()->setCacheMode(mode);
    }
    for (SlotItem *slot : std::as_const(m_slots))
        slot->setCacheMode(mode);
    for (SwitchItem *sw : std::as_const(m_switches))
        sw->setCacheMode(mode);
    if (m_blocks)
        m_blocks->setCacheMode(mode);
    for (BundleItem *item : m_bundles) {
        if (item)
            item->setCacheMode(mode);
    }
}

void FabricItem::setFocusRank(int rank)
{
    if (rank == m_focusRank)
        return;
    m_focusRank = rank;
    refreshFocus();
}

BundleItem *FabricItem::bundleItem(Tier tier) const
{
    const int i = index(tier) - index(Tier::Leaf);
    return i >= 0 && i < 3 ? m_bundles[static_cast<std::size_t>(i)] : nullptr;
}

bool FabricItem::hasCableItems(Tier tier) const
{
    const int i = index(tier) - index(Tier::Leaf);
    return i >= 0 && i < 3 && m_cableItems[static_cast<std::size_t>(i)];
}

void FabricItem::refreshFocus()
{
    // Not the overview's blocks: a chip's colour does not show focus (its outline does, and the
    // chips are hidden there); the aggregated lines show the partners' routes.
    for (SlotItem *slot : m_litSlots) {
        slot->setPartnerMask(0);
        slot->setFocused(false);
    }
    for (LinkItem *link : m_litLinks)
        link->setRouteMask(0);
    for (ServerItem *server : m_litServers)
        server->clearRouteMasks();
    for (BundleItem *bundle : m_litBundles)
        bundle->clearRouteMasks();
    m_litBundles.clear();
    m_litSlots.clear();
    m_litLinks.clear();
    m_litServers.clear();

    const Mapping &mapping = m_document->mapping();
    if (m_focusRank < 0 || m_focusRank >= mapping.rankCount())
        return;
    if (SlotItem *self = slotItem(mapping.slotOf(m_focusRank))) {
        self->setFocused(true);
        m_litSlots.push_back(self);
    }
    // The model says whom the rank talks to and over which links; this only draws it.
    const PartnerRoutes routes = m_document->partnerRoutes(m_focusRank);
    std::unordered_map<int, unsigned> cableMask;
    std::map<std::tuple<int, int, bool>, unsigned> internalMask; // (server, gpu, scale-up)
    for (const auto &[link, mask] : routes.links) {
        const FabricLink &l = m_fabric->link(link);
        if (l.tier == Tier::ScaleUp || l.tier == Tier::Pcie) {
            const int gpu = m_fabric->node(l.src).kind == NodeKind::Gpu ? l.src : l.dst;
            const FabricNode &n = m_fabric->node(gpu);
            internalMask[{ n.server, n.local, l.tier == Tier::ScaleUp }] |= mask;
        } else {
            cableMask[link >> 1] |= mask;
        }
    }
    for (const auto &[slot, mask] : routes.slots) {
        if (SlotItem *item = slotItem(slot)) {
            item->setPartnerMask(mask);
            m_litSlots.push_back(item);
        }
    }
    std::unordered_map<BundleItem *, std::unordered_map<int, unsigned>> lineMask;
    for (const auto &[cable, mask] : cableMask) {
        if (LinkItem *item = m_links.value(cable)) {
            item->setRouteMask(mask);
            m_litLinks.push_back(item);
        }
        // The aggregates too (the overview, and switch tiers drawn as aggregates).
        const int line = m_cableLine[static_cast<std::size_t>(cable)];
        if (line >= 0)
            lineMask[bundleItem(m_fabric->link(2 * cable).tier)][line] |= mask;
    }
    for (const auto &[bundle, lines] : lineMask) {
        for (const auto &[line, mask] : lines)
            bundle->setRouteMask(line, mask);
        m_litBundles.push_back(bundle);
    }
    for (const auto &[key, mask] : internalMask) {
        if (ServerItem *item = serverItem(std::get<0>(key))) {
            item->setRouteMask(std::get<1>(key), std::get<2>(key), mask);
            m_litServers.push_back(item);
        }
    }
}

} // namespace railyard
