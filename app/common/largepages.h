#pragma once

namespace railyard {

/**
 * Whether this program's operator new marks large blocks and the heap's growth for transparent
 * huge pages (app/common/largepages.cpp): linked in, not under AddressSanitizer, the kernel
 * offering huge pages, and RAILYARD_HUGE_PAGES not 0.
 */
bool hugePagesAdvised();

} // namespace railyard
