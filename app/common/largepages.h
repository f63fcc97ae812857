#pragma once

#include <cstddef>

namespace railyard {

/**
 * Whether this program's operator new marks large blocks and the heap's growth for transparent
 * huge pages (app/common/largepages.cpp): linked in, not under AddressSanitizer, the kernel
 * offering huge pages, and RAILYARD_HUGE_PAGES not 0.
 */
bool hugePagesAdvised();

/**
 * From now on, where hugePagesAdvised(), each growth of the main heap once it has grown by
 * `fromBytes` is faulted in past the block that caused it (the padding glibc carves the next
 * blocks from, up to 32 huge pages) on a second thread, so that the kernel zeroes it beside the
 * program rather than at its first touch. For a short run that holds its peak to the end
 * (railyard-cli): it costs up to the padding in resident memory.
 */
void prefaultHeapGrowth(std::size_t fromBytes);

} // namespace railyard
