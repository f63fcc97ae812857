/**
 * Runs the real `railyard-cli pipeline` and checks its JSON against hand-derived numbers (the
 * seed's forward-only example, 1F1B fill/drain, the interleaved bubble, a boundary send), its
 * text summary, and that bad input gives a non-zero exit and one line on stderr.
 */
#include "clirun.h"
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>

#include <QTest>

#include <cmath>

namespace {

using Run = CliRun;

Run runCli(const QStringList &args)
{
    return runRailyardCli(QStringList { QStringLiteral("pipeline") } + args);
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::max(std::abs(a), std::abs(b)));
}

QList<double> numbers(const QJsonArray &array)
{
    QList<double> out;
    for (const QJsonValue &v : array)
        out.append(v.toDouble());
    return out;
}

} // namespace

class TestCliPipeline : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void json_data();
    void json();
    void textSummary();
    void badInput_data();
    void badInput();
};

void TestCliPipeline::json_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<double>("makespan");
    QTest::addColumn<double>("utilisation");
    QTest::addColumn<QList<double>>("peak");
    QTest::addColumn<int>("events");

    const auto args
        = [](const char *text) { return QString::fromLatin1(text).split(QLatin1Char(' ')); };
    // Seed: 4 equal stages, forward only, m micro-batches in m+3 slots, utilisation m/(m+3).
    QTest::newRow("seed m=4 (57%)")
        << args("--schedule gpipe --stages 4 --microbatches 4 --tf 1 --tb 0") << 7.0 << 4.0 / 7.0
        << QList<double> { 1, 1, 1, 1 } << 16;
    QTest::newRow("seed m=16 (84%)")
        << args("--schedule 1f1b --stages 4 --microbatches 16 --tf 1 --tb 0") << 19.0 << 16.0 / 19.0
        << QList<double> { 1, 1, 1, 1 } << 64;
    // 1F1B, tf=1, tb=2: (m+p-1)(tf+tb) = 11*3, utilisation m/(m+p-1); stage s holds p-s.
    QTest::newRow("1f1b p=4 m=8") << args(
        "--schedule 1f1b --stages 4 --microbatches 8 --tf 1 --tb 2")
                                  << 33.0 << 8.0 / 11.0 << QList<double> { 4, 3, 2, 1 } << 64;
    // Interleaved v=2: bubble (p-1)/(v*m+p-1) = 3/19, makespan (m + (p-1)/v)(tf+tb) = 9.5*3;
    // peak (2(p-s-1) + (v-1)p + 1)/v.
    QTest::newRow("interleaved p=4 m=8 v=2")
        << args("--schedule interleaved --stages 4 --microbatches 8 --chunks 2 --tf 1 --tb 2")
        << 28.5 << 16.0 / 19.0 << QList<double> { 5.5, 4.5, 3.5, 2.5 } << 128;
    // ZB-H1 (Qi et al. 2024 §3.1), tf=2, backward 2.5 of which W 1 (T_B = 1.5): makespan
    // m(tf+tb) + (p-1)(T_F + T_B - T_W) = 36 + 7.5; p in flight on every stage; F, B, W per
    // micro-batch and stage.
    QTest::newRow("zb-h1 p=4 m=8")
        << args("--schedule zb-h1 --stages 4 --microbatches 8 --tf 2 --tb 2.5 --tw 1") << 43.5
        << 36.0 / 43.5 << QList<double> { 4, 4, 4, 4 } << 96;
    // DualPipe (DeepSeek-V3 Table 2), tf=1, backward 2, W 1: bubble (p/2-1)(F&B + B - 3W) =
    // 3 + 2 - 3 = 2 after the 24 s of work; p+1 in flight. Events: 32 F, 32 B and the W passes
    // DualPipe.step() defers: 3 on ranks 0 and 3 (steps 3, 6, 7), 2 on the middle ranks (step 6).
    QTest::newRow("dualpipe p=4 m=8")
        << args("--schedule dualpipe --stages 4 --microbatches 8 --tf 1 --tb 2 --tw 1") << 26.0
        << 24.0 / 26.0 << QList<double> { 5, 5, 5, 5 } << 74;
    // Forward only, p=2, m=1: F 0-1, send 1-1.5, F 1.5-2.5; utilisation 2/(2*2.5).
    QTest::newRow("send p=2 m=1") << args("--stages 2 --microbatches 1 --tf 1 --tb 0 --send 0.5")
                                  << 2.5 << 0.4 << QList<double> { 1, 1 } << 3;
}

void TestCliPipeline::json()
{
    QFETCH(QStringList, args);
    QFETCH(double, makespan);
    QFETCH(double, utilisation);
    QFETCH(QList<double>, peak);
    QFETCH(int, events);

    const Run run = runCli(args + QStringList { QStringLiteral("--json") });
    QVERIFY2(run.exitCode == 0, run.err.constData());
    QVERIFY(run.err.isEmpty());
    QJsonParseError error {};
    const QJsonDocument doc = QJsonDocument::fromJson(run.out, &error);
    QVERIFY2(error.error == QJsonParseError::NoError, qPrintable(error.errorString()));
    const QJsonObject root = doc.object();

    QVERIFY2(near(root.value(QLatin1String("makespan")).toDouble(), makespan),
        run.out.left(400).constData());
    QVERIFY(near(root.value(QLatin1String("utilisation")).toDouble(), utilisation));
    QVERIFY(near(root.value(QLatin1String("bubble_fraction")).toDouble(), 1.0 - utilisation));
    const QList<double> peaks = numbers(root.value(QLatin1String("peak_inflight")).toArray());
    QCOMPARE(peaks.size(), peak.size());
    for (qsizetype i = 0; i < peak.size(); ++i)
        QVERIFY(near(peaks[i], peak[i]));

    const QJsonArray list = root.value(QLatin1String("events")).toArray();
    QCOMPARE(list.size(), events);
    double lastStart = -1.0;
    double lastEnd = 0.0;
    for (const QJsonValue &v : list) {
        const QJsonObject e = v.toObject();
        for (const char *key : { "stage", "microbatch", "chunk", "kind", "start", "end" })
            QVERIFY2(e.contains(QLatin1String(key)), key);
        const QString kind = e.value(QLatin1String("kind")).toString();
        QVERIFY(kind == QLatin1String("F") || kind == QLatin1String("B")
            || kind == QLatin1String("send-F") || kind == QLatin1String("send-B")
            || kind == QLatin1String("W"));
        const double start = e.value(QLatin1String("start")).toDouble();
        QVERIFY(start >= lastStart); // sorted by start time
        lastStart = start;
        lastEnd = std::max(lastEnd, e.value(QLatin1String("end")).toDouble());
    }
    QVERIFY(near(lastEnd, makespan));
}

void TestCliPipeline::textSummary()
{
    const Run run
        = runCli(QString::fromLatin1("--schedule gpipe --stages 4 --microbatches 4 --tf 1 --tb 0")
                     .split(QLatin1Char(' ')));
    QCOMPARE(run.exitCode, 0);
    const QString text = QString::fromUtf8(run.out);
    QVERIFY2(text.contains(QLatin1String("utilisation   57.14 %")), run.out.constData());
    QVERIFY(text.contains(QLatin1String("bubble        42.86 %")));
    QVERIFY(text.contains(QLatin1String("makespan      7 s")));
    // One Gantt row per stage; stage 3 idles first (fill) and stage 0 last (drain).
    for (int s = 0; s < 4; ++s)
        QVERIFY(text.contains(QStringLiteral("stage   %1 |").arg(s)));
    QVERIFY(text.contains(QLatin1String("stage   3 |....")));
    QVERIFY(text.contains(QLatin1String("stage   0 |0000")));
}

void TestCliPipeline::badInput_data()
{
    QTest::addColumn<QString>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("interleaved m % p")
        << "--schedule interleaved --stages 4 --microbatches 6 --chunks 2 --tf 1 --tb 2" << 1
        << "--microbatches: the interleaved schedule needs a multiple of the pipeline stages (4), "
           "got 6";
    QTest::newRow("interleaved one chunk")
        << "--schedule interleaved --stages 4 --microbatches 8 --chunks 1 --tf 1 --tb 2" << 1
        << "--chunks: the interleaved schedule needs at least 2 model chunks per stage, got 1";
    QTest::newRow("unknown schedule")
        << "--schedule zb --stages 4 --microbatches 8 --tf 1 --tb 2" << 1
        << "--schedule: expected one of gpipe, 1f1b, interleaved, zb-h1, dualpipe, got 'zb'";
    QTest::newRow("dualpipe odd stages")
        << "--schedule dualpipe --stages 3 --microbatches 8 --tf 1 --tb 2" << 1
        << "--stages: the dualpipe schedule needs an even number of pipeline stages "
           "(micro-batches enter from both ends, each rank holding two stages), got 3";
    QTest::newRow("dualpipe too few micro-batches")
        << "--schedule dualpipe --stages 4 --microbatches 6 --tf 1 --tb 2" << 1
        << "--microbatches: the dualpipe schedule needs an even number of micro-batches (half "
           "enter from each end) and at least twice the pipeline stages (8), got 6";
    QTest::newRow("W beyond the backward")
        << "--schedule zb-h1 --stages 4 --microbatches 8 --tf 1 --tb 2 --tw 3" << 1
        << "--tw: the weight gradient is part of the backward: 3 s exceeds the stage's backward "
           "of 2 s";
    QTest::newRow("tw without a zero-bubble schedule")
        << "--schedule 1f1b --stages 4 --microbatches 8 --tf 1 --tb 2 --tw 1" << 2
        << "pipeline: --tw applies only to --schedule zb-h1 or dualpipe, not to 1f1b "
           "(try 'railyard-cli pipeline --help')";
    QTest::newRow("no stages") << "--stages 0 --microbatches 8 --tf 1 --tb 2" << 1
                               << "--stages: a pipeline needs at least 1 stage, got 0";
    QTest::newRow("negative time") << "--stages 4 --microbatches 8 --tf -1 --tb 2" << 1
                                   << "--tf: expected a time in seconds >= 0, got '-1'";
    QTest::newRow("not a number") << "--stages four --microbatches 8 --tf 1 --tb 2" << 1
                                  << "--stages: expected an integer, got 'four'";
    QTest::newRow("chunks without interleaving")
        << "--schedule 1f1b --stages 4 --microbatches 8 --chunks 2 --tf 1 --tb 2" << 2
        << "pipeline: --chunks applies only to --schedule interleaved, not to 1f1b "
           "(try 'railyard-cli pipeline --help')";
    QTest::newRow("missing --tb")
        << "--stages 4 --microbatches 8 --tf 1" << 2
        << "pipeline: --tb is required (try 'railyard-cli pipeline --help')";
}

void TestCliPipeline::badInput()
{
    QFETCH(QString, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const Run run = runCli(args.split(QLatin1Char(' ')));
    QCOMPARE(run.exitCode, exitCode);
    QVERIFY(run.out.isEmpty()); // nothing is written on failure
    const QString err = QString::fromUtf8(run.err);
    QCOMPARE(err.count(QLatin1Char('\n')), 1); // one line
    // Usage errors (exit 2) name the command: "railyard-cli pipeline: ...".
    QCOMPARE(err.trimmed(),
        (exitCode == 2 ? QStringLiteral("railyard-cli ") : QStringLiteral("railyard-cli: "))
            + message);
}

QTEST_GUILESS_MAIN(TestCliPipeline)
#include "tst_cli_pipeline.moc"
