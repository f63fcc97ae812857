#include "cost/overlapchannels.h"

#include <cassert>
#include <cmath>

namespace railyard {

namespace {

long long picoseconds(double seconds)
{
    return roundToInteger(seconds * 1e12);
}

/// Dimensions whose traffic runs beside the DP sync inside its overlap window.
constexpr std::array<Dim, 3> kBeside{Dim::Tp, Dim::Ep, Dim::Cp};

} // namespace

void OverlapChannels::setUp(const Shares &shares, int links)
{
    m_shares = shares;
    m_links = links;
    m_moving = false;
    int channels = 0;
    m_bound.fill(-1);
    m_reduce.fill(-1);
    m_gather.fill(-1);
    m_bound[0] = channels++;
    for (Dim d : kAllDims)
        if (shares.present[index(d)])
            m_bound[variant(d)] = channels++;
    const auto contention = [&](std::array<int, kVariants> &ids) {
        ids[0] = channels++;
        for (Dim d : kBeside)
            if (shares.present[index(d)])
                ids[variant(d)] = channels++;
    };
    const bool dp = shares.present[index(Dim::Dp)];
    if (dp && shares.reduceOverlapped)
        contention(m_reduce);
    if (dp && shares.gatherOverlapped && shares.gather > 0.0)
        contention(m_gather);
    m_max.reset(channels, links);
    m_behind.assign(static_cast<std::size_t>(links));
    m_last = LastKeys {};
}

long long OverlapChannels::contentionKey(const DimArray &bytes, double bandwidth, double dpShare,
                                         const DimArray &passShare, int v) const
{
    const double dp = bytes[index(Dim::Dp)] * dpShare;
    double beside = 0.0;
    for (Dim d : kBeside)
        if (v != variant(d))
            beside += bytes[index(d)] * passShare[index(d)] / m_shares.microbatches;
    return dp > 0.0 && beside > 0.0 ? picoseconds((dp + beside) / bandwidth) : 0;
}

void OverlapChannels::update(int link, const DimArray &bytes, double bandwidth, Variants which)
{
    setKeys(link, bytes, bandwidth, true);
    if (which == Variants::All) {
        setKeys(link, bytes, bandwidth, false);
    } else {
        m_behind.add(link);
    }
}

void OverlapChannels::setKeys(int link, const DimArray &bytes, double bandwidth, bool withEveryDim)
{
    if (withEveryDim) {
        if (bandwidth != m_last.bandwidth || bytes != m_last.bytes) {
            double total = 0.0;
            for (double b : bytes)
                total += b;
            m_last.bytes = bytes;
            m_last.bandwidth = bandwidth;
            m_last.bound = picoseconds(total / bandwidth);
            m_last.reduce = m_reduce[0] >= 0
                ? contentionKey(bytes, bandwidth, m_shares.reduce, m_shares.backward, 0)
                : 0;
            m_last.gather = m_gather[0] >= 0
                ? contentionKey(bytes, bandwidth, m_shares.gather, m_shares.forward, 0)
                : 0;
        }
        m_max.set(m_bound[0], link, m_last.bound);
        if (m_reduce[0] >= 0)
            m_max.set(m_reduce[0], link, m_last.reduce);
        if (m_gather[0] >= 0)
            m_max.set(m_gather[0], link, m_last.gather);
        return;
    }
    double total = 0.0;
    for (double b : bytes)
        total += b;
    for (int v = withEveryDim ? 0 : 1; v < (withEveryDim ? 1 : kVariants); ++v) {
        if (m_bound[v] >= 0) {
            const double without = v == 0 ? 0.0 : bytes[v - 1];
            m_max.set(m_bound[v], link, picoseconds((total - without) / bandwidth));
        }
        if (m_reduce[v] >= 0)
            m_max.set(m_reduce[v], link,
                      contentionKey(bytes, bandwidth, m_shares.reduce, m_shares.backward, v));
        if (m_gather[v] >= 0)
            m_max.set(m_gather[v], link,
                      contentionKey(bytes, bandwidth, m_shares.gather, m_shares.forward, v));
    }
}

void OverlapChannels::copyKeys(int link, int same)
{
    // Every channel is one (quantity, variant) of setKeys(), each set once per link: copying
    // all of them is what update() with every variant does for equal bytes and bandwidth.
    m_max.copyKeys(link, same);
}

void OverlapChannels::settle()
{
    m_max.settle();
}

void OverlapChannels::checkCurrent([[maybe_unused]] std::optional<Dim> without) const
{
    // A variant without a dimension is only read after catchUp() (a full evaluation).
    assert(!without || m_behind.empty());
}

double OverlapChannels::bound(std::optional<Dim> without) const
{
    checkCurrent(without);
    const int id = m_bound[variant(without)] >= 0 ? m_bound[variant(without)] : m_bound[0];
    // One picosecond above the rounded key: never below any link's exact busy time.
    return (static_cast<double>(m_max.max(id)) + 1.0) * 1e-12;
}

double OverlapChannels::reduceContention(std::optional<Dim> without) const
{
    checkCurrent(without);
    const int id = m_reduce[variant(without)] >= 0 ? m_reduce[variant(without)] : m_reduce[0];
    return static_cast<double>(m_max.max(id)) * 1e-12;
}

double OverlapChannels::gatherContention(std::optional<Dim> without) const
{
    checkCurrent(without);
    const int id = m_gather[variant(without)] >= 0 ? m_gather[variant(without)] : m_gather[0];
    return static_cast<double>(m_max.max(id)) * 1e-12;
}

} // namespace railyard
