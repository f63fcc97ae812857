#pragma once

#include "base/flatintmap.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace railyard {

/**
 * One traffic pattern's load per link (link id -> bytes per byte of S per pass), non-zero
 * entries only. Small patterns (a TP group's NVLink ports, one pipeline boundary) stay a flat
 * hash map; once a pattern covers more than an eighth of the fabric's links (the DP families,
 * whose rings and trees reach every NIC and switch port), it switches to one dense array
 * indexed by link id, where an update is a plain store instead of a hash probe - on a
 * 131,072-GPU fabric the probes into multi-megabyte tables were a third of the evaluation.
 */
class LinkLoads
{
public:
    /// The fabric's link count, which bounds the ids and sets when the array pays off.
    void setLinkCount(int links) { m_links = links; }

    std::size_t size() const { return m_dense.empty() ? m_sparse.size() : m_denseCount; }
    /// Makes room for at least `entries` loaded links: the array at once when they would make
    /// the pattern dense anyway (so it never fills and then drops a large hash table), else
    /// a hash table that will not grow before it holds them.
    void reserve(std::size_t entries)
    {
        if (!m_dense.empty())
            return;
        if (m_links > 0 && entries * 8 > static_cast<std::size_t>(m_links))
            toDense();
        else
            m_sparse.reserve(entries);
    }
    /// Whether the loads are held in one array indexed by link id (large patterns).
    bool dense() const { return !m_dense.empty(); }

    /// Removes every load; a dense pattern stays dense (it will cover as much again).
    void clear()
    {
        m_sparse.clear();
        std::fill(m_dense.begin(), m_dense.end(), 0.0);
        m_denseCount = 0;
    }

    /// The load on `link` after adding `delta`; a result within `1e-9 * |delta|` of zero is
    /// rounding residue of loads that cancelled out, and the entry is dropped.
    double add(int link, double delta)
    {
        if (m_dense.empty()) {
            double &value = m_sparse[link];
            value += delta;
            if (std::abs(value) > 1e-9 * std::abs(delta)) {
                const double v = value;
                if (m_links > 0 && m_sparse.size() * 8 > static_cast<std::size_t>(m_links))
                    toDense();
                return v;
            }
            m_sparse.erase(link);
            return 0.0;
        }
        double &value = m_dense[static_cast<std::size_t>(link)];
        const bool was = value != 0.0;
        value += delta;
        if (std::abs(value) <= 1e-9 * std::abs(delta))
            value = 0.0;
        const bool is = value != 0.0;
        m_denseCount += static_cast<std::size_t>(is) - static_cast<std::size_t>(was);
        return value;
    }

    /// The load on `link` of a dense pattern (dense() true).
    double denseAt(int link) const { return m_dense[static_cast<std::size_t>(link)]; }

    /// The load on `link`, or nullptr when it carries none.
    const double *find(int link) const
    {
        if (m_dense.empty())
            return m_sparse.find(link);
        const double &value = m_dense[static_cast<std::size_t>(link)];
        return value != 0.0 ? &value : nullptr;
    }

    /// Visits (link, load) of every loaded link.
    class const_iterator
    {
    public:
        const_iterator(const LinkLoads &owner, FlatIntMap<double>::const_iterator sparse, int dense)
            : m_owner(&owner)
            , m_sparse(sparse)
            , m_dense(dense)
        {
            skipZeros();
        }
        std::pair<int, double> operator*() const
        {
            if (m_owner->m_dense.empty())
                return *m_sparse;
            return { m_dense, m_owner->m_dense[static_cast<std::size_t>(m_dense)] };
        }
        const_iterator &operator++()
        {
            if (m_owner->m_dense.empty()) {
                ++m_sparse;
            } else {
                ++m_dense;
                skipZeros();
            }
            return *this;
        }
        bool operator==(const const_iterator &o) const
        {
            return m_sparse == o.m_sparse && m_dense == o.m_dense;
        }

    private:
        void skipZeros()
        {
            const std::vector<double> &d = m_owner->m_dense;
            while (!d.empty() && m_dense < static_cast<int>(d.size())
                && d[static_cast<std::size_t>(m_dense)] == 0.0)
                ++m_dense;
        }
        const LinkLoads *m_owner;
        FlatIntMap<double>::const_iterator m_sparse;
        int m_dense;
    };

    const_iterator begin() const { return { *this, m_sparse.begin(), 0 }; }
    const_iterator end() const
    {
        return { *this, m_sparse.end(), m_dense.empty() ? 0 : static_cast<int>(m_dense.size()) };
    }

private:
    void toDense()
    {
        m_dense.assign(static_cast<std::size_t>(m_links), 0.0);
        for (const auto &[link, value] : m_sparse)
            m_dense[static_cast<std::size_t>(link)] = value;
        m_denseCount = m_sparse.size();
        m_sparse = FlatIntMap<double>();
    }

    int m_links = 0;
    FlatIntMap<double> m_sparse;
    std::vector<double> m_dense; ///< per link id once dense; empty while sparse
    std::size_t m_denseCount = 0; ///< non-zero entries of m_dense
};

/**
 * Demand per route segment id accumulated between flushes (TrafficPattern::pendingSegments):
 * an array indexed by segment id plus the list of ids touched, so adding is a store and a
 * flush visits only what changed. Segment ids are dense (Router::segmentIdLimit()); the array
 * grows when a fabric that is no folded Clos caches a new leaf-pair segment.
 */
class SegmentDemand
{
public:
    void add(int segment, double delta)
    {
        const auto at = static_cast<std::size_t>(segment);
        if (at >= m_value.size()) {
            m_value.resize(at + 1, 0.0);
            m_touched.resize(at + 1, 0);
        }
        if (!m_touched[at]) {
            m_touched[at] = 1;
            m_list.push_back(segment);
        }
        m_value[at] += delta;
    }

    /// Calls `spread(segment, demand)` for each touched segment, then forgets them all.
    template<typename Spread> void flush(const Spread &spread)
    {
        for (const int segment : m_list) {
            const auto at = static_cast<std::size_t>(segment);
            const double demand = std::exchange(m_value[at], 0.0);
            m_touched[at] = 0;
            spread(segment, demand);
        }
        m_list.clear();
    }

    void clear()
    {
        flush([](int, double) {});
    }

private:
    std::vector<double> m_value;
    std::vector<unsigned char> m_touched;
    std::vector<int> m_list;
};

/**
 * Net load change per link between flushes (TrafficPattern::pendingEnds): a small open-
 * addressing table (linear probing, fibonacciSlot() as FlatIntMap) plus the slots in the
 * order their links were first touched, so a flush visits and clears only those: one move
 * touches a few dozen links of a pattern, while the table keeps the capacity the largest move
 * needed (a FlatIntMap's clear() would walk all of it every move).
 */
class LinkDeltas
{
public:
    bool empty() const { return m_order.empty(); }

    void add(int link, double delta)
    {
        if ((m_order.size() + 1) * 2 > m_slots.size())
            grow();
        std::size_t i = home(link);
        while (m_slots[i].link >= 0) {
            if (m_slots[i].link == link) {
                m_slots[i].delta += delta;
                return;
            }
            i = (i + 1) & m_mask;
        }
        m_slots[i] = { link, delta };
        m_order.push_back(i);
    }

    /// Calls `apply(link, delta)` for each link in the order it was first touched (its deltas
    /// summed in the order they came), then forgets them all.
    template<typename Apply> void flush(const Apply &apply)
    {
        for (const std::size_t i : m_order) {
            apply(m_slots[i].link, m_slots[i].delta);
            m_slots[i].link = -1;
        }
        m_order.clear();
    }

    void clear()
    {
        flush([](int, double) {});
    }

private:
    struct Slot
    {
        int link = -1;
        double delta = 0.0;
    };

    std::size_t home(int link) const
    {
        return fibonacciSlot(static_cast<std::uint32_t>(link), m_shift);
    }

    void grow()
    {
        const std::size_t capacity = m_slots.empty() ? 64 : m_slots.size() * 2;
        std::vector<Slot> live;
        live.reserve(m_order.size());
        for (const std::size_t i : m_order)
            live.push_back(m_slots[i]);
        m_slots.assign(capacity, Slot {});
        m_mask = capacity - 1;
        m_shift = 64 - std::countr_zero(capacity);
        m_order.clear();
        for (const Slot &s : live) // in first-touched order, which the flush keeps
            add(s.link, s.delta);
    }

    std::vector<Slot> m_slots;
    std::vector<std::size_t> m_order; ///< occupied slots, by first touch
    std::size_t m_mask = 0;
    int m_shift = 64;
};

} // namespace railyard
