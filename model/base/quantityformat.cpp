#include "base/quantityformat.h"

#include <cstdio>

namespace railyard {

namespace {

std::string withUnit(const char *fmt, double v, const char *unit)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, fmt, v);
    return std::string(buf) + unit;
}

} // namespace

std::string formatBytes(double bytes)
{
    if (bytes >= 1e12)
        return withUnit("%.3g", bytes / 1e12, " TB");
    if (bytes >= 1e9)
        return withUnit("%.3g", bytes / 1e9, " GB");
    if (bytes >= 1e6)
        return withUnit("%.3g", bytes / 1e6, " MB");
    if (bytes >= 1e3)
        return withUnit("%.3g", bytes / 1e3, " kB");
    return withUnit("%.3g", bytes, " B");
}

std::string formatSeconds(double s)
{
    if (s >= 1.0)
        return withUnit("%.4g", s, " s");
    if (s >= 1e-3)
        return withUnit("%.4g", s * 1e3, " ms");
    if (s >= 1e-6)
        return withUnit("%.4g", s * 1e6, " µs");
    return withUnit("%.4g", s * 1e9, " ns");
}

} // namespace railyard
