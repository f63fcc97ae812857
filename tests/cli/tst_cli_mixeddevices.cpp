/** Mixed devices from the command line (docs/mixed-devices.md): generate --devices, its
 *  refusals, the samples (each what its description says made it), evaluate's devices section
 *  and the suggested layers per stage, compose keeping the pools, and a pool naming an unknown
 *  device refused at FILE:LINE. */
#include "clirun.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

nlohmann::json readJson(const QString &path)
{
    return nlohmann::json::parse(readTestFile(path).toStdString());
}

/// The generate command the training sample's description names (docs/mixed-devices.md shows
/// the same command).
QStringList sampleCommand()
{
    return QStringLiteral("generate --fabric rail-optimised --servers 4 --gpus-per-server 8 "
                          "--model llama3-70b --tp 8 --pp 4 --global-batch 64 --devices h200:2-3 "
                          "--name mixed-h100-h200")
        .split(QLatin1Char(' '));
}

} // namespace

class TestCliMixedDevices : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void generateWritesTheTrainingSample();
    void generateRefusals_data();
    void generateRefusals();
    void unknownDeviceInAFileNamesItsLine();
    void evaluateShowsEachStagesDevice();
    void suggestionAppliedBalancesTheStages();
    void inferenceSampleIsTheDisaggregatedOneOnTwoDevices();
    void inferencePoolsComputeOnTheirDevices();
    void composeKeepsThePools();
};

void TestCliMixedDevices::generateWritesTheTrainingSample()
{
    // The sample is what its description's command writes, byte for byte.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("mixed.json"));
    const CliRun r = runRailyardCli(sampleCommand() << "-o" << out);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QByteArray want = readTestFile(sample("mixed-h100-h200.json"));
    want.replace("  \"$schema\": \"../docs/scenario.schema.json\",\n", ""); // added for editors
    QCOMPARE(readTestFile(out), want);
    const nlohmann::json j = readJson(out);
    QCOMPARE(j["fabric"]["device_pools"],
        nlohmann::json::parse(R"([{"device": "h200", "servers": "2-3"}])"));
    // Several pools, one of them two ranges.
    const CliRun two = runRailyardCli({ "generate", "--fabric", "rail-optimised", "--servers", "16",
        "--gpus-per-server", "8", "--devices", "h200:0-3,8,b200:9-11", "-o", out });
    QVERIFY2(two.exitCode == 0, two.err.constData());
    QCOMPARE(readJson(out)["fabric"]["device_pools"],
        nlohmann::json::parse(R"([{"device": "h200", "servers": "0-3,8"},
                                  {"device": "b200", "servers": "9-11"}])"));
}

void TestCliMixedDevices::generateRefusals_data()
{
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("message");
    QTest::newRow("unknown device")
        << QStringList { "--devices", "h300:2-3" }
        << "railyard-cli: --devices: unknown device \"h300\" (accepted: h100-sxm, a100-80g, h200, "
           "b200, gb200, gb300)";
    QTest::newRow("no device") << QStringList { "--devices", "2-3" }
                               << "railyard-cli: --devices: expected DEVICE:SERVERS pools such as "
                                  "h200:16-31 or h100-sxm:0-7,b200:8-15, got '2-3'";
    QTest::newRow("no such server")
        << QStringList { "--devices", "h200:2-4" }
        << "railyard-cli: --devices: server 4 does not exist (the fabric has 4 servers, 0-3)";
    QTest::newRow("server in two pools") << QStringList { "--devices",
        "h200:1-2,b200:2" } << "railyard-cli: --devices: server 2 is already in pool 0 (h200)";
}

void TestCliMixedDevices::generateRefusals()
{
    QFETCH(QStringList, flags);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("bad.json"));
    const CliRun r = runRailyardCli(QStringList { "generate", "--fabric", "rail-optimised",
                                        "--servers", "4", "--gpus-per-server", "8" }
        + flags + QStringList { "-o", out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFileInfo::exists(out)); // nothing written
}

void TestCliMixedDevices::unknownDeviceInAFileNamesItsLine()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    QByteArray text = readTestFile(sample("mixed-h100-h200.json"));
    QVERIFY(text.contains("\"device\": \"h200\""));
    text.replace("\"device\": \"h200\"", "\"device\": \"h210\"");
    writeTestFile(path, text);
    int line = 0;
    const QList<QByteArray> lines = text.split('\n');
    for (int i = 0; i < lines.size() && line == 0; ++i)
        if (lines[i].contains("\"h210\""))
            line = i + 1;
    const CliRun r = runRailyardCli({ "evaluate", path });
    QCOMPARE(r.exitCode, 1);
    const QString want = path + ":" + QString::number(line)
        + ": fabric.device_pools[0].device: unknown device \"h210\"";
    QVERIFY2(QString::fromUtf8(r.err).contains(want), r.err.constData());
}

void TestCliMixedDevices::evaluateShowsEachStagesDevice()
{
    const nlohmann::json j = cliJson({ "evaluate", sample("mixed-h100-h200.json"), "--json" });
    const nlohmann::json &devices = j["devices"];
    QCOMPARE(devices["stages"].size(), std::size_t { 4 });
    const char *want[] = { "h100-sxm", "h100-sxm", "h200", "h200" };
    for (std::size_t s = 0; s < 4; ++s) {
        QCOMPARE(devices["stages"][s]["device"].get<std::string>(), std::string(want[s]));
        QCOMPARE(devices["stages"][s]["hbm_bytes"].get<double>(), s < 2 ? 80e9 : 141e9);
        QVERIFY(devices["stages"][s]["fits"].get<bool>());
    }
    QCOMPARE(devices["layers_per_stage"], nlohmann::json::parse("[20, 20, 20, 20]"));
    const std::vector<int> split = devices["suggested_layers_per_stage"].get<std::vector<int>>();
    QCOMPARE(split.size(), std::size_t { 4 });
    QCOMPARE(split[0] + split[1] + split[2] + split[3], 80);
    // The text report says the same.
    const CliRun text = runRailyardCli({ "evaluate", sample("mixed-h100-h200.json") });
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("  stage 2      h200, HBM 141 GB (h200)\n"), text.out.constData());
    QVERIFY2(text.out.contains("  suggested    layers_per_stage ["), text.out.constData());
    // A file of one device kind has no devices section (evaluate --json of every other sample
    // is pinned byte for byte by cli_tst_cli_jobs).
    QVERIFY(!cliJson({ "evaluate", sample("seed-128.json"), "--json" }).contains("devices"));
}

void TestCliMixedDevices::suggestionAppliedBalancesTheStages()
{
    // H100 servers 0-7 under stage 0, B200 servers 8-15 under stage 1 (the commands of
    // docs/mixed-devices.md): evaluate suggests 31 and 49 layers; generated again with
    // --layers-per-stage, the stages' time per micro-batch come closer and the iteration is
    // shorter (14.91 against 18.21 s). The H100/H200 sample keeps its even split: the two share
    // one compute die, and moving a layer would make another stage the slowest.
    const QStringList two = QStringLiteral("generate --fabric rail-optimised --servers 16 "
                                           "--gpus-per-server 8 --model llama2-70b --tp 8 --pp 2 "
                                           "--dp 8 --devices b200:8-15")
                                .split(QLatin1Char(' '));
    QTemporaryDir dir;
    const QString even = dir.filePath(QStringLiteral("even.json"));
    QCOMPARE(runRailyardCli(QStringList(two) << "-o" << even).exitCode, 0);
    const nlohmann::json before = cliJson({ "evaluate", even, "--json" });
    const std::vector<int> split
        = before["devices"]["suggested_layers_per_stage"].get<std::vector<int>>();
    QCOMPARE(split, std::vector<int>({ 31, 49 }));
    const QString balanced = dir.filePath(QStringLiteral("balanced.json"));
    QCOMPARE(runRailyardCli(QStringList(two) << "--layers-per-stage"
                                             << "31,49"
                                             << "-o" << balanced)
                 .exitCode,
        0);
    const nlohmann::json after = cliJson({ "evaluate", balanced, "--json" });
    const auto spread = [](const nlohmann::json &report) {
        const nlohmann::json &s = report["stages"];
        return std::abs(s[0]["forward_s"].get<double>() + s[0]["backward_s"].get<double>()
            - s[1]["forward_s"].get<double>() - s[1]["backward_s"].get<double>());
    };
    QVERIFY(spread(after) < 0.2 * spread(before));
    QVERIFY(
        after["iteration_time_s"].get<double>() < 0.85 * before["iteration_time_s"].get<double>());
    QCOMPARE(after["devices"]["suggested_layers_per_stage"],
        before["devices"]["suggested_layers_per_stage"]);
    const nlohmann::json h200 = cliJson({ "evaluate", sample("mixed-h100-h200.json"), "--json" });
    QCOMPARE(
        h200["devices"]["suggested_layers_per_stage"], nlohmann::json::parse("[20, 20, 20, 20]"));
}

void TestCliMixedDevices::inferenceSampleIsTheDisaggregatedOneOnTwoDevices()
{
    // The description says how the sample was made: inference-disaggregated.json with H200
    // servers under the decode pool. Everything else is that file's.
    nlohmann::json mixed = readJson(sample("inference-mixed-devices.json"));
    const nlohmann::json base = readJson(sample("inference-disaggregated.json"));
    QCOMPARE(mixed["fabric"]["device_pools"],
        nlohmann::json::parse(R"([{"device": "h200", "servers": "2-3"}])"));
    mixed["fabric"].erase("device_pools");
    for (const char *key : { "name", "description" })
        mixed[key] = base[key];
    QCOMPARE(mixed, base);
}

void TestCliMixedDevices::inferencePoolsComputeOnTheirDevices()
{
    // The prefill pool stays on H100 (node000-001): its step is the all-H100 file's. The decode
    // pool is on H200 (node002-003): the same TP all-reduces over the same NVLink, its
    // memory-bound decode step faster for the H200's 4.8 against 3.35 TB/s of HBM.
    const nlohmann::json mixed
        = cliJson({ "evaluate", sample("inference-mixed-devices.json"), "--json" })["inference"];
    const nlohmann::json base
        = cliJson({ "evaluate", sample("inference-disaggregated.json"), "--json" })["inference"];
    QCOMPARE(mixed["pools"][0]["device"].get<std::string>(), std::string("h100-sxm"));
    QCOMPARE(mixed["pools"][1]["device"].get<std::string>(), std::string("h200"));
    QCOMPARE(mixed["pools"][0]["step_time_s"], base["pools"][0]["step_time_s"]);
    QCOMPARE(mixed["pools"][1]["tp_collective_time_s"], base["pools"][1]["tp_collective_time_s"]);
    const double h200 = mixed["pools"][1]["step_time_s"].get<double>();
    const double h100 = base["pools"][1]["step_time_s"].get<double>();
    QVERIFY2(h200 < h100, qPrintable(QString::number(h200) + " vs " + QString::number(h100)));
    QVERIFY(!base["pools"][1].contains("device")); // one device kind: no device fields
}

void TestCliMixedDevices::composeKeepsThePools()
{
    // A job planned on one device kind goes onto the mixed fabric; the shared file keeps the
    // fabric's pools, and the job's stages on H200 servers compute there.
    QTemporaryDir dir;
    const QString job = dir.filePath(QStringLiteral("job.json"));
    QCOMPARE(
        runRailyardCli({ "generate", "--fabric", "rail-optimised", "--servers", "4",
                           "--gpus-per-server", "8", "--model", "llama3-8b", "--tp", "8", "--pp",
                           "2", "--dp", "1", "--global-batch", "16", "--name", "small", "-o", job })
            .exitCode,
        0);
    const QString out = dir.filePath(QStringLiteral("shared.json"));
    const CliRun r
        = runRailyardCli({ "compose", sample("mixed-h100-h200.json"), job + "@1-2", "-o", out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(readJson(out)["fabric"]["device_pools"],
        nlohmann::json::parse(R"([{"device": "h200", "servers": "2-3"}])"));
}

QTEST_GUILESS_MAIN(TestCliMixedDevices)
#include "tst_cli_mixeddevices.moc"
