// railyard-cli compare, run as a user would: the real binary on the samples and on a swapped copy.
#include "clirun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

nlohmann::json parse(const CliRun &r)
{
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return nlohmann::json::parse(r.out.toStdString());
}

} // namespace

class TestCliCompare : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void figuresEqualEvaluate();
    void swappedCopyShowsMovedRanksAndLinks();
    void textTableNamesTheFigures();
    void badInputFailsAndWritesNothing_data();
    void badInputFailsAndWritesNothing();
};

void TestCliCompare::figuresEqualEvaluate()
{
    // The figures of each side are exactly what `evaluate --json` prints for that file.
    const nlohmann::json c = parse(runRailyardCli({ QStringLiteral("compare"),
        sample("seed-128.json"), sample("seed-128-tor.json"), QStringLiteral("--json") }));
    const nlohmann::json a = parse(runRailyardCli(
        { QStringLiteral("evaluate"), sample("seed-128.json"), QStringLiteral("--json") }));
    const nlohmann::json b = parse(runRailyardCli(
        { QStringLiteral("evaluate"), sample("seed-128-tor.json"), QStringLiteral("--json") }));
    const nlohmann::json &f = c["figures"];
    QCOMPARE(f["iteration_time_s"]["a"].get<double>(), a["iteration_time_s"].get<double>());
    QCOMPARE(f["iteration_time_s"]["b"].get<double>(), b["iteration_time_s"].get<double>());
    QCOMPARE(f["link_p99"]["b"].get<double>(), b["links"]["p99"].get<double>());
    QCOMPARE(f["spine_bytes_share"]["b"].get<double>(), b["spine_bytes_share"].get<double>());
    QCOMPARE(f["spine_bytes_share"]["delta"].get<double>(),
        b["spine_bytes_share"].get<double>() - a["spine_bytes_share"].get<double>());
    QVERIFY(!c["same_topology"].get<bool>());
}

void TestCliCompare::swappedCopyShowsMovedRanksAndLinks()
{
    // export mapping-json of a swapped seed, import it: B is the seed with ranks 0 and 9 swapped.
    QTemporaryDir dir;
    const QString record = dir.filePath(QStringLiteral("swapped-record.json"));
    const QString swapped = dir.filePath(QStringLiteral("swapped.json"));
    QCOMPARE(runRailyardCli(
                 { QStringLiteral("export"), sample("seed-128.json"), QStringLiteral("--format"),
                     QStringLiteral("mapping-json"), QStringLiteral("--swap"),
                     QStringLiteral("0:9"), QStringLiteral("-o"), record })
                 .exitCode,
        0);
    QCOMPARE(
        runRailyardCli({ QStringLiteral("import-mapping"), sample("seed-128.json"),
                           QStringLiteral("--mapping"), record, QStringLiteral("-o"), swapped })
            .exitCode,
        0);
    const nlohmann::json c = parse(runRailyardCli(
        { QStringLiteral("compare"), sample("seed-128.json"), swapped, QStringLiteral("--json") }));
    QVERIFY(c["same_topology"].get<bool>());
    QCOMPARE(c["moved_ranks"].size(), std::size_t { 2 });
    QCOMPARE(c["figures"]["spine_bytes"]["a"].get<double>(), 0.0);
    QVERIFY(c["figures"]["spine_bytes"]["b"].get<double>() > 0.0);
    QVERIFY(c["changed_links"].get<int>() > 0);
    QVERIFY(!c["links"].empty());
    // Listed largest change first.
    const nlohmann::json &links = c["links"];
    for (std::size_t i = 1; i < links.size(); ++i) {
        const double prev = std::abs(links[i - 1]["utilisation_b"].get<double>()
            - links[i - 1]["utilisation_a"].get<double>());
        const double cur = std::abs(
            links[i]["utilisation_b"].get<double>() - links[i]["utilisation_a"].get<double>());
        QVERIFY(prev >= cur);
    }
}

void TestCliCompare::textTableNamesTheFigures()
{
    const CliRun r = runRailyardCli(
        { QStringLiteral("compare"), sample("seed-128.json"), sample("seed-128.json") });
    QCOMPARE(r.exitCode, 0);
    const QString text = QString::fromUtf8(r.out);
    for (const char *label : { "Iteration time", "Link utilisation p95", "Link utilisation p99",
             "Spine share of NIC bytes", "Ranks: 0 of 128 moved" })
        QVERIFY2(text.contains(QLatin1String(label)), label);
}

void TestCliCompare::badInputFailsAndWritesNothing_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("one file") << QStringList { sample("seed-128.json") } << 2
                              << QStringLiteral("railyard-cli compare: B is required");
    QTest::newRow("missing B") << QStringList { sample("seed-128.json"),
        QStringLiteral("/nonexistent.json") }
                               << 1 << QStringLiteral("/nonexistent.json");
    QTest::newRow("negative top") << QStringList { sample("seed-128.json"), sample("seed-128.json"),
        QStringLiteral("--top"), QStringLiteral("-1") }
                                  << 1 << QStringLiteral("--top");
}

void TestCliCompare::badInputFailsAndWritesNothing()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out.txt"));
    const CliRun r = runRailyardCli(QStringList { QStringLiteral("compare") } + args
        + QStringList { QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

QTEST_GUILESS_MAIN(TestCliCompare)
#include "tst_cli_compare.moc"
