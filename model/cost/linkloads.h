#pragma once

#include "base/flatintmap.h"
#include "base/writeahead.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <memory>
#include <span>
#include <utility>
#include <vector>

namespace railyard {

/**
 * Fixed-size arrays of T handed out from blocks of `perChunk` arrays that never move, and
 * taken back for the next request (the caller returns them in the state it wants them handed
 * out again: LinkLoads returns its arrays zeroed).
 */
template<typename T> class ArrayPool
{
public:
    ArrayPool(std::size_t length, std::size_t perChunk)
        : m_length(length)
        , m_perChunk(perChunk)
    {
    }
    /// An array of length() elements: a returned one as it was returned, else a new one
    /// filled with `fill`.
    T *take(const T &fill)
    {
        if (!m_free.empty()) {
            T *array = m_free.back();
            m_free.pop_back();
            return array;
        }
        if (m_used == m_perChunk) {
            m_chunks.push_back(std::make_unique_for_overwrite<T[]>(m_length * m_perChunk));
            m_used = 0;
        }
        T *array = m_chunks.back().get() + (m_used++) * m_length;
        std::fill_n(array, m_length, fill);
        return array;
    }
    void give(T *array) { m_free.push_back(array); }
    /// Frees every array.
    void reset()
    {
        m_chunks = decltype(m_chunks)();
        m_free = decltype(m_free)();
        m_used = m_perChunk;
    }
    std::size_t length() const { return m_length; }

private:
    std::size_t m_length;
    std::size_t m_perChunk;
    std::size_t m_used = m_perChunk; ///< arrays handed out of the last chunk
    std::vector<std::unique_ptr<T[]>> m_chunks;
    std::vector<T *> m_free;
};

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
 * A sparse pattern's page is a table of blocks, each block the 8 ids of one parity among 16
 * consecutive ids (one cache line of loads), allocated as a load first reaches it. Most of a
 * sparse pattern's ids in a page carry nothing: a server's run of link ids (its GPUs' NVLink,
 * PCIe and NIC cables, two directions each) is loaded on a third of its ids by a TP group (the
 * NVLink cables, both ways) or a pipeline boundary (every other id: out of the sending
 * stage's servers, into the receiving one's), and a whole page held a third of its loads at a
 * million GPUs (305 MB for the 65 TP and boundary patterns). A block takes 8 ids of one
 * direction, so both runs fill the blocks they take. A dense pattern's pages are whole arrays
 * of loads, in one block allocated up front (reserve()).
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
        m_tables = ArrayPool<double *>(blocksPerPage(), kTablesPerChunk);
    }

    /// Links that carry a load.
    std::size_t size() const { return m_hashed ? m_hash.size() : m_count; }
    /// Pages that hold a load; none once hashed.
    std::size_t pages() const { return m_pages.size(); }
    /// Whether the loads are in a hash table (a sparse pattern whose loads are scattered).
    bool hashed() const { return m_hashed; }
    /// Blocks of 8 loads the pages hold (64 bytes each; none for whole pages or when hashed).
    /// (Counted on each call: for tests and diagnostics.)
    std::size_t blocks() const
    {
        std::size_t count = 0;
        if (!m_whole && !m_hashed)
            for (const int page : m_pages)
                for (const double *block :
                    std::span(m_page[static_cast<std::size_t>(page)].blocks(), m_tables.length()))
                    count += block != nullptr;
        return count;
    }

    /// A hint that about `entries` links will take a load: a pattern that large is dense from
    /// the start (TrafficModel keeps its maxima by blocks from its first load on).
    void reserve(std::size_t entries)
    {
        if (coversAnEighth(entries) && !m_dense) {
            m_dense = true; // first: a dense pattern's pages are never hashed again
            unhash();
            // Whole pages, in one block for every page it may need, left uninitialised: each
            // page is written (and its memory touched) only when a load first reaches it. A
            // pattern that covers an eighth of the links reaches nearly every page of them (a
            // DP family's ring or tree loads every GPU's PCIe link and NIC port, and pages of
            // 512 ids span 16 servers' cables), so the block is announced as written
            // (base/writeahead.h). Loads it holds already move there.
            const std::vector<std::pair<int, double>> held(begin(), end());
            dropPages();
            m_whole = true;
            m_wholeBlock = std::make_unique_for_overwrite<double[]>(pageCount() * pageSize());
            aboutToWrite(m_wholeBlock.get(), pageCount() * pageSize() * sizeof(double));
            for (const auto &[link, load] : held)
                add(link, load);
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
            release(m_page[static_cast<std::size_t>(page)], true);
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
        const bool fresh = page >= m_page.size() || !m_page[page].held();
        if (fresh)
            takePage(page);
        Page &at = m_page[page];
        double &value = slot(at, link & (pageSize() - 1));
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
        if (page >= m_page.size() || !m_page[page].held())
            return nullptr;
        const double *value = at(m_page[page], link & (pageSize() - 1));
        return value && *value != 0.0 ? value : nullptr;
    }

    /// Visits (link, load) of every loaded link (an input iterator: a container's range
    /// constructor takes it).
    class const_iterator
    {
    public:
        using iterator_category = std::input_iterator_tag;
        using value_type = std::pair<int, double>;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = value_type;

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
            const double *load = value(); // never nullptr here: skipZeros() stopped on a load
            return { link(), load ? *load : 0.0 };
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
        const_iterator operator++(int)
        {
            const_iterator was = *this;
            ++*this;
            return was;
        }
        bool operator==(const const_iterator &o) const
        {
            return m_hashed == o.m_hashed && m_page == o.m_page && m_offset == o.m_offset;
        }

    private:
        int link() const { return (m_owner->m_pages[m_page] << m_owner->m_pageShift) + m_offset; }
        /// The load at the current id, nullptr where its block is not allocated.
        const double *value() const
        {
            return m_owner->at(
                m_owner->m_page[static_cast<std::size_t>(m_owner->m_pages[m_page])], m_offset);
        }
        void skipZeros()
        {
            while (m_page < m_owner->m_pages.size()) {
                if (m_offset == m_owner->pageSize()) {
                    ++m_page;
                    m_offset = 0;
                    continue;
                }
                if (const double *v = value(); v && *v != 0.0)
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
    /// A block: the loads of the 8 even or the 8 odd ids among 16 consecutive ids.
    static constexpr int kBlockIds = 16;
    static constexpr std::size_t kBlockLoads = 8;
    static constexpr std::size_t kBlocksPerChunk = 512; ///< 32 KiB of blocks at a time
    static constexpr std::size_t kTablesPerChunk = 64; ///< 32 KiB of 512-id pages' tables

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

    /// A page of link ids: its loads (whole pages) or its table of blocks (nullptr: none
    /// yet), and how many are not zero.
    struct Page
    {
        /// Whole pages (m_whole): the page's loads; else its table of blocks, indexed by
        /// blockOf(offset).
        void *data = nullptr;
        std::uint32_t live = 0;
        bool held() const { return data != nullptr; }
        double *loads() const { return static_cast<double *>(data); }
        double **blocks() const { return static_cast<double **>(data); }
    };

    /// The load at `offset` of a held page, its block allocated first if need be.
    double &slot(Page &page, int offset)
    {
        if (m_whole)
            return page.loads()[offset];
        double *&block = page.blocks()[blockOf(offset)];
        if (!block)
            block = m_blocks.take(0.0);
        return block[slotOf(offset)];
    }
    /// The load at `offset` of a held page, nullptr where its block is not allocated.
    const double *at(const Page &page, int offset) const
    {
        if (m_whole)
            return page.loads() + offset;
        const double *block = page.blocks()[blockOf(offset)];
        return block ? block + slotOf(offset) : nullptr;
    }
    static std::size_t blockOf(int offset)
    {
        return static_cast<std::size_t>(((offset / kBlockIds) << 1) | (offset & 1));
    }
    static std::size_t slotOf(int offset) { return static_cast<std::size_t>((offset >> 1) & 7); }
    std::size_t blocksPerPage() const { return static_cast<std::size_t>(pageSize()) / kBlockLoads; }

    /// Whether a sparse pattern's pages hold so few loads each that a hash table would take
    /// less memory (checked as it takes a new page).
    bool scattered() const
    {
        const std::size_t held = m_pages.size() * static_cast<std::size_t>(pageSize());
        return !m_dense && held >= kScatteredFrom && m_count * kScatteredBelow < held;
    }

    /// Gives page `page` its memory: a page of the whole block (whole pages), else a table
    /// of blocks, none allocated yet; placed pages and blocks never move.
    void takePage(std::size_t page)
    {
        if (page >= m_page.size())
            m_page.resize(std::max(page + 1, pageCount()));
        Page &at = m_page[page];
        if (m_whole) {
            double *loads = m_wholeBlock.get() + page * static_cast<std::size_t>(pageSize());
            std::fill_n(loads, pageSize(), 0.0);
            at.data = loads;
        } else {
            at.data = m_tables.take(nullptr);
        }
        m_pages.insert(std::upper_bound(m_pages.begin(), m_pages.end(), int(page)), int(page));
    }
    void releasePage(std::size_t page)
    {
        release(m_page[page], false); // every load of it is zero already
        m_pages.erase(std::lower_bound(m_pages.begin(), m_pages.end(), int(page)));
    }
    /// Gives a page's blocks back, zeroed first when `zero` (they go out again all zero), and
    /// then its table (all nullptr by then). A whole page stays where it is in the block, and
    /// takePage() zeroes it when it is taken again.
    void release(Page &page, bool zero)
    {
        if (!m_whole) {
            for (double *&block : std::span(page.blocks(), m_tables.length()))
                if (block) {
                    if (zero)
                        std::fill_n(block, kBlockLoads, 0.0);
                    m_blocks.give(std::exchange(block, nullptr));
                }
            m_tables.give(page.blocks());
        }
        page = {};
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
        dropPages();
    }
    /// Frees every page (the loads they held are lost).
    void dropPages()
    {
        m_pages.clear();
        m_page = {};
        m_tables.reset();
        m_blocks.reset();
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
    bool m_whole = false; ///< whole pages in m_wholeBlock (dense from reserve() on)
    std::size_t m_count = 0; ///< links with a non-zero load (pages)
    int m_pageShift = 9; ///< log2 of the page size (setLinkCount())
    int pageSize() const { return 1 << m_pageShift; }

    std::vector<Page> m_page; ///< per page of link ids
    std::vector<int> m_pages; ///< the numbers of the pages that hold loads, ascending
    std::unique_ptr<double[]> m_wholeBlock; ///< every page's loads (m_whole)
    ArrayPool<double *> m_tables { 512 / kBlockLoads, kTablesPerChunk }; ///< pages' tables
    ArrayPool<double> m_blocks { kBlockLoads, kBlocksPerChunk }; ///< blocks of 8 loads
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
