// The whiteboard commands of the document: notes, arrows and snapshots are one undo step each,
// emit their own change signal, never touch the engine, and land in the saved file; restoring
// a snapshot is one undoable edit that a fresh engine agrees with.
#include "cost/costengine.h"
#include "document/changewhiteboard.h"
#include "document/evaluator.h"
#include "document/scenariodocument.h"
#include "scenario/scenariofile.h"

#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace railyard;

namespace {

Scenario seed128()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

Annotation note(const char *text, AnnotationAnchor::Kind kind, int index)
{
    Annotation a;
    a.text = text;
    a.anchor = {kind, index};
    return a;
}

} // namespace

class TestWhiteboard : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void notesAreUndoableAndNeverEvaluated();
    void editAndRemoveNotes();
    void snapshotsTakeRenameRemove();
    void restoringASnapshotIsOneEdit();
    void restoringAnotherLayout();
    void savedWithTheScenario();
};

void TestWhiteboard::notesAreUndoableAndNeverEvaluated()
{
    ScenarioDocument doc;
    doc.load(seed128());
    const int updates = doc.evaluator()->engineUpdates();
    QSignalSpy notes(&doc, &ScenarioDocument::annotationsChanged);
    QSignalSpy scenario(&doc, &ScenarioDocument::scenarioChanged);
    QSignalSpy report(&doc, &ScenarioDocument::reportChanged);
    QSignalSpy mapping(&doc, &ScenarioDocument::mappingChanged);

    QCOMPARE(doc.addAnnotation(note("TP on NVLink", AnnotationAnchor::Kind::Server, 3)), 0);
    QCOMPARE(doc.addAnnotation(note("DP peer", AnnotationAnchor::Kind::Rank, 9)), 1);
    QCOMPARE(doc.undoStack()->count(), 2);
    QVERIFY(dynamic_cast<const ChangeWhiteboard *>(doc.undoStack()->command(0)));
    QCOMPARE(doc.undoStack()->text(0), QStringLiteral("Add note on server:3"));
    QVERIFY(doc.isModified());
    QCOMPARE(notes.count(), 2);
    QCOMPARE(doc.scenario().annotations.size(), std::size_t{2});
    QCOMPARE(doc.scenario().annotations[1].text, std::string("DP peer"));

    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().annotations.size(), std::size_t{1});
    doc.undoStack()->undo();
    QVERIFY(doc.scenario().annotations.empty());
    QVERIFY(!doc.isModified());
    doc.undoStack()->redo();
    QCOMPARE(doc.scenario().annotations[0].text, std::string("TP on NVLink"));
    QCOMPARE(notes.count(), 5);

    // The engine never saw any of it.
    QCOMPARE(doc.evaluator()->engineUpdates(), updates);
    QCOMPARE(scenario.count(), 0);
    QCOMPARE(report.count(), 0);
    QCOMPARE(mapping.count(), 0);
    QVERIFY(doc.engine().scenario().annotations.empty());
}

void TestWhiteboard::editAndRemoveNotes()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.addAnnotation(note("first", AnnotationAnchor::Kind::Server, 0));
    Annotation arrow;
    arrow.kind = Annotation::Kind::Arrow;
    arrow.anchor = {AnnotationAnchor::Kind::Rank, 0};
    arrow.target = {AnnotationAnchor::Kind::Rank, 32};
    doc.addAnnotation(arrow);
    Annotation moved = doc.scenario().annotations[0];
    moved.dx += 30;
    moved.text = "first, reworded";
    doc.editAnnotation(0, moved, QStringLiteral("Move note"));
    QCOMPARE(doc.undoStack()->count(), 3);
    QCOMPARE(doc.scenario().annotations[0].dx, 70.0);
    doc.editAnnotation(0, moved, QStringLiteral("Move note")); // the same again: no step
    doc.editAnnotation(7, moved, QStringLiteral("Move note")); // no such note: no step
    QCOMPARE(doc.undoStack()->count(), 3);
    doc.removeAnnotation(0);
    QCOMPARE(doc.scenario().annotations.size(), std::size_t{1});
    QCOMPARE(doc.scenario().annotations[0].kind, Annotation::Kind::Arrow);
    QCOMPARE(doc.undoStack()->text(3), QStringLiteral("Delete note on server:0"));
    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().annotations[0].text, std::string("first, reworded"));
    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().annotations[0].text, std::string("first"));
}

void TestWhiteboard::snapshotsTakeRenameRemove()
{
    ScenarioDocument doc;
    doc.load(seed128());
    QSignalSpy versions(&doc, &ScenarioDocument::snapshotsChanged);
    QVERIFY(doc.takeSnapshot(QStringLiteral("healthy"), QStringLiteral("2025-06-03T14:32:00")));
    QVERIFY(!doc.takeSnapshot(QStringLiteral("healthy"), QString())); // names are unique
    QVERIFY(!doc.takeSnapshot(QStringLiteral("  "), QString()));
    // A name the file reader would refuse (a control character) is never taken.
    QVERIFY(!doc.takeSnapshot(QStringLiteral("a\tb"), QString()));
    QCOMPARE(doc.undoStack()->count(), 1);
    QCOMPARE(versions.count(), 1);
    QCOMPARE(doc.currentSnapshot(), 0);
    const Snapshot &s = doc.scenario().snapshots[0];
    QCOMPARE(s.slots, doc.scenario().slots);
    QCOMPARE(s.degrees.dp, 4);
    QCOMPARE(s.takenAt, std::string("2025-06-03T14:32:00"));

    doc.swapRanks(0, 9);
    QCOMPARE(doc.currentSnapshot(), -1);
    QVERIFY(doc.takeSnapshot(QStringLiteral("swap"), QString()));
    QCOMPARE(doc.currentSnapshot(), 1);
    QVERIFY(doc.renameSnapshot(1, QStringLiteral("swap 0-9")));
    QVERIFY(!doc.renameSnapshot(1, QStringLiteral("healthy")));
    QVERIFY(!doc.renameSnapshot(1, QStringLiteral("x\x1b[2J")));
    QCOMPARE(doc.scenario().snapshots[1].name, std::string("swap 0-9"));
    doc.removeSnapshot(0);
    QCOMPARE(doc.scenario().snapshots.size(), std::size_t{1});
    QCOMPARE(doc.undoStack()->text(doc.undoStack()->index() - 1), QStringLiteral("Delete snapshot \"healthy\""));
    doc.undoStack()->undo();
    QCOMPARE(doc.scenario().snapshots[0].name, std::string("healthy"));
}

void TestWhiteboard::restoringASnapshotIsOneEdit()
{
    ScenarioDocument doc;
    doc.load(seed128());
    QVERIFY(doc.takeSnapshot(QStringLiteral("healthy"), QString()));
    const std::vector<int> healthy = doc.scenario().slots;
    const double iteration = doc.report().iterationTime;
    doc.applyPlacement(Placement::Scattered);
    QVERIFY(doc.report().iterationTime > iteration); // scattered splits every TP group
    const int steps = doc.undoStack()->count();

    QCOMPARE(doc.restoreSnapshot(0), QString());
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    QCOMPARE(doc.undoStack()->text(steps), QStringLiteral("Restore snapshot \"healthy\""));
    QCOMPARE(doc.scenario().slots, healthy);
    QCOMPARE(doc.mapping().slots(), healthy);
    QCOMPARE(doc.currentSnapshot(), 0);
    const CostEngine fresh(doc.scenario());
    QCOMPARE(doc.report().iterationTime, fresh.report().iterationTime);
    QCOMPARE(doc.report().iterationTime, iteration);
    QCOMPARE(doc.restoreSnapshot(0), QString()); // already shown: no step
    QCOMPARE(doc.undoStack()->count(), steps + 1);
    doc.undoStack()->undo();
    QVERIFY(doc.scenario().slots != healthy);
    QVERIFY(doc.restoreSnapshot(5).contains(QStringLiteral("no snapshot")));
}

void TestWhiteboard::restoringAnotherLayout()
{
    // A snapshot of another parallel layout (tp 8, pp 2, dp 8, global batch 128) comes back
    // with its degrees and batch, as one step.
    ScenarioDocument doc;
    doc.load(seed128());
    QVERIFY(doc.takeSnapshot(QStringLiteral("pp4"), QString()));
    Scenario next = doc.scenario();
    next.degrees.pp = 2;
    next.degrees.dp = 8;
    next.training.globalBatch = 128;
    QCOMPARE(doc.editScenario(next, QStringLiteral("pp 2")), QString());
    QVERIFY(doc.takeSnapshot(QStringLiteral("pp2"), QString()));
    QCOMPARE(doc.restoreSnapshot(0), QString());
    QCOMPARE(doc.scenario().degrees.pp, 4);
    QCOMPARE(doc.scenario().degrees.dp, 4);
    QCOMPARE(doc.scenario().training.globalBatch, 64);
    QCOMPARE(doc.engine().layout().degrees().pp, 4);
    QCOMPARE(doc.restoreSnapshot(1), QString());
    QCOMPARE(doc.engine().layout().degrees().pp, 2);
    QCOMPARE(doc.scenario().snapshots.size(), std::size_t{2}); // restoring keeps them all

    // A snapshot the fabric can no longer hold says why and changes nothing.
    Scenario smaller = doc.scenario();
    smaller.fabric.servers = 8;
    smaller.degrees.dp = 4;
    smaller.training.globalBatch = 64;
    smaller.slots.clear();
    QCOMPARE(doc.editScenario(smaller, QStringLiteral("8 servers")), QString());
    const int steps = doc.undoStack()->count();
    const QString message = doc.restoreSnapshot(0);
    QVERIFY2(!message.isEmpty(), "a 128-rank snapshot restored onto 64 GPUs");
    QCOMPARE(doc.undoStack()->count(), steps);
    QCOMPARE(doc.scenario().fabric.servers, 8);
}

void TestWhiteboard::savedWithTheScenario()
{
    ScenarioDocument doc;
    doc.load(seed128());
    doc.addAnnotation(note("kept in the file", AnnotationAnchor::Kind::Link, 12));
    QVERIFY(doc.takeSnapshot(QStringLiteral("v1"), QStringLiteral("2025-06-03T14:32:00")));
    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("board.json")).toStdString();
    saveScenario(doc.scenario(), path);
    ScenarioDocument again;
    again.load(loadScenario(path));
    QVERIFY(again.scenario().annotations == doc.scenario().annotations);
    QVERIFY(again.scenario().snapshots == doc.scenario().snapshots);
    QCOMPARE(again.currentSnapshot(), 0);
}

QTEST_GUILESS_MAIN(TestWhiteboard)
#include "tst_whiteboard.moc"
