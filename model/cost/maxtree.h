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

    /// Value i as last set (settled or not).
    double value(std::size_t i) const { return m_node[m_leaves + i]; }

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

/**
 * The largest of n values kept elsewhere (a traffic pattern's per-link loads) and where it is,
 * by blocks of 64 values: a changed value marks its block; settle() rescans each marked block
 * through `valueOf(i)` and repairs a MaxTree over the blocks' maxima. The values are not
 * copied, and the tree is a 64th of one over every value: on a 131,072-GPU fabric (1.18 million
 * links) a tree per value took 33 MB per pattern and its random writes most of a swap. A value
 * that grows needs no rescan (raise()): only a shrinking one marks its block.
 */
class BlockMaxima
{
public:
    static constexpr std::size_t kBlock = 64;

    std::size_t size() const { return m_n; }

    /// n values, all zero.
    void assign(std::size_t n)
    {
        m_n = n;
        const std::size_t blocks = (n + kBlock - 1) / kBlock;
        m_tree.assign(blocks);
        m_marked.assign(blocks, 0);
        m_dirty.clear();
    }

    /// Value i changed (read again at the next settle()).
    void touch(std::size_t i)
    {
        const std::size_t b = i / kBlock;
        if (!m_marked[b]) {
            m_marked[b] = 1;
            m_dirty.push_back(b);
        }
    }

    /// Value i is now `value`, which is no smaller than before: its block's maximum becomes
    /// the larger of the two without a rescan (a pattern being built only ever grows).
    void raise(std::size_t i, double value)
    {
        const std::size_t b = i / kBlock;
        if (!m_marked[b] && value > m_tree.value(b))
            m_tree.set(b, value);
    }

    template<typename ValueOf> void settle(const ValueOf &valueOf)
    {
        for (const std::size_t b : m_dirty) {
            const std::size_t end = std::min(m_n, (b + 1) * kBlock);
            double best = 0.0;
            for (std::size_t i = b * kBlock; i < end; ++i)
                best = std::max(best, valueOf(i));
            m_tree.set(b, best);
            m_marked[b] = 0;
        }
        m_dirty.clear();
        m_tree.settle();
    }

    /// The largest value, at least 0 (0 without values); call settle() first.
    double max() const { return m_tree.max(); }

    /// The smallest index holding max() (when it is above 0).
    template<typename ValueOf> std::size_t argmax(const ValueOf &valueOf) const
    {
        const std::size_t b = m_tree.argmax();
        const double best = m_tree.max();
        const std::size_t end = std::min(m_n, (b + 1) * kBlock);
        for (std::size_t i = b * kBlock; i < end; ++i)
            if (valueOf(i) == best)
                return i;
        return b * kBlock;
    }

private:
    std::size_t m_n = 0;
    MaxTree m_tree; ///< per block, its largest value
    std::vector<unsigned char> m_marked; ///< per block: listed in m_dirty
    std::vector<std::size_t> m_dirty;
};

} // namespace railyard
