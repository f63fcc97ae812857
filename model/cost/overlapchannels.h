#pragma once

#include "base/touchedindexes.h"
#include "base/units.h"
#include "cost/linkmaxima.h"

#include <array>
#include <optional>

namespace railyard {

/**
 * The link maxima behind the iteration's physical bounds, kept up to date link by link:
 *  - the link bound, per exposure variant: the largest busy time of any link with all of its
 *    bytes, or without one dimension's (no iteration can end before a link carries its bytes);
 *  - the contention of the overlapped DP sync: where a link carries both the gradient
 *    reduction and backward traffic (TP, EP, CP) of the micro-batch it overlaps with, the
 *    reduction's bandwidth time on that link is (its bytes + those bytes) / bandwidth; the
 *    parameter all-gather alike with one micro-batch's forward traffic.
 * Links where the sync does not share anything are left out of the contention (their time is
 * the sync's own, uncontended). Keys are picoseconds, so incremental and fresh maxima agree.
 */
class OverlapChannels
{
public:
    /** What turns a link's bytes per iteration into the quantities above. */
    struct Shares
    {
        std::array<bool, kDimCount> present{}; ///< dimensions with traffic
        DimArray backward{};   ///< share of a dimension's bytes that is backward traffic
        DimArray forward{};    ///< share that is forward traffic
        double microbatches = 1.0;
        double reduce = 0.0;   ///< share of the DP bytes that is the gradient reduction
        double gather = 0.0;   ///< share that is the parameter all-gather
        bool reduceOverlapped = false;
        bool gatherOverlapped = false;
    };

    /// Which keys update() sets: every variant's, or only those with every dimension (what a
    /// search reads between moves); the others are then behind until catchUp().
    enum class Variants { All, WithEveryDim };

    void setUp(const Shares &shares, int links);
    /// A full evaluation's pass: every link is set once next (update(), or copyKeys() from a
    /// link before it). Until links first change one by one (keepKeys()), only the maxima are
    /// kept (LinkMaxima::summarise()), no key per link; from then on every key is, so a search
    /// that evaluates in full between moves computes them once, not after each full pass.
    void beginFull()
    {
        if (!m_moving)
            m_max.summarise();
    }
    /// Before links change one by one: keeps every link's keys again, each from
    /// `current(link)` (its bytes and bandwidth now, a std::pair<DimArray, double>), if only
    /// the maxima were kept.
    template<typename Current> void keepKeys(const Current &current)
    {
        m_moving = true;
        if (!m_max.summarised())
            return;
        m_max.store();
        for (int link = 0; link < m_links; ++link) {
            const auto [bytes, bandwidth] = current(link);
            setKeys(link, bytes, bandwidth, true);
            setKeys(link, bytes, bandwidth, false);
        }
    }
    /// Link `link` now carries `bytes` (per dimension, per iteration) at `bandwidth` bytes/s.
    void update(int link, const DimArray &bytes, double bandwidth, Variants which = Variants::All);
    /// Link `link` now carries what link `same` carries, at the same bandwidth, and `same`'s
    /// keys are current in every variant: `link` takes them without computing them again
    /// (update(link, bytes, bandwidth) would set the same). A full evaluation's links repeat
    /// one another in long runs (a GPU's port out and in, a lump's links).
    void copyKeys(int link, int same);
    /// Brings the keys update(..., WithEveryDim) left behind up to date: `current(link)` gives
    /// a link's bytes and bandwidth now, as a std::pair<DimArray, double>.
    template<typename Current> void catchUp(const Current &current)
    {
        for (const int link : m_behind.list()) {
            const auto [bytes, bandwidth] = current(link);
            setKeys(link, bytes, bandwidth, false);
        }
        m_behind.clear();
    }
    void settle();

    /// The busiest link's busy time (seconds, rounded up to the next picosecond), with every
    /// dimension or `without` one.
    double bound(std::optional<Dim> without = std::nullopt) const;
    /// The largest (reduction bytes + overlapped backward bytes) / bandwidth over the links
    /// they share, seconds; 0 when they share none. `without` drops a dimension's traffic.
    double reduceContention(std::optional<Dim> without = std::nullopt) const;
    double gatherContention(std::optional<Dim> without = std::nullopt) const;

private:
    static constexpr int kVariants = kDimCount + 1; ///< all, then without dim d
    static int variant(std::optional<Dim> without) { return without ? 1 + index(*without) : 0; }
    long long contentionKey(const DimArray &bytes, double bandwidth, double dpShare,
                            const DimArray &passShare, int variant) const;
    /// Sets a link's keys of variant 0 (`withEveryDim`) or of every other variant.
    void setKeys(int link, const DimArray &bytes, double bandwidth, bool withEveryDim);
    void checkCurrent(std::optional<Dim> without) const;

    Shares m_shares;
    int m_links = 0;
    bool m_moving = false; ///< links have changed one by one since setUp(): keys kept
    LinkMaxima m_max;
    /// The keys of variant 0 last computed, and for what: the links of a lump (a leaf's
    /// uplinks, a pod's spine parts) change together to the same bytes, one after another.
    struct LastKeys
    {
        DimArray bytes {};
        double bandwidth = -1.0;
        long long bound = 0, reduce = 0, gather = 0;
    };
    LastKeys m_last;
    /// Channel per (quantity, variant), -1 where the variant equals "all".
    std::array<int, kVariants> m_bound{}, m_reduce{}, m_gather{};
    TouchedIndexes m_behind; ///< links whose other variants' keys are behind
};

} // namespace railyard
