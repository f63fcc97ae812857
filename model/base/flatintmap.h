#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace railyard {

/// The top bits of `key` x 2^64/phi: Fibonacci hashing (Knuth, TAOCP vol. 3, §6.4), which
/// spreads dense and strided ids (every eighth link) over a table of 2^(64 - shift) slots.
inline std::size_t fibonacciSlot(std::uint64_t key, int shift)
{
    return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift);
}

/**
 * A hash map from non-negative int ids (link ids, segment ids) to values, stored in one flat
 * array: open addressing with linear probing and backward-shift deletion (Knuth, TAOCP vol. 3,
 * §6.4, Algorithm R), so an insert or erase allocates nothing once the table has grown and
 * destruction frees one block.
 *
 * Why not std::unordered_map: the traffic model keeps one such map per traffic pattern and
 * updates it for every hop of every flow; node-based maps spent most of a full evaluation in
 * malloc, free and rehashing (measured with perf on the 16,384-GPU benchmark). Boost 1.74 (the
 * version Debian 12 ships) predates boost::unordered_flat_map, which would otherwise serve.
 *
 * Iteration visits each entry once, in table order (not insertion order); erasing while
 * iterating is not supported.
 */
template<typename Value> class FlatIntMap
{
public:
    using Entry = std::pair<int, Value>;

    class const_iterator
    {
    public:
        const_iterator(const Entry *at, const Entry *end)
            : m_at(at)
            , m_end(end)
        {
            skipEmpty();
        }
        const Entry &operator*() const { return *m_at; }
        const Entry *operator->() const { return m_at; }
        const_iterator &operator++()
        {
            ++m_at;
            skipEmpty();
            return *this;
        }
        bool operator==(const const_iterator &o) const { return m_at == o.m_at; }

    private:
        void skipEmpty()
        {
            while (m_at != m_end && m_at->first < 0)
                ++m_at;
        }
        const Entry *m_at;
        const Entry *m_end;
    };

    std::size_t size() const { return m_size; }
    bool empty() const { return m_size == 0; }

    const_iterator begin() const { return { m_slots.data(), m_slots.data() + m_slots.size() }; }
    const_iterator end() const
    {
        const Entry *e = m_slots.data() + m_slots.size();
        return { e, e };
    }

    /// Removes every entry and keeps the table's capacity.
    void clear()
    {
        if (m_size == 0)
            return;
        for (Entry &e : m_slots)
            e.first = kEmpty;
        m_size = 0;
    }

    /// Makes room for `entries` without growing (no-op when there is room already).
    void reserve(std::size_t entries)
    {
        std::size_t capacity = m_slots.empty() ? 16 : m_slots.size();
        while (capacity < 2 * entries)
            capacity *= 2;
        if (capacity > m_slots.size())
            rehash(capacity);
    }

    /// The value of `key`, default-constructed (and inserted) when absent.
    Value &operator[](int key)
    {
        if ((m_size + 1) * 2 > m_slots.size()) // keep the load factor at most 1/2
            grow();
        std::size_t i = home(key);
        while (m_slots[i].first >= 0) {
            if (m_slots[i].first == key)
                return m_slots[i].second;
            i = (i + 1) & m_mask;
        }
        m_slots[i] = { key, Value {} };
        ++m_size;
        return m_slots[i].second;
    }

    /// The value of `key`, or nullptr when absent.
    const Value *find(int key) const
    {
        if (m_size == 0)
            return nullptr;
        for (std::size_t i = home(key); m_slots[i].first >= 0; i = (i + 1) & m_mask)
            if (m_slots[i].first == key)
                return &m_slots[i].second;
        return nullptr;
    }

    /// Removes `key` if present. Later entries of its probe run shift back into the hole, so
    /// lookups never need tombstones.
    void erase(int key)
    {
        if (m_size == 0)
            return;
        std::size_t hole = home(key);
        while (m_slots[hole].first != key) {
            if (m_slots[hole].first < 0)
                return;
            hole = (hole + 1) & m_mask;
        }
        for (std::size_t j = (hole + 1) & m_mask; m_slots[j].first >= 0; j = (j + 1) & m_mask) {
            // The entry at j may fill the hole unless its home lies cyclically in (hole, j].
            const std::size_t h = home(m_slots[j].first);
            const bool stays = hole <= j ? (hole < h && h <= j) : (hole < h || h <= j);
            if (!stays) {
                m_slots[hole] = std::move(m_slots[j]);
                hole = j;
            }
        }
        m_slots[hole].first = kEmpty;
        --m_size;
    }

private:
    static constexpr int kEmpty = -1;

    std::size_t home(int key) const
    {
        return fibonacciSlot(static_cast<std::uint32_t>(key), m_shift);
    }

    void grow() { rehash(m_slots.empty() ? 16 : m_slots.size() * 2); }

    void rehash(std::size_t capacity)
    {
        std::vector<Entry> old = std::move(m_slots);
        m_slots.assign(capacity, Entry { kEmpty, Value {} });
        m_mask = capacity - 1;
        m_shift = 64 - std::countr_zero(capacity);
        m_size = 0;
        for (Entry &e : old)
            if (e.first >= 0)
                (*this)[e.first] = std::move(e.second);
    }

    std::vector<Entry> m_slots;
    std::size_t m_mask = 0;
    int m_shift = 64;
    std::size_t m_size = 0;
};

} // namespace railyard
