#include "cost/linkranking.h"

#include <algorithm>
#include <cmath>

namespace railyard {

bool LinkRanking::busier(int a, int b) const
{
    return b < 0 || m_key[a] > m_key[b] || (m_key[a] == m_key[b] && a < b);
}

void LinkRanking::rank(std::vector<long long> keys)
{
    m_key = std::move(keys);
    m_run.links = 0;
    std::vector<long long> sorted = m_key;
    std::sort(sorted.begin(), sorted.end());
    m_histogram.clear();
    for (std::size_t i = 0; i < sorted.size();) {
        std::size_t j = i;
        while (j < sorted.size() && sorted[j] == sorted[i])
            ++j;
        m_histogram.emplace_hint(m_histogram.end(), sorted[i], static_cast<int>(j - i));
        i = j;
    }
    m_rescan = true;
    settle();
}

void LinkRanking::change(int link, long long key)
{
    const long long old = m_key[link];
    if (key == old)
        return;
    m_key[link] = key;
    // Links change in runs that move from one key to the same other key (every link of an
    // ECMP part whose demand changed): the histogram takes each run as one move.
    if (m_run.links > 0 && (old != m_run.from || key != m_run.to))
        flushRun();
    m_run.from = old;
    m_run.to = key;
    ++m_run.links;
    if (busier(link, m_bottleneck))
        m_bottleneck = link;
    else if (link == m_bottleneck)
        m_rescan = true; // the bottleneck lost load: another link may lead now
}

void LinkRanking::flushRun()
{
    if (m_run.links == 0)
        return;
    if (auto it = m_histogram.find(m_run.from); it != m_histogram.end()) {
        it->second -= m_run.links;
        if (it->second <= 0)
            m_histogram.erase(it);
    }
    m_histogram[m_run.to] += m_run.links;
    m_run.links = 0;
}

void LinkRanking::settle()
{
    flushRun();
    if (!m_rescan)
        return;
    m_rescan = false;
    m_bottleneck = -1;
    for (int i = 0; i < count(); ++i)
        if (busier(i, m_bottleneck))
            m_bottleneck = i;
}

double LinkRanking::kthSmallest(long long k, double scale) const
{
    // Walk the histogram from whichever end is nearer the rank.
    const long long n = count();
    long long seen = 0;
    if (k <= n / 2) {
        for (const auto &[key, links] : m_histogram)
            if ((seen += links) >= k)
                return static_cast<double>(key) * scale;
    } else {
        const long long fromTop = n - k + 1;
        for (auto it = m_histogram.rbegin(); it != m_histogram.rend(); ++it)
            if ((seen += it->second) >= fromTop)
                return static_cast<double>(it->first) * scale;
    }
    return 0.0;
}

double LinkRanking::percentile(double q, double scale) const
{
    // Nearest rank: the ceil(q n)-th smallest of n values (at least the first).
    const int n = count();
    const long long k
        = std::clamp<long long>(static_cast<long long>(std::ceil(q * n)), 1, std::max(1, n));
    return kthSmallest(k, scale);
}

double LinkRanking::max(double scale) const
{
    return m_histogram.empty() ? 0.0 : static_cast<double>(m_histogram.rbegin()->first) * scale;
}

} // namespace railyard
