#pragma once

#include "base/flatintmap.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>
#include <vector>

namespace railyard {

/**
 * One traffic pattern's load per link (link id -> bytes per byte of S per pass), zero where a
 * link carries none. The loads sit in pages of kPage consecutive link ids, a page allocated when
 * one of its links first takes a load: a pattern's links come in runs of neighbouring ids (a
 * pipeline boundary's sends leave and enter the servers of two stages, which are consecutive in
 * the fabric's vertex order, with their NIC and leaf cables), so an update is a store into an
 * array that the previous update's page often already brought into cache, and memory grows
 * with the pages a pattern reaches rather than with the fabric. A hash table keyed by link id
 * spread those updates over multi-megabyte tables at 131,072 GPUs, a cache miss each (measured
 * with perf: a sixth of a full evaluation). Iteration visits the loaded links in id order.
 *
 * A pattern is called dense once it covers more than an eighth of the fabric's links (the DP
 * families, whose rings and trees reach every NIC and switch port); the traffic model keeps
 * such patterns' maxima by blocks of links (MaxTree).
 */
class LinkLoads
{
public:
    /// Link ids per page: 4 KiB of loads.
    static constexpr int kPage = 512;

    /// The fabric's link count, which bounds the ids and sets when a pattern counts as dense.
    void setLinkCount(int links) { m_links = links; }

    /// Links that carry a load.
    std::size_t size() const { return m_count; }
    /// A hint that about `entries` links will take a load: a pattern that large is dense from
    /// the start (TrafficModel keeps its maxima by blocks from its first load on).
    void reserve(std::size_t entries)
    {
        if (m_links > 0 && entries * 8 > static_cast<std::size_t>(m_links) && !m_dense) {
            m_dense = true;
            // One block for every page it may need, left uninitialised: each page is written
            // (and its memory touched) only when a load first reaches it.
            newChunk(pageCount());
        }
    }
    /// Whether the pattern has covered more than an eighth of the links (it stays so).
    bool dense() const { return m_dense; }

    /// Removes every load; pages stay allocated (the pattern will reach as much again), and a
    /// dense pattern stays dense.
    void clear()
    {
        for (const int page : m_pages)
            std::fill_n(m_page[static_cast<std::size_t>(page)], kPage, 0.0);
        m_count = 0;
    }

    /// The load on `link` after adding `delta`; a result within `1e-9 * |delta|` of zero is
    /// rounding residue of loads that cancelled out, and is stored as zero (no load).
    double add(int link, double delta)
    {
        double &value = at(link);
        const bool was = value != 0.0;
        value += delta;
        if (std::abs(value) <= 1e-9 * std::abs(delta))
            value = 0.0;
        const bool is = value != 0.0;
        m_count += static_cast<std::size_t>(is) - static_cast<std::size_t>(was);
        if (!m_dense && m_links > 0 && m_count * 8 > static_cast<std::size_t>(m_links))
            m_dense = true;
        return value;
    }

    /// The load on `link`, zero when it carries none.
    double valueAt(int link) const
    {
        const double *value = slot(link);
        return value ? *value : 0.0;
    }

    /// The load on `link`, or nullptr when it carries none.
    const double *find(int link) const
    {
        const double *value = slot(link);
        return value && *value != 0.0 ? value : nullptr;
    }

    /// Visits (link, load) of every loaded link, in link id order.
    class const_iterator
    {
    public:
        const_iterator(const LinkLoads &owner, std::size_t page, int offset)
            : m_owner(&owner)
            , m_page(page)
            , m_offset(offset)
        {
            skipZeros();
        }
        std::pair<int, double> operator*() const { return { link(), value() }; }
        const_iterator &operator++()
        {
            ++m_offset;
            skipZeros();
            return *this;
        }
        bool operator==(const const_iterator &o) const
        {
            return m_page == o.m_page && m_offset == o.m_offset;
        }

    private:
        int link() const { return m_owner->m_pages[m_page] * kPage + m_offset; }
        double value() const
        {
            return m_owner->m_page[static_cast<std::size_t>(m_owner->m_pages[m_page])][m_offset];
        }
        void skipZeros()
        {
            while (m_page < m_owner->m_pages.size()) {
                if (m_offset == kPage) {
                    ++m_page;
                    m_offset = 0;
                    continue;
                }
                if (value() != 0.0)
                    return;
                ++m_offset;
            }
            m_offset = 0;
        }
        const LinkLoads *m_owner;
        std::size_t m_page; ///< index in m_pages
        int m_offset; ///< link id within the page
    };

    const_iterator begin() const { return { *this, 0, 0 }; }
    const_iterator end() const { return { *this, m_pages.size(), 0 }; }

private:
    /// Where `link`'s load sits, or nullptr when its page holds no loads yet.
    const double *slot(int link) const
    {
        const std::size_t page = static_cast<std::size_t>(link) / kPage;
        if (page >= m_page.size() || !m_page[page])
            return nullptr;
        return m_page[page] + link % kPage;
    }

    double &at(int link)
    {
        const std::size_t page = static_cast<std::size_t>(link) / kPage;
        if (page >= m_page.size())
            m_page.resize(std::max(page + 1, pageCount()), nullptr);
        if (!m_page[page]) {
            // Pages come from blocks of kChunkPages (one block for all of a dense pattern's),
            // so a page, once placed, never moves.
            if (m_chunkUsed == m_chunkPages)
                newChunk(kChunkPages);
            double *fresh = m_chunks.back().get() + (m_chunkUsed++) * kPage;
            std::fill_n(fresh, kPage, 0.0);
            m_page[page] = fresh;
            m_pages.insert(std::upper_bound(m_pages.begin(), m_pages.end(), static_cast<int>(page)),
                static_cast<int>(page));
        }
        return m_page[page][link % kPage];
    }
    void newChunk(std::size_t pages)
    {
        m_chunks.push_back(std::make_unique_for_overwrite<double[]>(pages * kPage));
        m_chunkPages = pages;
        m_chunkUsed = 0;
    }
    std::size_t pageCount() const
    {
        return (static_cast<std::size_t>(std::max(m_links, 0)) + kPage - 1) / kPage;
    }

    int m_links = 0;
    bool m_dense = false;
    std::size_t m_count = 0; ///< links with a non-zero load
    static constexpr std::size_t kChunkPages = 16; ///< pages per block (64 KiB)

    std::vector<double *> m_page; ///< per page of link ids: its loads, or nullptr
    std::vector<int> m_pages; ///< the allocated pages' numbers, ascending
    std::vector<std::unique_ptr<double[]>> m_chunks; ///< the blocks; pages come from the last
    std::size_t m_chunkPages = 0; ///< pages in the last block
    std::size_t m_chunkUsed = 0; ///< of them handed out
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
