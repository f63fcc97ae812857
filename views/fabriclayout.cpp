#include "fabriclayout.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <utility>

namespace railyard {

namespace {

constexpr double kRackGap = 34.0; // between rack columns of one group
constexpr double kServerGap = 16.0; // between stacked servers (the cables show through it)
constexpr double kGroupGap = 90.0; // between scalable units / ToR groups
constexpr double kPodGap = 170.0;
constexpr double kSuperTray = 230.0; // spines <-> super-spines
constexpr double kFrameMargin = 14.0;
constexpr double kFrameLabel = 22.0;
constexpr double kRiserGap = 9.0; // cables leave a rack this far above its top server
// Narrower than a typical view: the window opens at the fabric's width (FabricView::fitDefault),
// and fewer racks across give each chip the width its (d,p,t) needs to be read (the seed's 16
// servers in 2 rack columns, 16 chips across, rather than 3).
constexpr double kTargetAspect = 1.2;

/// Spreads `count` switches evenly over [left, left + width) on one row.
QRectF rowSlot(double left, double width, int count, int i, double y, double maxWidth)
{
    const double slot = width / std::max(1, count);
    const double w = std::clamp(slot - 14.0, 6.0, maxWidth);
    return { left + slot * (i + 0.5) - w / 2.0, y, w, FabricLayout::kSwitchHeight };
}

} // namespace

FabricLayout::FabricLayout(const Fabric &fabric, Spacing spacing)
    : m_fabric(fabric)
    , m_spacing(spacing)
{
    m_rail = fabric.railCount() > 0;
    const int gpus = fabric.gpusPerServer();
    m_chipsPerRow = std::min(gpus, 8);
    m_chipRows = (gpus + m_chipsPerRow - 1) / m_chipsPerRow;
    m_serverWidth = 2 * kServerPad + m_chipsPerRow * kChipWidth + (m_chipsPerRow - 1) * kChipGap;
    m_serverHeight = barRect().bottom() + 5.0;

    // NIC i sits above the GPUs bound to it (GPU i <-> NIC i by default), so rail i is a column.
    const int nics = fabric.nicsPerServer();
    m_nicX.assign(static_cast<std::size_t>(nics), 0.0);
    std::vector<int> bound(static_cast<std::size_t>(nics), 0);
    for (int g = 0; g < gpus; ++g) {
        const auto n = static_cast<std::size_t>(fabric.nicOfGpu(g));
        m_nicX[n] += slotRect(g).center().x();
        ++bound[n];
    }
    bool crowded = false;
    for (int n = 0; n < nics; ++n) {
        const auto i = static_cast<std::size_t>(n);
        m_nicX[i] = bound[i] > 0 ? m_nicX[i] / bound[i] : -1.0;
        crowded = crowded || bound[i] == 0;
    }
    std::vector<double> sorted = m_nicX;
    std::sort(sorted.begin(), sorted.end());
    for (std::size_t i = 1; i < sorted.size(); ++i)
        crowded = crowded || sorted[i] - sorted[i - 1] < 12.0;
    if (crowded) { // unusual affinities: spread the NICs evenly instead
        const double inner = m_serverWidth - 2 * kServerPad;
        for (int n = 0; n < nics; ++n)
            m_nicX[static_cast<std::size_t>(n)] = kServerPad + inner * (n + 0.5) / nics;
    }

    // Groups: a server's group is the scalable unit (rail) or the ToR leaf of its first NIC.
    const int servers = fabric.servers();
    m_groupOfServer.resize(static_cast<std::size_t>(servers));
    for (int s = 0; s < servers; ++s) {
        int leaf = -1; // the leaf of its first cabled NIC (every server has one)
        for (int nic = 0; leaf < 0 && nic < nics; ++nic)
            leaf = fabric.leafOfNic(s, nic);
        const FabricNode &node = fabric.node(fabric.leafVertex(leaf));
        const int group = m_rail ? node.su : leaf;
        m_groupOfServer[static_cast<std::size_t>(s)] = group;
        if (group >= static_cast<int>(m_groupFirstServer.size())) {
            m_groupFirstServer.resize(static_cast<std::size_t>(group) + 1, s);
            m_groupServers.resize(static_cast<std::size_t>(group) + 1, 0);
            m_groupPod.resize(static_cast<std::size_t>(group) + 1, 0);
        }
        ++m_groupServers[static_cast<std::size_t>(group)];
        m_groupPod[static_cast<std::size_t>(group)] = node.pod;
    }
    m_groupLeaves.resize(m_groupFirstServer.size());
    for (int l = 0; l < fabric.leafCount(); ++l) {
        const FabricNode &node = fabric.node(fabric.leafVertex(l));
        const int group = m_rail ? node.su : l;
        if (group >= 0 && group < static_cast<int>(m_groupLeaves.size()))
            m_groupLeaves[static_cast<std::size_t>(group)].push_back(l);
    }
    m_podGroups.resize(static_cast<std::size_t>(std::max(1, fabric.podCount())));
    for (std::size_t g = 0; g < m_groupPod.size(); ++g)
        m_podGroups[static_cast<std::size_t>(m_groupPod[g])].push_back(static_cast<int>(g));
    m_maxGroupServers = *std::max_element(m_groupServers.begin(), m_groupServers.end());

    m_firstSwitchVertex = fabric.leafVertex(0);
    const int switches
        = fabric.leafCount() + fabric.spineCount() + fabric.superSpineCount() + fabric.coreCount();
    m_switchRect.resize(static_cast<std::size_t>(switches));
    m_cablePath.resize(static_cast<std::size_t>(fabric.linkCount() / 2));

    chooseArrangement();
    placeServersAndLeaves();
    placeDomains();
    placeSpines();
    routeCables();
    buildBundles();
}

QRectF FabricLayout::slotRect(int gpu) const
{
    const int col = gpu % m_chipsPerRow, row = gpu / m_chipsPerRow;
    return { kServerPad + col * (kChipWidth + kChipGap),
        chipsTop() + row * (kChipHeight + kChipGap), kChipWidth, kChipHeight };
}

QRectF FabricLayout::nicRect(int nic) const
{
    const double x = m_nicX[static_cast<std::size_t>(nic)];
    return { x - 7.0, kServerPad, 14.0, kNicHeight };
}

QRectF FabricLayout::barRect() const
{
    const double top = chipsTop() + m_chipRows * kChipHeight + (m_chipRows - 1) * kChipGap + 7.0;
    return { kServerPad, top, m_serverWidth - 2 * kServerPad, kBarHeight };
}

QRectF FabricLayout::switchRect(int vertex) const
{
    const int i = vertex - m_firstSwitchVertex;
    if (i < 0 || i >= static_cast<int>(m_switchRect.size()))
        return {};
    return m_switchRect[static_cast<std::size_t>(i)];
}

const QPolygonF &FabricLayout::cablePath(int cable) const
{
    return m_cablePath[static_cast<std::size_t>(cable)];
}

void FabricLayout::setSwitchRect(int vertex, const QRectF &r)
{
    m_switchRect[static_cast<std::size_t>(vertex - m_firstSwitchVertex)] = r;
}

void FabricLayout::chooseArrangement()
{
    // Try every rack-column count and pod-column count; keep the one closest to kTargetAspect,
    // preferring racks of equal height.
    const int n = m_maxGroupServers;
    const int pods = static_cast<int>(m_podGroups.size());
    std::size_t groupsPerPod = 1;
    for (const auto &g : m_podGroups)
        groupsPerPod = std::max(groupsPerPod, g.size());
    const bool threeTier = m_fabric.superSpineCount() > 0;
    // Four tiers: the cores' row and tray above the super-spines'.
    const int upperRows = (threeTier ? 1 : 0) + (m_fabric.coreCount() > 0 ? 1 : 0);
    double best = 1e300;
    for (int c = 1; c <= n; ++c) {
        const int perRack = (n + c - 1) / c;
        if (c > 1 && (perRack - 1) * c >= n)
            continue; // an empty rack column
        const double rackH = perRack * m_serverHeight + (perRack - 1) * kServerGap;
        const double groupW = c * m_serverWidth + (c - 1) * kRackGap;
        const double podW = static_cast<double>(groupsPerPod) * groupW
            + static_cast<double>(groupsPerPod - 1) * kGroupGap;
        const double podH
            = kSwitchHeight * 2 + spineTray(m_spacing) + nicTray(m_spacing) + rackH + kFrameLabel;
        for (int pc = 1; pc <= pods; ++pc) {
            const int rows = (pods + pc - 1) / pc;
            if (pc > 1 && (rows - 1) * pc >= pods)
                continue;
            const double w = pc * podW + (pc - 1) * kPodGap;
            const double h
                = rows * podH + (rows - 1) * kPodGap + upperRows * (kSwitchHeight + kSuperTray);
            double score = std::abs(std::log(w / h / kTargetAspect));
            if (n % c != 0)
                score += 0.15;
            if (score < best) {
                best = score;
                m_rackColumns = c;
                m_perRack = perRack;
                m_podColumns = pc;
                m_groupWidth = groupW;
                m_podWidth = podW;
                m_podHeight = podH;
            }
        }
    }
    m_podTop = upperRows * (kSwitchHeight + kSuperTray);
}

void FabricLayout::placeServersAndLeaves()
{
    const Fabric &f = m_fabric;
    const int servers = f.servers();
    m_serverPos.resize(static_cast<std::size_t>(servers));
    m_rowOfServer.resize(static_cast<std::size_t>(servers));
    m_rackOfServer.resize(static_cast<std::size_t>(servers));
    m_groupRect.resize(m_groupFirstServer.size());
    m_podRect.resize(m_podGroups.size());

    for (std::size_t p = 0; p < m_podGroups.size(); ++p) {
        const int pi = static_cast<int>(p);
        const double podX = (pi % m_podColumns) * (m_podWidth + kPodGap);
        const double podY = m_podTop + (pi / m_podColumns) * (m_podHeight + kPodGap);
        const double leafY = podY + kSwitchHeight + spineTray(m_spacing);
        const double rackY = leafY + kSwitchHeight + nicTray(m_spacing);
        double right = podX;
        for (std::size_t k = 0; k < m_podGroups[p].size(); ++k) {
            const int g = m_podGroups[p][k];
            const auto gi = static_cast<std::size_t>(g);
            const double gx = podX + static_cast<double>(k) * (m_groupWidth + kGroupGap);
            const int first = m_groupFirstServer[gi], count = m_groupServers[gi];
            const int columns = (count + m_perRack - 1) / m_perRack;
            const double width = columns * m_serverWidth + (columns - 1) * kRackGap;
            double bottom = rackY;
            for (int col = 0; col < columns; ++col) {
                Rack rack;
                rack.group = g;
                rack.firstServer = first + col * m_perRack;
                rack.servers = std::min(m_perRack, count - col * m_perRack);
                const double x = gx + col * (m_serverWidth + kRackGap);
                for (int r = 0; r < rack.servers; ++r) {
                    const auto s = static_cast<std::size_t>(rack.firstServer + r);
                    m_serverPos[s] = { x, rackY + r * (m_serverHeight + kServerGap) };
                    m_rowOfServer[s] = r;
                    m_rackOfServer[s] = static_cast<int>(m_racks.size());
                }
                const double h = rack.servers * m_serverHeight + (rack.servers - 1) * kServerGap;
                rack.rect = QRectF(x, rackY, m_serverWidth, h);
                bottom = std::max(bottom, rackY + h);
                if (m_rail) {
                    const double spacing = std::min(4.0, (kChipWidth - 14.0) / m_perRack);
                    const double bandW = spacing * m_perRack + 10.0;
                    for (int nic = 0; nic < f.nicsPerServer(); ++nic)
                        m_bands.push_back(
                            { QRectF(x + m_nicX[static_cast<std::size_t>(nic)] - bandW / 2.0,
                                  rackY - kRiserGap - 4.0, bandW, h + kRiserGap + 4.0),
                                nic });
                }
                m_racks.push_back(rack);
            }
            // Leaves: one per rail spread over the SU, or the ToR leaf centred above its rack.
            const auto &leaves = m_groupLeaves[gi];
            for (std::size_t l = 0; l < leaves.size(); ++l) {
                const int leafCount = static_cast<int>(leaves.size());
                QRectF r = rowSlot(gx, width, leafCount, static_cast<int>(l), leafY,
                    m_rail ? 170.0 : std::min(width - 20.0, 240.0));
                setSwitchRect(f.leafVertex(leaves[l]), r);
            }
            m_groupRect[gi] = QRectF(gx - kFrameMargin, leafY - kFrameLabel - 6.0,
                width + 2 * kFrameMargin, bottom - leafY + kFrameLabel + 6.0 + kFrameMargin);
            QString label = f.railOnly()
                ? QStringLiteral("rail-only · servers %1–%2 · no spine: cross-rail traffic "
                                 "crosses NVLink first")
                      .arg(first)
                      .arg(first + count - 1)
                : m_rail
                ? QStringLiteral("SU %1 · servers %2–%3").arg(g).arg(first).arg(first + count - 1)
                : QStringLiteral("ToR %1 · servers %2–%3").arg(g).arg(first).arg(first + count - 1);
            // Several planes: every leaf row holds each plane's leaves in turn (plane-major).
            if (f.planeCount() > 1)
                label += QStringLiteral(" · %1 planes, leaves plane by plane").arg(f.planeCount());
            m_frames.push_back({ m_groupRect[gi], label, false });
            right = gx + width;
        }
        double podBottom = rackY;
        for (int g : m_podGroups[p])
            podBottom = std::max(podBottom, m_groupRect[static_cast<std::size_t>(g)].bottom());
        m_podRect[p] = QRectF(podX - 2 * kFrameMargin, podY - kFrameLabel - 10.0,
            right - podX + 4 * kFrameMargin,
            podBottom + kFrameMargin - (podY - kFrameLabel - 10.0));
        if (m_podGroups.size() > 1)
            m_frames.push_back({ m_podRect[p], QStringLiteral("pod %1").arg(pi), true });
    }
}

void FabricLayout::placeDomains()
{
    // A domain is consecutive servers; its band is the bounding box of their rectangles with a
    // margin inside the gaps between servers and racks (kServerGap, kRackGap), so bands of
    // neighbouring domains never overlap and the group frame still encloses them.
    const Fabric &f = m_fabric;
    const int per = f.scaleUpDomainServers();
    if (per <= 1)
        return;
    const double margin = std::min(kServerGap, kRackGap) / 2.0 - 1.0;
    for (int d = 0; d < f.scaleUpDomainCount(); ++d) {
        Domain dom;
        dom.domain = d;
        dom.firstServer = d * per;
        dom.servers = per;
        QRectF r;
        for (int s = dom.firstServer; s < dom.firstServer + per; ++s)
            r = r.isNull() ? serverRect(s) : r.united(serverRect(s));
        dom.rect = r.adjusted(-margin, -margin, margin, margin);
        dom.label = QStringLiteral("%1 · NVLink domain · %2 GPUs")
                        .arg(QString::fromStdString(f.scaleUpDomainName(d)))
                        .arg(f.scaleUpDomainGpus());
        m_domains.push_back(std::move(dom));
    }
}

void FabricLayout::placeSpines()
{
    const Fabric &f = m_fabric;
    // Spines: a row above each pod's leaves, spanning the pod's groups.
    std::vector<std::vector<int>> podSpines(m_podGroups.size());
    for (int s = 0; s < f.spineCount(); ++s)
        podSpines[static_cast<std::size_t>(f.node(f.spineVertex(s)).pod)].push_back(s);
    double right = 0.0;
    for (std::size_t p = 0; p < m_podGroups.size(); ++p) {
        const QRectF &pod = m_podRect[p];
        const double left = pod.left() + 2 * kFrameMargin;
        const double width = pod.width() - 4 * kFrameMargin;
        const double y = pod.top() + kFrameLabel + 10.0;
        const auto &list = podSpines[p];
        for (std::size_t i = 0; i < list.size(); ++i)
            setSwitchRect(f.spineVertex(list[i]),
                rowSlot(left, width, static_cast<int>(list.size()), static_cast<int>(i), y, 170.0));
        right = std::max(right, pod.right());
    }
    // Super-spines: one row over everything, plane-major (vertex order); cores one row and
    // tray higher (four tiers).
    const int supers = f.superSpineCount();
    const double superTop = m_podTop - kSwitchHeight - kSuperTray - kFrameLabel;
    for (int s = 0; s < supers; ++s)
        setSwitchRect(f.superSpineVertex(s), rowSlot(0.0, right, supers, s, superTop, 170.0));
    const int cores = f.coreCount();
    for (int c = 0; c < cores; ++c)
        setSwitchRect(f.coreVertex(c),
            rowSlot(0.0, right, cores, c, superTop - kSwitchHeight - kSuperTray, 170.0));
    // Bounds: everything drawn (pod frames only exist with more than one pod), plus a margin.
    QRectF all;
    for (const QRectF &r : m_groupRect)
        all |= r;
    for (const QRectF &r : m_switchRect)
        all |= r;
    if (m_podRect.size() > 1) {
        for (const QRectF &r : m_podRect)
            all |= r;
    }
    m_bounds = all.adjusted(-8.0, -8.0, 8.0, 8.0);
}

void FabricLayout::routeCables()
{
    const Fabric &f = m_fabric;
    // Far-end x of every cable at each switch, per side; ends are then spread in that order.
    const std::size_t switches = m_switchRect.size();
    std::vector<std::vector<std::pair<double, int>>> down(switches), up(switches);
    auto sw = [this](int vertex) { return static_cast<std::size_t>(vertex - m_firstSwitchVertex); };
    const double spacing = std::min(4.0, (kChipWidth - 14.0) / m_perRack);
    for (int id = 0; id < f.linkCount(); id += 2) {
        const FabricLink &l = f.link(id);
        const int cable = id / 2;
        QPolygonF &path = m_cablePath[static_cast<std::size_t>(cable)];
        if (l.tier == Tier::Leaf) {
            const FabricNode &nic = f.node(l.src);
            const auto s = static_cast<std::size_t>(nic.server);
            const double offset = (m_rowOfServer[s] - (m_perRack - 1) / 2.0) * spacing;
            const QPointF at = m_serverPos[s]
                + QPointF(m_nicX[static_cast<std::size_t>(nic.local)] + offset, kServerPad);
            const double riser
                = m_racks[static_cast<std::size_t>(m_rackOfServer[s])].rect.top() - kRiserGap;
            path << at << QPointF(at.x(), riser) << QPointF();
            down[sw(l.dst)].push_back({ at.x(), cable });
        } else if (l.tier == Tier::Spine || l.tier == Tier::SuperSpine) {
            path << QPointF() << QPointF();
            up[sw(l.src)].push_back({ switchRect(l.dst).center().x(), cable });
            down[sw(l.dst)].push_back({ switchRect(l.src).center().x(), cable });
        }
    }
    for (std::size_t i = 0; i < switches; ++i) {
        const QRectF &r = m_switchRect[i];
        for (int side = 0; side < 2; ++side) {
            auto &ends = side == 0 ? down[i] : up[i];
            std::stable_sort(ends.begin(), ends.end(),
                [](const auto &a, const auto &b) { return a.first < b.first; });
            const double inset = std::min(6.0, r.width() / 4.0);
            const double span = r.width() - 2 * inset;
            for (std::size_t k = 0; k < ends.size(); ++k) {
                const double x = r.left() + inset
                    + span * (static_cast<double>(k) + 0.5) / static_cast<double>(ends.size());
                QPolygonF &path = m_cablePath[static_cast<std::size_t>(ends[k].second)];
                // Down side: the cable's upper end (last point); up side: its lower end.
                if (side == 0)
                    path.back() = QPointF(x, r.bottom());
                else
                    path.front() = QPointF(x, r.top());
            }
        }
    }
}

void FabricLayout::buildBundles()
{
    const Fabric &f = m_fabric;
    // NIC uplinks: one line per (rack, leaf) from the rack's riser to the leaf.
    for (std::size_t r = 0; r < m_racks.size(); ++r) {
        const Rack &rack = m_racks[r];
        std::vector<std::pair<int, Bundle>> byLeaf;
        for (int s = rack.firstServer; s < rack.firstServer + rack.servers; ++s) {
            for (int nic = 0; nic < f.nicsPerServer(); ++nic) {
                const int leaf = f.leafOfNic(s, nic);
                if (leaf < 0)
                    continue; // a NIC the cabling leaves without a cable
                auto it = std::find_if(byLeaf.begin(), byLeaf.end(),
                    [leaf](const auto &b) { return b.first == leaf; });
                if (it == byLeaf.end()) {
                    byLeaf.push_back({ leaf, Bundle {} });
                    it = std::prev(byLeaf.end());
                }
                const int id = f.linkBetween(f.nicVertex(s, nic), f.leafVertex(leaf));
                it->second.cables.push_back(id / 2);
            }
        }
        for (auto &[leaf, bundle] : byLeaf) {
            double sumTop = 0.0, sumEnd = 0.0;
            for (int c : bundle.cables) {
                sumTop += cablePath(c)[1].x();
                sumEnd += cablePath(c).back().x();
            }
            const double n = static_cast<double>(bundle.cables.size());
            bundle.path << QPointF(sumTop / n, rack.rect.top() - kRiserGap)
                        << QPointF(sumEnd / n, switchRect(f.leafVertex(leaf)).bottom());
            bundle.tier = Tier::Leaf;
            m_bundles.push_back(std::move(bundle));
        }
    }
    // Switch uplinks: one riser per leaf (to its spines), per spine (to its super-spines) and
    // per super-spine (to its cores), at the switch's own x, so a hot rail leaf or a hot spine
    // stands out. Core links count in the super-spine tier (fabric.cpp).
    auto risers = [&](int count, auto vertexOf, Tier tier) {
        std::vector<Bundle> perSwitch(static_cast<std::size_t>(count));
        const NodeKind from = f.node(vertexOf(0)).kind;
        for (int id = 0; id < f.linkCount(); id += 2) {
            const FabricLink &l = f.link(id);
            if (l.tier != tier || f.node(l.src).kind != from)
                continue;
            const FabricNode &n = f.node(l.src);
            perSwitch[static_cast<std::size_t>(n.local)].cables.push_back(id / 2);
        }
        for (int i = 0; i < count; ++i) {
            Bundle &b = perSwitch[static_cast<std::size_t>(i)];
            if (b.cables.empty())
                continue;
            const QRectF r = switchRect(vertexOf(i));
            double top = 1e300;
            for (int c : b.cables)
                top = std::min(top, cablePath(c).back().y());
            b.path << QPointF(r.center().x(), r.top()) << QPointF(r.center().x(), top);
            b.tier = tier;
            m_bundles.push_back(std::move(b));
        }
    };
    risers(
        f.leafCount(), [&f](int i) { return f.leafVertex(i); }, Tier::Spine);
    if (f.spineCount() > 0)
        risers(
            f.spineCount(), [&f](int i) { return f.spineVertex(i); }, Tier::SuperSpine);
    if (f.coreCount() > 0)
        risers(
            f.superSpineCount(), [&f](int i) { return f.superSpineVertex(i); }, Tier::SuperSpine);
}

} // namespace railyard
