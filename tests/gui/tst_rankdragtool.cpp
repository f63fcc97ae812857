// The drop path end to end, counted: a drop (after its preview or without one) is one MoveRanks
// command, at most one engine update, one change signal naming the moved ranks and the links
// whose load moved, and one recolour of the fabric. Driven with real mouse and drag events.
#include "cost/costengine.h"
#include "document/evaluator.h"
#include "document/moveranks.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "ranklistmodel.h"
#include "scenario/scenariofile.h"
#include "serveritem.h"
#include "slotitem.h"

#include <QDragEnterEvent>
#include <QGraphicsScene>
#include <QMimeData>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <cmath>
#include <memory>
#include <set>

using namespace railyard;

namespace {

Scenario seed128()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

QPoint chipPos(const FabricView &view, int rank)
{
    for (QGraphicsItem *item : view.scene()->items()) {
        if (item->type() == SlotItem::Type && item->data(SlotItem::kRankKey).toInt() == rank)
            return view.mapFromScene(item->sceneBoundingRect().center());
    }
    return QPoint(-1, -1);
}

QPoint slotPos(const FabricView &view, int slot)
{
    return view.mapFromScene(view.rootItem()->slotItem(slot)->sceneBoundingRect().center());
}

/// Links whose bytes differ between two evaluations of one fabric (beyond rounding: the
/// incremental engine adds and subtracts loads, tst_costengine's relative 1e-6).
std::set<int> changedLinks(const CostReport &a, const CostReport &b)
{
    std::set<int> changed;
    for (std::size_t i = 0; i < a.links.size(); ++i) {
        const double x = a.links[i].bytes, y = b.links[i].bytes;
        if (std::abs(x - y) > 1e-6 * std::max({ 1.0, std::abs(x), std::abs(y) }))
            changed.insert(static_cast<int>(i));
    }
    return changed;
}

/// The links a change names cover every link whose load moved, and few others: a view that
/// repaints them repaints what changed, not the fabric.
void verifyNamesChangedLinks(
    const std::vector<int> &named, const CostReport &before, const CostReport &after)
{
    const std::set<int> truth = changedLinks(before, after);
    QVERIFY(!truth.empty());
    const std::set<int> got(named.begin(), named.end());
    for (int link : truth)
        QVERIFY2(got.count(link), qPrintable(QStringLiteral("link %1 not named").arg(link)));
    QVERIFY2(got.size() < before.links.size() / 4,
        qPrintable(
            QStringLiteral("%1 of %2 links named").arg(got.size()).arg(before.links.size())));
}

/// What a fresh engine computes for the document's own scenario.
CostReport freshReport(const ScenarioDocument &doc)
{
    return CostEngine(doc.scenario()).report();
}

} // namespace

class TestRankDragTool : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void dropAfterPreviewKeepsItsEvaluation();
    void dropWithoutPreviewUpdatesOnce();
    void dropOnEmptySlotIsOneIncrementalMove();
    void serverDropAfterPreviewKeepsItsEvaluation();
    void undoRedoUpdateOnce();

private:
    void load(const Scenario &s);

    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
};

void TestRankDragTool::init()
{
    load(seed128());
}

void TestRankDragTool::load(const Scenario &s)
{
    m_view.reset();
    m_doc = std::make_unique<ScenarioDocument>();
    m_doc->load(s);
    m_view = std::make_unique<FabricView>(m_doc.get());
    m_view->resize(1400, 800);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_view->fitAll();
}

void TestRankDragTool::cleanup()
{
    m_view.reset();
    m_doc.reset();
}

void TestRankDragTool::dropAfterPreviewKeepsItsEvaluation()
{
    const Evaluator *evaluator = m_doc->evaluator();
    const FabricItem *root = m_view->rootItem();
    const CostReport before = m_doc->report();
    const int slot0 = m_doc->mapping().slotOf(0), slot9 = m_doc->mapping().slotOf(9);
    const int updatesBefore = evaluator->engineUpdates();
    QSignalSpy mapping(m_doc.get(), &ScenarioDocument::mappingChanged);
    QSignalSpy reports(m_doc.get(), &ScenarioDocument::reportChanged);

    QWidget *vp = m_view->viewport();
    const QPoint from = chipPos(*m_view, 0), to = chipPos(*m_view, 9);
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(30, 30));
    QTest::mouseMove(vp, to);
    QVERIFY(m_doc->isPreviewing());
    // The preview: one engine update, one report change naming the links that moved.
    QCOMPARE(evaluator->engineUpdates(), updatesBefore + 1);
    QCOMPARE(reports.count(), 1);
    QVERIFY(reports.last().at(0).value<ReportChange>().preview);
    verifyNamesChangedLinks(
        reports.last().at(0).value<ReportChange>().links, before, m_doc->report());
    if (QTest::currentTestFailed())
        return;
    const int updates = evaluator->engineUpdates();
    const int recolours = root->recolourCount();

    QTest::mouseRelease(vp, Qt::LeftButton, {}, to);
    // The drop: one command of two moves, no engine work (the preview was this edit), one
    // signal with both ranks, one recolour.
    QVERIFY(!m_doc->isPreviewing());
    QCOMPARE(m_doc->undoStack()->count(), 1);
    const auto *command = dynamic_cast<const MoveRanks *>(m_doc->undoStack()->command(0));
    QVERIFY(command);
    QCOMPARE(command->moves(), MovedRanks({ { 0, slot0, slot9 }, { 9, slot9, slot0 } }));
    QCOMPARE(evaluator->engineUpdates(), updates);
    QCOMPARE(evaluator->engineUpdates(), updatesBefore + 1); // the whole gesture: once
    QCOMPARE(root->recolourCount(), recolours + 1);
    QCOMPARE(mapping.count(), 1);
    QCOMPARE(reports.count(), 1);
    const auto change = mapping.last().at(0).value<MappingChange>();
    QCOMPARE(change.moves, command->moves());
    QVERIFY(!change.allRanks && !change.report.allLinks);
    QVERIFY(change.report.links.empty()); // the preview's colours are the drop's
    QCOMPARE(m_doc->mapping().slotOf(0), slot9);
    const CostReport fresh = freshReport(*m_doc);
    QVERIFY(std::abs(m_doc->report().iterationTime - fresh.iterationTime)
        <= 1e-9 * fresh.iterationTime);
    QVERIFY(changedLinks(m_doc->report(), fresh).empty());
}

void TestRankDragTool::dropWithoutPreviewUpdatesOnce()
{
    // A palette drop delivered without a move event: nothing was previewed.
    const Evaluator *evaluator = m_doc->evaluator();
    const FabricItem *root = m_view->rootItem();
    const CostReport before = m_doc->report();
    RankListModel model(m_doc.get());
    std::unique_ptr<QMimeData> mime(model.mimeData({ model.index(5, 0) }));
    const QPoint target = chipPos(*m_view, 9);
    const int updates = evaluator->engineUpdates();
    QSignalSpy mapping(m_doc.get(), &ScenarioDocument::mappingChanged);
    QSignalSpy reports(m_doc.get(), &ScenarioDocument::reportChanged);
    QDragEnterEvent enter(target, Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &enter);
    QVERIFY(enter.isAccepted());
    const int recolours = root->recolourCount();
    QDropEvent drop(QPointF(target), Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &drop);
    QVERIFY(drop.isAccepted());
    QCOMPARE(m_doc->undoStack()->count(), 1);
    QCOMPARE(evaluator->engineUpdates(), updates + 1);
    QCOMPARE(root->recolourCount(), recolours + 1);
    QCOMPARE(mapping.count(), 1);
    QCOMPARE(reports.count(), 0);
    const auto change = mapping.last().at(0).value<MappingChange>();
    QCOMPARE(change.moves.size(), std::size_t(2));
    verifyNamesChangedLinks(change.report.links, before, m_doc->report());
    if (QTest::currentTestFailed())
        return;
    QVERIFY(changedLinks(m_doc->report(), freshReport(*m_doc)).empty());
}

void TestRankDragTool::dropOnEmptySlotIsOneIncrementalMove()
{
    Scenario s = seed128();
    s.fabric.servers = 17; // one spare server: slots 128..135 empty
    load(s);
    const Evaluator *evaluator = m_doc->evaluator();
    const FabricItem *root = m_view->rootItem();
    QWidget *vp = m_view->viewport();
    const QPoint from = chipPos(*m_view, 3), to = slotPos(*m_view, 130);
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(25, 25));
    QTest::mouseMove(vp, to);
    QVERIFY(m_doc->isPreviewing());
    const int updates = evaluator->engineUpdates();
    const int recolours = root->recolourCount();
    QSignalSpy scenario(m_doc.get(), &ScenarioDocument::scenarioChanged);
    QSignalSpy mapping(m_doc.get(), &ScenarioDocument::mappingChanged);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, to);
    // Not a whole new scenario: one move, the preview's evaluation kept.
    const auto *command = dynamic_cast<const MoveRanks *>(m_doc->undoStack()->command(0));
    QVERIFY(command);
    QCOMPARE(command->moves(), MovedRanks({ { 3, 3, 130 } }));
    QCOMPARE(evaluator->engineUpdates(), updates);
    QCOMPARE(root->recolourCount(), recolours + 1);
    QCOMPARE(scenario.count(), 0);
    QCOMPARE(mapping.count(), 1);
    QCOMPARE(root->slotItem(130)->rank(), 3);
    QCOMPARE(root->slotItem(3)->rank(), -1);
    QVERIFY(changedLinks(m_doc->report(), freshReport(*m_doc)).empty());
}

void TestRankDragTool::serverDropAfterPreviewKeepsItsEvaluation()
{
    const Evaluator *evaluator = m_doc->evaluator();
    const FabricItem *root = m_view->rootItem();
    auto bar = [this, root](int server) {
        return m_view->mapFromScene(
            root->serverItem(server)->mapToScene(root->layout().barRect().center()));
    };
    QWidget *vp = m_view->viewport();
    const QPoint from = bar(0), to = bar(5);
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(30, 30));
    QTest::mouseMove(vp, to);
    QVERIFY(m_doc->isPreviewing());
    const int updates = evaluator->engineUpdates();
    const int recolours = root->recolourCount();
    QSignalSpy mapping(m_doc.get(), &ScenarioDocument::mappingChanged);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, to);
    QCOMPARE(m_doc->undoStack()->count(), 1);
    const auto *command = dynamic_cast<const MoveRanks *>(m_doc->undoStack()->command(0));
    QVERIFY(command);
    QCOMPARE(command->moves().size(), std::size_t(16)); // 8 ranks there, 8 out of the way
    QCOMPARE(evaluator->engineUpdates(), updates);
    QCOMPARE(root->recolourCount(), recolours + 1);
    QCOMPARE(mapping.count(), 1);
    QCOMPARE(mapping.last().at(0).value<MappingChange>().moves, command->moves());
    QVERIFY(changedLinks(m_doc->report(), freshReport(*m_doc)).empty());
}

void TestRankDragTool::undoRedoUpdateOnce()
{
    const Evaluator *evaluator = m_doc->evaluator();
    const FabricItem *root = m_view->rootItem();
    const CostReport start = m_doc->report();
    m_doc->swapRanks(0, 9);
    const CostReport swapped = m_doc->report();
    for (bool undo : { true, false }) {
        const int updates = evaluator->engineUpdates();
        const int recolours = root->recolourCount();
        QSignalSpy mapping(m_doc.get(), &ScenarioDocument::mappingChanged);
        if (undo)
            m_doc->undoStack()->undo();
        else
            m_doc->undoStack()->redo();
        QCOMPARE(evaluator->engineUpdates(), updates + 1);
        QCOMPARE(root->recolourCount(), recolours + 1);
        QCOMPARE(mapping.count(), 1);
        verifyNamesChangedLinks(mapping.last().at(0).value<MappingChange>().report.links,
            undo ? swapped : start, m_doc->report());
        if (QTest::currentTestFailed())
            return;
        QVERIFY(changedLinks(m_doc->report(), freshReport(*m_doc)).empty());
    }
}

QTEST_MAIN(TestRankDragTool)
#include "tst_rankdragtool.moc"
