#include "colorscale.h"

#include <algorithm>
#include <array>
#include <cmath>

namespace railyard {

namespace {

// ColorBrewer YlOrRd (Cynthia Brewer, colorbrewer2.org, 9-class sequential), lightest first,
// minus its near-white first class so a lightly loaded link still stands out from the page.
constexpr std::array<QRgb, 7> kLoadRamp{0xffeda0, 0xfed976, 0xfeb24c, 0xfd8d3c,
                                        0xfc4e2a, 0xe31a1c, 0xb10026};

// Light categorical palette (Tableau 10 lightened): dark text reads on every entry.
constexpr std::array<QRgb, 10> kCategorical{0x9ecae9, 0xffbf79, 0x8cd17d, 0xff9d9a, 0xc3b0d9,
                                            0xd7b5a6, 0xf7b6d2, 0xbab0ac, 0xdbdb8d, 0x86dadf};

QColor lerp(const QColor &a, const QColor &b, double t)
{
    return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                            static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                            static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

} // namespace

QColor ColorScale::idleColour()
{
    return QColor(0xb4, 0xb8, 0xbe);
}

QColor ColorScale::loadColour(double fraction)
{
    const double f = std::clamp(std::isfinite(fraction) ? fraction : 0.0, 0.0, 1.0);
    const double pos = f * static_cast<double>(kLoadRamp.size() - 1);
    const auto i = std::min(static_cast<std::size_t>(pos), kLoadRamp.size() - 2);
    return lerp(QColor(kLoadRamp[i]), QColor(kLoadRamp[i + 1]), pos - static_cast<double>(i));
}

QGradientStops ColorScale::loadStops()
{
    QGradientStops stops;
    for (std::size_t i = 0; i < kLoadRamp.size(); ++i)
        stops.append({static_cast<double>(i) / static_cast<double>(kLoadRamp.size() - 1),
                      QColor(kLoadRamp[i])});
    return stops;
}

QColor ColorScale::utilisationColour(double utilisation, double maxUtilisation)
{
    if (!(utilisation > 0.0))
        return idleColour();
    if (!(maxUtilisation > 0.0))
        return loadColour(1.0);
    return loadColour(utilisation / maxUtilisation);
}

QColor ColorScale::coordinateColour(int value, int count)
{
    if (value < 0)
        return QColor(0xe9, 0xec, 0xef);
    if (count <= static_cast<int>(kCategorical.size()))
        return QColor(kCategorical[static_cast<std::size_t>(value) % kCategorical.size()]);
    // Golden-angle hue steps keep neighbouring values far apart on the colour wheel; two
    // lightness levels double the distinguishable set.
    const double hue = std::fmod(static_cast<double>(value) * 137.508, 360.0);
    const float value01 = (value % 2 == 0) ? 0.95f : 0.82f;
    return QColor::fromHsvF(static_cast<float>(hue / 360.0), 0.38f, value01);
}

QColor ColorScale::railColour(int rail)
{
    if (rail < 0)
        return QColor(0xad, 0xb5, 0xbd);
    return QColor(kCategorical[static_cast<std::size_t>(rail) % kCategorical.size()]);
}

QColor ColorScale::dimColour(Dim dim)
{
    switch (dim) {
    case Dim::Tp:
        return QColor(0x7b, 0x2c, 0xbf);
    case Dim::Pp:
        return QColor(0x00, 0x6d, 0xd6);
    case Dim::Dp:
        return QColor(0x0b, 0x8a, 0x5f);
    case Dim::Ep:
        return QColor(0xd6, 0x33, 0x84);
    case Dim::Cp:
        return QColor(0x49, 0x50, 0x57);
    }
    return Qt::black;
}

QString ColorScale::dimLabel(Dim dim)
{
    return QString::fromLatin1(dimName(dim).data(), static_cast<int>(dimName(dim).size())).toUpper();
}

} // namespace railyard
