// Shared by the document suites (tst_scenariodocument, tst_documentpreview): the seed
// scenario and the checks that a document's numbers equal a fresh engine's.
#pragma once

#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <algorithm>
#include <cmath>

namespace railyard::documenttest {

inline Scenario seed128()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

inline bool near(double a, double b, double rel)
{
    return std::abs(a - b) <= rel * std::max(1.0, std::abs(b));
}

/// The document's numbers equal a fresh engine's on the document's own scenario: what the
/// CLI would print for the saved file. Incremental swaps add and subtract floating-point
/// loads, so link bytes agree to a relative 1e-6 (tst_costengine's bound), times to 1e-9.
inline void verifyMatchesFreshEngine(const ScenarioDocument &doc)
{
    QVERIFY(!doc.isEvaluating());
    QCOMPARE(doc.scenario().slots, doc.engine().mapping().slots());
    QCOMPARE(doc.mapping().slots(), doc.scenario().slots);
    CostEngine fresh(doc.scenario());
    const CostReport &a = doc.report();
    const CostReport &b = fresh.report();
    QVERIFY2(near(a.iterationTime, b.iterationTime, 1e-9),
        qPrintable(QStringLiteral("%1 vs %2").arg(a.iterationTime).arg(b.iterationTime)));
    QVERIFY(near(a.bubbleFraction, b.bubbleFraction, 1e-9));
    QVERIFY(near(a.spineBytesShare, b.spineBytesShare, 1e-9));
    QCOMPARE(a.links.size(), b.links.size());
    for (std::size_t i = 0; i < b.links.size(); ++i)
        QVERIFY2(near(a.links[i].bytes, b.links[i].bytes, 1e-6),
            qPrintable(QString::fromStdString(fresh.fabric().linkName(int(i)))));
    for (int dim = 0; dim < kDimCount; ++dim)
        QVERIFY(near(a.dimBytes[dim], b.dimBytes[dim], 1e-6));
    QVERIFY(near(a.linkStats.max, b.linkStats.max, 1e-9));
}

inline void verifySameReport(const CostReport &a, const CostReport &b)
{
    QVERIFY(near(a.iterationTime, b.iterationTime, 1e-12));
    QVERIFY(near(a.spineBytesShare, b.spineBytesShare, 1e-12));
    QCOMPARE(a.links.size(), b.links.size());
    for (std::size_t i = 0; i < b.links.size(); ++i)
        QVERIFY(near(a.links[i].bytes, b.links[i].bytes, 1e-6));
}

} // namespace railyard::documenttest
