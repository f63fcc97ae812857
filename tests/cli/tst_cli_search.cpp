/**
 * `railyard-cli search` and `merge` end to end: two shards merged print the serial result byte
 * for byte (JSON and CSV); each row written with --write-top evaluates with `railyard-cli
 * evaluate` to the row's iteration time, in the ranking's order; the progress line appears only
 * when asked for; bad flags, bad parts and missing or repeated shards exit non-zero, name the
 * problem and write nothing.
 */
#include "clirun.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

namespace {

/// A search small enough for a test: Llama 3 8B on 32 H100 GPUs, 1F1B, selective recompute.
QStringList searchArgs()
{
    return { "search", "--model", "llama3-8b", "--fabric", "rail-optimised", "--gpus", "32",
        "--global-batch", "128", "--max-cp", "1", "--max-micro-batch", "1", "--schedules",
        "1f1b,gpipe", "--recompute", "selective", "--placements", "packed,scattered", "--top",
        "4" };
}

nlohmann::json parsed(const QByteArray &text)
{
    return nlohmann::json::parse(text.toStdString(), nullptr, false);
}

} // namespace

class TestCliSearch : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void shardsMergeToTheSerialOutput();
    void writtenRowsEvaluateToTheirFigures();
    void progressOnlyWhenAsked();
    void badInputWritesNothing_data();
    void badInputWritesNothing();

private:
    QTemporaryDir m_dir;
    QString m_part0, m_part1, m_serialJson;
};

void TestCliSearch::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_part0 = m_dir.filePath(QStringLiteral("p0.json"));
    m_part1 = m_dir.filePath(QStringLiteral("p1.json"));
    for (const QString &part : { m_part0, m_part1 }) {
        const QString shard = part == m_part0 ? QStringLiteral("0/2") : QStringLiteral("1/2");
        const CliRun r = runRailyardCli(searchArgs() << "--shard" << shard << "-o" << part);
        QVERIFY2(r.exitCode == 0, r.err.constData());
        QVERIFY(r.out.isEmpty());
        QVERIFY(QFile::exists(part));
    }
}

void TestCliSearch::shardsMergeToTheSerialOutput()
{
    const CliRun serial = runRailyardCli(searchArgs() << "--json");
    QVERIFY2(serial.exitCode == 0, serial.err.constData());
    QVERIFY(serial.err.isEmpty()); // no terminal, no --progress: stderr stays clean
    const nlohmann::json j = parsed(serial.out);
    QVERIFY(j.is_object());
    QCOMPARE(j["top"].size(), std::size_t { 4 });
    QVERIFY(j["counts"]["evaluated"].get<int>() > 4);
    const CliRun merged = runRailyardCli({ "merge", m_part1, m_part0, "--json" });
    QVERIFY2(merged.exitCode == 0, merged.err.constData());
    QCOMPARE(merged.out, serial.out);

    const CliRun serialCsv = runRailyardCli(searchArgs() << "--csv");
    const CliRun mergedCsv = runRailyardCli({ "merge", m_part0, m_part1, "--csv" });
    QVERIFY(serialCsv.out.startsWith("rank,name,tp,pp,dp,cp,ep,"));
    QCOMPARE(mergedCsv.out, serialCsv.out);
    const CliRun serialText = runRailyardCli(searchArgs());
    QVERIFY(serialText.out.contains("Top 4 by throughput:"));
    QVERIFY(serialText.out.contains("Pareto front (throughput, memory headroom, spine share)"));
    QCOMPARE(runRailyardCli({ "merge", m_part0, m_part1 }).out, serialText.out);
}

void TestCliSearch::writtenRowsEvaluateToTheirFigures()
{
    const QString dir = m_dir.filePath(QStringLiteral("top"));
    QVERIFY(QDir().mkpath(dir));
    const CliRun r = runRailyardCli(searchArgs() << "--json"
                                                 << "--write-top" << dir);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json rows = parsed(r.out)["top"];
    const QStringList files
        = QDir(dir).entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name);
    QCOMPARE(files.size(), 4);
    double previous = INFINITY;
    for (int i = 0; i < files.size(); ++i) {
        const nlohmann::json &row = rows[static_cast<std::size_t>(i)];
        QVERIFY(files[i].startsWith(QStringLiteral("0%1-").arg(i + 1)));
        QVERIFY(files[i].contains(QString::fromStdString(row["name"].get<std::string>())));
        const CliRun e = runRailyardCli({ "evaluate", QDir(dir).filePath(files[i]), "--json" });
        QVERIFY2(e.exitCode == 0, e.err.constData());
        const double t = parsed(e.out)["iteration_time_s"].get<double>();
        const double expected = row["iteration_time_s"].get<double>();
        QVERIFY2(std::abs(t - expected) <= 1e-12 * expected,
            qPrintable(QStringLiteral("%1 vs %2").arg(t).arg(expected)));
        // Ranked by tokens/s at a fixed batch and sequence: iteration time never falls.
        QCOMPARE(row["tokens_per_s"].get<double>(), 128.0 * 8192.0 / expected);
        QVERIFY(previous == INFINITY || t >= previous);
        previous = t;
    }
}

void TestCliSearch::progressOnlyWhenAsked()
{
    const CliRun r = runRailyardCli(searchArgs() << "--progress");
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.err.contains("search: "), r.err.constData());
    QVERIFY(r.err.contains(" candidates, "));
    QVERIFY(r.err.contains(" evaluations/s, best "));
    QVERIFY(r.err.contains(" tokens/s, ETA "));
}

void TestCliSearch::badInputWritesNothing_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QStringList base = searchArgs();
    const auto with = [&base](const QStringList &more) { return QStringList(base) << more; };
    QTest::newRow("model") << QStringList { "search", "--model", "gpt5", "--fabric",
        "rail-optimised", "--gpus", "8" }
                           << 1 << "--model: unknown model preset 'gpt5'";
    QTest::newRow("fabric") << QStringList { "search", "--model", "llama3-8b", "--fabric", "mesh",
        "--gpus", "8" } << 2 << "--fabric: unknown kind 'mesh'";
    QTest::newRow("gpus") << QStringList { "search", "--model", "llama3-8b", "--fabric", "tor",
        "--gpus", "12" } << 1
                          << "--gpus: 12 GPUs do not fill whole servers of 8 GPUs";
    QTest::newRow("shard range") << with({ "--shard", "2/2" }) << 1 << "--shard: expected I/N";
    QTest::newRow("shard text") << with({ "--shard", "half" }) << 1 << "--shard: expected I/N";
    QTest::newRow("shard json") << with({ "--shard", "0/2", "--json" }) << 2
                                << "--json, --csv and --write-top belong to the merge";
    QTest::newRow("json csv") << with({ "--json", "--csv" }) << 2 << "give one of them";
    QTest::newRow("top") << with({ "--top", "0" }) << 1 << "--top: must be at least 1";
    QTest::newRow("batch") << with({ "--global-batch", "-2" }) << 1
                           << "--global-batch: must be at least 1";
    QTest::newRow("schedule") << with({ "--schedules", "1f1b,pipedream" }) << 2
                              << "--schedules: unknown value 'pipedream'";
    QTest::newRow("write-top") << with({ "--write-top", "/nonexistent/dir" }) << 1
                               << "--write-top: '/nonexistent/dir' is not a directory";
    QTest::newRow("merge missing")
        << QStringList { "merge", "@P0@" } << 1 << "merge: missing shard(s) 1/2";
    QTest::newRow("merge twice") << QStringList { "merge", "@P0@", "@P1@", "@P1@" } << 1
                                 << "merge: shard 1/2 is given twice (part 3)";
    QTest::newRow("merge top") << QStringList { "merge", "@P0@", "@P1@", "--top", "9" } << 1
                               << "--top: 9 rows asked for, but each part kept only its top 4";
    QTest::newRow("merge not a part") << QStringList { "merge", "@P0@", "@SCENARIO@" } << 1
                                      << "seed-128.json: is not a search part";
    QTest::newRow("merge foreign") << QStringList { "merge", "@P0@", "@OTHER@" } << 1
                                   << "other.json: is a shard of a different search";
}

void TestCliSearch::badInputWritesNothing()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    const QString other = m_dir.filePath(QStringLiteral("other.json"));
    if (!QFile::exists(other)) {
        QStringList a = searchArgs();
        a[a.indexOf(QStringLiteral("--gpus")) + 1] = QStringLiteral("16");
        const CliRun r = runRailyardCli(a << "--shard"
                                          << "1/2"
                                          << "-o" << other);
        QVERIFY2(r.exitCode == 0, r.err.constData());
    }
    for (QString &a : args) {
        a.replace(QStringLiteral("@P0@"), m_part0).replace(QStringLiteral("@P1@"), m_part1);
        a.replace(QStringLiteral("@OTHER@"), other);
        a.replace(QStringLiteral("@SCENARIO@"),
            QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json"));
    }
    const QString out = m_dir.filePath(QStringLiteral("never.json"));
    const CliRun r = runRailyardCli(args << "-o" << out);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

QTEST_GUILESS_MAIN(TestCliSearch)
#include "tst_cli_search.moc"
