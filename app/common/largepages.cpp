// Transparent huge pages for the programs' memory.
//
// A million-GPU fabric and its evaluation live in about 3 GB of arrays and small blocks, each
// page touched first while being built. With 4 KiB pages every first touch is a page fault and
// every pass over an array a stream of TLB misses: `railyard-cli evaluate` of the four-tier
// million-GPU site took 727,000 page faults. Linux backs an anonymous range with 2 MiB pages
// when it is marked MADV_HUGEPAGE (madvise(2); the kernel's admin guide, "Transparent Hugepage
// Support"), where /sys/kernel/mm/transparent_hugepage/enabled is "madvise" (under "always" it
// does so unasked wherever a whole huge page fits the mapping, under "never" not). glibc can mark
// its own memory so (the tunable glibc.malloc.hugetlb=1, glibc manual "Memory Allocation
// Tunables"), but a tunable comes from the environment before main() runs. So the programs replace
// the global operator new ([replacement.functions]) with one that gives the advice itself:
//
// - a block of at least two huge pages is advised on its whole huge pages (glibc serves it
//   from a fresh mmap() or the heap's untouched top, so none of them is touched yet);
// - the main heap grows at its top by brk(); each growth is advised as it appears, and glibc
//   is asked to grow it at least 32 huge pages at a time (M_TOP_PAD, mallopt(3)), so a growth
//   is mostly untouched when advised. Untouched padding costs address space, not memory.
//
// - railyard-cli also has each growth's padding faulted in on a second thread
//   (prefaultHeapGrowth(), madvise(MADV_POPULATE_WRITE)), so that the kernel zeroes it beside
//   the run rather than at its first touch, and with it the large blocks the engine says it is
//   about to write whole (aboutToWrite(), base/writeahead.h), from their end while the engine
//   writes them from their start.
//
// Same output, 47,000 page faults instead of 727,000 (docs/performance.md, "A million GPUs").
// Only the programs link this file (railyard, railyard-cli, the benchmarks); the libraries
// leave the choice to whoever links them. RAILYARD_HUGE_PAGES=0 in the environment turns the
// advice off. Under AddressSanitizer the sanitizer's operator new is kept, with its checks.

#include "largepages.h"

#include "base/writeahead.h"

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define RAILYARD_ASAN 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define RAILYARD_ASAN 1
#endif

#if defined(__linux__) && defined(__GLIBC__) && !defined(RAILYARD_ASAN)
#include <cerrno>
#include <fcntl.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/mman.h>
#include <unistd.h>

namespace {

/**
 * The kernel's transparent huge page size (2 MiB on x86-64), 0 when it has none or
 * RAILYARD_HUGE_PAGES=0. Read with read(2), which allocates nothing: this runs inside the
 * first operator new.
 */
std::size_t hugePageSize()
{
    const char *setting = std::getenv("RAILYARD_HUGE_PAGES");
    if (setting != nullptr && std::strcmp(setting, "0") == 0)
        return 0;
    const int fd
        = ::open("/sys/kernel/mm/transparent_hugepage/hpage_pmd_size", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    char text[32] = {};
    const ssize_t n = ::read(fd, text, sizeof text - 1);
    ::close(fd);
    std::size_t size = 0;
    for (ssize_t i = 0; i < n && text[i] >= '0' && text[i] <= '9'; ++i)
        size = size * 10 + static_cast<std::size_t>(text[i] - '0');
    if (size < 4096 || (size & (size - 1)) != 0)
        return 0; // not a page size
    mallopt(M_TOP_PAD, static_cast<int>(std::min<std::size_t>(32 * size, std::size_t { 1 } << 30)));
    return size;
}

std::size_t hugePage()
{
    static const std::size_t size = hugePageSize();
    return size;
}

std::uintptr_t roundDown(std::uintptr_t address, std::size_t page)
{
    return address & ~(std::uintptr_t { page } - 1);
}

void advise(std::uintptr_t first, std::uintptr_t last)
{
    if (last > first)
        ::madvise(reinterpret_cast<void *>(first), last - first, MADV_HUGEPAGE);
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 // Linux 5.14 (madvise(2)); older kernels answer EINVAL
#endif

/**
 * Faults in ranges of the heap's padding on a second thread (madvise(MADV_POPULATE_WRITE),
 * Linux 5.14: the pages are allocated and zeroed, their contents left as they are), so that the
 * kernel's zeroing of memory the program is about to use runs beside it rather than at its
 * first touch. Off until prefaultHeapGrowth().
 */
class Prefaulter
{
public:
    /// Heap growth (bytes above where the heap stood at the first allocation) from which ranges
    /// are faulted in; the largest value until prefaultHeapGrowth() (never).
    std::atomic<std::size_t> from { ~std::size_t { 0 } };

    /**
     * Queues [first, last) to be faulted in; dropped when the queue is busy or full. `block`:
     * a block the program is about to write (aboutToWrite()), faulted in before the queued
     * padding and from its end, huge page by huge page, towards the writes coming from its start.
     */
    void post(std::uintptr_t first, std::uintptr_t last, bool block = false)
    {
        if (last <= first || m_unsupported.load(std::memory_order_relaxed))
            return;
        if (::pthread_mutex_trylock(&m_lock) != 0)
            return; // never wait inside operator new (nor after a fork() that copied it held)
        if (!m_started) {
            pthread_t thread;
            m_started = ::pthread_create(&thread, nullptr, &Prefaulter::run, this) == 0;
            if (m_started)
                ::pthread_detach(thread);
        }
        if (m_started && m_count < kQueue) {
            if (block) {
                m_head = (m_head + kQueue - 1) % kQueue;
                m_queue[m_head] = { first, last, true };
            } else {
                m_queue[(m_head + m_count) % kQueue] = { first, last, false };
            }
            ++m_count;
            ::pthread_cond_signal(&m_ready);
        }
        ::pthread_mutex_unlock(&m_lock);
    }

private:
    struct Range
    {
        std::uintptr_t first = 0, last = 0;
        bool fromEnd = false;
    };
    static constexpr int kQueue = 64;

    static void *run(void *self)
    {
        auto *p = static_cast<Prefaulter *>(self);
        for (;;) {
            ::pthread_mutex_lock(&p->m_lock);
            while (p->m_count == 0)
                ::pthread_cond_wait(&p->m_ready, &p->m_lock);
            const Range r = p->m_queue[p->m_head];
            p->m_head = (p->m_head + 1) % kQueue;
            --p->m_count;
            ::pthread_mutex_unlock(&p->m_lock);
            const std::size_t step = r.fromEnd ? hugePage() : r.last - r.first;
            for (std::uintptr_t last = r.last; last > r.first;) {
                const std::uintptr_t first = last - std::min<std::uintptr_t>(step, last - r.first);
                if (!populate(first, last)) {
                    p->m_unsupported.store(true, std::memory_order_relaxed);
                    break;
                }
                last = first;
            }
        }
        return nullptr;
    }

    /// false when the kernel does not know MADV_POPULATE_WRITE (before 5.14).
    static bool populate(std::uintptr_t first, std::uintptr_t last)
    {
        return ::madvise(reinterpret_cast<void *>(first), last - first, MADV_POPULATE_WRITE) == 0
            || errno != EINVAL;
    }

    pthread_mutex_t m_lock = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t m_ready = PTHREAD_COND_INITIALIZER;
    Range m_queue[kQueue];
    int m_head = 0, m_count = 0;
    bool m_started = false;
    std::atomic<bool> m_unsupported { false };
};

Prefaulter &prefaulter()
{
    static Prefaulter p;
    return p;
}
// Never destroyed: the thread may still be faulting in while the program exits.
static_assert(std::is_trivially_destructible_v<Prefaulter>);

/** The whole huge pages inside a large block; the kernel maps one only where all of it is advised.
 */
void adviseBlock(void *block, std::size_t size, std::size_t page)
{
    if (size < 2 * page)
        return;
    const auto address = reinterpret_cast<std::uintptr_t>(block);
    advise(roundDown(address + page - 1, page), roundDown(address + size, page));
}

/**
 * What the main heap has grown by since the last look (already advised ranges are skipped):
 * advised, and its part past `block` (the padding glibc will carve the next blocks from)
 * faulted in on the second thread.
 */
void adviseHeapGrowth(void *block, std::size_t size, std::size_t page)
{
    static std::atomic<std::uintptr_t> advisedTo { 0 };
    const std::uintptr_t top = roundDown(reinterpret_cast<std::uintptr_t>(::sbrk(0)), page);
    std::uintptr_t from = advisedTo.load(std::memory_order_relaxed);
    if (top <= from || !advisedTo.compare_exchange_strong(from, top))
        return;
    const std::uintptr_t first = from == 0 ? top - page : from;
    advise(first, top);
    static const std::uintptr_t base = top; // the heap's top at the first look
    if (top < base || top - base < prefaulter().from.load(std::memory_order_relaxed))
        return;
    const std::uintptr_t end = reinterpret_cast<std::uintptr_t>(block) + size;
    prefaulter().post(std::max(first, roundDown(end + page - 1, page)), top);
}

/**
 * The handler of aboutToWrite() (base/writeahead.h) once prefaultHeapGrowth() was called: a
 * block of at least 8 huge pages the engine is about to write whole (a million-GPU fabric's
 * links, the traffic model's bytes per link and dimension) is faulted in on the second thread,
 * from its end, while the main thread writes it from its start.
 */
void prefaultBlock(const void *data, std::size_t bytes)
{
    const std::size_t page = hugePage();
    if (page == 0 || bytes < 8 * page)
        return;
    // madvise() takes page-aligned addresses; the pages the block shares with its neighbours
    // are faulted in with it (their contents stay as they are).
    static const auto base = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
    const auto address = reinterpret_cast<std::uintptr_t>(data);
    prefaulter().post(roundDown(address, base), roundDown(address + bytes + base - 1, base), true);
}

} // namespace

// As the standard's own ([new.delete.single]): on failure the new-handler and a retry, or
// std::bad_alloc when there is none. operator new[] and the nothrow forms of libstdc++ call this
// one; delete must match the malloc() it uses.
void *operator new(std::size_t size)
{
    for (;;) {
        if (void *block = std::malloc(size == 0 ? 1 : size)) {
            if (const std::size_t page = hugePage(); page != 0) {
                adviseBlock(block, size, page);
                adviseHeapGrowth(block, size, page);
            }
            return block;
        }
        const std::new_handler handler = std::get_new_handler();
        if (handler == nullptr)
            throw std::bad_alloc();
        handler();
    }
}

void operator delete(void *block) noexcept
{
    std::free(block);
}

void operator delete(void *block, std::size_t) noexcept
{
    std::free(block);
}

bool railyard::hugePagesAdvised()
{
    return hugePage() != 0;
}

void railyard::prefaultHeapGrowth(std::size_t fromBytes)
{
    if (hugePage() == 0)
        return;
    prefaulter().from.store(fromBytes, std::memory_order_relaxed);
    railyard::setAboutToWriteHandler(&prefaultBlock);
}

#else

bool railyard::hugePagesAdvised()
{
    return false;
}

void railyard::prefaultHeapGrowth(std::size_t)
{
}

#endif
