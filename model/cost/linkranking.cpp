#include "cost/linkranking.h"

#include "base/flatintmap.h"
#include "base/units.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>

namespace railyard {

bool LinkRanking::busier(int a, int b) const
{
    return b < 0 || m_key[a] > m_key[b] || (m_key[a] == m_key[b] && a < b);
}

namespace {

/// The distinct keys and how many times each occurs, in ascending key order; `busiest`: the
/// first index of the largest key (-1 without keys).
std::vector<std::pair<long long, int>> countDistinct(
    const std::vector<long long> &keys, int &busiest)
{
    busiest = -1;
    // Open addressing with linear probing (Knuth, TAOCP vol. 3, §6.4, Algorithm L) and
    // Fibonacci hashing (fibonacciSlot()), at most half full. No busy time is the smallest long
    // long, which marks an empty slot.
    constexpr long long kEmpty = std::numeric_limits<long long>::min();
    std::size_t capacity = 1024;
    std::vector<std::pair<long long, int>> table(capacity, { kEmpty, 0 });
    std::size_t used = 0;
    int shift = 64 - 10;
    const auto slotOf = [&](long long key) {
        std::size_t i = fibonacciSlot(static_cast<std::uint64_t>(key), shift);
        while (table[i].first != kEmpty && table[i].first != key)
            i = (i + 1) & (capacity - 1);
        return i;
    };
    std::size_t last = 0; // the slot of the key before, which most links repeat
    for (std::size_t k = 0; k < keys.size(); ++k) {
        const long long key = keys[k];
        if (k > 0 && key == keys[k - 1]) {
            ++table[last].second;
            continue;
        }
        if (busiest < 0 || key > keys[sz(busiest)])
            busiest = static_cast<int>(k);
        std::size_t i = slotOf(key);
        if (table[i].first == kEmpty) {
            if (2 * (used + 1) > capacity) {
                std::vector<std::pair<long long, int>> old = std::exchange(
                    table, std::vector<std::pair<long long, int>>(2 * capacity, { kEmpty, 0 }));
                capacity *= 2;
                --shift;
                for (const auto &e : old)
                    if (e.first != kEmpty)
                        table[slotOf(e.first)] = e;
                i = slotOf(key);
            }
            table[i].first = key;
            ++used;
        }
        ++table[i].second;
        last = i;
    }
    std::erase_if(table, [](const std::pair<long long, int> &e) { return e.first == kEmpty; });
    std::sort(table.begin(), table.end());
    return table;
}

} // namespace

void LinkRanking::rank(std::vector<long long> keys)
{
    m_key = std::move(keys);
    m_run.links = 0;
    // The histogram from the distinct keys, counted in a hash table: most links share their
    // busy time with many others (every link of an ECMP lump, every idle link), and sorting
    // every link's key instead (1.18 million at 131,072 GPUs) was a twentieth of a warm
    // evaluation.
    // The bottleneck (the first link of the largest key) is found in the same pass.
    m_histogram.clear();
    m_cursors.clear();
    for (const auto &[key, links] : countDistinct(m_key, m_bottleneck))
        m_histogram.emplace_hint(m_histogram.end(), key, links);
    m_rescan = false;
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
    if (auto it = m_histogram.find(m_run.from); it != m_histogram.end())
        countChanged(it, -m_run.links);
    countChanged(m_histogram.try_emplace(m_run.to, 0).first, m_run.links);
    m_run.links = 0;
}

void LinkRanking::countChanged(std::map<long long, int>::iterator at, int links)
{
    const bool erase = at->second + links <= 0;
    const int delta = erase ? -at->second : links;
    for (Cursor &c : m_cursors) {
        if (!c.valid)
            continue;
        if (at == c.at && erase)
            c.valid = false; // its node goes: found again by a walk when next asked for
        else if (at->first < c.at->first)
            c.below += delta;
    }
    if (erase)
        m_histogram.erase(at);
    else
        at->second += links;
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

double LinkRanking::kthSmallest(long long k, double scale)
{
    if (m_histogram.empty())
        return 0.0;
    auto cursor = std::find_if(
        m_cursors.begin(), m_cursors.end(), [k](const Cursor &c) { return c.k == k; });
    if (cursor == m_cursors.end()) {
        m_cursors.emplace_back();
        m_cursors.back().k = k;
        cursor = std::prev(m_cursors.end());
    }
    Cursor &c = *cursor;
    if (!c.valid) { // a walk from the start, once
        c.at = m_histogram.begin();
        c.below = 0;
        c.valid = true;
    }
    // Nodes before c.at hold c.below links; step to the node where the count passes k.
    while (c.below + c.at->second < k && std::next(c.at) != m_histogram.end()) {
        c.below += c.at->second;
        ++c.at;
    }
    while (c.below >= k && c.at != m_histogram.begin()) {
        --c.at;
        c.below -= c.at->second;
    }
    return static_cast<double>(c.at->first) * scale;
}

double LinkRanking::percentile(double q, double scale)
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
