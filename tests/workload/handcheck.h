// What the compute-model suites' hand derivations share (tst_computemodel, tst_ringattention):
// a relative comparison that prints both values, and the H100 SXM under a name the efficiency
// table does not know, so it takes the table's generic entry and the hand numbers do not move
// when the table is refitted.
#pragma once

#include "workload/presets.h"

#include <QTest>

#include <algorithm>
#include <cmath>
#include <initializer_list>

namespace railyard::handcheck {

inline bool near(double a, double b, double rel = 1e-12)
{
    return std::abs(a - b) <= rel * std::max({ 1e-300, std::abs(a), std::abs(b) });
}

/// The H100 SXM preset (989 dense bf16 TFLOP/s, 3350 GB/s HBM3, 132 SMs) as "h100-uncalibrated":
/// the table's generic entry, 80 % of the peak for GEMMs, FlashAttention-2 at 68 % / 56 %, 4 us
/// a kernel, a tile's fixed cost of 48 K-steps.
inline DeviceSpec uncalibratedH100()
{
    DeviceSpec d = *devicePreset("h100-sxm");
    d.name = "h100-uncalibrated";
    return d;
}

/// Its streaming roof (85 % of 3350 GB/s) and kernel overhead, as the generic entry has them.
constexpr double kHbm = 3350e9 * 0.85;
constexpr double kOverhead = 4e-6;

} // namespace railyard::handcheck

/// QCOMPARE for hand-derived doubles: equal within 1e-12, both values printed when not.
#define COMPARE_NEAR(actual, expected)                                                             \
    QVERIFY2(railyard::handcheck::near((actual), (expected)),                                      \
        qPrintable(QStringLiteral("%1 = %2, expected %3")                                          \
                       .arg(QStringLiteral(#actual))                                               \
                       .arg((actual), 0, 'g', 15)                                                  \
                       .arg((expected), 0, 'g', 15)))
