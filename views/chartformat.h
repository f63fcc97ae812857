#pragma once

#include "io/reportjson.h"

#include <QString>

#include <string_view>

namespace railyard {

/**
 * Number formatting for the views: the engine's own formatBytes()/formatSeconds() (so the GUI
 * prints what `railyard-cli evaluate` prints) and percentages with one decimal.
 */
namespace chartformat {

inline QString seconds(double s)
{
    return QString::fromStdString(formatSeconds(s));
}
inline QString bytes(double b)
{
    return QString::fromStdString(formatBytes(b));
}
/// An engine name (ASCII: dimension, tier, kind names) as a QString.
inline QString latin(std::string_view s)
{
    return QString::fromLatin1(s.data(), static_cast<qsizetype>(s.size()));
}
/// 0.1875 -> "18.8 %"
inline QString percent(double fraction, int decimals = 1)
{
    return QString::number(fraction * 100.0, 'f', decimals) + QStringLiteral(" %");
}

} // namespace chartformat

} // namespace railyard
