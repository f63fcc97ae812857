#pragma once

// Comparing times and fractions that the engine computes through different summation orders:
// equal within 1e-9 relative (absolute below 1), with both values printed on failure.

#include <QtTest/QtTest>

#include <algorithm>
#include <cmath>

namespace railyard::fixtures {

inline bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

} // namespace railyard::fixtures

#define COMPARE_NEAR(actual, expected)                                                             \
    QVERIFY2(::railyard::fixtures::near((actual), (expected)),                                     \
        qPrintable(QStringLiteral("%1 = %2, expected %3")                                          \
                       .arg(QStringLiteral(#actual))                                               \
                       .arg((actual), 0, 'g', 12)                                                  \
                       .arg((expected), 0, 'g', 12)))
