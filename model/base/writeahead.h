#pragma once

#include <cstddef>
#include <vector>

namespace railyard {

/**
 * A hint that the caller is about to write the whole of [data, data + bytes), a freshly
 * allocated block that none of its pages has touched yet. A program may have the memory faulted
 * in on another core meanwhile (railyard-cli does: app/common/largepages.cpp), so that the
 * kernel's zeroing of the pages runs beside the writes instead of at each page's first touch;
 * on the virtual machine the benchmarks ran on, a first touch after the machine sat idle cost
 * about 1.5 s a gigabyte (docs/performance.md, "A million GPUs"). Nothing happens unless a
 * handler was set; the contents of the block are never changed.
 *
 * Only for blocks the caller writes whole and soon (a reserve() followed by a fill): a hint on
 * memory that is never written makes it resident for nothing.
 */
void aboutToWrite(const void *data, std::size_t bytes);

/// aboutToWrite() on a vector's reserved storage (after reserve(): capacity() elements).
template<typename T> void aboutToWriteReserved(const std::vector<T> &v)
{
    aboutToWrite(v.data(), v.capacity() * sizeof(T));
}

/// What aboutToWrite() calls (nullptr: nothing, the default). Set once, before the work.
using AboutToWriteHandler = void (*)(const void *data, std::size_t bytes);
void setAboutToWriteHandler(AboutToWriteHandler handler);

} // namespace railyard
