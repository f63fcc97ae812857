#pragma once

#include <vector>

namespace railyard {

/**
 * Several per-link quantities ("channels", e.g. a link's busy time without one dimension's
 * bytes), each kept with its largest value as links change one by one. Values are integer keys
 * (picoseconds), so an incremental update and a fresh build find identical maxima. A channel's
 * maximum is found again by a scan only when the link holding it lost value.
 */
class LinkMaxima
{
public:
    /// `channels` channels over `links` links, every key 0.
    void reset(int channels, int links);
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
        std::vector<long long> key;
        int argmax = -1;
        bool rescan = false;
    };
    std::vector<Channel> m_channels;
};

} // namespace railyard
