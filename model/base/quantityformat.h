#pragma once

#include <string>

namespace railyard {

/// "1.23 GB", "456 MB" (decimal units, as network people count).
std::string formatBytes(double bytes);
/// "12.3 ms", "4.56 µs".
std::string formatSeconds(double seconds);

} // namespace railyard
