// railyard-cli remap, run as a user would: the real binary on the seed sample, then evaluate and
// export on its output; bad input exits non-zero and leaves nothing behind.
#include "clirun.h"
#include "scenario/scenariofile.h"

#include <QDir>
#include <QFile>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <vector>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// `railyard-cli remap SAMPLE --fail server:3 --strategy drop-dp -o OUT`, the command that made
/// the failed-server samples.
CliRun remapServer3(const char *sampleName, const QString &out)
{
    return runRailyardCli({ QStringLiteral("remap"), sample(sampleName), QStringLiteral("--fail"),
        QStringLiteral("server:3"), QStringLiteral("--strategy"), QStringLiteral("drop-dp"),
        QStringLiteral("-o"), out });
}

} // namespace

class TestCliRemap : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dropDpThenEvaluateAndExport();
    void sampleIsTheRemappedSeed();
    void torSampleIsTheRemappedTorJobRelaunched();
    void allStrategiesJson();
    void allWritesTheBest();
    void impossibleStrategyWritesNothing();
    void badArguments_data();
    void badArguments();
};

void TestCliRemap::dropDpThenEvaluateAndExport()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString out = dir.filePath(QStringLiteral("degraded.json"));
    const CliRun r = remapServer3("seed-128.json", out);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("Remap of seed-128 after server:3 (node003) failed: 8 ranks sat on "
                           "failed slots; 120 of 128 GPU slots usable"));
    QVERIFY(QRegularExpression(QStringLiteral("(?m)^ranks +128 +96\\b"))
                .match(QString::fromUtf8(r.out))
                .hasMatch());
    QVERIFY(r.out.contains("0 moved, 0 renumbered, 32 dropped, 96 unchanged"));
    QVERIFY(r.out.contains("(d 3, p 0, t 0) slot 24 node003/gpu0 [failed] -> dropped"));
    QVERIFY(r.out.contains("wrote " + out.toUtf8() + " (drop-dp, mapping version 2)"));

    const railyard::Scenario s = railyard::loadScenario(out.toStdString());
    QCOMPARE(s.degrees.dp, 3);
    QCOMPARE(s.mappingVersion, 2);
    QCOMPARE(static_cast<int>(s.failures.size()), 1);

    const CliRun eval
        = runRailyardCli({ QStringLiteral("evaluate"), out, QStringLiteral("--json") });
    QVERIFY2(eval.exitCode == 0, eval.err.constData());
    const nlohmann::json j = nlohmann::json::parse(eval.out.toStdString());
    QCOMPARE(j["ranks"].get<int>(), 96);
    QVERIFY(j["failures"] == nlohmann::json({ "server:3" }));
    QCOMPARE(
        j["warnings"].size(), std::size_t { 0 }); // no TP group split, no DP group off its rail
    const CliRun text = runRailyardCli({ QStringLiteral("evaluate"), out });
    QVERIFY(text.out.contains("Failed         server:3 (node003): 8 of 128 GPU slots unusable, "
                              "mapping version 2"));

    const CliRun exported = runRailyardCli({ QStringLiteral("export"), out,
        QStringLiteral("--format"), QStringLiteral("mapping-json") });
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
    const nlohmann::json record = nlohmann::json::parse(exported.out.toStdString());
    QCOMPARE(record["mapping_version"].get<int>(), 2);
    QVERIFY(record["failures"] == nlohmann::json::array({ "server:3" }));
    QCOMPARE(record["parallel"]["world_size"].get<int>(), 96);
    for (const nlohmann::json &rank : record["ranks"])
        QVERIFY(rank["server"].get<int>() != 3);

    // The same iteration time the remap predicted for the degraded column.
    const CliRun js = runRailyardCli({ QStringLiteral("remap"), sample("seed-128.json"),
        QStringLiteral("--fail"), QStringLiteral("server:3"), QStringLiteral("--strategy"),
        QStringLiteral("drop-dp"), QStringLiteral("--json") });
    QVERIFY2(js.exitCode == 0, js.err.constData());
    const nlohmann::json rj = nlohmann::json::parse(js.out.toStdString());
    QCOMPARE(rj["strategies"][0]["degraded"]["iteration_time_s"].get<double>(),
        j["iteration_time_s"].get<double>());
}

void TestCliRemap::sampleIsTheRemappedSeed()
{
    // samples/seed-128-failed-server3.json is exactly what the CLI writes today.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("again.json"));
    const CliRun r = remapServer3("seed-128.json", out);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(readAll(out), readAll(sample("seed-128-failed-server3.json")));
}

void TestCliRemap::torSampleIsTheRemappedTorJobRelaunched()
{
    // samples/seed-128-tor-failed-server3.json is what the CLI writes for seed-128-tor after
    // server 3 failed (drop-dp), but for its description and its slots: the launcher's order on
    // the healthy hosts (rank r on the (r/8)-th of node000-002, node004-012) instead of remap's
    // own (the surviving replicas keep their slots, which on ToR is already one stage per leaf).
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("tor.json"));
    const CliRun r = remapServer3("seed-128-tor.json", out);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    nlohmann::json made = nlohmann::json::parse(readAll(out).toStdString());
    const nlohmann::json file
        = nlohmann::json::parse(readAll(sample("seed-128-tor-failed-server3.json")).toStdString());
    std::vector<int> launcher;
    for (int rank = 0; rank < 96; ++rank) {
        const int host = rank / 8; // the host-th healthy server: node003 is skipped
        launcher.push_back((host < 3 ? host : host + 1) * 8 + rank % 8);
    }
    QCOMPARE(file["mapping"]["slots"].get<std::vector<int>>(), launcher);
    QVERIFY(made["mapping"]["slots"].get<std::vector<int>>() != launcher);
    made["mapping"]["slots"] = launcher;
    made["description"] = file["description"];
    QVERIFY(made == file);
}

void TestCliRemap::allStrategiesJson()
{
    const CliRun r = runRailyardCli({ QStringLiteral("remap"), sample("seed-128.json"),
        QStringLiteral("--fail"), QStringLiteral("server:3"), QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["usable_slots"].get<int>(), 120);
    QCOMPARE(j["ranks_on_failed_slots"].get<int>(), 8);
    const nlohmann::json &s = j["strategies"];
    QCOMPARE(s.size(), std::size_t { 3 });
    QCOMPARE(s[0]["strategy"].get<std::string>(), std::string("drop-dp"));
    QCOMPARE(s[0]["degraded"]["ranks"].get<int>(), 96);
    QCOMPARE(s[0]["degraded"]["tp_groups_across_servers"].get<int>(), 0);
    QCOMPARE(s[0]["ranks_dropped"].get<int>(), 32);
    QCOMPARE(s[1]["possible"].get<bool>(), false);
    QVERIFY(s[1]["reason"].get<std::string>().find("short by 8") != std::string::npos);
    // shrink-pp rebalances 80 layers over 3 stages by compute time (tst_failureremap derives
    // 27/27/26) and keeps every sample: faster than dropping a quarter of them.
    QCOMPARE(s[2]["degraded"]["pp"].get<int>(), 3);
    QVERIFY(s[2]["stage_layers"] == nlohmann::json({ 27, 27, 26 }));
    QCOMPARE(j["best"].get<std::string>(), std::string("shrink-pp"));
    QVERIFY(j["written"].is_null());
}

void TestCliRemap::allWritesTheBest()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("best.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("remap"), sample("seed-128.json"),
        QStringLiteral("--fail"), QStringLiteral("gpu:17"), QStringLiteral("--strategy"),
        QStringLiteral("all"), QStringLiteral("-o"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // shrink-pp (pp 3, layers 27/27/26) keeps every sample; drop-dp keeps 3 of 4 replicas.
    QVERIFY(r.out.contains("best: shrink-pp"));
    const railyard::Scenario s = railyard::loadScenario(out.toStdString());
    QCOMPARE(s.degrees.pp, 3);
    QCOMPARE(s.degrees.dp, 4);
    QCOMPARE(s.training.layersPerStage, (std::vector<int> { 27, 27, 26 }));
    QCOMPARE(static_cast<int>(s.failures.size()), 1);
}

void TestCliRemap::impossibleStrategyWritesNothing()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("never.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("remap"), sample("seed-128.json"),
        QStringLiteral("--fail"), QStringLiteral("server:3"), QStringLiteral("--strategy"),
        QStringLiteral("spares"), QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err,
        QByteArray("railyard-cli: remap: spares is impossible: 8 ranks sat on failed "
                   "slots but only 0 usable GPU slots are unused (short by 8); add "
                   "spare servers or use drop-dp / shrink-pp\n"));
    QVERIFY(r.out.isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
}

void TestCliRemap::badArguments_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    const QString seed = sample("seed-128.json");
    QTest::newRow("unknown kind") << QStringList { seed, "--fail", "rack:3" } << 1
                                  << "railyard-cli: --fail: unknown component kind 'rack' in "
                                     "'rack:3' (accepted: server, gpu, nic, leaf, plane)\n";
    QTest::newRow("out of range") << QStringList { seed, "--fail", "server:16" } << 1
                                  << "railyard-cli: failure: server:16 does not exist (the fabric "
                                     "has 16 servers, 0..15)\n";
    QTest::newRow("leaf out of range") << QStringList { seed, "--fail", "leaf:8" } << 1
                                       << "railyard-cli: failure: leaf:8 does not exist (the "
                                          "fabric has 8 leaf switches, 0..7)\n";
    QTest::newRow("twice") << QStringList { seed, "--fail", "gpu:1", "--fail", "gpu:1" } << 1
                           << "railyard-cli: failure: gpu:1 is given twice\n";
    QTest::newRow("no --fail") << QStringList { seed } << 2
                               << "railyard-cli: remap needs at least one --fail KIND:INDEX "
                                  "(server:3, gpu:17, nic:5, leaf:2)\n";
    QTest::newRow("bad strategy") << QStringList { seed, "--fail", "server:3", "--strategy",
        "pray" } << 2
                                  << "railyard-cli: --strategy: unknown strategy 'pray' (drop-dp, "
                                     "spares, shrink-pp, all)\n";
    QTest::newRow("already failed")
        << QStringList { sample("seed-128-failed-server3.json"), "--fail", "server:3" } << 1
        << "railyard-cli: failure: server:3 already failed in the scenario\n";
}

void TestCliRemap::badArguments()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("never.json"));
    const CliRun r = runRailyardCli(
        QStringList { QStringLiteral("remap") } + args + QStringList { QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, exitCode);
    QCOMPARE(QString::fromUtf8(r.err), message);
    QVERIFY(!QFile::exists(out));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
}

QTEST_GUILESS_MAIN(TestCliRemap)
#include "tst_cli_remap.moc"
