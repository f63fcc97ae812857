#pragma once

#include "base/units.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <vector>

namespace railyard {

/** Load on one directed link over one iteration. */
struct LinkLoad
{
    double bytes = 0.0; ///< per iteration
    DimArray dimBytes {}; ///< per parallel dimension
    double busyTime = 0.0; ///< bytes / bandwidth, seconds per iteration

    /// The dimension that contributes most (the first of equals).
    Dim topDim() const
    {
        return static_cast<Dim>(
            std::max_element(dimBytes.begin(), dimBytes.end()) - dimBytes.begin());
    }

    friend bool operator==(const LinkLoad &, const LinkLoad &) = default;
};

/**
 * The loads of every directed link of a fabric, indexed by link id, read like a
 * `std::vector<LinkLoad>` (`size()`, `operator[]`, iteration in id order).
 *
 * Most links carry exactly what another link does: a GPU's port out and its port in, the
 * cables of one ECMP lump, the NIC links of every server of a stage (96 % of the links repeat
 * the link before them at 131,072 GPUs). So a link holds a 4-byte index into a table of
 * distinct loads, and a link that repeats the one before it shares that link's entry
 * (pushRepeat()): 4 bytes a link plus 56 a distinct load, where a vector of loads took 56 bytes
 * a link (594 MB at 10.6 million links, every page of it written once per evaluation; the
 * million-GPU `evaluate` now peaks 0.5 GB lower, docs/performance.md).
 *
 * set() changes one link: it writes the link's entry in place when no other link shares it,
 * else gives the link an entry of its own, so the table never holds more entries than links.
 * After reserve() with the link count (the engine's report), entries never move until the
 * next clear(), so a reference from operator[] stays valid across set() as a vector's would.
 */
class LinkLoadTable
{
public:
    /// Visits the links' loads in id order (what range-for and std::equal need).
    class const_iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = LinkLoad;
        using difference_type = std::ptrdiff_t;
        using pointer = const LinkLoad *;
        using reference = const LinkLoad &;

        const_iterator() = default;
        const_iterator(const LinkLoadTable *table, std::size_t at)
            : m_table(table)
            , m_at(at)
        {
        }
        reference operator*() const { return (*m_table)[m_at]; }
        pointer operator->() const { return &(*m_table)[m_at]; }
        const_iterator &operator++()
        {
            ++m_at;
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator old = *this;
            ++m_at;
            return old;
        }
        friend difference_type operator-(const const_iterator &a, const const_iterator &b)
        {
            return static_cast<difference_type>(a.m_at) - static_cast<difference_type>(b.m_at);
        }
        friend bool operator==(const const_iterator &a, const const_iterator &b)
        {
            return a.m_at == b.m_at;
        }

    private:
        const LinkLoadTable *m_table = nullptr;
        std::size_t m_at = 0;
    };

    LinkLoadTable() = default;
    /// `links` links, each carrying `load` (one shared entry).
    explicit LinkLoadTable(std::size_t links, const LinkLoad &load = {}) { assign(links, load); }

    std::size_t size() const { return m_index.size(); }
    bool empty() const { return m_index.empty(); }
    const LinkLoad &operator[](std::size_t link) const { return m_loads[m_index[link]]; }
    /// operator[] with the bounds checked (std::out_of_range, like std::vector::at).
    const LinkLoad &at(std::size_t link) const { return m_loads[m_index.at(link)]; }
    const_iterator begin() const { return { this, 0 }; }
    const_iterator end() const { return { this, size() }; }
    /// Distinct entries held (at most size()).
    std::size_t distinctLoads() const { return m_loads.size(); }

    void clear()
    {
        m_index.clear();
        m_loads.clear();
        m_shares.clear();
    }
    /// Room for `links` links without moving the entries later (see the class comment).
    void reserve(std::size_t links)
    {
        m_index.reserve(links);
        m_loads.reserve(links);
        m_shares.reserve(links);
    }
    void assign(std::size_t links, const LinkLoad &load)
    {
        clear();
        reserve(links);
        if (links == 0)
            return;
        m_index.assign(links, 0);
        m_loads.push_back(load);
        m_shares.push_back(static_cast<std::uint32_t>(links));
    }
    /// The next link, with a load of its own.
    void push_back(const LinkLoad &load)
    {
        m_index.push_back(static_cast<std::uint32_t>(m_loads.size()));
        m_loads.push_back(load);
        m_shares.push_back(1);
    }
    /// The next link, carrying what the link before it carries (sharing its entry).
    void pushRepeat()
    {
        const std::uint32_t e = m_index.back();
        m_index.push_back(e);
        ++m_shares[e];
    }
    /// Link `link` now carries `load`.
    void set(std::size_t link, const LinkLoad &load)
    {
        const std::uint32_t e = m_index[link];
        if (m_shares[e] == 1) {
            m_loads[e] = load;
            return;
        }
        --m_shares[e];
        m_index[link] = static_cast<std::uint32_t>(m_loads.size());
        m_loads.push_back(load);
        m_shares.push_back(1);
    }

    friend bool operator==(const LinkLoadTable &a, const LinkLoadTable &b)
    {
        return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin());
    }

private:
    std::vector<std::uint32_t> m_index; ///< per link: its entry in m_loads
    std::vector<LinkLoad> m_loads; ///< the distinct loads
    std::vector<std::uint32_t> m_shares; ///< per entry: how many links point at it
};

} // namespace railyard
