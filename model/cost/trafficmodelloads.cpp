// The traffic model's link loads and their maxima: what each flow, segment and plan adds to
// a pattern's links (route ends netted per link during a move), the bytes per iteration it puts
// on each link, and each touched pattern's busiest link found again when a move or a build
// settles (refreshMaxima()), incrementally where it can.
#include "cost/trafficmodel.h"

namespace railyard {

void TrafficModel::addLoad(TrafficPattern &p, int link, double delta)
{
    const double value = p.load.add(link, delta); // drops the residue of cancelled loads
    applyWeightedLoad(p, link, delta, p.weight);
    if (p.ratios.size() == 0 && p.load.dense())
        startBlockMaxima(p); // large patterns find their largest ratio by blocks of links
    if (p.ratios.size() > 0) {
        if (delta >= 0.0)
            p.ratios.raise(sz(link), ratio(p, link, value));
        else
            p.ratios.touch(sz(link));
        return;
    }
    if (delta < 0.0 && link != p.linkArgmax)
        return; // not the argmax, at most the maximum before and lower now: nothing to update
    const double r = ratio(p, link, value);
    if (r > p.linkMax || (r == p.linkMax && link < p.linkArgmax)) {
        p.linkMax = r;
        p.linkArgmax = link;
    } else if (link == p.linkArgmax && r < p.linkMax) {
        // The largest load shrank. A small pattern scans its links again (refreshMaxima());
        // a large one keeps its maxima by blocks from here on instead of scanning thousands
        // of links at this and every later shrink (a block costs 64 probes of the table).
        if (p.load.size() >= kBlockMaximaFrom)
            startBlockMaxima(p);
        else
            p.rescan = true;
    }
}

bool TrafficModel::argmaxHolds(const TrafficPattern &p) const
{
    // A move often takes a flow off the busiest link and puts it (or another one) back: the
    // link then holds its maximum again. No other link can exceed it (addLoad() moves the
    // maximum to any link that rises above it) or equal it with a lower id (such a link takes
    // the argmax when it gets there), so the scan would find the same link and value.
    if (p.linkArgmax < 0)
        return false;
    const double *load = p.load.find(p.linkArgmax);
    return load && ratio(p, p.linkArgmax, *load) == p.linkMax;
}

void TrafficModel::startBlockMaxima(TrafficPattern &p)
{
    p.ratios.assign(sz(m_fabric.linkCount()));
    for (const auto &[l, load] : p.load)
        p.ratios.raise(sz(l), ratio(p, l, load));
}

double TrafficModel::ratio(const TrafficPattern &p, int link, double load) const
{
    return load / (m_fabric.linkBandwidth(link) * p.efficiency[index(m_fabric.linkTier(link))]);
}

void TrafficModel::addEndLoad(TrafficPattern &p, int link, double delta)
{
    if (m_movingRanks.empty() && !m_nettingEnds)
        addLoad(p, link, delta); // build(): every load adds up in the order it comes
    else
        p.pendingEnds.add(link, delta);
}

void TrafficModel::flushEnds(TrafficPattern &p)
{
    p.pendingEnds.flush([this, &p](int link, double delta) {
        if (delta != 0.0) // what left the link came back: nothing to do
            addLoad(p, link, delta);
    });
}

void TrafficModel::flushSegments(TrafficPattern &p)
{
    p.pendingSegments.flush([this, &p](int segment, double demand) {
        if (demand == 0.0)
            return; // a move that left this segment's demand unchanged
        if (addSegmentToLumps(p, segment, demand))
            return;
        for (const RouteHop &hop : m_router.segmentHops(segment))
            addLoad(p, hop.link, demand * hop.share);
    });
}

void TrafficModel::applyWeightedLoad(const TrafficPattern &p, int link, double load, double weight)
{
    applyLinkBytes(link, p.dim, load * weight);
}

void TrafficModel::applyLinkBytes(int link, Dim dim, double bytes)
{
    if (bytes == 0.0)
        return; // a pattern no op uses yet (a family's, before its choice): nothing moves
    addLinkDimBytes(
        linkDimRow(link), m_linkRole[sz(link)], static_cast<std::size_t>(index(dim)), bytes);
    if (!m_building)
        m_changedLinks.add(link);
}

void TrafficModel::refreshMaxima()
{
    // Only the patterns a move emitted into can have new maxima; in index order, so that the
    // bytes they spread add up in the same order as in a full pass over every pattern.
    m_touchedPatterns.sort();
    for (const int touched : m_touchedPatterns.list()) {
        if (const int stage = m_tpStageOfPattern[sz(touched)]; stage >= 0)
            ++m_tpVersion[sz(stage)]; // its maxima, multisets, hence choices, may change
        TrafficPattern &p = m_patterns[sz(touched)];
        flushEnds(p);
        flushSegments(p);
        if (p.ratios.size() > 0) {
            const auto ratioAt = [this, &p](std::size_t link) {
                const int l = static_cast<int>(link);
                const double load = p.load.valueAt(l);
                return load != 0.0 ? ratio(p, l, load) : 0.0;
            };
            p.ratios.settle(ratioAt);
            p.linkMax = p.ratios.max() > 0.0 ? p.ratios.max() : 0.0;
            p.linkArgmax = p.linkMax > 0.0 ? static_cast<int>(p.ratios.argmax(ratioAt)) : -1;
        } else if (p.rescan && !argmaxHolds(p)) {
            p.linkMax = 0.0;
            p.linkArgmax = -1;
            for (const auto &[link, load] : p.load) {
                const double r = ratio(p, link, load);
                if (r > p.linkMax || (r == p.linkMax && link < p.linkArgmax)) {
                    p.linkMax = r;
                    p.linkArgmax = link;
                }
            }
        }
        p.rescan = false;
        refreshLumpMax(p);
        const bool lumpWins = p.lumpMax > p.linkMax
            || (p.lumpMax == p.linkMax && p.lumpArgmax >= 0 && p.lumpArgmax < p.linkArgmax);
        p.maxRatio = lumpWins ? p.lumpMax : p.linkMax;
        p.argmax = lumpWins ? p.lumpArgmax : p.linkArgmax;
    }
    refreshChoices();
    m_touchedPatterns.clear();
    spreadLumpBytes(); // the reweighting above may have added to them
}

} // namespace railyard
