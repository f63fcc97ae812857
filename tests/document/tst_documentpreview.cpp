// The document's drag previews: a preview shows the numbers "as if dropped" without an edit,
// ending it restores the report exactly, a command ends it, a preview of several ranks is one
// moveRanks() on the engine, and previews onto spare slots.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/scenariocheck.h"
#include "document/applyplacement.h"
#include "document/changescenario.h"
#include "document/moveranks.h"
#include "document/scenariodocument.h"
#include "documentfixture.h"
#include "scenario/scenariofile.h"

#include <QSignalSpy>
#include <QTest>

#include <cmath>
#include <set>

using namespace railyard;
using namespace railyard::documenttest;

class TestDocumentPreview : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void previewMoveToAnEmptySlot();
    void previewAndEndPreviewRestoreReport();
    void commandEndsPreview();
    void previewMovesIsMoveRanksOnTheEngine();
    void previewMovesOntoSpareSlots();
};

void TestDocumentPreview::previewMoveToAnEmptySlot()
{
    // Two spare servers: 128 ranks on 18 x 8 slots. Previewing rank 5 on node016/gpu5 moves it
    // in the engine only; ending the preview restores the report exactly.
    Scenario s = seed128();
    s.fabric.servers = 18;
    ScenarioDocument doc;
    doc.load(s);
    const CostReport before = doc.report();
    const int target = 16 * 8 + 5;
    QCOMPARE(doc.mapping().rankAt(target), -1);
    doc.previewMove(5, target);
    QVERIFY(doc.isPreviewing());
    QCOMPARE(doc.engine().mapping().slotOf(5), target);
    QCOMPARE(doc.mapping().slotOf(5), 5); // the document's mapping is not edited
    QCOMPARE(doc.undoStack()->count(), 0);
    Scenario moved = doc.scenario();
    moved.slots = doc.engine().mapping().slots();
    const CostEngine fresh(moved);
    QVERIFY(std::abs(doc.report().iterationTime - fresh.report().iterationTime)
        <= 1e-12 * fresh.report().iterationTime);
    doc.previewMove(5, doc.scenario().slots[9]); // onto an occupied slot: a swap preview
    QCOMPARE(doc.engine().mapping().slotOf(9), 5);
    doc.endPreview();
    QVERIFY(!doc.isPreviewing());
    verifySameReport(doc.report(), before);
    verifyMatchesFreshEngine(doc);
}

void TestDocumentPreview::previewAndEndPreviewRestoreReport()
{
    ScenarioDocument doc;
    doc.load(seed128());
    const CostReport before = doc.report();
    const Scenario scenarioBefore = doc.scenario();
    QSignalSpy reportSpy(&doc, &ScenarioDocument::reportChanged);

    doc.previewSwap(0, 9); // DP traffic of t0/t1 leaves its rail: spine load appears
    QVERIFY(doc.isPreviewing());
    QCOMPARE(reportSpy.count(), 1);
    QVERIFY(doc.report().spineBytesShare > before.spineBytesShare);
    QVERIFY(sameScenario(doc.scenario(), scenarioBefore)); // not an edit
    QCOMPARE(doc.mapping().slots(), scenarioBefore.slots);
    QCOMPARE(doc.undoStack()->count(), 0);

    doc.previewSwap(9, 0); // the same pair: nothing new
    QCOMPARE(reportSpy.count(), 1);
    doc.previewSwap(0, 17); // the drag moved on: one step, from the real mapping
    QCOMPARE(reportSpy.count(), 2);
    QCOMPARE(doc.engine().mapping().slotOf(0), scenarioBefore.slots[17]);
    QCOMPARE(doc.engine().mapping().slotOf(9), scenarioBefore.slots[9]);

    doc.endPreview();
    QVERIFY(!doc.isPreviewing());
    QCOMPARE(reportSpy.count(), 3);
    verifySameReport(doc.report(), before);
    QCOMPARE(doc.report().spineBytesShare, before.spineBytesShare);
    verifyMatchesFreshEngine(doc);
}

void TestDocumentPreview::commandEndsPreview()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.previewSwap(0, 9);
    doc.swapRanks(0, 9); // the drop
    QVERIFY(!doc.isPreviewing());
    verifyMatchesFreshEngine(doc);
    doc.undoStack()->undo();
    verifyMatchesFreshEngine(doc);
}

void TestDocumentPreview::previewMovesIsMoveRanksOnTheEngine()
{
    ScenarioDocument doc;
    doc.load(seed128());
    const CostReport before = doc.report();
    const Scenario scenarioBefore = doc.scenario();
    // Half of server 0's TP group onto server 2's slots (a selection dragged there): ranks
    // 16..19 are swapped out of the way, and TP traffic now crosses the NICs.
    std::vector<std::pair<int, int>> moves;
    for (int g = 0; g < 4; ++g)
        moves.emplace_back(g, 16 + g);
    QSignalSpy reportSpy(&doc, &ScenarioDocument::reportChanged);
    doc.previewMoves(moves);
    QVERIFY(doc.isPreviewing());
    QCOMPARE(reportSpy.count(), 1); // one round for the whole group
    QCOMPARE(doc.mapping().slots(), scenarioBefore.slots); // not an edit
    QVERIFY(sameScenario(doc.scenario(), scenarioBefore));
    QCOMPARE(doc.undoStack()->count(), 0);
    for (int g = 0; g < 4; ++g) {
        QCOMPARE(doc.engine().mapping().slotOf(g), 16 + g);
        QCOMPARE(doc.engine().mapping().slotOf(16 + g), g);
    }
    // The report is the one of the moved mapping, as a fresh engine computes it.
    Scenario moved = scenarioBefore;
    for (int g = 0; g < 4; ++g)
        std::swap(moved.slots[static_cast<std::size_t>(g)],
            moved.slots[static_cast<std::size_t>(16 + g)]);
    const CostEngine fresh(moved);
    QVERIFY(near(doc.report().iterationTime, fresh.report().iterationTime, 1e-9));
    QVERIFY(doc.report().iterationTime > before.iterationTime); // TP over the NICs is slower
    verifySameReport(doc.report(), fresh.report());
    if (QTest::currentTestFailed())
        return;

    doc.previewMoves(moves); // the same request: nothing new
    QCOMPARE(reportSpy.count(), 1);
    doc.previewMoves({ { 0, 16 }, { 1, 16 } }); // a slot twice: refused, the preview stays
    doc.previewMoves({ { 0, 16 }, { 0, 17 } }); // a rank twice
    doc.previewMoves({ { 0, 9999 } }); // no such slot
    QCOMPARE(reportSpy.count(), 1);
    QVERIFY(doc.isPreviewing());

    // The drag moved on to server 3: one step, from the real mapping (not the preview's).
    for (auto &m : moves)
        m.second += 8;
    doc.previewMoves(moves);
    QCOMPARE(reportSpy.count(), 2);
    for (int g = 0; g < 4; ++g) {
        QCOMPARE(doc.engine().mapping().slotOf(g), 24 + g);
        QCOMPARE(doc.engine().mapping().slotOf(16 + g), 16 + g);
        QCOMPARE(doc.engine().mapping().slotOf(24 + g), g);
    }

    // Dropping back on the ranks' own slots previews nothing.
    doc.previewMoves({ { 0, 0 }, { 1, 1 } });
    QVERIFY(!doc.isPreviewing());
    QCOMPARE(reportSpy.count(), 3);
    verifySameReport(doc.report(), before);

    doc.previewMoves(moves);
    doc.endPreview();
    QVERIFY(!doc.isPreviewing());
    QCOMPARE(reportSpy.count(), 5);
    verifySameReport(doc.report(), before);
    verifyMatchesFreshEngine(doc);
    if (QTest::currentTestFailed())
        return;

    // The drop after a preview: the command evaluates the real mapping, equal to the preview.
    doc.previewMoves(moves);
    const double previewed = doc.report().iterationTime;
    doc.moveRanks(moves, QStringLiteral("Move node000 to node003"));
    QVERIFY(!doc.isPreviewing());
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(near(doc.report().iterationTime, previewed, 1e-9));
    verifyMatchesFreshEngine(doc);
    doc.undoStack()->undo();
    verifySameReport(doc.report(), before);
    verifyMatchesFreshEngine(doc);
}

void TestDocumentPreview::previewMovesOntoSpareSlots()
{
    Scenario s = seed128();
    s.fabric.servers = 17; // node016 is spare
    s.slots.clear();
    ScenarioDocument doc;
    doc.load(s);
    const CostReport before = doc.report();
    // Two ranks onto empty slots and one onto rank 9's slot.
    doc.previewMoves({ { 5, 130 }, { 6, 131 }, { 7, 9 } });
    QVERIFY(doc.isPreviewing());
    QCOMPARE(doc.engine().mapping().slotOf(5), 130);
    QCOMPARE(doc.engine().mapping().slotOf(6), 131);
    QCOMPARE(doc.engine().mapping().slotOf(7), 9);
    QCOMPARE(doc.engine().mapping().slotOf(9), 7);
    QCOMPARE(doc.engine().mapping().rankAt(5), -1);
    QCOMPARE(doc.mapping().slotOf(5), 5);
    Scenario moved = doc.scenario();
    moved.slots = doc.engine().mapping().slots();
    const CostEngine fresh(moved);
    verifySameReport(doc.report(), fresh.report());
    doc.endPreview();
    QCOMPARE(doc.engine().mapping().slots(), doc.scenario().slots);
    verifySameReport(doc.report(), before);
    verifyMatchesFreshEngine(doc);
}

QTEST_GUILESS_MAIN(TestDocumentPreview)
#include "tst_documentpreview.moc"
