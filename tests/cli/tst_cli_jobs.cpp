/** Several jobs on one fabric from the command line (docs/shared-fabric.md): every single-job
 *  sample evaluates byte-identically to the output pinned before jobs existed, compose and its
 *  refusals, evaluate's jobs[], and optimise --job moving one job with the others fixed. */
#include "clirun.h"
#include "golden.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

} // namespace

class TestCliJobs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void singleJobSamplesEvaluateByteIdentically_data();
    void singleJobSamplesEvaluateByteIdentically();
    void composeWritesTheSample();
    void composeRefusals_data();
    void composeRefusals();
    void evaluateJsonListsTheJobs();
    void evaluateTextShowsEachJobAndTheFabric();
    void singleJobOptionsAreRefusedForJobs();
    void slowPartsReachTheJobsOnThem();
    void optimiseMovesOneJobOnly();
    void remapMovesTheJobTheFailureReaches();
    void remapRefusals_data();
    void remapRefusals();
};

void TestCliJobs::singleJobSamplesEvaluateByteIdentically_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = QDir(QStringLiteral(RAILYARD_SOURCE_DIR "/samples"))
                                  .entryList({ QStringLiteral("*.json") }, QDir::Files, QDir::Name);
    // Not the samples of what came later: several jobs, mixed devices (tst_cli_mixeddevices).
    const QStringList later { QStringLiteral("two-jobs.json"),
        QStringLiteral("mixed-h100-h200.json"), QStringLiteral("inference-mixed-devices.json") };
    for (const QString &f : files)
        if (!later.contains(f))
            QTest::newRow(qPrintable(f)) << f;
}

void TestCliJobs::singleJobSamplesEvaluateByteIdentically()
{
    // tests/golden/evaluate/*.json were written by `evaluate --json` before the jobs section
    // existed (the branch's first commit); a single-job file must print them byte for byte.
    QFETCH(QString, file);
    const CliRun r = runRailyardCli({ QStringLiteral("evaluate"),
        QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + file, QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    railyard::fixtures::compareWithGolden(QStringLiteral("evaluate/") + file, r.out.toStdString());
}

/// generate's flags for the sample's jobs (docs/shared-fabric.md shows the same commands).
QStringList jobFlags(const char *name)
{
    return QStringLiteral("generate --fabric tor --servers 16 --gpus-per-server 8 "
                          "--leaf-oversubscription 8 --tp 8 --pp 1 --dp 2 --model llama3-8b "
                          "--global-batch 16 --no-distributed-optimizer --name")
               .split(QLatin1Char(' '))
        << QLatin1String(name);
}

void TestCliJobs::composeWritesTheSample()
{
    // The sample is what its description's command writes, byte for byte.
    QTemporaryDir dir;
    const QString before = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.path()));
    QCOMPARE(runRailyardCli(jobFlags("a") << "-o"
                                          << "job-a.json")
                 .exitCode,
        0);
    QCOMPARE(runRailyardCli(jobFlags("b") << "-o"
                                          << "job-b.json")
                 .exitCode,
        0);
    const CliRun r = runRailyardCli({ "compose", "job-a.json", "job-a.json@0,8", "job-b.json@1,9",
        "--name", "two-jobs", "-o", "two-jobs.json" });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.isEmpty());
    QByteArray want = readTestFile(sample("two-jobs.json"));
    want.replace("  \"$schema\": \"../docs/scenario.schema.json\",\n", ""); // added for editors
    const QByteArray written = readTestFile(QStringLiteral("two-jobs.json"));
    QVERIFY(QDir::setCurrent(before));
    QCOMPARE(written, want);
}

void TestCliJobs::composeRefusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString seed = sample("seed-128.json");
    const QString tor = sample("seed-128-tor.json");
    QTest::newRow("fabrics differ") << QStringList { seed, tor + "@0-3" }
                                    << tor
            + "@0-3: the fabrics must agree: fabric.kind: \"tor\" here, \"rail-optimised\" in "
              "the fabric file";
    QTest::newRow("too few GPUs") << QStringList { seed,
        seed + "@0-3" } << seed + "@0-3: the job has 128 ranks but its 4 servers hold 32 GPUs";
    QTest::newRow("no server list")
        << QStringList { seed, seed } << seed + ": expected JOB.json@SERVERS, e.g. a.json@0-3,8-11";
    QTest::newRow("no such server")
        << QStringList { seed, seed + "@0-16" }
        << seed + "@0-16: server 16 does not exist (the fabric has 16 servers, 0-15)";
    QTest::newRow("one server twice") << QStringList { seed, seed + "@0-15",
        seed + "@15" } << seed + "@15: server 15 is already taken by " + seed + "@0-15";
}

void TestCliJobs::composeRefusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("shared.json"));
    const CliRun r = runRailyardCli(QStringList { "compose" } + args + QStringList { "-o", out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFileInfo::exists(out)); // nothing written
}

void TestCliJobs::evaluateJsonListsTheJobs()
{
    const nlohmann::json j = cliJson({ "evaluate", sample("two-jobs.json"), "--json" });
    QCOMPARE(j["format_version"].get<int>(), 1);
    QCOMPARE(j["overlap"].get<std::string>(), std::string("worst"));
    QCOMPARE(j["free_slots"].get<int>(), 96);
    QCOMPARE(j["jobs"].size(), std::size_t { 2 });
    const nlohmann::json &a = j["jobs"][0];
    QCOMPARE(a["name"].get<std::string>(), std::string("a"));
    const double alone = a["alone_iteration_time_s"].get<double>();
    const double shared = a["iteration_time_s"].get<double>();
    QVERIFY(shared > alone);
    QCOMPARE(a["slowdown"].get<double>(), shared / alone);
    QCOMPARE(a["interference"].size(), std::size_t { 4 });
    const nlohmann::json &row = a["interference"][0];
    QCOMPARE(row["neighbour"].get<std::string>(), std::string("b"));
    QVERIFY(row["link_name"].get<std::string>().find("spine") != std::string::npos);
    QVERIFY(row["seconds"].get<double>() > 0.0);
    QVERIFY(row["link"].is_number_integer());
    // Duty cycle: b is on the uplink part of its iteration only, so a slows less.
    const nlohmann::json duty
        = cliJson({ "evaluate", sample("two-jobs.json"), "--json", "--overlap", "duty-cycle" });
    QCOMPARE(duty["overlap"].get<std::string>(), std::string("duty-cycle"));
    const double dutyShared = duty["jobs"][0]["iteration_time_s"].get<double>();
    QVERIFY(dutyShared > alone && dutyShared < shared);
}

void TestCliJobs::evaluateTextShowsEachJobAndTheFabric()
{
    const CliRun r = runRailyardCli({ "evaluate", sample("two-jobs.json") });
    QCOMPARE(r.exitCode, 0);
    const QString text = QString::fromUtf8(r.out);
    QVERIFY2(text.startsWith(QStringLiteral("Shared fabric: 2 jobs on 128 GPU slots (96 free); "
                                            "phases overlap: worst\n")),
        r.out.constData());
    QVERIFY(text.contains(QStringLiteral("job a (16 ranks, #e69f00): iteration 1.706 s shared, "
                                         "1.535 s alone (x1.1114)")));
    QVERIFY(text.contains(QStringLiteral("    tor-0 -> spine-p0-0: b adds 160.7 ms\n")));
    QVERIFY(text.contains(QStringLiteral("\nfabric: busiest link ")));
}

void TestCliJobs::singleJobOptionsAreRefusedForJobs()
{
    const CliRun swap = runRailyardCli({ "evaluate", sample("two-jobs.json"), "--swap", "0:1" });
    QCOMPARE(swap.exitCode, 1);
    QVERIFY2(swap.err.contains("--swap: not for a scenario with jobs"), swap.err.constData());
    const CliRun overlap
        = runRailyardCli({ "evaluate", sample("seed-128.json"), "--overlap", "duty-cycle" });
    QCOMPARE(overlap.exitCode, 1);
    QVERIFY2(
        overlap.err.contains("--overlap: the scenario holds one job"), overlap.err.constData());
    const CliRun bad
        = runRailyardCli({ "evaluate", sample("two-jobs.json"), "--overlap", "sometimes" });
    QVERIFY(bad.exitCode != 0);
}

void TestCliJobs::slowPartsReachTheJobsOnThem()
{
    // nic:3 is node000's fourth NIC: job a's (servers 0 and 8), none of b's (1 and 9).
    const nlohmann::json j
        = cliJson({ "evaluate", sample("two-jobs.json"), "--json", "--slow-nic", "3=5%" });
    const nlohmann::json &a = j["jobs"][0];
    const nlohmann::json &b = j["jobs"][1];
    QCOMPARE(a["degradations"].size(), std::size_t { 1 });
    QCOMPARE(a["degradations"][0]["id"].get<std::string>(), std::string("nic:3"));
    QCOMPARE(
        a["degradations"][0]["groups_waiting"][0]["kind"].get<std::string>(), std::string("dp"));
    // One part: its delay is the whole difference between a's degraded and healthy alone runs.
    const double delay = a["degradations"][0]["delay_s"].get<double>();
    QVERIFY(delay > 1.0); // the ring's 2 x S/2 through 20 Gb/s, S = 4 GB (tst_costenginejobs)
    QVERIFY(std::abs(a["alone_iteration_time_s"].get<double>()
                - a["healthy_alone_iteration_time_s"].get<double>() - delay)
        <= 1e-9);
    QVERIFY(b["degradations"].empty());
    QCOMPARE(b["alone_iteration_time_s"].get<double>(),
        b["healthy_alone_iteration_time_s"].get<double>());
    // The flag used to be ignored for a scenario with jobs: a's figures must move.
    const nlohmann::json healthy = cliJson({ "evaluate", sample("two-jobs.json"), "--json" });
    QVERIFY(
        a["iteration_time_s"].get<double>() > healthy["jobs"][0]["iteration_time_s"].get<double>());
    const CliRun text
        = runRailyardCli({ "evaluate", sample("two-jobs.json"), "--slow-nic", "3=5%" });
    QVERIFY2(text.out.contains("Degraded parts (docs/stragglers.md), job a alone on the fabric: "),
        text.out.constData());
    QVERIFY2(text.out.contains("Degraded parts (docs/stragglers.md): none reaches b\n"),
        text.out.constData());
}

void TestCliJobs::optimiseMovesOneJobOnly()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("moved.json"));
    // Without --job the command asks which.
    const CliRun which
        = runRailyardCli({ "optimise", sample("two-jobs.json"), "--moves", "50", "-o", out });
    QCOMPARE(which.exitCode, 1);
    QVERIFY2(which.err.contains("--job: the scenario holds 2 jobs (a, b): name the one to move"),
        which.err.constData());
    QVERIFY(!QFileInfo::exists(out));
    const CliRun r = runRailyardCli({ "optimise", sample("two-jobs.json"), "--job", "b", "--keep",
        "none", "--moves", "300", "--json", "-o", out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json before
        = nlohmann::json::parse(readTestFile(sample("two-jobs.json")).toStdString());
    const nlohmann::json after = nlohmann::json::parse(readTestFile(out).toStdString());
    // a stays where it was; b's ranks sit on b's own or free GPUs, never on a's.
    QCOMPARE(after["jobs"][0]["mapping"]["slots"], before["jobs"][0]["mapping"]["slots"]);
    const std::vector<int> aSlots = after["jobs"][0]["mapping"]["slots"];
    for (const int slot : after["jobs"][1]["mapping"]["slots"].get<std::vector<int>>())
        QVERIFY(std::find(aSlots.begin(), aSlots.end(), slot) == aSlots.end());
    // The file still evaluates as two jobs.
    QCOMPARE(cliJson({ "evaluate", out, "--json" })["jobs"].size(), std::size_t { 2 });
}

void TestCliJobs::remapMovesTheJobTheFailureReaches()
{
    // server:0 holds job a's first replica (slots 0-7); b sits on servers 1 and 9. Without
    // --job the remap takes the one job the failure reaches; hot spares are the free GPUs.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("remapped.json"));
    const CliRun r = runRailyardCli({ "remap", sample("two-jobs.json"), "--fail", "server:0",
        "--strategy", "spares", "-o", out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.startsWith("Remap of job a of two-jobs after server:0 (node000) failed: 8 "
                              "ranks sat on failed slots"),
        r.out.constData());
    const nlohmann::json before
        = nlohmann::json::parse(readTestFile(sample("two-jobs.json")).toStdString());
    const nlohmann::json after = nlohmann::json::parse(readTestFile(out).toStdString());
    // b untouched; a off server 0 and off b's GPUs, a new mapping version; the failure is the
    // scenario's, once (not b's GPUs, which a's remap counted as taken).
    QCOMPARE(after["jobs"][1], before["jobs"][1]);
    QCOMPARE(after["jobs"][0]["mapping"]["version"].get<int>(), 2);
    const std::vector<int> bSlots = after["jobs"][1]["mapping"]["slots"];
    for (const int slot : after["jobs"][0]["mapping"]["slots"].get<std::vector<int>>()) {
        QVERIFY(slot >= 8);
        QVERIFY(std::find(bSlots.begin(), bSlots.end(), slot) == bSlots.end());
    }
    QCOMPARE(after["failures"], nlohmann::json::parse(R"(["server:0"])"));
    const nlohmann::json evaluated = cliJson({ "evaluate", out, "--json" });
    QCOMPARE(evaluated["jobs"].size(), std::size_t { 2 });
    // Free: 128 slots, 8 on the failed server, 32 held by the jobs.
    QCOMPARE(evaluated["free_slots"].get<int>(), 128 - 8 - 32);
    // --job names the job in the JSON report.
    const nlohmann::json j = cliJson({ "remap", sample("two-jobs.json"), "--fail", "gpu:9", "--job",
        "b", "--strategy", "spares", "--json" });
    QCOMPARE(j["job"].get<std::string>(), std::string("b"));
    QCOMPARE(j["ranks_on_failed_slots"].get<int>(), 1);
}

void TestCliJobs::remapRefusals_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    QTest::newRow("two jobs reached") << QStringList { "--fail", "server:0", "--fail", "server:1" }
                                      << QStringLiteral("--job: the failures reach jobs a and b: "
                                                        "remap one with --job NAME");
    QTest::newRow("no job reached") << QStringList { "--fail", "server:5" }
                                    << QStringLiteral("--fail: no job has a rank on the failed "
                                                      "parts (the jobs: a, b)");
    QTest::newRow("unknown job") << QStringList { "--fail", "server:0", "--job", "c" }
                                 << QStringLiteral("--job: no job \"c\" (the jobs: a, b)");
}

void TestCliJobs::remapRefusals()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("remapped.json"));
    const CliRun r = runRailyardCli(
        QStringList { "remap", sample("two-jobs.json") } + args + QStringList { "-o", out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFileInfo::exists(out));
}

QTEST_GUILESS_MAIN(TestCliJobs)
#include "tst_cli_jobs.moc"
