// Drops while the engine is rebuilt off the UI thread (asyncThreshold 0): a chip dragged with
// the mouse, a server bar (several ranks, previewed), a palette drop, foreign data and a drop outside any slot all leave a consistent
// document once the rebuild lands: slots, mapping and report agree with a fresh engine.
#include "cost/costengine.h"
#include "fabricviewfixture.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "ranklistmodel.h"
#include "serveritem.h"
#include "document/scenariodocument.h"
#include "scenario/scenariofile.h"
#include "slotitem.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QGraphicsScene>
#include <QMimeData>
#include <QTest>

#include <cmath>
#include <memory>

using namespace railyard;
using railyard::fabrictest::verifyDropRefused;

namespace {

QPoint chipPos(const FabricView &view, int rank)
{
    for (QGraphicsItem *item : view.scene()->items()) {
        if (item->type() == SlotItem::Type && item->data(SlotItem::kRankKey).toInt() == rank)
            return view.mapFromScene(item->sceneBoundingRect().center());
    }
    return QPoint(-1, -1);
}

/// The evaluated state is the document's and matches what the CLI would compute.
void verifyConsistent(const ScenarioDocument &doc, int commands)
{
    QVERIFY(!doc.isEvaluating());
    QVERIFY(!doc.isPreviewing());
    QCOMPARE(doc.scenario().slots, doc.mapping().slots());
    QCOMPARE(doc.engine().mapping().slots(), doc.mapping().slots());
    QCOMPARE(doc.undoStack()->count(), commands);
    const CostEngine fresh(doc.scenario());
    const CostReport &a = doc.report();
    const CostReport &b = fresh.report();
    QVERIFY(std::abs(a.iterationTime - b.iterationTime) <= 1e-9 * b.iterationTime);
    QCOMPARE(a.links.size(), b.links.size());
    for (std::size_t i = 0; i < b.links.size(); ++i)
        QVERIFY(std::abs(a.links[i].bytes - b.links[i].bytes) <= 1e-6 * std::max(1.0, b.links[i].bytes));
}

#define VERIFY_CONSISTENT(doc, commands)                                                           \
    do {                                                                                           \
        verifyConsistent(doc, commands);                                                           \
        if (QTest::currentTestFailed())                                                            \
            return;                                                                                \
    } while (false)

} // namespace

class TestDropDuringEvaluation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void mouseDragDuringRebuild();
    void serverBarDragDuringRebuild();
    void paletteDropDuringRebuild();
    void foreignAndOutsideDropsDuringRebuild();

private:
    /// Starts a structural edit whose rebuild runs on the worker thread.
    void startRebuild();

    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<FabricView> m_view;
    Scenario m_start;
};

void TestDropDuringEvaluation::init()
{
    m_doc = std::make_unique<ScenarioDocument>();
    m_doc->load(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json"));
    m_doc->setAsyncThreshold(0); // every rebuild off the UI thread
    m_start = m_doc->scenario();
    m_view = std::make_unique<FabricView>(m_doc.get());
    m_view->resize(1400, 800);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view.get()));
    m_view->fitAll();
}

void TestDropDuringEvaluation::cleanup()
{
    m_view.reset();
    m_doc.reset();
}

void TestDropDuringEvaluation::startRebuild()
{
    Scenario next = m_doc->scenario();
    next.training.globalBatch = 128;
    QCOMPARE(m_doc->editScenario(next, QStringLiteral("Change global batch")), QString());
    QVERIFY(m_doc->isEvaluating());
}

void TestDropDuringEvaluation::mouseDragDuringRebuild()
{
    const QPoint from = chipPos(*m_view, 0), to = chipPos(*m_view, 9);
    const int slot0 = m_doc->mapping().slotOf(0), slot9 = m_doc->mapping().slotOf(9);
    startRebuild();
    QWidget *vp = m_view->viewport();
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(30, 30));
    QTest::mouseMove(vp, to);
    QVERIFY(!m_doc->isPreviewing() || !m_doc->isEvaluating()); // no preview on a dying engine
    QTest::mouseRelease(vp, Qt::LeftButton, {}, to);
    QTRY_VERIFY(!m_doc->isEvaluating());
    VERIFY_CONSISTENT(*m_doc, 2); // the edit and the swap, neither lost
    QCOMPARE(m_doc->scenario().training.globalBatch, 128);
    QCOMPARE(m_doc->mapping().slotOf(0), slot9);
    QCOMPARE(m_doc->mapping().slotOf(9), slot0);

    m_doc->undoStack()->undo();
    m_doc->undoStack()->undo();
    QTRY_VERIFY(!m_doc->isEvaluating());
    VERIFY_CONSISTENT(*m_doc, 2);
    QCOMPARE(m_doc->scenario().slots, m_start.slots);
    QCOMPARE(m_doc->scenario().training.globalBatch, m_start.training.globalBatch);
}

void TestDropDuringEvaluation::serverBarDragDuringRebuild()
{
    const FabricItem *root = m_view->rootItem();
    auto bar = [this, root](int server) {
        return m_view->mapFromScene(
            root->serverItem(server)->mapToScene(root->layout().barRect().center()));
    };
    const QPoint from = bar(0), to = bar(5);
    startRebuild();
    QWidget *vp = m_view->viewport();
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(30, 30));
    QTest::mouseMove(vp, to);
    QVERIFY(!m_doc->isPreviewing() || !m_doc->isEvaluating()); // no preview on a dying engine
    QTest::mouseRelease(vp, Qt::LeftButton, {}, to);
    QTRY_VERIFY(!m_doc->isEvaluating());
    VERIFY_CONSISTENT(*m_doc, 2); // the edit and the eight-rank move, neither lost
    for (int g = 0; g < 8; ++g) {
        QCOMPARE(m_doc->mapping().slotOf(g), 40 + g);
        QCOMPARE(m_doc->mapping().slotOf(40 + g), g);
    }
    m_doc->undoStack()->undo();
    QTRY_VERIFY(!m_doc->isEvaluating());
    VERIFY_CONSISTENT(*m_doc, 2);
    QCOMPARE(m_doc->scenario().slots, m_start.slots);
}

void TestDropDuringEvaluation::paletteDropDuringRebuild()
{
    RankListModel model(m_doc.get());
    std::unique_ptr<QMimeData> mime(model.mimeData({model.index(5, 0)}));
    const QPoint target = chipPos(*m_view, 9);
    const int slot5 = m_doc->mapping().slotOf(5), slot9 = m_doc->mapping().slotOf(9);
    startRebuild();
    // sendEvent runs no event loop: the rebuild is certainly still running at the drop.
    QDragEnterEvent enter(target, Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &enter);
    QDragMoveEvent move(target, Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &move);
    QVERIFY(!m_doc->isPreviewing()); // refused while the engine is replaced
    QDropEvent drop(QPointF(target), Qt::CopyAction, mime.get(), Qt::LeftButton, {});
    QApplication::sendEvent(m_view->viewport(), &drop);
    QVERIFY(drop.isAccepted());
    QVERIFY(m_doc->isEvaluating());
    QCOMPARE(m_doc->undoStack()->count(), 2); // pushed now, evaluated when the rebuild lands
    QCOMPARE(m_doc->scenario().slots[std::size_t(5)], slot9);
    QTRY_VERIFY(!m_doc->isEvaluating());
    VERIFY_CONSISTENT(*m_doc, 2);
    QCOMPARE(m_doc->mapping().slotOf(5), slot9);
    QCOMPARE(m_doc->mapping().slotOf(9), slot5);
}

void TestDropDuringEvaluation::foreignAndOutsideDropsDuringRebuild()
{
    const QPoint target = chipPos(*m_view, 9);
    const QPoint from = chipPos(*m_view, 0);
    startRebuild();
    QMimeData foreign;
    foreign.setText(QStringLiteral("3,5,7"));
    verifyDropRefused(*m_view, target, foreign);
    QVERIFY(m_doc->isEvaluating());

    // A chip dragged into the empty margin: cancelled, whether or not the rebuild landed.
    const QPoint outside = m_view->mapFromScene(m_view->rootItem()->boundingRect().topLeft()
                                                + QPointF(5, 5));
    QWidget *vp = m_view->viewport();
    QTest::mousePress(vp, Qt::LeftButton, {}, from);
    QTest::mouseMove(vp, from + QPoint(40, 0));
    QTest::mouseMove(vp, outside);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, outside);
    QTRY_VERIFY(!m_doc->isEvaluating());
    VERIFY_CONSISTENT(*m_doc, 1); // only the parameter edit
    QCOMPARE(m_doc->scenario().slots, m_start.slots);
    QCOMPARE(m_doc->scenario().training.globalBatch, 128);
}

QTEST_MAIN(TestDropDuringEvaluation)
#include "tst_dropduringevaluation.moc"
