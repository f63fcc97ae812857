#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace railyard {

/**
 * The largest of n values and where it is (the smallest index among equal maxima), kept as a
 * tournament tree (a binary heap-ordered max tree, as in Knuth's replacement selection, TAOCP
 * vol. 3, §5.4.1): a changed value costs log2 n comparisons when settled, instead of a scan of
 * all n when the old maximum shrinks. Changes are batched: set() marks (each value once),
 * settle() repairs the paths upwards as far as they change (or rebuilds every level when most
 * values changed).
 */
class MaxTree
{
public:
    std::size_t size() const { return m_n; }

    /// n values, all zero.
    void assign(std::size_t n)
    {
        m_n = n;
        m_leaves = 1;
        while (m_leaves < n)
            m_leaves *= 2;
        m_node.assign(2 * m_leaves, 0.0);
        m_marked.assign(m_leaves, 0);
        m_dirty.clear();
    }

    /// Sets value i; a value set again before settle() is marked once.
    void set(std::size_t i, double value)
    {
        m_node[m_leaves + i] = value;
        if (!m_marked[i]) {
            m_marked[i] = 1;
            m_dirty.push_back(i);
        }
    }

    void settle()
    {
        if (m_dirty.size() * 8 > m_n) {
            for (std::size_t v = m_leaves - 1; v >= 1; --v)
                m_node[v] = std::max(m_node[2 * v], m_node[2 * v + 1]);
        } else {
            // Each changed leaf repairs its path upwards and stops at the first ancestor whose
            // maximum it does not change: that ancestor's own ancestors already hold it, and a
            // leaf whose change does reach them repairs them on its own path.
            for (const std::size_t i : m_dirty)
                for (std::size_t v = (m_leaves + i) / 2; v >= 1; v /= 2) {
                    const double value = std::max(m_node[2 * v], m_node[2 * v + 1]);
                    if (value == m_node[v])
                        break;
                    m_node[v] = value;
                }
        }
        for (const std::size_t i : m_dirty)
            m_marked[i] = 0;
        m_dirty.clear();
    }

    /// The largest value (0 without values); call settle() first.
    double max() const { return m_n == 0 ? 0.0 : m_node[1]; }

    /// The smallest index holding max().
    std::size_t argmax() const
    {
        std::size_t v = 1;
        while (v < m_leaves)
            v = m_node[2 * v] >= m_node[2 * v + 1] ? 2 * v : 2 * v + 1;
        return v - m_leaves;
    }

private:
    std::size_t m_n = 0;
    std::size_t m_leaves = 1;
    std::vector<double> m_node; ///< 1-based heap order; leaves at [m_leaves, 2 m_leaves)
    std::vector<unsigned char> m_marked; ///< per value: listed in m_dirty
    std::vector<std::size_t> m_dirty;
};

} // namespace railyard
