#pragma once

#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string_view>

/**
 * Units and the small enumerations every part of the engine shares.
 *
 * Inside the engine everything is bytes and seconds. Files speak the network convention:
 * bandwidth in Gbit/s (10^9 bit/s, so a 400G NIC is 400) and latency in microseconds.
 */
namespace railyard {

/// Bytes per second of a link that runs at `gbps` Gbit/s (10^9 bit/s) in one direction.
constexpr double gbpsToBytesPerSecond(double gbps) { return gbps * 1e9 / 8.0; }
constexpr double bytesPerSecondToGbps(double bytesPerSecond) { return bytesPerSecond * 8.0 / 1e9; }
/// An int id or count as a vector index (the engine's ids are dense ints >= 0).
constexpr std::size_t sz(int v) { return static_cast<std::size_t>(v); }
constexpr double microseconds(double us) { return us * 1e-6; }
/// std::llround(x) (nearest integer, halves away from zero) without the library call, which
/// the cost engine's integer keys (picoseconds, nanoseconds) made a twentieth of a search step.
/// The integer part and the fraction x - trunc(x) are both exact in binary floating point, so
/// the result is llround's for every |x| < 2^62; larger values, infinities and NaN go to it.
inline long long roundToInteger(double x)
{
    if (!(std::abs(x) < 0x1.0p62))
        return std::llround(x);
    const auto whole = static_cast<long long>(x); // truncates toward zero
    const double fraction = x - static_cast<double>(whole);
    return whole + (fraction >= 0.5 ? 1 : 0) - (fraction <= -0.5 ? 1 : 0);
}

/// The parallel dimensions, in the order used by every per-dimension array.
enum class Dim : std::uint8_t { Tp = 0, Pp, Dp, Ep, Cp };
inline constexpr int kDimCount = 5;
inline constexpr std::array<Dim, kDimCount> kAllDims{Dim::Tp, Dim::Pp, Dim::Dp, Dim::Ep, Dim::Cp};
constexpr std::string_view dimName(Dim d)
{
    constexpr std::array<std::string_view, kDimCount> names{"tp", "pp", "dp", "ep", "cp"};
    return names[static_cast<int>(d)];
}
constexpr int index(Dim d) { return static_cast<int>(d); }

/// Link tiers. `Spine` means leaf<->spine links and `SuperSpine` spine<->super-spine links.
enum class Tier : std::uint8_t { ScaleUp = 0, Pcie, Leaf, Spine, SuperSpine };
inline constexpr int kTierCount = 5;
inline constexpr std::array<Tier, kTierCount> kAllTiers{Tier::ScaleUp, Tier::Pcie, Tier::Leaf,
                                                        Tier::Spine, Tier::SuperSpine};
constexpr std::string_view tierName(Tier t)
{
    constexpr std::array<std::string_view, kTierCount> names{"scale_up", "pcie", "leaf", "spine",
                                                             "superspine"};
    return names[static_cast<int>(t)];
}
constexpr int index(Tier t) { return static_cast<int>(t); }

using DimArray = std::array<double, kDimCount>;

} // namespace railyard
