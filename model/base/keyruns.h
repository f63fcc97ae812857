#pragma once

#include "base/flatintmap.h"
#include "base/units.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <numeric>
#include <vector>

namespace railyard {

/**
 * Items grouped by equal 64-bit key, in the order sorting the (key, item) pairs gives (groups
 * in ascending key, each with its items ascending) without sorting the items: add() each item's
 * key in ascending item order, then ranks() sorts the distinct keys alone. An open-addressing
 * hash table (linear probing, at most half full so a probe stays short) finds an item's group.
 *
 * Why: RouteLumps::find() grouped a million-GPU fabric's ~8 million switch links by sorting
 * (key, link) pairs, a sixteenth of its evaluation; their keys repeat once per link of a lump
 * (tens of links), so the distinct keys are a few per cent of the items.
 */
class KeyRuns
{
public:
    /// The group of `key` (groups numbered in the order first seen), one more item in it.
    int add(std::uint64_t key)
    {
        if (2 * (m_keys.size() + 1) > m_slots.size())
            grow();
        std::size_t i = fibonacciSlot(key, m_shift);
        while (m_slots[i] >= 0 && m_keys[sz(m_slots[i])] != key)
            i = (i + 1) & (m_slots.size() - 1);
        if (m_slots[i] < 0) {
            m_slots[i] = static_cast<int>(m_keys.size());
            m_keys.push_back(key);
            m_counts.push_back(0);
        }
        ++m_counts[sz(m_slots[i])];
        return m_slots[i];
    }

    int groups() const { return static_cast<int>(m_keys.size()); }

    /// Each group's rank in ascending key order; `start` gets, per rank and one past the last,
    /// where its items start in the items ordered by (key, item).
    std::vector<int> ranks(std::vector<int> &start) const
    {
        std::vector<int> order(m_keys.size());
        std::iota(order.begin(), order.end(), 0);
        std::sort(order.begin(), order.end(),
            [this](int a, int b) { return m_keys[sz(a)] < m_keys[sz(b)]; });
        std::vector<int> rank(m_keys.size());
        start.assign(m_keys.size() + 1, 0);
        for (std::size_t r = 0; r < order.size(); ++r) {
            rank[sz(order[r])] = static_cast<int>(r);
            start[r + 1] = start[r] + m_counts[sz(order[r])];
        }
        return rank;
    }

private:
    void grow()
    {
        // 1,024 slots to start: a small fabric's groups fit without growing.
        const std::size_t size = m_slots.empty() ? 1024 : 2 * m_slots.size();
        m_slots.assign(size, -1);
        m_shift = 64 - std::countr_zero(size);
        for (std::size_t g = 0; g < m_keys.size(); ++g) {
            std::size_t i = fibonacciSlot(m_keys[g], m_shift);
            while (m_slots[i] >= 0)
                i = (i + 1) & (size - 1);
            m_slots[i] = static_cast<int>(g);
        }
    }

    std::vector<int> m_slots; ///< group per slot, -1 where empty; a power of two in size
    std::vector<std::uint64_t> m_keys; ///< per group, its key
    std::vector<int> m_counts; ///< per group, its items
    int m_shift = 64;
};

} // namespace railyard
