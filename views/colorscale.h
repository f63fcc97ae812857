#pragma once

#include "base/units.h"

#include <QColor>
#include <QGradientStops>
#include <QString>

namespace railyard {

/**
 * How link load maps to colour: Absolute (the default) spans 0-100 % utilisation, so one colour
 * means one load on every layout and before and after an edit; Relative spans 0 to the shown
 * report's bottleneck, which separates lightly loaded links but re-scales with every edit.
 */
enum class LoadScale { Absolute, Relative };

/**
 * The colours every view shares: link load (utilisation -> a perceptual sequential scale),
 * coordinate values (d, p, t, ... -> categorical chip colours), rails and parallel dimensions.
 * Pure functions of their arguments, so two views colouring the same value agree.
 */
class ColorScale
{
public:
    /// An idle link (no bytes at all): neutral grey, distinct from the lightest loaded colour.
    static QColor idleColour();
    /// Load on a 0..1 scale (utilisation / the legend's maximum), pale yellow -> orange -> dark
    /// red. A monotonic lightness ramp (like ColorBrewer's YlOrRd) so it also reads in grey.
    static QColor loadColour(double fraction);
    /// The stops of loadColour() for a legend gradient.
    static QGradientStops loadStops();
    /// Colour for a link of `utilisation` when the scale spans [0, maxUtilisation].
    static QColor utilisationColour(double utilisation, double maxUtilisation);

    /// Chip fill for coordinate `value` of a dimension with `count` values: a light
    /// categorical palette (text stays readable on it); golden-angle hues beyond 10 values.
    static QColor coordinateColour(int value, int count);
    /// Rail `rail` (NIC index): the same palette, so with rail-aligned placement and colouring
    /// by t every chip wears its rail's colour.
    static QColor railColour(int rail);
    /// Highlight colour for a parallel dimension's partners (TP, PP, DP, EP, CP).
    static QColor dimColour(Dim dim);
    /// "TP", "PP", ... for labels.
    static QString dimLabel(Dim dim);
};

} // namespace railyard
