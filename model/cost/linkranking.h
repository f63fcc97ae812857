#pragma once

#include <map>
#include <vector>

namespace railyard {

/**
 * Every directed link ranked by its busy time per iteration, kept up to date link by link: the
 * bottleneck (the busiest link, the lowest id among equals) and nearest-rank percentiles over
 * all links. Busy times are compared as integer keys (picoseconds), so an incremental update
 * and a fresh ranking order the links identically.
 */
class LinkRanking
{
public:
    /// Ranks every link afresh; keys[i] is link i's busy time in picoseconds.
    void rank(std::vector<long long> keys);
    /// Link `link`'s key is now `key`. Call settle() after the last change of a batch (the
    /// percentiles count the batch from then on).
    void change(int link, long long key);
    /// Finds the bottleneck again when a change of the batch took load off it.
    void settle();

    /// The busiest link, -1 when there are none.
    int bottleneck() const { return m_bottleneck; }
    int count() const { return static_cast<int>(m_key.size()); }
    long long key(int link) const { return m_key[static_cast<std::size_t>(link)]; }
    /// The nearest-rank q-quantile of the keys (q in 0..1) times `scale`; 0 without links.
    double percentile(double q, double scale) const;
    /// The largest key times `scale`; 0 without links.
    double max(double scale) const;

private:
    bool busier(int a, int b) const;
    /// The k-th smallest key (1-based) times `scale`, counted from the nearer end.
    double kthSmallest(long long k, double scale) const;

    std::vector<long long> m_key;
    /// Moves the run of changes not yet counted in the histogram into it.
    void flushRun();

    std::map<long long, int> m_histogram; ///< key -> number of links
    /// The latest changes, all from key `from` to key `to`, not yet in m_histogram.
    struct Run
    {
        long long from = 0;
        long long to = 0;
        int links = 0;
    };
    Run m_run;
    int m_bottleneck = -1;
    bool m_rescan = false;
};

} // namespace railyard
