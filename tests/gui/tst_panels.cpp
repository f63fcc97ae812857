/**
 * The inspector, charts and summary bar on a real document (offscreen): an inconsistent
 * inspector edit shows the engine's message and changes nothing; a valid one re-evaluates and
 * undoes; document changes refresh the fields without new edits; the charts hold the report's
 * numbers (percentile markers equal linkStats, one bar per tier and dimension, the bubble sweep
 * through the current m); the summary bar prints the report's numbers.
 * Set RAILYARD_GRAB_DIR to also save what the panels look like.
 */
#include "chartbubblesweep.h"
#include "chartexposedtime.h"
#include "chartformat.h"
#include "chartlinkutilisation.h"
#include "chartspanel.h"
#include "charttierbytes.h"
#include "cost/costengine.h"
#include "inspectorfield.h"
#include "inspectorpanel.h"
#include "document/scenariodocument.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "summarybar.h"

#include <QAreaSeries>
#include <QBarSet>
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineSeries>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStackedBarSeries>
#include <QTabWidget>
#include <QTest>
#include <QTextDocument>
#include <QUndoStack>

#include <cmath>
#include <numeric>

using namespace railyard;

namespace {

Scenario seed()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

QString engineMessage(const Scenario &s)
{
    try {
        const CostEngine engine(s);
    } catch (const ScenarioError &e) {
        return QString::fromUtf8(e.what());
    }
    return {};
}

bool near(double a, double b, double rel = 1e-9)
{
    return std::abs(a - b) <= rel * std::max(1.0, std::abs(b));
}

void grabIfAsked(QWidget *w, const QString &name)
{
    const QByteArray dir = qgetenv("RAILYARD_GRAB_DIR");
    if (!dir.isEmpty())
        w->grab().save(QString::fromLocal8Bit(dir) + QLatin1Char('/') + name);
}

} // namespace

class TestPanels : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init();
    void cleanup();
    void inspectorShowsTheDocument();
    void inspectorRefusesInconsistentTp();
    void inspectorValidEditIsUndoable();
    void inspectorPresetReplacesTheModel();
    void chartsHoldTheReport();
    void chartsFollowEdits();
    void summaryShowsTheReport();
    void summaryMemoryDoesNotFit();

private:
    ScenarioDocument *m_doc = nullptr;
};

void TestPanels::init()
{
    m_doc = new ScenarioDocument;
    m_doc->load(seed());
}

void TestPanels::cleanup()
{
    delete m_doc;
}

void TestPanels::inspectorShowsTheDocument()
{
    InspectorPanel panel(m_doc);
    QCOMPARE(qobject_cast<QSpinBox *>(panel.editor(QStringLiteral("parallel.tp")))->value(), 8);
    QCOMPARE(qobject_cast<QSpinBox *>(panel.editor(QStringLiteral("parallel.pp")))->value(), 4);
    QCOMPARE(qobject_cast<QComboBox *>(panel.editor(QStringLiteral("model.name")))->currentText(),
        QStringLiteral("llama2-70b"));
    QCOMPARE(qobject_cast<QComboBox *>(panel.editor(QStringLiteral("device.name")))->currentText(),
        QStringLiteral("h100-sxm"));
    QCOMPARE(qobject_cast<QComboBox *>(panel.editor(QStringLiteral("training.recompute")))
                 ->currentText(),
        QStringLiteral("selective"));
    QCOMPARE(qobject_cast<QSpinBox *>(panel.editor(QStringLiteral("fabric.servers")))->value(), 16);
    QVERIFY(qobject_cast<QCheckBox *>(panel.editor(QStringLiteral("training.dp_overlap")))
                ->isChecked());
    QVERIFY(panel.errorText().isEmpty());
    panel.resize(380, 1500);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    grabIfAsked(&panel, QStringLiteral("inspector.png"));
}

void TestPanels::inspectorRefusesInconsistentTp()
{
    InspectorPanel panel(m_doc);
    panel.show();
    auto *tp = qobject_cast<QSpinBox *>(panel.editor(QStringLiteral("parallel.tp")));
    QVERIFY(tp);
    const Scenario before = m_doc->scenario();
    const int steps = m_doc->undoStack()->count();
    QSignalSpy changed(m_doc, &ScenarioDocument::scenarioChanged);

    Scenario bad = before;
    bad.degrees.tp = 3;
    const QString expected = engineMessage(bad);
    QVERIFY(!expected.isEmpty());

    tp->setFocus();
    tp->selectAll();
    QTest::keyClicks(tp, QStringLiteral("3"));
    QTest::keyClick(tp, Qt::Key_Return);

    QCOMPARE(panel.errorText(), expected);
    QCOMPARE(m_doc->scenario().degrees.tp, 8);
    QCOMPARE(m_doc->undoStack()->count(), steps);
    QCOMPARE(changed.count(), 0);
    QCOMPARE(tp->value(), 3); // the typed value stays, marked
    QVERIFY(tp->property("inspectorError").toBool());
    grabIfAsked(&panel, QStringLiteral("inspector-error.png"));

    // Revert puts the document's value back and clears the message.
    panel.revert();
    QCOMPARE(tp->value(), 8);
    QVERIFY(panel.errorText().isEmpty());
    QVERIFY(!tp->property("inspectorError").toBool());
}

void TestPanels::inspectorValidEditIsUndoable()
{
    InspectorPanel panel(m_doc);
    auto *recompute = qobject_cast<QComboBox *>(panel.editor(QStringLiteral("training.recompute")));
    QVERIFY(recompute);
    const double before = m_doc->report().iterationTime;
    const int steps = m_doc->undoStack()->count();
    QSignalSpy reports(m_doc, &ScenarioDocument::reportChanged);

    recompute->setCurrentIndex(recompute->findData(QStringLiteral("full")));
    QCOMPARE(m_doc->scenario().training.recompute, Recompute::Full);
    QVERIFY(reports.count() >= 1);
    QVERIFY(m_doc->report().iterationTime > before); // full recompute re-runs the forward
    Scenario full = seed();
    full.training.recompute = Recompute::Full;
    QVERIFY(near(m_doc->report().iterationTime, CostEngine(full).report().iterationTime));
    QCOMPARE(m_doc->undoStack()->count(), steps + 1);
    QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Set recompute = full"));
    QVERIFY(panel.errorText().isEmpty());

    // Undo: the document goes back and the field follows, without pushing another edit.
    m_doc->undoStack()->undo();
    QCOMPARE(m_doc->scenario().training.recompute, Recompute::Selective);
    QCOMPARE(recompute->currentText(), QStringLiteral("selective"));
    QCOMPARE(m_doc->report().iterationTime, before);
    QCOMPARE(m_doc->undoStack()->index(), steps);
    QCOMPARE(m_doc->undoStack()->count(), steps + 1);

    // A spin box edit (tp 8 -> 4 with the layout re-placed) is one step too.
    auto *tp = qobject_cast<QSpinBox *>(panel.editor(QStringLiteral("parallel.tp")));
    tp->setValue(4);
    QCOMPARE(m_doc->scenario().degrees.tp, 4);
    QCOMPARE(m_doc->undoStack()->undoText(), QStringLiteral("Set tp = 4"));
    m_doc->undoStack()->undo();
    QCOMPARE(tp->value(), 8);
}

void TestPanels::inspectorPresetReplacesTheModel()
{
    InspectorPanel panel(m_doc);
    auto *model = qobject_cast<QComboBox *>(panel.editor(QStringLiteral("model.name")));
    auto *layers = qobject_cast<QSpinBox *>(panel.editor(QStringLiteral("model.layers")));
    model->setCurrentIndex(model->findData(QStringLiteral("llama3-70b")));
    QCOMPARE(QString::fromStdString(m_doc->scenario().model.name), QStringLiteral("llama3-70b"));
    QCOMPARE(m_doc->scenario().model.vocab, 128256);
    QCOMPARE(
        qobject_cast<QSpinBox *>(panel.editor(QStringLiteral("model.vocab")))->value(), 128256);

    // Editing a size departs from the preset: the model becomes "custom".
    layers->setValue(40);
    QCOMPARE(m_doc->scenario().model.layers, 40);
    QCOMPARE(QString::fromStdString(m_doc->scenario().model.name), QStringLiteral("custom"));
    QCOMPARE(model->currentText(), QStringLiteral("custom"));
    m_doc->undoStack()->undo();
    QCOMPARE(model->currentText(), QStringLiteral("llama3-70b"));
}

void TestPanels::chartsHoldTheReport()
{
    ChartsPanel panel(m_doc);
    panel.resize(640, 420);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    const CostReport &r = m_doc->report();

    // (1) Link utilisation: the histogram plus the three percentile markers.
    ChartLinkUtilisation *links = panel.linkUtilisation();
    QCOMPARE(links->chart()->series().size(), 4);
    const std::vector<int> &bins = links->binCounts();
    QCOMPARE(static_cast<int>(bins.size()), ChartLinkUtilisation::kBins);
    QCOMPARE(std::accumulate(bins.begin(), bins.end(), 0), r.linkStats.count);
    QCOMPARE(static_cast<int>(r.links.size()), r.linkStats.count);
    const double stats[3] = { r.linkStats.p50, r.linkStats.p95, r.linkStats.p99 };
    for (int i = 0; i < 3; ++i) {
        const QList<QPointF> pts = links->marker(i)->points();
        QCOMPARE(pts.size(), 2);
        QCOMPARE(pts[0].x(), 100.0 * stats[i]);
        QCOMPARE(pts[1].x(), 100.0 * stats[i]);
        QVERIFY(links->marker(i)->name().contains(chartformat::percent(stats[i], 2)));
    }
    QVERIFY(r.linkStats.p99 > 0.0);
    QVERIFY(r.linkStats.p50 <= r.linkStats.p95 && r.linkStats.p95 <= r.linkStats.p99);
    grabIfAsked(&panel, QStringLiteral("chart-links.png"));

    // (2) Bytes per tier: one stacked series, a set per dimension, a bar per tier.
    ChartTierBytes *tiers = panel.tierBytes();
    QCOMPARE(tiers->chart()->series().size(), 1);
    QCOMPARE(tiers->series()->count(), kDimCount);
    for (const Dim d : kAllDims) {
        QBarSet *set = tiers->series()->barSets().at(index(d));
        QCOMPARE(set->count(), kTierCount);
        for (int t = 0; t < kTierCount; ++t)
            QVERIFY(near(set->at(t) * tiers->unit(),
                r.tierBytes[static_cast<std::size_t>(t)][static_cast<std::size_t>(index(d))]));
    }
    // The 128-GPU sample's packed layout keeps DP on its rails: no DP bytes on the spine tier.
    QCOMPARE(tiers->series()->barSets().at(index(Dim::Dp))->at(index(Tier::Spine)), 0.0);
    panel.tabs()->setCurrentWidget(tiers);
    grabIfAsked(&panel, QStringLiteral("chart-tiers.png"));

    // (3) Exposed time: one bar per dimension.
    ChartExposedTime *exposed = panel.exposedTime();
    QCOMPARE(exposed->chart()->series().size(), 1);
    for (const Dim d : kAllDims)
        QVERIFY(near(exposed->series()->barSets().at(index(d))->at(index(d)) * exposed->unit(),
            r.dimExposed[static_cast<std::size_t>(index(d))]));
    panel.tabs()->setCurrentWidget(exposed);
    grabIfAsked(&panel, QStringLiteral("chart-exposed.png"));

    // (4) Bubble versus m: the curve and the current point, which lies on it.
    ChartBubbleSweep *sweep = panel.bubbleSweep();
    QCOMPARE(sweep->chart()->series().size(), 2);
    QCOMPARE(sweep->current()->count(), 1);
    const QPointF now = sweep->current()->at(0);
    QCOMPARE(now.x(), 16.0);
    QCOMPARE(now.y(), 100.0 * r.bubbleFraction);
    bool onCurve = false;
    for (const QPointF &p : sweep->curve()->points())
        onCurve = onCurve || (p.x() == 16.0 && near(p.y(), now.y()));
    QVERIFY(onCurve);
    QVERIFY(sweep->curve()->count() >= 16);
    // More micro-batches, smaller bubble.
    const QList<QPointF> curve = sweep->curve()->points();
    QVERIFY(curve.first().y() > curve.last().y());
    panel.tabs()->setCurrentWidget(sweep);
    grabIfAsked(&panel, QStringLiteral("chart-sweep.png"));
}

void TestPanels::chartsFollowEdits()
{
    ChartsPanel panel(m_doc);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    Scenario next = m_doc->scenario();
    next.training.globalBatch = 32; // m = 8
    QVERIFY(m_doc->editScenario(next, QStringLiteral("Set micro-batches = 8")).isEmpty());
    QTRY_COMPARE(panel.bubbleSweep()->current()->at(0).x(), 8.0);
    QCOMPARE(panel.bubbleSweep()->current()->at(0).y(), 100.0 * m_doc->report().bubbleFraction);
    QCOMPARE(panel.linkUtilisation()->marker(1)->at(0).x(), 100.0 * m_doc->report().linkStats.p95);
}

void TestPanels::summaryShowsTheReport()
{
    SummaryBar bar(m_doc);
    bar.resize(1400, bar.sizeHint().height());
    bar.show();
    QVERIFY(QTest::qWaitForWindowExposed(&bar));
    const CostReport &r = m_doc->report();
    const CostEngine &e = m_doc->engine();
    QVERIFY(bar.iterationLabel()->text().contains(chartformat::seconds(r.iterationTime)));
    QVERIFY(bar.mfuLabel()->text().contains(chartformat::percent(r.mfu)));
    QVERIFY(bar.bubbleLabel()->text().contains(chartformat::percent(r.bubbleFraction)));
    QVERIFY(r.bottleneckLink >= 0);
    const QString linkName
        = QString::fromStdString(e.fabric().linkName(r.bottleneckLink)).toHtmlEscaped();
    // The label shows the whole name (never elided; broken after its arrow when the column is
    // narrow), the detail when there is room; the tooltip carries both always.
    QVERIFY2(bar.bottleneckLabel()->toolTip().contains(
                 QString::fromStdString(e.fabric().linkName(r.bottleneckLink))),
        qPrintable(bar.bottleneckLabel()->toolTip()));
    QTextDocument shown;
    shown.setHtml(bar.bottleneckLabel()->text());
    QVERIFY2(shown.toPlainText().remove(QLatin1Char(' ')).remove(QLatin1Char('\n')).remove(QChar::LineSeparator).contains(
                 QString::fromStdString(e.fabric().linkName(r.bottleneckLink)).remove(QLatin1Char(' '))),
        qPrintable(shown.toPlainText()));
    QVERIFY(!bar.bottleneckLabel()->text().contains(QChar(0x2026)));
    const QString both = bar.bottleneckLabel()->text() + bar.bottleneckLabel()->toolTip();
    QVERIFY(both.contains(QString::fromLatin1(tierName(e.fabric().link(r.bottleneckLink).tier).data())));
    QVERIFY(both.contains(QString::fromLatin1(dimName(r.bottleneckDim).data())));
    QVERIFY(bar.spineLabel()->text().contains(chartformat::percent(r.spineBytesShare, 2)));
    QVERIFY(bar.memoryLabel()->text().contains(chartformat::bytes(r.maxMemoryPerRank)));
    QVERIFY(r.memoryFits);
    QVERIFY(bar.memoryLabel()->text().contains(QStringLiteral("fits")));
    QVERIFY(!bar.memoryLabel()->text().contains(QStringLiteral("does not fit")));
    QVERIFY(bar.warningsLabel()->text().contains(
        QStringLiteral(">%1<").arg(e.mappingWarnings().size())));
    grabIfAsked(&bar, QStringLiteral("summary.png"));

    // Scattered placement splits every TP group: warnings appear, listed in the tooltip.
    m_doc->applyPlacement(Placement::Scattered);
    const auto &warnings = m_doc->engine().mappingWarnings();
    QVERIFY(!warnings.empty());
    QVERIFY(bar.warningsLabel()->text().contains(QStringLiteral(">%1<").arg(warnings.size())));
    QVERIFY(bar.warningsLabel()->toolTip().contains(QString::fromStdString(warnings.front())));
    QVERIFY(
        bar.iterationLabel()->text().contains(chartformat::seconds(m_doc->report().iterationTime)));
    grabIfAsked(&bar, QStringLiteral("summary-scattered.png"));
}

void TestPanels::summaryMemoryDoesNotFit()
{
    SummaryBar bar(m_doc);
    Scenario small = m_doc->scenario();
    small.device.hbmBytes = 20e9;
    QVERIFY(m_doc->editScenario(small, QStringLiteral("Set HBM = 20")).isEmpty());
    QVERIFY(!m_doc->report().memoryFits);
    QVERIFY(bar.memoryLabel()->text().contains(QStringLiteral("does not fit")));
    QVERIFY(bar.memoryLabel()->text().contains(chartformat::bytes(20e9)));
}

QTEST_MAIN(TestPanels)
#include "tst_panels.moc"
