#pragma once

#include "base/units.h"

#include <algorithm>
#include <vector>

namespace railyard {

/**
 * Which of the indexes 0..n-1 changed since the last clear(), each listed once in the order it
 * was first added: the links, lumps, patterns and ranks an incremental update touched. A mark
 * per index makes add() constant time; clear() costs the length of the list, not n.
 */
class TouchedIndexes
{
public:
    /// n indexes, none listed.
    void assign(std::size_t n)
    {
        m_marked.assign(n, 0);
        m_list.clear();
    }
    /// Room for index n - 1 (the indexes already listed stay).
    void grow(std::size_t n)
    {
        if (m_marked.size() < n)
            m_marked.resize(n, 0);
    }

    /// Lists `i` unless it is listed already.
    void add(int i)
    {
        if (!m_marked[sz(i)]) {
            m_marked[sz(i)] = 1;
            m_list.push_back(i);
        }
    }
    bool contains(int i) const { return m_marked[sz(i)] != 0; }
    bool empty() const { return m_list.empty(); }
    const std::vector<int> &list() const { return m_list; }
    /// The list in ascending order (for sums that must add up in index order).
    void sort() { std::sort(m_list.begin(), m_list.end()); }

    void clear()
    {
        for (const int i : m_list)
            m_marked[sz(i)] = 0;
        m_list.clear();
    }

private:
    std::vector<unsigned char> m_marked;
    std::vector<int> m_list;
};

} // namespace railyard
