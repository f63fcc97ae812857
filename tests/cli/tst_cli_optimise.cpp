/**
 * `railyard-cli optimise` end to end: it writes the optimised scenario, which `evaluate` reads
 * back with the iteration time the report gave; --json parses and carries the same figures; a
 * move-limited run is the same twice; bad flags and bad files exit non-zero and write nothing.
 */
#include "clirun.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

nlohmann::json parsed(const QByteArray &text)
{
    return nlohmann::json::parse(text.toStdString(), nullptr, false);
}

} // namespace

class TestCliOptimise : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesTheOptimisedScenario();
    void jsonParsesAndRepeats();
    void badInputWritesNothing_data();
    void badInputWritesNothing();
};

void TestCliOptimise::writesTheOptimisedScenario()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("opt.json"));
    const CliRun r = runRailyardCli({ "optimise", sample("seed-128.json"), "--from", "scattered",
        "--moves", "600", "-o", out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("Optimise seed-128 for iteration time (from scattered"));
    QVERIFY(r.out.contains("The moves stage by stage"));
    QVERIFY(r.out.contains("binding: tp-in-server"));
    QVERIFY(r.out.contains("wrote " + out.toUtf8()));
    QVERIFY(QFile::exists(out));
    // The written file is a scenario like any other; its iteration time is the seed job's
    // rail-aligned optimum within 0.5 % (2.775 s, README "Speed").
    const CliRun e = runRailyardCli({ "evaluate", out, "--json" });
    QVERIFY2(e.exitCode == 0, e.err.constData());
    const nlohmann::json j = parsed(e.out);
    const double t = j["iteration_time_s"].get<double>();
    const CliRun packed = runRailyardCli({ "evaluate", sample("seed-128.json"), "--json" });
    const double optimum = parsed(packed.out)["iteration_time_s"].get<double>();
    QVERIFY2(t <= optimum * 1.005, qPrintable(QString::number(t)));
}

void TestCliOptimise::jsonParsesAndRepeats()
{
    QTemporaryDir dir;
    const QString a = dir.filePath(QStringLiteral("a.json"));
    const QString b = dir.filePath(QStringLiteral("b.json"));
    const QStringList args = { "optimise", sample("mixtral-ep8-zipf.json"), "--objective", "spine",
        "--moves", "300", "--seed", "5", "--json" };
    const CliRun ra = runRailyardCli(args + QStringList { "-o", a });
    const CliRun rb = runRailyardCli(args + QStringList { "-o", b });
    QVERIFY2(ra.exitCode == 0, ra.err.constData());
    QVERIFY2(rb.exitCode == 0, rb.err.constData());
    const nlohmann::json j = parsed(ra.out);
    QVERIFY(j.is_object());
    QCOMPARE(j["format_version"].get<int>(), 1);
    QCOMPARE(j["objective"].get<std::string>(), std::string("spine"));
    QCOMPARE(j["search"]["evaluated"].get<long long>(), 300LL);
    QVERIFY(j["objective_result"].get<double>() <= j["objective_start"].get<double>());
    QCOMPARE(j["slots"], parsed(rb.out)["slots"]); // same seed, same moves
    QCOMPARE(readTestFile(a), readTestFile(b));
    // The file's mapping evaluates to the reported spine bytes.
    const CliRun e = runRailyardCli({ "evaluate", a, "--json" });
    const nlohmann::json ej = parsed(e.out);
    double spine = 0.0;
    for (const auto &[dim, bytes] : ej["tiers"]["spine"].items())
        spine += bytes.get<double>();
    const double reported = j["result"]["spine_bytes"].get<double>();
    QVERIFY(std::abs(spine - reported) <= 1e-6 * std::max(1.0, reported));
}

void TestCliOptimise::badInputWritesNothing_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const QString seed = sample("seed-128.json");
    QTest::newRow("objective") << QStringList { "optimise", seed, "--objective", "speed" } << 2
                               << "--objective: unknown objective 'speed'";
    QTest::newRow("keep") << QStringList { "optimise", seed, "--keep", "tp" } << 2
                          << "--keep: unknown constraint 'tp'";
    QTest::newRow("from") << QStringList { "optimise", seed, "--from", "random" } << 2
                          << "--from: unknown start 'random'";
    QTest::newRow("moves") << QStringList { "optimise", seed, "--moves", "-3" } << 1 << "--moves";
    // 0 inside means "no limit": given, it ran on for the default 10 s and exited 0 (#40).
    QTest::newRow("moves zero") << QStringList { "optimise", seed, "--moves", "0" } << 1
                                << "--moves: must be at least 1, got 0";
    QTest::newRow("seconds") << QStringList { "optimise", seed, "--seconds", "0" } << 1
                             << "--seconds";
    QTest::newRow("seed") << QStringList { "optimise", seed, "--seed", "x" } << 1
                          << "--seed: expected an integer";
    QTest::newRow("file") << QStringList { "optimise", "/nonexistent/x.json", "--moves", "5" } << 1
                          << "x.json";
    QTest::newRow("scaleup") << QStringList { "optimise", sample("dgx-h100-4su.json"), "--keep",
        "tp-in-scaleup", "--moves", "1", "--from", "packed" }
                             << 0 << "";
}

void TestCliOptimise::badInputWritesNothing()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out.json"));
    const CliRun r = runRailyardCli(args + QStringList { "-o", out });
    QCOMPARE(r.exitCode, code);
    if (code == 0) {
        QVERIFY(QFile::exists(out)); // the control row: the same command line otherwise works
        return;
    }
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFile::exists(out));
    QVERIFY(QDir(dir.path()).isEmpty());
    // Without -o nothing runs at all.
    const CliRun noOut = runRailyardCli({ "optimise", sample("seed-128.json"), "--moves", "5" });
    QCOMPARE(noOut.exitCode, 2);
    QVERIFY(noOut.err.contains("-o FILE"));
}

QTEST_GUILESS_MAIN(TestCliOptimise)
#include "tst_cli_optimise.moc"
