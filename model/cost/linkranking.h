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
    /// Not const: each rank asked for keeps its place in the histogram (Cursor).
    double percentile(double q, double scale);
    /// The largest key times `scale`; 0 without links.
    double max(double scale) const;

private:
    bool busier(int a, int b) const;
    /// The k-th smallest key (1-based) times `scale`.
    double kthSmallest(long long k, double scale);
    /// `links` links more (or fewer, negative) hold key `key`, whose histogram node is `at`.
    void countChanged(std::map<long long, int>::iterator at, int links);

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
    /// A rank asked for before (percentile()): the histogram node that holds the k-th smallest
    /// key and how many links hold smaller keys. Changes move it a node or two, where walking
    /// the histogram from an end visited tens of thousands of distinct keys at 131,072 GPUs
    /// for every evaluation.
    struct Cursor
    {
        long long k = 0;
        std::map<long long, int>::iterator at;
        long long below = 0;
        bool valid = false;
    };
    std::vector<Cursor> m_cursors; ///< a few ranks (p50, p95, p99)
    int m_bottleneck = -1;
    bool m_rescan = false;
};

} // namespace railyard
