#pragma once

#include <cassert>
#include <cstddef>
#include <iterator>
#include <span>
#include <utility>
#include <vector>

namespace railyard {

/**
 * The groups of one kind (ParallelLayout::groups()): every group has the same number of
 * members, kept back to back in one array, group g at [g * groupSize(), (g + 1) * groupSize()).
 * A group is a span of its members in member order.
 *
 * One array instead of a vector per group: at 1,048,576 ranks a kind of size-1 groups (cp or ep
 * of 1) took a heap block of its own per rank, 56 bytes where the member takes 4, and the
 * layout's eight kinds made 2.3 million allocations.
 */
class GroupList
{
public:
    using value_type = std::span<const int>;

    GroupList() = default;
    /// `members`: the groups' members back to back; its size is a multiple of `groupSize`.
    GroupList(std::vector<int> members, int groupSize)
        : m_members(std::move(members))
        , m_groupSize(static_cast<std::size_t>(groupSize))
    {
        assert(groupSize > 0 && m_members.size() % m_groupSize == 0);
    }

    /// The number of groups.
    std::size_t size() const { return m_groupSize ? m_members.size() / m_groupSize : 0; }
    bool empty() const { return m_members.empty(); }
    /// Members per group.
    int groupSize() const { return static_cast<int>(m_groupSize); }

    std::span<const int> operator[](std::size_t g) const
    {
        return { m_members.data() + g * m_groupSize, m_groupSize };
    }
    std::span<const int> front() const { return (*this)[0]; }
    std::span<const int> back() const { return (*this)[size() - 1]; }

    /// Visits the groups in order.
    class const_iterator
    {
    public:
        using iterator_category = std::forward_iterator_tag;
        using value_type = std::span<const int>;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = std::span<const int>;

        const_iterator() = default;
        const_iterator(const GroupList *owner, std::size_t group)
            : m_owner(owner)
            , m_group(group)
        {
        }
        std::span<const int> operator*() const { return (*m_owner)[m_group]; }
        const_iterator &operator++()
        {
            ++m_group;
            return *this;
        }
        const_iterator operator++(int)
        {
            const_iterator was = *this;
            ++m_group;
            return was;
        }
        bool operator==(const const_iterator &o) const { return m_group == o.m_group; }

    private:
        const GroupList *m_owner = nullptr;
        std::size_t m_group = 0;
    };
    const_iterator begin() const { return { this, 0 }; }
    const_iterator end() const { return { this, size() }; }

    /// Every group as a vector of its own (for code that keeps groups apart from the layout).
    std::vector<std::vector<int>> copies() const
    {
        std::vector<std::vector<int>> out;
        out.reserve(size());
        for (const std::span<const int> group : *this)
            out.emplace_back(group.begin(), group.end());
        return out;
    }

    bool operator==(const GroupList &) const = default;

private:
    std::vector<int> m_members;
    std::size_t m_groupSize = 0;
};

/// A group's members as a vector of their own.
inline std::vector<int> toVector(std::span<const int> group)
{
    return { group.begin(), group.end() };
}

} // namespace railyard
