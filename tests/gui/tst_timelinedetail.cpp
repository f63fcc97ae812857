/**
 * A block of the pipeline timeline clicked shows its details under the chart: phase, stage,
 * micro-batch, start, length and what it waited on, all from the report's schedule (the event
 * list and pipelineWait() over it). A click beside the blocks clears it; a re-evaluation keeps
 * the same block selected with its new figures.
 */
#include "chartformat.h"
#include "cost/pipelinewait.h"
#include "document/scenariodocument.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"
#include "timelinecanvas.h"
#include "timelineview.h"

#include <QLabel>
#include <QTest>

using namespace railyard;

namespace {

} // namespace

class TestTimelineDetail : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void clickShowsTheBlock();
    void clickBesideClears();
    void selectionFollowsReevaluation();

private:
    void click(int event);
    ScenarioDocument *m_doc = nullptr;
    TimelineView *m_view = nullptr;
};

void TestTimelineDetail::init()
{
    m_doc = new ScenarioDocument;
    m_doc->load(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json"));
    m_doc->waitForEvaluation();
    m_view = new TimelineView(m_doc);
    m_view->resize(1100, 420);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
}

void TestTimelineDetail::cleanup()
{
    delete m_view;
    delete m_doc;
}

void TestTimelineDetail::click(int event)
{
    TimelineCanvas *canvas = m_view->canvas();
    QTest::mouseClick(canvas, Qt::LeftButton, {}, canvas->eventCenter(event).toPoint());
}

void TestTimelineDetail::clickShowsTheBlock()
{
    const PipelineTimeline &t = m_doc->report().timeline;
    QVERIFY(!m_view->blockDetailLabel()->isVisible());
    // Stage 1's first forward: it waits for stage 0's activations.
    const int i = fixtures::findEvent(t, PipelineEventKind::Forward, 1, 0);
    QVERIFY(i >= 0);
    click(i);
    QCOMPARE(m_view->canvas()->selectedEvent(), i);
    QLabel *label = m_view->blockDetailLabel();
    QVERIFY(label->isVisible());
    const PipelineEvent &e = t.events[static_cast<std::size_t>(i)];
    const QString text = label->text();
    QVERIFY2(text.contains(QStringLiteral("<b>forward</b> · stage 1 · micro-batch 0")),
        qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("start ") + chartformat::seconds(e.start)));
    QVERIFY(text.contains(QStringLiteral("length ") + chartformat::seconds(e.end - e.start)));
    // What it waited on is the engine's event that ends at its start, on stage 0.
    const PipelineWait w = pipelineWait(t, m_doc->scenario().degrees.pp, i);
    QCOMPARE(w.kind, PipelineWait::Kind::Input);
    const PipelineEvent &on = t.events[static_cast<std::size_t>(w.event)];
    QCOMPARE(on.stage, 0);
    QCOMPARE(on.microbatch, 0);
    QVERIFY2(text.contains(QStringLiteral("Waits on: its input,")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("micro-batch 0")));
    QVERIFY(text.contains(QStringLiteral("ended ") + chartformat::seconds(on.end)));
    // Set RAILYARD_GRAB_DIR to see it.
    if (const QByteArray dir = qgetenv("RAILYARD_GRAB_DIR"); !dir.isEmpty())
        m_view->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/timeline-detail.png"));

    // Stage 0's second forward waits on the stage, busy with its first.
    const int j = fixtures::findEvent(t, PipelineEventKind::Forward, 0, 1);
    click(j);
    QCOMPARE(m_view->canvas()->selectedEvent(), j);
    QVERIFY2(label->text().contains(QStringLiteral("Waits on: the stage's previous block")),
        qPrintable(label->text()));
    // The first block of all waits on nothing.
    click(fixtures::findEvent(t, PipelineEventKind::Forward, 0, 0));
    QVERIFY(label->text().contains(QStringLiteral("Waits on: nothing")));
}

void TestTimelineDetail::clickBesideClears()
{
    const PipelineTimeline &t = m_doc->report().timeline;
    click(fixtures::findEvent(t, PipelineEventKind::Backward, 2, 1));
    QVERIFY(m_view->blockDetailLabel()->isVisible());
    QVERIFY(
        m_view->blockDetailLabel()->text().contains(QStringLiteral("<b>backward</b> · stage 2")));
    // The canvas's top-left corner is the axis title area: nothing there.
    QTest::mouseClick(m_view->canvas(), Qt::LeftButton, {}, QPoint(2, 2));
    QCOMPARE(m_view->canvas()->selectedEvent(), -1);
    QVERIFY(!m_view->blockDetailLabel()->isVisible());
}

void TestTimelineDetail::selectionFollowsReevaluation()
{
    const int i = fixtures::findEvent(m_doc->report().timeline, PipelineEventKind::Forward, 3, 2);
    click(i);
    // Twice the micro-batches: a new schedule; the same block stays selected, re-timed.
    Scenario s = m_doc->scenario();
    s.training.globalBatch *= 2;
    m_doc->editScenario(s, QStringLiteral("more micro-batches"));
    m_doc->waitForEvaluation();
    QCoreApplication::processEvents();
    const PipelineTimeline &t = m_doc->report().timeline;
    const int now = m_view->canvas()->selectedEvent();
    QVERIFY(now >= 0);
    const PipelineEvent &e = t.events[static_cast<std::size_t>(now)];
    QCOMPARE(e.kind, PipelineEventKind::Forward);
    QCOMPARE(e.stage, 3);
    QCOMPARE(e.microbatch, 2);
    QVERIFY(m_view->blockDetailLabel()->text().contains(
        QStringLiteral("start ") + chartformat::seconds(e.start)));
}

QTEST_MAIN(TestTimelineDetail)
#include "tst_timelinedetail.moc"
