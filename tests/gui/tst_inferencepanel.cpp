/**
 * The inference panel (views/inferencepanel.cpp) offscreen: a hand-made report shows its numbers
 * in the labels and the pool table; the real engine's report of the disaggregated sample shows
 * the CLI's numbers; clear() empties it. Set RAILYARD_GRAB_DIR to save what the panel looks like.
 */
#include "fabric/fabric.h"
#include "studies/inference.h"
#include "inferencepanel.h"
#include "scenario/scenariofile.h"

#include <QDir>
#include <QLabel>
#include <QTableWidget>
#include <QTest>

using namespace railyard;

namespace {

InferenceReport handMade()
{
    InferenceReport r;
    r.kvBytesPerToken = 327680;
    r.kvBytesPerRequest = 671088640;
    r.kvBytesPerRequestFinal = 755e6;
    r.disaggregated = true;
    r.kvTransferTime = 1.5e-3;
    r.flows.resize(8);
    r.kvBytesPerTier = { 0.0, 671088640, 0.0 };
    r.prefillTime = 0.090;
    r.ttft = 0.0915;
    r.tpot = 0.016;
    r.endToEnd = 4.2;
    r.criticalPathShare = 0.25;
    r.ttftShare = 0.5;
    r.minimal = false;
    r.reasons = { "KV transfer prefill -> decode crosses hosts (pool 'p' on a -> pool 'd' on b)" };
    PoolResult p;
    p.name = "p";
    p.role = PoolRole::Prefill;
    p.tp = 8;
    p.gpus = 16;
    p.replicas = 2;
    p.serverNames = { "a", "c" };
    p.weightBytesPerGpu = 17.6e9;
    p.kvBytesPerGpu = 83.9e6;
    p.stepTime = 0.09;
    p.offeredLoad = 0.5;
    p.utilisation = 0.5;
    PoolResult d = p;
    d.name = "d";
    d.role = PoolRole::Decode;
    d.serverNames = { "b" };
    d.fits = false;
    d.offeredLoad = 1.5; // overloaded: busy all the time, offered half as much again
    d.utilisation = 1.0;
    r.pools = { p, d };
    r.kvLinks = { { 7, "a/nic0 -> leaf0", 2.5e9, 0.05, 0.05 } };
    r.warnings = { "pool 'd': weights + KV cache exceed HBM" };
    return r;
}

void grab(QWidget &w, const char *name)
{
    const QByteArray dir = qgetenv("RAILYARD_GRAB_DIR");
    if (dir.isEmpty())
        return;
    w.resize(900, 420);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.grab().save(QDir(QString::fromLocal8Bit(dir)).filePath(QLatin1String(name))));
}

} // namespace

class TestInferencePanel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void showsAHandMadeReport();
    void showsTheEngineReportOfTheSample();
    void minimalAndClear();
    void poolTableShowsEveryRowWhole_data();
    void poolTableShowsEveryRowWhole();
};

void TestInferencePanel::showsAHandMadeReport()
{
    InferencePanel panel;
    panel.setReport(handMade());
    QVERIFY(panel.hasReport());
    QCOMPARE(panel.classificationLabel()->text(), QStringLiteral("Distributed Inference"));
    QCOMPARE(panel.reasonsLabel()->text(),
        QStringLiteral(
            "KV transfer prefill -> decode crosses hosts (pool 'p' on a -> pool 'd' on b)"));
    QCOMPARE(panel.kvLabel()->text(),
        QStringLiteral("KV cache: 328 kB per token, 671 MB per request after the prefill, "
                       "755 MB at the last token"));
    QCOMPARE(panel.transferLabel()->text(),
        QStringLiteral("KV transfer: 1.5 ms per request (8 flows; same_leaf 671 MB)"));
    QCOMPARE(panel.latencyLabel()->text(),
        QStringLiteral("TTFT 91.5 ms · TPOT 16 ms · end-to-end 4.2 s"));
    QCOMPARE(panel.shareLabel()->text(),
        QStringLiteral("Critical path: KV transfer is 25.00 % of end-to-end, 50.00 % of TTFT"));
    QCOMPARE(panel.hottestLabel()->text(),
        QStringLiteral("Hottest KV link: a/nic0 -> leaf0, 2.50 GB/s, utilisation 5.00 %"));

    QTableWidget *t = panel.poolTable();
    QCOMPARE(t->rowCount(), 2);
    QCOMPARE(t->item(0, 0)->text(), QStringLiteral("p"));
    QCOMPARE(t->item(0, 1)->text(), QStringLiteral("prefill"));
    QCOMPARE(t->item(0, 2)->text(), QStringLiteral("a, c"));
    QCOMPARE(t->item(0, 3)->text(), QStringLiteral("8"));
    QCOMPARE(t->item(0, 6)->text(), QStringLiteral("16 (2 replicas)"));
    QCOMPARE(t->item(0, 7)->text(), QStringLiteral("90 ms"));
    QCOMPARE(t->item(0, 8)->text(), QStringLiteral("50.00 %"));
    QCOMPARE(t->item(0, 9)->text(), QStringLiteral("17.6 GB + 83.9 MB"));
    QCOMPARE(t->item(1, 1)->text(), QStringLiteral("decode"));
    QCOMPARE(t->item(1, 8)->text(), QStringLiteral("100.00 % (offered 150.00 %)"));
    QCOMPARE(t->item(1, 9)->text(), QStringLiteral("17.6 GB + 83.9 MB (does not fit)"));
    grab(panel, "inference-panel-handmade.png");
}

void TestInferencePanel::showsTheEngineReportOfTheSample()
{
    const Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/inference-disaggregated.json");
    const Fabric fabric = Fabric::build(s.fabric);
    InferencePanel panel;
    panel.setReport(evaluateInference(s, fabric));
    // The same numbers as `railyard-cli evaluate samples/inference-disaggregated.json`.
    QCOMPARE(panel.classificationLabel()->text(), QStringLiteral("Distributed Inference"));
    QVERIFY(panel.transferLabel()->text().startsWith(
        QStringLiteral("KV transfer: 1.681 ms per request (8 flows; same_leaf 671 MB)")));
    QVERIFY(panel.hottestLabel()->text().startsWith(
        QStringLiteral("Hottest KV link: node000/nic0 -> leaf-su0-rail0")));
    QCOMPARE(panel.poolTable()->rowCount(), 2);
    QCOMPARE(panel.poolTable()->item(1, 2)->text(), QStringLiteral("node002, node003"));
    grab(panel, "inference-panel.png");
}

void TestInferencePanel::minimalAndClear()
{
    const Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/inference-minimal.json");
    const Fabric fabric = Fabric::build(s.fabric);
    InferencePanel panel;
    panel.setReport(evaluateInference(s, fabric));
    QCOMPARE(panel.classificationLabel()->text(), QStringLiteral("Minimal Inference"));
    QCOMPARE(panel.transferLabel()->text(),
        QStringLiteral("KV transfer: none (prefill and decode share the GPUs)"));
    QCOMPARE(panel.hottestLabel()->text(),
        QStringLiteral("Hottest KV link: none (no KV crosses a link)"));
    panel.clear();
    QVERIFY(!panel.hasReport());
    QCOMPARE(panel.classificationLabel()->text(), QStringLiteral("No inference section"));
    QCOMPARE(panel.poolTable()->rowCount(), 0);
    QVERIFY(panel.transferLabel()->text().isEmpty());
}

void TestInferencePanel::poolTableShowsEveryRowWhole_data()
{
    QTest::addColumn<int>("width");
    QTest::addColumn<int>("height");
    QTest::newRow("wide") << 1200 << 600;
    QTest::newRow("narrow") << 640 << 600;
    QTest::newRow("docked under the fabric at 1280x720") << 940 << 260;
    QTest::newRow("narrower than the columns and short") << 420 << 200;
}

/// At any width every pool row is whole inside the table's viewport (a wrapped cell or a
/// horizontal scroll bar once hid the last row), and the table ends above the KV cache line
/// under it (they overlapped at 1280x720 and at scale 2).
void TestInferencePanel::poolTableShowsEveryRowWhole()
{
    QFETCH(int, width);
    QFETCH(int, height);
    const Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/inference-disaggregated.json");
    const Fabric fabric = Fabric::build(s.fabric);
    InferencePanel panel;
    panel.setReport(evaluateInference(s, fabric));
    panel.resize(width, height);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    QTableWidget *t = panel.poolTable();
    const int last = t->rowCount() - 1;
    QCOMPARE(last, 1);
    const int lastBottom = t->rowViewportPosition(last) + t->rowHeight(last);
    const int visible = t->viewport()->height();
    QVERIFY2(lastBottom <= visible,
        qPrintable(QStringLiteral("the last pool row ends at %1 px, the viewport at %2 px")
                       .arg(lastBottom)
                       .arg(visible)));
    for (int c = 0; c < t->columnCount(); ++c)
        QVERIFY2(t->rowHeight(last) >= t->fontMetrics().height(), "a row is cut short");
    QVERIFY2(t->geometry().bottom() < panel.kvLabel()->geometry().top(),
        "the pool table overlaps the KV cache line");
}

QTEST_MAIN(TestInferencePanel)
#include "tst_inferencepanel.moc"
