// The undoable document: every command's redo/undo, merging, validation, the modified flag, and
// the off-thread rebuild used for large scenarios (forced here with a threshold of 0). Drag
// previews are tst_documentpreview's.
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

class TestScenarioDocument : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void startsWithAValidDocument();
    void loadMaterialisesSlots();
    void swapRanks_data();
    void swapRanks();
    void swapIgnoresInvalidRanks();
    void moveRanksIsOneCommand();
    void moveRanksOntoSpareSlot();
    void moveRanksRejectsDuplicates();
    void applyPlacement_data();
    void applyPlacement();
    void editScenarioRedoUndo();
    void editScenarioMergesSameField();
    void editScenarioMergeBackToStartIsObsolete();
    void editScenarioInvalidChangesNothing_data();
    void editScenarioInvalidChangesNothing();
    void editScenarioRelayoutReplacesRanks();
    void editScenarioKeepsMappingWhenItFits();
    void loadInvalidKeepsDocument();
    void modifiedFlag();
    void failedSlotsRefuseEveryGesture();
    void asyncRebuildQueuesEdits();
    void asyncRebuildDeliversThroughEventLoop();
    void asyncInvalidEditIsRejectedUpFront();
};

void TestScenarioDocument::startsWithAValidDocument()
{
    ScenarioDocument doc;
    QVERIFY(doc.engine().layout().worldSize() >= 1);
    QCOMPARE(doc.scenario().slots, doc.mapping().slots());
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestScenarioDocument::loadMaterialisesSlots()
{
    ScenarioDocument doc;
    QSignalSpy scenarioSpy(&doc, &ScenarioDocument::scenarioChanged);
    QSignalSpy reportSpy(&doc, &ScenarioDocument::reportChanged);
    QSignalSpy pathSpy(&doc, &ScenarioDocument::filePathChanged);
    Scenario s = seed128();
    s.slots.clear(); // the placement decides
    doc.load(s, QStringLiteral("/tmp/seed.json"));
    QCOMPARE(scenarioSpy.count(), 1);
    QCOMPARE(reportSpy.count(), 1);
    QCOMPARE(pathSpy.count(), 1);
    QCOMPARE(doc.filePath(), QStringLiteral("/tmp/seed.json"));
    QCOMPARE(int(doc.scenario().slots.size()), 128);
    verifyMatchesFreshEngine(doc);
    QVERIFY(!doc.isModified());
}

void TestScenarioDocument::swapRanks_data()
{
    QTest::addColumn<int>("a");
    QTest::addColumn<int>("b");
    QTest::newRow("same server") << 0 << 1;
    QTest::newRow("across servers, other rail") << 0 << 9;
    QTest::newRow("other stage") << 5 << 127;
}

void TestScenarioDocument::swapRanks()
{
    QFETCH(int, a);
    QFETCH(int, b);
    ScenarioDocument doc;
    doc.load(seed128());
    const Scenario before = doc.scenario();
    const CostReport reportBefore = doc.report();
    QSignalSpy mappingSpy(&doc, &ScenarioDocument::mappingChanged);

    doc.swapRanks(a, b);
    QCOMPARE(doc.undoStack()->count(), 1);
    // A swap is one MoveRanks of two moves, announced once with both ranks.
    const auto *move = dynamic_cast<const MoveRanks *>(doc.undoStack()->command(0));
    QVERIFY(move);
    QCOMPARE(move->moves().size(), std::size_t(2));
    QCOMPARE(mappingSpy.count(), 1);
    const auto change = mappingSpy.last().at(0).value<MappingChange>();
    QCOMPARE(change.moves.size(), std::size_t(2));
    QCOMPARE(change.moves[0].rank, std::min(a, b));
    QCOMPARE(change.moves[1].rank, std::max(a, b));
    QCOMPARE(doc.scenario().slots[a], before.slots[b]);
    QCOMPARE(doc.scenario().slots[b], before.slots[a]);
    QCOMPARE(doc.scenario().mappingVersion, before.mappingVersion + 1);
    verifyMatchesFreshEngine(doc);

    doc.undoStack()->undo();
    QVERIFY(sameScenario(doc.scenario(), before));
    verifyMatchesFreshEngine(doc);
    verifySameReport(doc.report(), reportBefore);

    doc.undoStack()->redo();
    QCOMPARE(doc.scenario().slots[a], before.slots[b]);
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::swapIgnoresInvalidRanks()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.swapRanks(0, 0);
    doc.swapRanks(-1, 3);
    doc.swapRanks(0, 128);
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestScenarioDocument::moveRanksIsOneCommand()
{
    ScenarioDocument doc;
    doc.load(seed128());
    const Scenario before = doc.scenario();
    // Server 0's ranks onto server 2's slots (and those ranks out of the way).
    std::vector<std::pair<int, int>> moves;
    for (int g = 0; g < 8; ++g)
        moves.emplace_back(doc.mapping().rankAt(g), 16 + g);
    QSignalSpy mappingSpy(&doc, &ScenarioDocument::mappingChanged);
    QSignalSpy reportSpy(&doc, &ScenarioDocument::reportChanged);
    doc.moveRanks(moves, QStringLiteral("Move node000 to node002"));
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(mappingSpy.count(), 1); // one signal for the whole move, with its ranks and links
    QCOMPARE(reportSpy.count(), 0);
    QCOMPARE(mappingSpy.last().at(0).value<MappingChange>().moves.size(), std::size_t(16));
    QVERIFY(dynamic_cast<const MoveRanks *>(doc.undoStack()->command(0)));
    QCOMPARE(doc.undoStack()->undoText(), QStringLiteral("Move node000 to node002"));
    for (const auto &[rank, slot] : moves)
        QCOMPARE(doc.scenario().slots[rank], slot);
    verifyMatchesFreshEngine(doc);

    doc.undoStack()->undo();
    QVERIFY(sameScenario(doc.scenario(), before));
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::moveRanksOntoSpareSlot()
{
    ScenarioDocument doc;
    Scenario s = seed128();
    s.fabric.servers = 17; // 136 slots, 128 ranks: node016 is spare
    s.slots.clear();
    doc.load(s);
    QCOMPARE(doc.mapping().rankAt(130), -1);
    const Scenario before = doc.scenario();
    doc.moveRanks({ { 5, 130 } }, QString());
    QCOMPARE(doc.undoStack()->count(), 1);
    // Onto an empty slot it is a move like any other (incremental, not a whole new scenario).
    QVERIFY(dynamic_cast<const MoveRanks *>(doc.undoStack()->command(0)));
    QCOMPARE(doc.scenario().slots[5], 130);
    QCOMPARE(doc.mapping().rankAt(5), -1);
    verifyMatchesFreshEngine(doc);
    doc.undoStack()->undo();
    QVERIFY(sameScenario(doc.scenario(), before));
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::moveRanksRejectsDuplicates()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.moveRanks({ { 0, 20 }, { 1, 20 } }, QString()); // one slot twice
    doc.moveRanks({ { 0, 20 }, { 0, 21 } }, QString()); // one rank twice
    doc.moveRanks({ { 0, 500 } }, QString()); // no such slot
    doc.moveRanks({ { 0, doc.scenario().slots[0] } }, QString()); // already there
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestScenarioDocument::applyPlacement_data()
{
    QTest::addColumn<int>("placement");
    QTest::newRow("rail-aligned") << int(Placement::RailAligned);
    QTest::newRow("scattered") << int(Placement::Scattered);
}

void TestScenarioDocument::applyPlacement()
{
    QFETCH(int, placement);
    const auto p = static_cast<Placement>(placement);
    ScenarioDocument doc;
    doc.load(seed128());
    if (p == Placement::RailAligned) {
        // A packed seed-128 (TP 8 on 8-GPU servers) is already rail-aligned: no step at all.
        doc.applyPlacement(p);
        QCOMPARE(doc.undoStack()->count(), 0);
        QVERIFY(!doc.isModified());
        // From a scattered start the preset moves ranks.
        doc.applyPlacement(Placement::Scattered);
        doc.undoStack()->clear();
    }
    const Scenario before = doc.scenario();
    QSignalSpy scenarioSpy(&doc, &ScenarioDocument::scenarioChanged);
    QSignalSpy mappingSpy(&doc, &ScenarioDocument::mappingChanged);

    doc.applyPlacement(p);
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(dynamic_cast<const ApplyPlacement *>(doc.undoStack()->command(0)));
    QCOMPARE(scenarioSpy.count(), 0); // the fabric and layout stay
    QCOMPARE(mappingSpy.count(), 1);
    QCOMPARE(doc.scenario().placement, p);
    const Mapping expected = Mapping::place(p, doc.engine().layout(), doc.engine().fabric());
    QCOMPARE(doc.scenario().slots, expected.slots());
    verifyMatchesFreshEngine(doc);

    doc.undoStack()->undo();
    QVERIFY(sameScenario(doc.scenario(), before));
    verifyMatchesFreshEngine(doc);
    doc.undoStack()->redo();
    QCOMPARE(doc.scenario().slots, expected.slots());
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::editScenarioRedoUndo()
{
    ScenarioDocument doc;
    doc.load(seed128());
    const Scenario before = doc.scenario();
    const double iterationBefore = doc.report().iterationTime;
    QSignalSpy scenarioSpy(&doc, &ScenarioDocument::scenarioChanged);

    Scenario next = before;
    next.training.globalBatch = 128; // twice the micro-batches: a longer iteration
    QCOMPARE(doc.editScenario(next, QStringLiteral("Change global batch")), QString());
    QCOMPARE(scenarioSpy.count(), 1);
    QCOMPARE(doc.scenario().training.globalBatch, 128);
    QCOMPARE(doc.scenario().slots, before.slots); // the layout did not change
    QVERIFY(doc.report().iterationTime > iterationBefore);
    verifyMatchesFreshEngine(doc);

    doc.undoStack()->undo();
    QCOMPARE(scenarioSpy.count(), 2);
    QVERIFY(sameScenario(doc.scenario(), before));
    QCOMPARE(doc.report().iterationTime, iterationBefore);
    verifyMatchesFreshEngine(doc);

    doc.undoStack()->redo();
    QCOMPARE(doc.scenario().training.globalBatch, 128);
    verifyMatchesFreshEngine(doc);

    // An edit that changes nothing pushes nothing.
    QCOMPARE(doc.editScenario(doc.scenario(), QStringLiteral("Nothing")), QString());
    QCOMPARE(doc.undoStack()->count(), 1);
}

void TestScenarioDocument::editScenarioMergesSameField()
{
    ScenarioDocument doc;
    doc.load(seed128());
    const Scenario before = doc.scenario();
    for (int batch : { 128, 256, 512 }) {
        Scenario next = doc.scenario();
        next.training.globalBatch = batch;
        QCOMPARE(doc.editScenario(next, QStringLiteral("Change global batch")), QString());
    }
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(doc.scenario().training.globalBatch, 512);

    Scenario other = doc.scenario();
    other.training.microBatch = 2;
    QCOMPARE(doc.editScenario(other, QStringLiteral("Change micro-batch")), QString());
    QCOMPARE(doc.undoStack()->count(), 2); // another field: its own step

    doc.undoStack()->undo();
    doc.undoStack()->undo();
    QVERIFY(sameScenario(doc.scenario(), before));
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::editScenarioMergeBackToStartIsObsolete()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.swapRanks(0, 1); // so that the edits do not start from the clean state
    Scenario next = doc.scenario();
    next.training.globalBatch = 128;
    doc.editScenario(next, QStringLiteral("Change global batch"));
    next.training.globalBatch = 64;
    doc.editScenario(next, QStringLiteral("Change global batch"));
    QCOMPARE(doc.undoStack()->count(), 1); // the merged edit vanished
    QCOMPARE(doc.scenario().training.globalBatch, 64);
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::editScenarioInvalidChangesNothing_data()
{
    QTest::addColumn<int>("tp");
    QTest::addColumn<int>("dp");
    QTest::addColumn<int>("layers");
    QTest::addColumn<QString>("field");
    QTest::newRow("tp does not divide the heads") << 3 << 4 << 80 << QStringLiteral("heads");
    QTest::newRow("more ranks than slots") << 8 << 8 << 80 << QStringLiteral("slots");
    QTest::newRow("layers do not split over pp") << 8 << 4 << 81 << QStringLiteral("layers");
}

void TestScenarioDocument::editScenarioInvalidChangesNothing()
{
    QFETCH(int, tp);
    QFETCH(int, dp);
    QFETCH(int, layers);
    QFETCH(QString, field);
    ScenarioDocument doc;
    doc.load(seed128());
    doc.swapRanks(0, 9);
    const Scenario before = doc.scenario();
    const double iteration = doc.report().iterationTime;
    QSignalSpy reportSpy(&doc, &ScenarioDocument::reportChanged);

    Scenario next = before;
    next.degrees.tp = tp;
    next.degrees.dp = dp;
    next.model.layers = layers;
    const QString message = doc.editScenario(next, QStringLiteral("Bad edit"));
    QVERIFY(!message.isEmpty());
    QVERIFY2(message.contains(field), qPrintable(message));
    QVERIFY(sameScenario(doc.scenario(), before));
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(reportSpy.count(), 0);
    QCOMPARE(doc.report().iterationTime, iteration);
}

void TestScenarioDocument::editScenarioRelayoutReplacesRanks()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.applyPlacement(Placement::RailAligned);
    Scenario next = doc.scenario();
    next.degrees.tp = 4;
    next.degrees.dp = 8;
    QCOMPARE(doc.editScenario(next, QStringLiteral("Change tp")), QString());
    CostEngine fresh([&] {
        Scenario s = next;
        s.slots.clear();
        return s;
    }());
    QCOMPARE(doc.scenario().slots, fresh.mapping().slots()); // re-placed rail-aligned for tp 4
    QCOMPARE(doc.engine().layout().degrees().tp, 4);
    verifyMatchesFreshEngine(doc);
    doc.undoStack()->undo();
    QCOMPARE(doc.engine().layout().degrees().tp, 8);
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::editScenarioKeepsMappingWhenItFits()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.swapRanks(0, 9);
    const std::vector<int> dragged = doc.scenario().slots;

    Scenario faster = doc.scenario();
    faster.fabric.nic.gbps = 800.0; // another fabric, same slots: the drag stays
    QCOMPARE(doc.editScenario(faster, QStringLiteral("Change NIC bandwidth")), QString());
    QCOMPARE(doc.scenario().slots, dragged);
    QCOMPARE(doc.engine().fabric().spec().nic.gbps, 800.0);
    verifyMatchesFreshEngine(doc);

    Scenario bigger = doc.scenario();
    bigger.fabric.servers = 32; // more slots: the list still fits
    QCOMPARE(doc.editScenario(bigger, QStringLiteral("Change servers")), QString());
    QCOMPARE(doc.scenario().slots, dragged);
    verifyMatchesFreshEngine(doc);

    Scenario smaller = doc.scenario();
    smaller.fabric.servers = 16;
    smaller.degrees.dp = 4;
    QCOMPARE(doc.editScenario(smaller, QStringLiteral("Remove servers")), QString());
    QCOMPARE(doc.scenario().slots, dragged); // back to 16 servers: slots < 128 still fit
    verifyMatchesFreshEngine(doc);

    doc.undoStack()->undo(); // 32 servers again
    doc.moveRanks({ { 0, 200 } }, QString()); // onto node025, which 16 servers do not have
    QCOMPARE(doc.scenario().slots[0], 200);
    Scenario shrink = doc.scenario();
    shrink.fabric.servers = 16;
    QCOMPARE(doc.editScenario(shrink, QStringLiteral("Remove servers")), QString());
    const Scenario packed = [] {
        Scenario s = seed128();
        s.slots.clear();
        return s;
    }();
    QCOMPARE(doc.scenario().slots, CostEngine(packed).mapping().slots()); // re-placed
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::loadInvalidKeepsDocument()
{
    ScenarioDocument doc;
    doc.load(seed128(), QStringLiteral("/tmp/a.json"));
    doc.swapRanks(0, 9);
    const Scenario before = doc.scenario();
    QSignalSpy anySpy(&doc, &ScenarioDocument::reportChanged);

    Scenario bad = seed128();
    bad.degrees.pp = 3; // 8*3*4 = 96 ranks, 80 layers do not split
    QVERIFY_THROWS_EXCEPTION(ScenarioError, doc.load(bad, QStringLiteral("/tmp/b.json")));
    QVERIFY(sameScenario(doc.scenario(), before));
    QCOMPARE(doc.filePath(), QStringLiteral("/tmp/a.json"));
    QCOMPARE(doc.undoStack()->count(), 1);
    QVERIFY(doc.isModified());
    QCOMPARE(anySpy.count(), 0);
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::modifiedFlag()
{
    ScenarioDocument doc;
    doc.load(seed128(), QStringLiteral("/tmp/seed.json"));
    QSignalSpy spy(&doc, &ScenarioDocument::modifiedChanged);
    QVERIFY(!doc.isModified());
    doc.swapRanks(0, 1);
    QVERIFY(doc.isModified());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.last().at(0).toBool(), true);
    doc.undoStack()->undo();
    QVERIFY(!doc.isModified());
    QCOMPARE(spy.last().at(0).toBool(), false);
    doc.undoStack()->redo();
    doc.setFilePath(QStringLiteral("/tmp/other.json")); // Save As
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.filePath(), QStringLiteral("/tmp/other.json"));
    doc.undoStack()->undo(); // back past the saved state
    QVERIFY(doc.isModified());
    doc.load(seed128());
    QVERIFY(!doc.isModified());
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestScenarioDocument::asyncRebuildQueuesEdits()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.setAsyncThreshold(0); // every rebuild off the UI thread
    QSignalSpy busySpy(&doc, &ScenarioDocument::evaluatingChanged);
    const Scenario before = doc.scenario();
    const double iterationBefore = doc.report().iterationTime;

    Scenario next = before;
    next.training.globalBatch = 128;
    QCOMPARE(doc.editScenario(next, QStringLiteral("Change global batch")), QString());
    QVERIFY(doc.isEvaluating());
    QCOMPARE(doc.scenario().training.globalBatch, 128); // the document has the edit...
    QCOMPARE(doc.report().iterationTime, iterationBefore); // ...the old numbers stay on screen

    doc.previewSwap(0, 9); // refused while the engine is replaced
    QVERIFY(!doc.isPreviewing());
    doc.previewMoves({ { 0, 16 }, { 1, 17 } });
    QVERIFY(!doc.isPreviewing());
    doc.swapRanks(0, 9); // queued, not lost
    doc.applyPlacement(Placement::Scattered); // needs the new layout: waits, then pushes
    Scenario again = doc.scenario();
    again.training.microBatch = 2;
    QCOMPARE(doc.editScenario(again, QStringLiteral("Change micro-batch")), QString());
    doc.undoStack()->undo(); // micro-batch back to 1, queued behind the rebuild
    QCOMPARE(doc.undoStack()->count(), 4);

    doc.waitForEvaluation();
    QVERIFY(!doc.isEvaluating());
    QCOMPARE(doc.scenario().training.microBatch, 1);
    QCOMPARE(doc.scenario().placement, Placement::Scattered);
    verifyMatchesFreshEngine(doc);
    QVERIFY(busySpy.count() >= 2);
    QCOMPARE(busySpy.last().at(0).toBool(), false);

    // Undo everything (each step queued behind the previous rebuild): back to the start.
    while (doc.undoStack()->canUndo())
        doc.undoStack()->undo();
    doc.waitForEvaluation();
    QVERIFY(sameScenario(doc.scenario(), before));
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::asyncRebuildDeliversThroughEventLoop()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.setAsyncThreshold(0);
    QSignalSpy scenarioSpy(&doc, &ScenarioDocument::scenarioChanged);
    Scenario next = doc.scenario();
    next.fabric.nic.gbps = 200.0; // a new fabric: built on the UI thread's check, reused by the job
    QCOMPARE(doc.editScenario(next, QStringLiteral("Change NIC bandwidth")), QString());
    QVERIFY(doc.isEvaluating());
    QCOMPARE(scenarioSpy.count(), 0);
    doc.swapRanks(3, 12);
    QTRY_VERIFY(!doc.isEvaluating());
    QCOMPARE(scenarioSpy.count(), 1);
    QCOMPARE(doc.engine().fabric().spec().nic.gbps, 200.0);
    verifyMatchesFreshEngine(doc);
}

void TestScenarioDocument::asyncInvalidEditIsRejectedUpFront()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.setAsyncThreshold(0);
    const Scenario before = doc.scenario();
    Scenario next = before;
    next.training.schedule = ScheduleKind::Interleaved;
    next.training.interleave = 2;
    next.training.globalBatch = 12; // 3 micro-batches per replica: not a multiple of pp 4
    const QString message = doc.editScenario(next, QStringLiteral("Bad schedule"));
    QVERIFY2(!message.isEmpty(), "the interleaving rule is checked before the rebuild starts");
    QVERIFY(!doc.isEvaluating());
    QVERIFY(sameScenario(doc.scenario(), before));
    QCOMPARE(doc.undoStack()->count(), 0);
}

void TestScenarioDocument::failedSlotsRefuseEveryGesture()
{
    // The drop-dp remap of the 128-GPU sample: server 3 failed, its 8 slots empty and unusable.
    ScenarioDocument doc;
    doc.load(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-failed-server3.json"));
    QCOMPARE(doc.scenario().failures.size(), std::size_t { 1 });
    QSignalSpy failed(&doc, &ScenarioDocument::evaluationFailed);
    const int commands = doc.undoStack()->count();
    const double before = doc.report().iterationTime;

    doc.moveRanks({ { 0, 3 * 8 } }, QString()); // onto node003/gpu0
    QCOMPARE(doc.undoStack()->count(), commands);
    doc.previewMove(0, 3 * 8 + 1);
    QVERIFY(!doc.isPreviewing());
    doc.previewMoves({ { 0, 3 * 8 }, { 1, 3 * 8 + 1 } });
    QVERIFY(!doc.isPreviewing());
    QCOMPARE(doc.report().iterationTime, before);

    // An empty healthy slot still takes a rank (server 15 lost its replica too).
    const int spare = 15 * 8;
    QCOMPARE(doc.mapping().rankAt(spare), -1);
    doc.moveRanks({ { 0, spare } }, QString());
    QCOMPARE(doc.undoStack()->count(), commands + 1);
    QCOMPARE(doc.mapping().slotOf(0), spare);

    // Packed would put ranks 24..31 (one TP group) on server 3: the preset lands on healthy
    // hardware instead, that group whole on a free server, every other rank where Packed puts it.
    doc.applyPlacement(Placement::Packed);
    QCOMPARE(doc.undoStack()->count(), commands + 2);
    QCOMPARE(failed.count(), 0);
    std::set<int> servers;
    for (int r = 0; r < 96; ++r) {
        const int slot = doc.mapping().slotOf(r);
        QVERIFY(slot / 8 != 3);
        if (r / 8 == 3)
            servers.insert(slot / 8);
        else
            QCOMPARE(slot, r);
    }
    QCOMPARE(servers.size(), std::size_t { 1 }); // the moved TP group stays on one server
    for (int r = 24; r < 32; ++r)
        QCOMPARE(doc.mapping().slotOf(r) % 8, r % 8); // same GPU index, so the same rail
}

QTEST_GUILESS_MAIN(TestScenarioDocument)
#include "tst_scenariodocument.moc"
