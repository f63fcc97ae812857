#include "cost/linkmaxima.h"

namespace railyard {

void LinkMaxima::reset(int channels, int links)
{
    m_channels.assign(static_cast<std::size_t>(channels), Channel {});
    m_links = links;
    m_summary = false;
}

void LinkMaxima::summarise()
{
    m_summary = true;
    for (Channel &c : m_channels) {
        c.key.clear(); // its capacity stays for store()
        c.argmax = -1;
        c.rescan = false;
        c.summaryMax = 0;
    }
}

void LinkMaxima::store()
{
    if (!m_summary)
        return;
    m_summary = false;
    for (Channel &c : m_channels) {
        c.key.clear();
        c.argmax = -1;
        c.rescan = false;
    }
}

void LinkMaxima::set(int channel, int link, long long key)
{
    Channel &c = m_channels[static_cast<std::size_t>(channel)];
    if (m_summary) {
        // Each link set once since summarise(): the maximum only grows.
        if (key > c.summaryMax)
            c.summaryMax = key;
        return;
    }
    if (c.key.empty()) {
        if (key == 0)
            return; // every key is 0 still
        c.key.assign(static_cast<std::size_t>(m_links), 0);
    }
    long long &slot = c.key[static_cast<std::size_t>(link)];
    if (slot == key)
        return;
    const long long old = slot;
    slot = key;
    if (c.argmax < 0 || key > c.key[static_cast<std::size_t>(c.argmax)])
        c.argmax = link;
    else if (link == c.argmax && key < old)
        c.rescan = true; // the maximum lost value: another link may hold it now
}

void LinkMaxima::copyKeys(int link, int from)
{
    if (m_summary)
        return; // `from`'s keys, set in this pass, are in the maxima already
    for (int c = 0; c < channels(); ++c) {
        const std::vector<long long> &key = m_channels[static_cast<std::size_t>(c)].key;
        set(c, link, key.empty() ? 0 : key[static_cast<std::size_t>(from)]);
    }
}

void LinkMaxima::settle()
{
    for (Channel &c : m_channels) {
        if (!c.rescan)
            continue;
        c.rescan = false;
        c.argmax = -1;
        long long best = -1;
        for (std::size_t i = 0; i < c.key.size(); ++i)
            if (c.key[i] > best) {
                best = c.key[i];
                c.argmax = static_cast<int>(i);
            }
    }
}

long long LinkMaxima::max(int channel) const
{
    if (channel < 0 || channel >= channels())
        return 0;
    const Channel &c = m_channels[static_cast<std::size_t>(channel)];
    if (m_summary)
        return c.summaryMax;
    return c.argmax < 0 ? 0 : c.key[static_cast<std::size_t>(c.argmax)];
}

} // namespace railyard
