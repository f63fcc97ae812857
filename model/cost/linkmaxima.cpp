#include "cost/linkmaxima.h"

namespace railyard {

void LinkMaxima::reset(int channels, int links)
{
    m_channels.assign(static_cast<std::size_t>(channels), Channel{});
    for (Channel &c : m_channels)
        c.key.assign(static_cast<std::size_t>(links), 0);
}

void LinkMaxima::set(int channel, int link, long long key)
{
    Channel &c = m_channels[static_cast<std::size_t>(channel)];
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
    for (int c = 0; c < channels(); ++c)
        set(c, link, m_channels[static_cast<std::size_t>(c)].key[static_cast<std::size_t>(from)]);
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
    return c.argmax < 0 ? 0 : c.key[static_cast<std::size_t>(c.argmax)];
}

} // namespace railyard
