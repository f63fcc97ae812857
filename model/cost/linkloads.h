#pragma once

#include "base/flatintmap.h"
#include "base/writeahead.h"

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
 * link carries none.
 *
 * The loads sit in pages of consecutive link ids (pageSizeFor(): 512 on a large fabric, down to
 * 64 on a small one, whose pages would be mostly empty), a page allocated when one of its links
 * first takes a load: a pattern's links mostly come in runs of neighbouring ids (a pipeline
 * boundary's sends leave and enter the servers of two stages, which are consecutive in the
 * fabric's vertex order, with their NIC and leaf cables), so an update is a store into an
 * array that the previous update's page often already brought into cache. A hash table keyed
 * by link id spread those updates over multi-megabyte tables at 131,072 GPUs, a cache miss
 * each (measured with perf: a sixth of a full evaluation). A page whose loads all went back to
 * zero (the links a moved rank's flows left) is released for the next page a load reaches.
 *
 * A pattern whose loads are scattered (a scattered placement, or a long run of optimiser
 * moves, puts a TP group's links anywhere) would hold a page for a few loads: once its pages
 * are mostly empty (under one load per kScatteredBelow link ids they cover, over at least
 * kScatteredFrom ids, judged as it takes a new page) it moves its loads to an open-addressing
 * hash table (FlatIntMap), which costs 32 to 64 bytes per load (16-byte entries in a table a
 * quarter to half full) whatever their ids: a 131,072-GPU scattered placement peaked at 902 MB
 * with pages alone, 701 MB with this rule.
 *
 * A pattern is dense once it covers more than an eighth of the fabric's links (the DP
 * families, whose rings and trees reach every NIC and switch port): it keeps pages from then
 * on, and the traffic model keeps its maxima by blocks of links (MaxTree). Iteration visits
 * the loaded links in id order (pages), or in table order (hash table).
 */
class LinkLoads
{
public:
    /// Link ids per page on a fabric of `links` links: a 64th of them as a power of two,
    /// from 64 to 512 (4 KiB of loads).
    static int pageSizeFor(int links)
    {
        const unsigned wanted = static_cast<unsigned>(std::max(1, links / 64));
        return static_cast<int>(std::clamp(std::bit_floor(wanted), 64u, 512u));
    }

    /// The fabric's link count, which bounds the ids, sets the page size and when a pattern
    /// counts as dense. Call before the first load.
    void setLinkCount(int links)
    {
        m_links = links;
        m_pageShift = std::countr_zero(static_cast<unsigned>(pageSizeFor(links)));
    }

    /// Links that carry a load.
    std::size_t size() const { return m_hashed ? m_hash.size() : m_count; }
    /// Pages that hold a load (pageSizeFor() loads of memory each); none once hashed.
    std::size_t pages() const { return m_pages.size(); }
    /// Whether the loads are in a hash table (a sparse pattern whose loads are scattered).
    bool hashed() const { return m_hashed; }

    /// A hint that about `entries` links will take a load: a pattern that large is dense from
    /// the start (TrafficModel keeps its maxima by blocks from its first load on).
    void reserve(std::size_t entries)
    {
        if (coversAnEighth(entries) && !m_dense) {
            m_dense = true; // first: a dense pattern's pages are never hashed again
            unhash();
            // One block for every page it may need, left uninitialised: each page is written
            // (and its memory touched) only when a load first reaches it. A pattern that
            // covers an eighth of the links reaches nearly every page of them (a DP family's
            // ring or tree loads every GPU's PCIe link and NIC port, and pages of 512 ids span
            // 16 servers' cables), so the block is announced as written (base/writeahead.h).
            newChunk(pageCount());
            aboutToWrite(m_chunks.back().get(), pageCount() * pageSize() * sizeof(double));
        }
    }
    /// Whether the pattern has covered more than an eighth of the links (it stays so).
    bool dense() const { return m_dense; }

    /// Removes every load; the memory stays for the loads to come (the pattern will reach as
    /// much again), and a dense pattern stays dense.
    void clear()
    {
        m_hash.clear();
        for (const int page : m_pages) {
            Page &at = m_page[static_cast<std::size_t>(page)];
            std::fill_n(at.loads, pageSize(), 0.0);
            release(at);
        }
        m_pages.clear();
        m_count = 0;
    }

    /// The load on `link` after adding `delta`; a result within `1e-9 * |delta|` of zero is
    /// rounding residue of loads that cancelled out, and is stored as zero (no load).
    double add(int link, double delta)
    {
        if (m_hashed)
            return addHashed(link, delta);
        const std::size_t page = static_cast<std::size_t>(link) >> m_pageShift;
        const bool fresh = page >= m_page.size() || !m_page[page].loads;
        if (fresh)
            takePage(page);
        Page &at = m_page[page];
        double &value = at.loads[link & (pageSize() - 1)];
        const bool was = value != 0.0;
        value += delta;
        if (isResidue(value, delta))
            value = 0.0;
        const bool is = value != 0.0;
        if (is != was) {
            m_count += is ? 1 : -1;
            at.live += is ? 1 : -1;
        }
        if (at.live == 0) { // every load of the page is zero: it serves the next new page
            releasePage(page);
            return 0.0;
        }
        if (!m_dense && coversAnEighth(m_count))
            m_dense = true;
        const double result = value;
        if (fresh && scattered())
            toHashed(); // frees the pages, `value`'s among them
        return result;
    }

    /// The load on `link`, zero when it carries none.
    double valueAt(int link) const
    {
        const double *value = find(link);
        return value ? *value : 0.0;
    }

    /// The load on `link`, or nullptr when it carries none.
    const double *find(int link) const
    {
        if (m_hashed)
            return m_hash.find(link);
        const std::size_t page = static_cast<std::size_t>(link) >> m_pageShift;
        if (page >= m_page.size() || !m_page[page].loads)
            return nullptr;
        const double *value = m_page[page].loads + (link & (pageSize() - 1));
        return *value != 0.0 ? value : nullptr;
    }

    /// Visits (link, load) of every loaded link.
    class const_iterator
    {
    public:
        const_iterator(const LinkLoads &owner, FlatIntMap<double>::const_iterator hashed,
            std::size_t page, int offset)
            : m_owner(&owner)
            , m_hashed(hashed)
            , m_page(page)
            , m_offset(offset)
        {
            skipZeros();
        }
        std::pair<int, double> operator*() const
        {
            if (m_owner->m_hashed)
                return *m_hashed;
            return { link(), value() };
        }
        const_iterator &operator++()
        {
            if (m_owner->m_hashed) {
                ++m_hashed;
                return *this;
            }
            ++m_offset;
            skipZeros();
            return *this;
        }
        bool operator==(const const_iterator &o) const
        {
            return m_hashed == o.m_hashed && m_page == o.m_page && m_offset == o.m_offset;
        }

    private:
        int link() const { return (m_owner->m_pages[m_page] << m_owner->m_pageShift) + m_offset; }
        double value() const
        {
            return m_owner->m_page[static_cast<std::size_t>(m_owner->m_pages[m_page])]
                .loads[m_offset];
        }
        void skipZeros()
        {
            while (m_page < m_owner->m_pages.size()) {
                if (m_offset == m_owner->pageSize()) {
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
        FlatIntMap<double>::const_iterator m_hashed; ///< while the loads are hashed
        std::size_t m_page; ///< index in m_pages
        int m_offset; ///< link id within the page
    };

    const_iterator begin() const { return { *this, m_hash.begin(), 0, 0 }; }
    const_iterator end() const { return { *this, m_hash.end(), m_pages.size(), 0 }; }

private:
    /// Below one load per kScatteredBelow link ids held in pages on average (each load then
    /// holds over 64 bytes of pages, where a hash table half to a quarter full takes 32 to 64),
    /// over at least kScatteredFrom ids (256 KiB of pages), a sparse pattern hashes its loads.
    static constexpr std::size_t kScatteredBelow = 8;
    static constexpr std::size_t kScatteredFrom = 32768;

    /// A sum within `1e-9 * |delta|` of zero is the rounding residue of loads that cancelled.
    static bool isResidue(double value, double delta)
    {
        return std::abs(value) <= 1e-9 * std::abs(delta);
    }
    /// Whether `loads` links are more than an eighth of the fabric's (a dense pattern).
    bool coversAnEighth(std::size_t loads) const
    {
        return m_links > 0 && loads * 8 > static_cast<std::size_t>(m_links);
    }

    /// A page of link ids: where its loads are (nullptr: none yet) and how many are
    /// not zero.
    struct Page
    {
        double *loads = nullptr;
        std::uint32_t live = 0;
    };

    /// Whether a sparse pattern's pages hold so few loads each that a hash table would take
    /// less memory (checked as it takes a new page).
    bool scattered() const
    {
        const std::size_t held = m_pages.size() * static_cast<std::size_t>(pageSize());
        return !m_dense && held >= kScatteredFrom && m_count * kScatteredBelow < held;
    }

    /// Gives page `page` its memory: a page emptied before, else one from the blocks of
    /// kChunkPages (one block for all of a dense pattern's); placed pages never move.
    void takePage(std::size_t page)
    {
        if (page >= m_page.size())
            m_page.resize(std::max(page + 1, pageCount()));
        Page &at = m_page[page];
        if (!m_free.empty()) {
            at.loads = m_free.back(); // all zero: it was released with no load left
            m_free.pop_back();
        } else {
            if (m_chunkUsed == m_chunkPages)
                newChunk(std::min(kChunkPages, pageCount())); // a small fabric: its pages
            at.loads = m_chunks.back().get() + (m_chunkUsed++) * pageSize();
            std::fill_n(at.loads, pageSize(), 0.0);
        }
        m_pages.insert(std::upper_bound(m_pages.begin(), m_pages.end(), int(page)), int(page));
    }
    void releasePage(std::size_t page)
    {
        release(m_page[page]);
        m_pages.erase(std::lower_bound(m_pages.begin(), m_pages.end(), int(page)));
    }
    void release(Page &page)
    {
        m_free.push_back(page.loads);
        page = {};
    }
    void newChunk(std::size_t pages)
    {
        m_chunks.push_back(std::make_unique_for_overwrite<double[]>(pages * pageSize()));
        m_chunkPages = pages;
        m_chunkUsed = 0;
    }
    std::size_t pageCount() const
    {
        return (static_cast<std::size_t>(std::max(m_links, 0)) + pageSize() - 1) >> m_pageShift;
    }

    double addHashed(int link, double delta)
    {
        double &value = m_hash[link];
        value += delta;
        if (!isResidue(value, delta)) {
            const double v = value;
            if (coversAnEighth(m_hash.size())) {
                m_dense = true; // first: a dense pattern's pages are never hashed again
                unhash();
            }
            return v;
        }
        m_hash.erase(link);
        return 0.0;
    }
    /// Pages -> hash table; the pages' memory is freed.
    void toHashed()
    {
        m_hash.reserve(m_count);
        for (const auto &[link, load] : *this)
            m_hash[link] = load;
        m_hashed = true;
        m_pages.clear();
        m_page = {};
        m_free = {};
        m_chunks.clear();
        m_chunks.shrink_to_fit();
        m_chunkPages = m_chunkUsed = 0;
        m_count = 0;
    }
    /// Hash table -> pages (a pattern become dense).
    void unhash()
    {
        if (!m_hashed)
            return;
        m_hashed = false;
        const FlatIntMap<double> hash = std::exchange(m_hash, {});
        for (const auto &[link, load] : hash)
            add(link, load);
    }

    int m_links = 0;
    bool m_dense = false;
    bool m_hashed = false;
    std::size_t m_count = 0; ///< links with a non-zero load (pages)
    static constexpr std::size_t kChunkPages = 16; ///< pages per block (up to 64 KiB)
    int m_pageShift = 9; ///< log2 of the page size (setLinkCount())
    int pageSize() const { return 1 << m_pageShift; }

    std::vector<Page> m_page; ///< per page of link ids
    std::vector<int> m_pages; ///< the numbers of the pages that hold loads, ascending
    std::vector<double *> m_free; ///< emptied pages' memory (all zero), for the next new page
    std::vector<std::unique_ptr<double[]>> m_chunks; ///< the blocks; pages come from the last
    std::size_t m_chunkPages = 0; ///< pages in the last block
    std::size_t m_chunkUsed = 0; ///< of them handed out
    FlatIntMap<double> m_hash; ///< the loads while hashed()
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
