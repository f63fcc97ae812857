/**
 * The pipeline timeline panel driven like a user would (offscreen): it shows the report's
 * bubble, its micro-batch spin box and schedule combo become undoable document edits that the
 * engine re-evaluates, an invalid combination shows the engine's message inline and leaves the
 * document alone, blocks have tooltips, and the timeline exports to PNG and SVG.
 * Set RAILYARD_GRAB_DIR to also save what the panel looks like.
 */
#include "base/scenarioerror.h"
#include "chartformat.h"
#include "chartpalette.h"
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "scenario/scenariofile.h"
#include "timelinecanvas.h"
#include "timelineview.h"

#include <QComboBox>
#include <QImage>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>

using namespace railyard;

namespace {

Scenario seed()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b));
}

/// The engine's message for a scenario, empty when it evaluates.
QString engineMessage(const Scenario &s)
{
    try {
        const CostEngine engine(s);
    } catch (const ScenarioError &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

/// Pixels of exactly `color` in what the widget paints.
int pixelsOf(QWidget *w, const QColor &color)
{
    const QImage image = w->grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QRgb rgb = color.rgb(); // chunkShade() may hand back an HSV-specced colour
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            n += image.pixel(x, y) == rgb ? 1 : 0;
    return n;
}

void grabIfAsked(QWidget *w, const QString &name)
{
    const QByteArray dir = qgetenv("RAILYARD_GRAB_DIR");
    if (!dir.isEmpty())
        w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name);
}

/// Types a number into a spin box and presses Enter, as a user does.
void typeInto(QSpinBox *spin, int value)
{
    spin->setFocus();
    spin->selectAll();
    QTest::keyClicks(spin, QString::number(value));
    QTest::keyClick(spin, Qt::Key_Return);
}

} // namespace

class TestTimeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void showsTheReportsBubble();
    void microbatchSpinEditsTheDocument();
    void interleavedNeedsMultipleOfStages();
    void scheduleChangeIsUndoable();
    void blocksHaveTooltips();
    void zoomAndPanStayInRange();
    void exportsPngAndSvg();
    void zeroBubbleDrawsWeightBlocks();
    void dualPipeDrawsBothDirections();

private:
    ScenarioDocument *m_doc = nullptr;
    TimelineView *m_view = nullptr;
};

void TestTimeline::init()
{
    m_doc = new ScenarioDocument;
    m_doc->load(seed());
    m_view = new TimelineView(m_doc);
    m_view->resize(1100, 420);
    m_view->show();
    QVERIFY(QTest::qWaitForWindowExposed(m_view));
}

void TestTimeline::cleanup()
{
    delete m_view;
    delete m_doc;
}

void TestTimeline::showsTheReportsBubble()
{
    const CostReport &r = m_doc->report();
    QVERIFY(r.bubbleFraction > 0.0);
    QCOMPARE(m_view->shownBubbleFraction(), r.bubbleFraction);
    auto *label = m_view->findChild<QLabel *>(QStringLiteral("bubbleLabel"));
    QVERIFY(label);
    QVERIFY2(
        label->text().contains(chartformat::percent(r.bubbleFraction)), qPrintable(label->text()));
    auto *details = m_view->findChild<QLabel *>(QStringLiteral("timelineDetails"));
    QVERIFY(details->text().contains(chartformat::seconds(r.pipelineMakespan)));
    QVERIFY(details->text().contains(chartformat::seconds(r.iterationTime)));
    // The chart holds exactly the report's events.
    QCOMPARE(m_view->canvas()->timeline().events.size(), r.timeline.events.size());
    QCOMPARE(m_view->findChild<QSpinBox *>(QStringLiteral("microbatchSpin"))->value(), 16);
    grabIfAsked(m_view, QStringLiteral("timeline-seed.png"));
}

void TestTimeline::microbatchSpinEditsTheDocument()
{
    auto *spin = m_view->findChild<QSpinBox *>(QStringLiteral("microbatchSpin"));
    QVERIFY(spin);
    const double before = m_doc->report().bubbleFraction;
    const int steps = m_doc->undoStack()->count();

    typeInto(spin, 8);
    QCOMPARE(m_doc->scenario().training.globalBatch, 8 * 1 * 4); // m * micro * dp
    QCOMPARE(m_doc->engine().plan().microbatches, 8);
    QCOMPARE(m_doc->undoStack()->count(), steps + 1);
    Scenario expected = seed();
    expected.training.globalBatch = 32;
    const CostEngine fresh(expected);
    QVERIFY(near(m_doc->report().bubbleFraction, fresh.report().bubbleFraction));
    QVERIFY(m_doc->report().bubbleFraction > before); // fewer micro-batches, more fill/drain
    QCOMPARE(m_view->shownBubbleFraction(), m_doc->report().bubbleFraction);
    QVERIFY(m_view->findChild<QLabel *>(QStringLiteral("bubbleLabel"))
                ->text()
                .contains(chartformat::percent(fresh.report().bubbleFraction)));
    QVERIFY(m_view->errorText().isEmpty());

    m_doc->undoStack()->undo();
    QCOMPARE(m_doc->engine().plan().microbatches, 16);
    QCOMPARE(spin->value(), 16);
    QCOMPARE(m_view->shownBubbleFraction(), before);
}

void TestTimeline::interleavedNeedsMultipleOfStages()
{
    auto *spin = m_view->findChild<QSpinBox *>(QStringLiteral("microbatchSpin"));
    auto *combo = m_view->findChild<QComboBox *>(QStringLiteral("scheduleCombo"));
    auto *error = m_view->findChild<QLabel *>(QStringLiteral("timelineError"));
    QVERIFY(spin && combo && error);

    typeInto(spin, 6); // fine for 1F1B
    QCOMPARE(m_doc->engine().plan().microbatches, 6);
    const Scenario valid = m_doc->scenario();
    const int steps = m_doc->undoStack()->count();
    const double bubble = m_doc->report().bubbleFraction;

    // Interleaved with m = 6, pp = 4: refused with the engine's own message.
    Scenario refused = valid;
    refused.training.schedule = ScheduleKind::Interleaved;
    refused.training.interleave = 2;
    const QString expected = engineMessage(refused);
    QVERIFY(expected.contains(QStringLiteral("multiple of the pipeline stages")));
    combo->setCurrentIndex(combo->findData(static_cast<int>(ScheduleKind::Interleaved)));
    QVERIFY(error->isVisible());
    QCOMPARE(error->text(), expected);
    QCOMPARE(m_view->errorText(), expected);
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::OneFOneB);
    QCOMPARE(m_doc->scenario().training.globalBatch, valid.training.globalBatch);
    QCOMPARE(m_doc->undoStack()->count(), steps);
    QCOMPARE(m_view->shownBubbleFraction(), bubble); // the view still shows the document
    grabIfAsked(m_view, QStringLiteral("timeline-error.png"));

    // Fixing m with the interleaved choice still pending applies both, as one edit.
    typeInto(spin, 8);
    QVERIFY(!error->isVisible());
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::Interleaved);
    QCOMPARE(m_doc->scenario().training.interleave, 2);
    QCOMPARE(m_doc->engine().plan().microbatches, 8);
    QCOMPARE(m_doc->undoStack()->count(), steps + 1);
    Scenario both = valid;
    both.training.schedule = ScheduleKind::Interleaved;
    both.training.interleave = 2;
    both.training.globalBatch = 32;
    QVERIFY(near(m_doc->report().bubbleFraction, CostEngine(both).report().bubbleFraction));
    QCOMPARE(m_view->canvas()->timeline().events.size(), m_doc->report().timeline.events.size());
    grabIfAsked(m_view, QStringLiteral("timeline-interleaved.png"));

    // Undo restores 1F1B with m = 6, and the controls follow.
    m_doc->undoStack()->undo();
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::OneFOneB);
    QCOMPARE(m_doc->engine().plan().microbatches, 6);
    QCOMPARE(combo->currentData().toInt(), static_cast<int>(ScheduleKind::OneFOneB));
    QCOMPARE(spin->value(), 6);
    QCOMPARE(m_view->shownBubbleFraction(), bubble);
}

void TestTimeline::scheduleChangeIsUndoable()
{
    auto *combo = m_view->findChild<QComboBox *>(QStringLiteral("scheduleCombo"));
    const double oneF = m_doc->report().bubbleFraction;
    combo->setCurrentIndex(combo->findData(static_cast<int>(ScheduleKind::GPipe)));
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::GPipe);
    QVERIFY(m_doc->undoStack()->undoText().contains(QStringLiteral("GPipe")));
    // GPipe and 1F1B have the same fill/drain; the peak memory differs (all m in flight).
    Scenario g = seed();
    g.training.schedule = ScheduleKind::GPipe;
    QVERIFY(near(m_view->shownBubbleFraction(), CostEngine(g).report().bubbleFraction));

    // Interleaved with the default 2 chunks at m = 16: valid, and a smaller bubble.
    combo->setCurrentIndex(combo->findData(static_cast<int>(ScheduleKind::Interleaved)));
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::Interleaved);
    QVERIFY(m_view->findChild<QSpinBox *>(QStringLiteral("chunksSpin"))->isEnabled());
    QVERIFY(m_doc->report().bubbleFraction < oneF);
    m_doc->undoStack()->undo();
    m_doc->undoStack()->undo();
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::OneFOneB);
    QCOMPARE(m_view->shownBubbleFraction(), oneF);
    QVERIFY(!m_view->findChild<QSpinBox *>(QStringLiteral("chunksSpin"))->isEnabled());
}

void TestTimeline::blocksHaveTooltips()
{
    TimelineCanvas *canvas = m_view->canvas();
    const PipelineTimeline &t = canvas->timeline();
    int forward = -1, send = -1;
    for (int i = 0; i < static_cast<int>(t.events.size()); ++i) {
        const PipelineEvent &e = t.events[static_cast<std::size_t>(i)];
        if (forward < 0 && e.kind == PipelineEventKind::Forward && e.stage == 1
            && e.microbatch == 2)
            forward = i;
        if (send < 0 && e.kind == PipelineEventKind::SendForward)
            send = i;
    }
    QVERIFY(forward >= 0);
    const PipelineEvent &e = t.events[static_cast<std::size_t>(forward)];
    const QString tip = canvas->toolTipAt(canvas->eventCenter(forward).toPoint());
    QVERIFY2(tip.contains(QStringLiteral("stage 1")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("forward")));
    QVERIFY(tip.contains(QStringLiteral("micro-batch 2")));
    QVERIFY(tip.contains(QStringLiteral("chunk 0")));
    QVERIFY(tip.contains(chartformat::seconds(e.start)));
    QVERIFY(tip.contains(chartformat::seconds(e.end)));
    QVERIFY(tip.contains(chartformat::seconds(e.end - e.start)));
    if (send >= 0) { // the sample's stage boundaries cross servers, so sends have a duration
        const QString sendTip = canvas->toolTipAt(canvas->eventCenter(send).toPoint());
        QVERIFY2(sendTip.contains(QStringLiteral("activation send")), qPrintable(sendTip));
    }
    // Outside every row: nothing.
    QVERIFY(canvas->toolTipAt(QPoint(2, 2)).isEmpty());
}

void TestTimeline::zoomAndPanStayInRange()
{
    TimelineCanvas *canvas = m_view->canvas();
    const double total = canvas->totalSpan();
    QCOMPARE(canvas->viewSpan(), total);
    canvas->zoomBy(4.0, canvas->width() / 2.0);
    QVERIFY(near(canvas->viewSpan(), total / 4.0));
    canvas->setViewStart(total * 10.0); // past the end: clamped
    QVERIFY(near(canvas->viewStart() + canvas->viewSpan(), total));
    canvas->setViewStart(-1.0);
    QCOMPARE(canvas->viewStart(), 0.0);
    // Dragging left moves later in time.
    const QPoint mid(canvas->width() / 2, canvas->height() / 3);
    QTest::mousePress(canvas, Qt::LeftButton, {}, mid);
    QTest::mouseMove(canvas, mid - QPoint(200, 0));
    QTest::mouseRelease(canvas, Qt::LeftButton, {}, mid - QPoint(200, 0));
    QVERIFY(canvas->viewStart() > 0.0);
    grabIfAsked(m_view, QStringLiteral("timeline-zoomed.png"));
    // A re-evaluation keeps the zoom; fit shows everything again.
    typeInto(m_view->findChild<QSpinBox *>(QStringLiteral("microbatchSpin")), 12);
    QVERIFY(canvas->viewSpan() < canvas->totalSpan());
    canvas->fit();
    QCOMPARE(canvas->viewSpan(), canvas->totalSpan());
}

void TestTimeline::exportsPngAndSvg()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString png = dir.filePath(QStringLiteral("timeline.png"));
    const QString svg = dir.filePath(QStringLiteral("timeline.svg"));
    QVERIFY(m_view->exportImage(png));
    QVERIFY(m_view->exportImage(svg));
    const QImage image(png);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 1400);
    QFile f(svg);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const QByteArray text = f.readAll();
    QVERIFY(text.contains("<svg"));
    QVERIFY(text.contains(chartformat::percent(m_doc->report().bubbleFraction).toUtf8()));
    const QByteArray dirEnv = qgetenv("RAILYARD_GRAB_DIR");
    if (!dirEnv.isEmpty())
        m_view->exportImage(
            QString::fromLocal8Bit(dirEnv) + QStringLiteral("/timeline-export.png"));
}

void TestTimeline::zeroBubbleDrawsWeightBlocks()
{
    TimelineCanvas *canvas = m_view->canvas();
    const QColor amber = chartpalette::weightGradColor();
    QCOMPARE(pixelsOf(canvas, amber), 0); // 1F1B: no W blocks, no legend entry
    auto *combo = m_view->findChild<QComboBox *>(QStringLiteral("scheduleCombo"));
    QVERIFY(combo->findText(QStringLiteral("ZB-H1 (zero bubble)")) >= 0);
    combo->setCurrentIndex(combo->findData(static_cast<int>(ScheduleKind::ZbH1)));
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::ZbH1);
    const PipelineTimeline &t = canvas->timeline();
    int weight = -1;
    for (int i = 0; i < static_cast<int>(t.events.size()); ++i)
        if (weight < 0
            && t.events[static_cast<std::size_t>(i)].kind == PipelineEventKind::WeightGrad)
            weight = i;
    QVERIFY(weight >= 0);
    const QString tip = canvas->toolTipAt(canvas->eventCenter(weight).toPoint());
    QVERIFY2(tip.contains(QStringLiteral("weight gradient (W)")), qPrintable(tip));
    QVERIFY(pixelsOf(canvas, amber) > 0); // the W blocks and their legend swatch
    // ZB-H1 fills 1F1B's cool-down: less bubble than the 1F1B it replaced.
    const double zb = m_doc->report().bubbleFraction;
    grabIfAsked(m_view, QStringLiteral("timeline-zb-h1.png"));
    m_doc->undoStack()->undo();
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::OneFOneB);
    QVERIFY(zb < m_doc->report().bubbleFraction);
    QCOMPARE(pixelsOf(canvas, amber), 0);
}

void TestTimeline::dualPipeDrawsBothDirections()
{
    TimelineCanvas *canvas = m_view->canvas();
    const QColor reverse = chartpalette::chunkShade(chartpalette::forwardColor(), 1);
    QCOMPARE(pixelsOf(canvas, reverse), 0);
    auto *combo = m_view->findChild<QComboBox *>(QStringLiteral("scheduleCombo"));
    combo->setCurrentIndex(combo->findData(static_cast<int>(ScheduleKind::DualPipe)));
    QCOMPARE(m_doc->scenario().training.schedule, ScheduleKind::DualPipe);
    QVERIFY(m_view->errorText().isEmpty());
    const PipelineTimeline &t = canvas->timeline();
    const int stages = m_doc->scenario().degrees.pp;
    // Direction 1 enters at the last stage: its first forward starts there at time 0.
    bool reverseStart = false;
    for (const PipelineEvent &e : t.events)
        reverseStart |= e.kind == PipelineEventKind::Forward && e.chunk == 1 && e.start == 0.0
            && e.stage == stages - 1;
    QVERIFY(reverseStart);
    QVERIFY(pixelsOf(canvas, reverse) > 0); // direction 1's forwards in their own shade
    QVERIFY(pixelsOf(canvas, chartpalette::weightGradColor()) > 0);
    grabIfAsked(m_view, QStringLiteral("timeline-dualpipe.png"));
    // 15 micro-batches: odd, DualPipe refuses and the document keeps 16.
    typeInto(m_view->findChild<QSpinBox *>(QStringLiteral("microbatchSpin")), 15);
    QVERIFY2(m_view->errorText().contains(QStringLiteral("even number of micro-batches")),
        qPrintable(m_view->errorText()));
    QCOMPARE(m_doc->engine().plan().microbatches, 16);
}

QTEST_MAIN(TestTimeline)
#include "tst_timeline.moc"
