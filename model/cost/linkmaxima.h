#pragma once

#include <vector>

namespace railyard {

/**
 * Several per-link quantities ("channels", e.g. a link's busy time without one dimension's
 * bytes), each kept with its largest value as links change one by one. Values are integer keys
 * (picoseconds), so an incremental update and a fresh build find identical maxima. A channel's
 * maximum is found again by a scan only when the link holding it lost value.
 *
 * A pass that sets every link's keys once (summarise()) keeps the maxima alone, no key per
 * link: a one-shot evaluation (railyard-cli evaluate) never needs them, and at a million GPUs
 * they are 8 bytes per link and channel, 340 MB for four channels over 10.6 million links,
 * each page written once. store() starts keeping them (every key 0 again) before links change
 * one by one.
 */
class LinkMaxima
{
public:
    /// `channels` channels over `links` links, every key 0, keys kept (allocated at the first
    /// set() of a channel).
    void reset(int channels, int links);
    /// Keeps the maxima alone until store(): every link's keys are then set once (set(), or
    /// copyKeys() from a link set before it) before max() is read.
    void summarise();
    /// Keeps every key again, each 0 (to be set again, link by link); nothing if kept.
    void store();
    bool summarised() const { return m_summary; }
    /// Link `link`'s key in `channel` is now `key` (>= 0). Call settle() after a batch.
    void set(int channel, int link, long long key);
    /// Link `link`'s key in every channel is now link `from`'s.
    void copyKeys(int link, int from);
    /// Finds the maxima again where a change of the batch lowered one.
    void settle();
    /// The largest key of `channel` (0 without links or channels).
    long long max(int channel) const;
    int channels() const { return static_cast<int>(m_channels.size()); }

private:
    struct Channel
    {
        std::vector<long long> key; ///< empty until set while keys are kept
        int argmax = -1;
        bool rescan = false;
        long long summaryMax = 0; ///< the largest key set since summarise()
    };
    std::vector<Channel> m_channels;
    int m_links = 0;
    bool m_summary = false;
};

} // namespace railyard
