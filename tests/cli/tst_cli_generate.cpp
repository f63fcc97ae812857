/** Tests of `railyard-cli generate`: the real binary, run through QProcess. */
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "workload/presets.h"

#include "generaterun.h"
#include <QDir>
#include <QFile>

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <numeric>
#include <optional>

using namespace railyard;
using nlohmann::json;

namespace {

std::string readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

} // namespace

class TestCliGenerate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void seedExampleToStdout();
    void planesAndRailOnly();
    void modelPresetWithOverridesToFile();
    void deviceSetsFabricDefaults();
    void workloadAndFabricFlags();
    void latencyOversubscriptionAndOverlapFlags();
    void unevenStagesFlag();
    void fabricOnlySkipsTheBatchCheck();
    void badInput_data();
    void badInput();
    void errorsNameFlags_data();
    void errorsNameFlags();
    void failureKeepsExistingOutput();
    void outputIntoMissingDirectory();
};

void TestCliGenerate::seedExampleToStdout()
{
    const Run r = runCli(seedArgs());
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.empty(), r.err.c_str());
    const json doc = json::parse(r.out);
    QCOMPARE(doc.at("format_version").get<int>(), kScenarioFormatVersion);
    const Scenario s = parseScenario(r.out);
    QCOMPARE(s.fabric.kind, FabricKind::RailOptimised);
    QCOMPARE(s.fabric.servers, 16);
    QCOMPARE(s.fabric.gpusPerServer, 8);
    QCOMPARE(s.fabric.name, std::string("rail-optimised-16x8"));
    QCOMPARE(s.degrees.tp, 8);
    QCOMPARE(s.degrees.pp, 4);
    QCOMPARE(s.degrees.dp, 4); // 128 slots / (8 * 4)
    QCOMPARE(s.degrees.cp, 1);
    QCOMPARE(s.degrees.ep, 1);
    QCOMPARE(s.placement, Placement::Packed);
    // Default model: the llama2-70b preset, written out field by field.
    QCOMPARE(s.model.name, std::string("llama2-70b"));
    QCOMPARE(s.model.layers, 80);
    QCOMPARE(s.model.hidden, 8192);
    QCOMPARE(s.model.heads, 64);
    QCOMPARE(s.model.kvHeads, 8);
    QCOMPARE(doc.at("model").at("ffn").get<int>(), 28672);
    QVERIFY(!doc.at("model").contains("preset"));
    QCOMPARE(s.device.name, std::string("h100-sxm"));
    QCOMPARE(s.fabric.nic.gbps, deviceFabricDefaults("h100-sxm").nicGbps);
    QCOMPARE(s.fabric.scaleUp.gbps, deviceFabricDefaults("h100-sxm").scaleUpGbps);
    QCOMPARE(s.name, std::string("llama2-70b-tp8-pp4-dp4"));
    QCOMPARE(s.description,
        std::string("railyard-cli generate --fabric rail-optimised --servers 16 "
                    "--gpus-per-server 8 --tp 8 --pp 4"));
}

void TestCliGenerate::planesAndRailOnly()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // --planes P on any kind: the file carries fabric.planes, and the fabric has P leaf planes.
    const QString dual = dir.filePath(QStringLiteral("dual.json"));
    Run r = runCli(seedArgs() + QStringList { "--planes", "2", "-o", dual });
    QCOMPARE(r.exitCode, 0);
    const Scenario s = loadScenario(dual.toStdString());
    QCOMPARE(s.fabric.planes, 2);
    QCOMPARE(s.fabric.planePortGbps, 0.0);
    QCOMPARE(readAll(dual), scenarioToText(s));
    // --fabric rail-only: no spine to size, so --spines is refused (exit 2, nothing written).
    const QString ro = dir.filePath(QStringLiteral("ro.json"));
    r = runCli({ "--fabric", "rail-only", "--servers", "16", "--gpus-per-server", "8", "--tp", "8",
        "--pp", "4", "-o", ro });
    QCOMPARE(r.exitCode, 0);
    QVERIFY(loadScenario(ro.toStdString()).fabric.kind == FabricKind::RailOnly);
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    r = runCli({ "--fabric", "rail-only", "--servers", "16", "--gpus-per-server", "8", "--tp", "8",
        "--spines", "2", "-o", bad });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.find("no spine") != std::string::npos, r.err.c_str());
    QVERIFY(!QFile::exists(bad));
    // Too many planes: refused naming the flag and the limit, exit 1, nothing written.
    r = runCli(seedArgs() + QStringList { "--planes", "17", "-o", bad });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(
        r.err.find("--planes: 17 exceeds the limit of 16") != std::string::npos, r.err.c_str());
    QVERIFY(!QFile::exists(bad));
}

void TestCliGenerate::modelPresetWithOverridesToFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("llama3.json"));
    const Run r = runCli(seedArgs()
        + QStringList { "--model", "llama3-8b", "--layers", "16", "--name", "short", "-o", path });
    QCOMPARE(r.exitCode, 0);
    QVERIFY2(r.err.empty(), r.err.c_str());
    QVERIFY(r.out.empty());
    const Scenario s = loadScenario(path.toStdString());
    const std::optional<ModelSpec> preset = modelPreset("llama3-8b");
    QVERIFY(preset.has_value());
    QCOMPARE(s.name, std::string("short"));
    QCOMPARE(s.model.layers, 16); // overridden
    // Llama 3 8B (Meta model card): hidden 4096, 32 heads, 8 KV heads, FFN 14336, vocab 128256.
    QCOMPARE(s.model.hidden, 4096);
    QCOMPARE(s.model.heads, 32);
    QCOMPARE(s.model.kvHeads, 8);
    QCOMPARE(s.model.ffn, 14336);
    QCOMPARE(s.model.vocab, 128256);
    QCOMPARE(s.model.seq, preset->seq);
    QCOMPARE(s.model.gatedMlp, preset->gatedMlp);
    QCOMPARE(s.model.name, preset->name);
    // The file is the same text the loader writes back.
    QCOMPARE(readAll(path), scenarioToText(s));
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList { "llama3.json" });
}

void TestCliGenerate::deviceSetsFabricDefaults()
{
    const Run b200 = runCli(seedArgs() + QStringList { "--device", "b200" });
    QCOMPARE(b200.exitCode, 0);
    const Scenario s = parseScenario(b200.out);
    const std::optional<DeviceSpec> preset = devicePreset("b200");
    QVERIFY(preset.has_value());
    QCOMPARE(s.device.name, std::string("b200"));
    QCOMPARE(s.device.peakTflopsBf16, preset->peakTflopsBf16);
    QCOMPARE(s.device.hbmBytes, preset->hbmBytes);
    QCOMPARE(s.fabric.nic.gbps, deviceFabricDefaults("b200").nicGbps);
    QCOMPARE(s.fabric.scaleUp.gbps, deviceFabricDefaults("b200").scaleUpGbps);

    // Explicit bandwidths win over the device's defaults.
    const Run explicitBw = runCli(seedArgs()
        + QStringList { "--device", "b200", "--nic-gbps", "200", "--scaleup-gbps", "1800" });
    QCOMPARE(explicitBw.exitCode, 0);
    const Scenario t = parseScenario(explicitBw.out);
    QCOMPARE(t.fabric.nic.gbps, 200.0);
    QCOMPARE(t.fabric.scaleUp.gbps, 1800.0);
}

void TestCliGenerate::workloadAndFabricFlags()
{
    const Run r = runCli(QStringList { "--fabric", "tor", "--servers", "8", "--gpus-per-server",
        "8", "--servers-per-leaf", "4", "--tp", "4", "--pp", "2", "--dp", "8", "--placement",
        "rail-aligned", "--pxn", "--precision", "fp8", "--recompute", "full",
        "--no-sequence-parallel", "--no-distributed-optimizer", "--micro-batch", "2",
        "--global-batch", "256", "--seq", "2048" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    const Scenario s = parseScenario(r.out);
    QCOMPARE(s.fabric.kind, FabricKind::Tor);
    QCOMPARE(s.fabric.serversPerLeaf, 4);
    QCOMPARE(s.fabric.pxn, true);
    QCOMPARE(s.degrees.tp, 4);
    QCOMPARE(s.degrees.pp, 2);
    QCOMPARE(s.degrees.dp, 8);
    QCOMPARE(s.placement, Placement::RailAligned);
    QCOMPARE(s.training.precision, Precision::Fp8);
    QCOMPARE(s.training.recompute, Recompute::Full);
    QCOMPARE(s.training.sequenceParallel, false);
    QCOMPARE(s.training.distributedOptimizer, false);
    QCOMPARE(s.training.microBatch, 2);
    QCOMPARE(s.training.globalBatch, 256);
    QCOMPARE(s.model.seq, 2048);
    QCOMPARE(s.model.layers, 80); // still the default preset
}

void TestCliGenerate::latencyOversubscriptionAndOverlapFlags()
{
    const Run r = runCli(seedArgs()
        + QStringList { "--scaleup-latency-us", "0.9", "--pcie-latency-us", "0.7",
            "--nic-latency-us", "2", "--fabric-latency-us", "1.5", "--pcie-gbps", "256",
            "--fabric-gbps", "800", "--leaf-oversubscription", "2", "--spine-oversubscription", "3",
            "--overlap-grad-reduce", "--overlap-param-gather", "--tp-comm-overlap" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    const Scenario s = parseScenario(r.out);
    QCOMPARE(s.fabric.scaleUp.latencyUs, 0.9);
    QCOMPARE(s.fabric.pcie.latencyUs, 0.7);
    QCOMPARE(s.fabric.nic.latencyUs, 2.0);
    QCOMPARE(s.fabric.fabricPort.latencyUs, 1.5);
    QCOMPARE(s.fabric.pcie.gbps, 256.0);
    QCOMPARE(s.fabric.fabricPort.gbps, 800.0);
    QCOMPARE(s.fabric.leafOversubscription, 2.0);
    QCOMPARE(s.fabric.spineOversubscription, 3.0);
    QVERIFY(s.training.dpOverlap && s.training.overlapParamGather && s.training.tpCommOverlap);
    // Megatron-LM's defaults: every overlap off unless asked for.
    const Run plain = runCli(seedArgs());
    QVERIFY2(plain.exitCode == 0, plain.err.c_str());
    const Scenario p = parseScenario(plain.out);
    QVERIFY(!p.training.dpOverlap && !p.training.overlapParamGather && !p.training.tpCommOverlap);
}

void TestCliGenerate::unevenStagesFlag()
{
    // Llama 3 405B's 126 layers on pp 16, lighter end stages (they hold the embedding and the
    // LM head): refused without the flag, written and evaluable with it.
    const QStringList base { "--fabric", "rail-optimised", "--servers", "1024", "--gpus-per-server",
        "8", "--model", "llama3-405b", "--tp", "8", "--pp", "16", "--dp", "64", "--global-batch",
        "2048" };
    const Run even = runCli(base);
    QCOMPARE(even.exitCode, 1);
    QVERIFY2(even.err.find("126 layers do not split evenly over pp 16") != std::string::npos,
        even.err.c_str());
    const Run r
        = runCli(base + QStringList { "--layers-per-stage", "7,8,8,8,8,8,8,8,8,8,8,8,8,8,8,7" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    const Scenario s = parseScenario(r.out);
    QCOMPARE(s.training.layersPerStage.size(), std::size_t { 16 });
    QCOMPARE(s.training.layersPerStage.front(), 7);
    QCOMPARE(s.training.layersPerStage[1], 8);
    QCOMPARE(std::accumulate(s.training.layersPerStage.begin(), s.training.layersPerStage.end(), 0),
        126);
}

void TestCliGenerate::fabricOnlySkipsTheBatchCheck()
{
    // 3 servers x 8 = 24 ranks of dp: the default global batch of 512 is no multiple of 24.
    // Without any workload flag the scenario is a fabric study, and the batch rounds up to 528.
    const QStringList fabric { "--fabric", "rail-optimised", "--servers", "3", "--gpus-per-server",
        "8" };
    const Run r = runCli(fabric);
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QCOMPARE(parseScenario(r.out).training.globalBatch, 528);
    // A workload flag makes the batch the user's: then it is checked.
    const Run w = runCli(fabric + QStringList { "--model", "llama3-8b" });
    QCOMPARE(w.exitCode, 1);
    QVERIFY2(w.err.find("--global-batch: 512 (the default) is not a multiple of --micro-batch x "
                        "--dp = 1 x 24 (dp derived from the GPU slots) = 24: pass "
                        "--global-batch 528")
            != std::string::npos,
        w.err.c_str());
}

void TestCliGenerate::badInput_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");

    const auto seedWith = [](const QStringList &extra) { return seedArgs() + extra; };
    QTest::newRow("dp does not divide")
        << QStringList { "--fabric", "rail-optimised", "--servers", "3", "--gpus-per-server", "8",
               "--tp", "8", "--pp", "2" }
        << 1
        << "railyard-cli: --dp: not given, and the 24 GPU slots (servers * gpus-per-server) are "
           "not a multiple of tp*pp*cp = 16; give --dp";
    QTest::newRow("too many ranks") << seedWith({ "--dp", "8" }) << 1
                                    << "railyard-cli: --tp x --pp x --dp x --cp: tp*pp*dp*cp = "
                                       "256 ranks but the fabric has 128 GPU slots; lower a "
                                       "degree or add --servers";
    QTest::newRow("tp zero") << seedWith({ "--tp", "0", "--dp", "1" }) << 1
                             << "railyard-cli: --tp: must be at least 1, got 0";
    QTest::newRow("servers not a number")
        << QStringList { "--fabric", "tor", "--servers", "many", "--gpus-per-server", "8" } << 1
        << "railyard-cli: --servers: expected an integer, got 'many'";
    QTest::newRow("billion gpus")
        << QStringList { "--fabric", "tor", "--servers", "1000000", "--gpus-per-server", "1000" }
        << 1
        << "railyard-cli: --servers x --gpus-per-server: 1000000000 GPU slots exceed the limit "
           "of 1048576 (--servers x --gpus-per-server)";
    QTest::newRow("ten million spines")
        << seedWith({ "--spines", "10000000" }) << 1
        << "railyard-cli: --spines: 10000000 exceeds the limit of 131072";
    QTest::newRow("unknown fabric")
        << QStringList { "--fabric", "fat-tree", "--servers", "16", "--gpus-per-server", "8" } << 1
        << "railyard-cli: --fabric: unknown value 'fat-tree' "
           "(accepted: rail-optimised, tor, rail-only)";
    QTest::newRow("unknown precision") << seedWith({ "--precision", "bf32" }) << 1
                                       << "railyard-cli: --precision: unknown value 'bf32' "
                                          "(accepted: bf16, fp16, fp8)";
    QTest::newRow("unknown placement") << seedWith({ "--placement", "random" }) << 1
                                       << "railyard-cli: --placement: unknown value 'random' "
                                          "(accepted: packed, rail-aligned, scattered)";
    QTest::newRow("unknown model") << seedWith({ "--model", "gpt5" }) << 1
                                   << "railyard-cli: --model: unknown preset 'gpt5' (accepted: ";
    QTest::newRow("unknown device") << seedWith({ "--device", "tpu" }) << 1
                                    << "railyard-cli: --device: unknown preset 'tpu' (accepted: ";
    QTest::newRow("zero bandwidth") << seedWith({ "--nic-gbps", "0" }) << 1
                                    << "railyard-cli: --nic-gbps: must be at least 0.001, got 0";
    // 1e-308 Gbit/s passed as positive and gave an iteration time of inf (#40); 1 Mbit/s is
    // the floor (base/physicalranges.h).
    QTest::newRow("tiny bandwidth")
        << seedWith({ "--nic-gbps", "1e-308" }) << 1
        << "railyard-cli: --nic-gbps: must be at least 0.001, got 1e-308";
    QTest::newRow("tiny pcie bandwidth")
        << seedWith({ "--pcie-gbps", "1e-308" }) << 1
        << "railyard-cli: --pcie-gbps: must be at least 0.001, got 1e-308";
    QTest::newRow("tiny scale-up bandwidth")
        << seedWith({ "--scaleup-gbps", "0.0001" }) << 1
        << "railyard-cli: --scaleup-gbps: must be at least 0.001, got 0.0001";
    QTest::newRow("huge bandwidth")
        << seedWith({ "--fabric-gbps", "1e7" }) << 1
        << "railyard-cli: --fabric-gbps: 10000000 exceeds the limit of 1000000";
    QTest::newRow("contradicting switches")
        << seedWith({ "--sequence-parallel", "--no-sequence-parallel" }) << 1
        << "railyard-cli: --sequence-parallel: contradicts --no-sequence-parallel";
    QTest::newRow("missing servers")
        << QStringList { "--fabric", "tor", "--gpus-per-server", "8" } << 2
        << "railyard-cli generate: --servers is required (try 'railyard-cli generate --help')";
    QTest::newRow("missing fabric")
        << QStringList { "--servers", "16", "--gpus-per-server", "8" } << 2
        << "railyard-cli generate: --fabric is required (try 'railyard-cli generate --help')";
    QTest::newRow("unknown option")
        << seedWith({ "--bogus" }) << 2
        << "railyard-cli generate: unknown option '--bogus' (try 'railyard-cli generate --help')";
    QTest::newRow("misspelt option")
        << seedWith({ "--gobal-batch", "64" }) << 2
        << "railyard-cli generate: unknown option '--gobal-batch'; did you mean '--global-batch'? "
           "(try 'railyard-cli generate --help')";
    // Flags nothing would read are refused, naming what they need.
    QTest::newRow("servers-per-leaf on rail-optimised")
        << seedWith({ "--servers-per-leaf", "4" }) << 2
        << "railyard-cli generate: --servers-per-leaf applies only to --fabric tor (a "
           "rail-optimised fabric groups servers with --servers-per-su) (try 'railyard-cli "
           "generate --help')";
    QTest::newRow("servers-per-su on tor") << QStringList {
        "--fabric", "tor", "--servers", "16", "--gpus-per-server", "8", "--servers-per-su", "8"
    } << 2 << "railyard-cli generate: --servers-per-su applies only to --fabric rail-optimised";
    QTest::newRow("interleave without interleaving")
        << seedWith({ "--interleave", "2" }) << 2
        << "railyard-cli generate: --interleave applies only to --schedule interleaved";
    QTest::newRow("top-k on a dense model")
        << seedWith({ "--top-k", "2" }) << 2
        << "railyard-cli generate: --top-k applies only to a mixture-of-experts model";
    QTest::newRow("layers per stage, too few")
        << seedWith({ "--layers-per-stage", "20,20,20" }) << 1
        << "railyard-cli: --layers-per-stage: has 3 entries but pp is 4";
    QTest::newRow("layers per stage, wrong sum")
        << seedWith({ "--layers-per-stage", "20,20,20,19" }) << 1
        << "railyard-cli: --layers-per-stage: the entries sum to 79 layers but --layers is 80";
    QTest::newRow("layers per stage, zero")
        << seedWith({ "--layers-per-stage", "0,40,20,20" }) << 1
        << "railyard-cli: --layers-per-stage: must be at least 1, got 0";
    QTest::newRow("layers per stage, not a list")
        << seedWith({ "--layers-per-stage", "20;20" }) << 1
        << "railyard-cli: --layers-per-stage: expected a comma-separated list of layer counts";
    QTest::newRow("param gather without grad reduce")
        << seedWith({ "--overlap-param-gather" }) << 1
        << "railyard-cli: --overlap-param-gather: needs --overlap-grad-reduce as well";
    QTest::newRow("tp comm overlap without sp")
        << seedWith({ "--tp-comm-overlap", "--no-sequence-parallel" }) << 1
        << "railyard-cli: --tp-comm-overlap: needs sequence parallelism";
    QTest::newRow("negative latency")
        << seedWith({ "--nic-latency-us", "-1" }) << 1 << "railyard-cli: --nic-latency-us: ";
    QTest::newRow("positional") << seedWith({ "extra" }) << 2
                                << "railyard-cli generate: unexpected argument 'extra' (try "
                                   "'railyard-cli generate --help')";
}

void TestCliGenerate::badInput()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("out.json"));
    const Run r = runCli(args + QStringList { "-o", path });
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY(r.out.empty());
    // Exactly one line on stderr, and no output file, not even a temporary one.
    QVERIFY2(r.err.ends_with("\n") && r.err.find('\n') == r.err.size() - 1, r.err.c_str());
    QVERIFY2(r.err.starts_with(message.toStdString()), r.err.c_str());
    QVERIFY(!QFile::exists(path));
    QVERIFY(QDir(dir.path()).isEmpty());
}

// Errors the engine raises on scenario fields name the flag that sets the field, given or
// not, and say which flag to pass. The fixes are worked out by hand from the rules the checks
// enforce: global batch % (micro-batch x dp) == 0 (Megatron-LM's num_microbatches), layers %
// pp == 0, and tp dividing heads, key/value heads and the MLP size (Megatron-Core's divide()).
void TestCliGenerate::errorsNameFlags_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");

    const auto seedWith = [](const QStringList &extra) { return seedArgs() + extra; };
    // 512 = 170 x 3 + 2: the next multiple of 3 is 171 x 3 = 513.
    QTest::newRow("--dp and the default batch")
        << seedWith({ "--model", "llama2-70b", "--dp", "3" })
        << "railyard-cli: --global-batch: 512 (the default) is not a multiple of --micro-batch x "
           "--dp = 1 x 3 = 3: pass --global-batch 513 (or a multiple of 3)";
    // 96 servers x 8 GPUs / (tp 1 x pp 1) = dp 768 > 512: the next multiple is 768 itself.
    QTest::newRow("derived dp")
        << QStringList { "--fabric", "rail-optimised", "--servers", "96", "--gpus-per-server", "8",
               "--tp", "1", "--pp", "1", "--model", "llama2-70b" }
        << "railyard-cli: --global-batch: 512 (the default) is not a multiple of --micro-batch x "
           "--dp = 1 x 768 (dp derived from the GPU slots) = 768: pass --global-batch 768 (or a "
           "multiple of 768)";
    // micro-batch 2 x dp 4 = 8; 100 = 12 x 8 + 4, so 13 x 8 = 104.
    QTest::newRow("given batch")
        << seedWith({ "--model", "llama2-70b", "--micro-batch", "2", "--global-batch", "100" })
        << "railyard-cli: --global-batch: 100 is not a multiple of --micro-batch x --dp = 2 x 4 "
           "(dp derived from the GPU slots) = 8: pass --global-batch 104 (or a multiple of 8)";
    // Llama-2-70B's 80 layers over pp 3: the divisors of 80 around 3 are 2 and 4.
    QTest::newRow("pp and the preset's layers")
        << QStringList { "--fabric", "rail-optimised", "--servers", "16", "--gpus-per-server", "8",
               "--tp", "8", "--pp", "3", "--dp", "2", "--model", "llama2-70b", "--global-batch",
               "64" }
        << "railyard-cli: --layers: 80 layers do not split evenly over pp 3 pipeline stages "
           "(--layers-per-stage gives an uneven split) (--layers not given: 80, the model "
           "preset's); pass a --pp that divides the 80 layers (such as 2 or 4)";
    // 64 heads, 8 key/value heads, MLP 28672: gcd 8, whose divisors around 3 are 2 and 4.
    QTest::newRow("tp and the preset's heads")
        << QStringList { "--fabric", "rail-optimised", "--servers", "16", "--gpus-per-server", "8",
               "--tp", "3", "--pp", "4", "--dp", "2", "--model", "llama2-70b", "--global-batch",
               "64" }
        << "railyard-cli: --heads: 64 attention heads do not split over tp 3 (--heads not given: "
           "64, the model preset's); pass a --tp that divides 8 (such as 2 or 4)";
    QTest::newRow("given heads over tp")
        << seedWith({ "--model", "llama2-70b", "--heads", "4", "--kv-heads", "4" })
        << "railyard-cli: --heads: 4 attention heads do not split over tp 8; pass a --tp that "
           "divides 4 (such as 4)";
    // 65,536 micro-batches per replica at most (sizelimits.h) x micro-batch 1 x dp 4.
    QTest::newRow("too many micro-batches")
        << seedWith({ "--model", "llama2-70b", "--global-batch", "100000000" })
        << "railyard-cli: --global-batch: 100000000 samples make 25000000 micro-batches per "
           "replica (--micro-batch 1, dp 4), more than the limit of 65536; pass a --global-batch "
           "of at most 262144 or a larger --micro-batch";
    QTest::newRow("cp and the preset's sequence")
        << seedWith({ "--model", "llama2-70b", "--cp", "3", "--dp", "1", "--global-batch", "64" })
        << "railyard-cli: --seq: sequence 4096 does not split into 2 x cp 3 equal chunks "
           "(load-balanced context parallelism) (--seq not given: 4096, the model preset's)";
    QTest::newRow("ep on a dense model")
        << seedWith({ "--model", "llama2-70b", "--ep", "2" })
        << "railyard-cli: --ep: ep 2 needs an MoE model (--experts > 0)";
}

void TestCliGenerate::errorsNameFlags()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("out.json"));
    const Run r = runCli(args + QStringList { "-o", path });
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.empty());
    QCOMPARE(r.err, message.toStdString() + "\n");
    // No scenario field path is left for the user to map back to a flag.
    for (const char *section : { "training.", "model.", "parallel.", "fabric.", "micro_batch" })
        QVERIFY2(r.err.find(section) == std::string::npos, r.err.c_str());
    QVERIFY(QDir(dir.path()).isEmpty());
}

void TestCliGenerate::failureKeepsExistingOutput()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("out.json"));
    const Run ok = runCli(seedArgs() + QStringList { "-o", path });
    QCOMPARE(ok.exitCode, 0);
    const std::string before = readAll(path);
    QVERIFY(before.find("\"llama2-70b\"") != std::string::npos);
    const Run bad = runCli(seedArgs() + QStringList { "--dp", "8", "-o", path });
    QCOMPARE(bad.exitCode, 1);
    QCOMPARE(readAll(path), before);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList { "out.json" });
}

void TestCliGenerate::outputIntoMissingDirectory()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("missing/out.json"));
    const Run r = runCli(seedArgs() + QStringList { "-o", path });
    QCOMPARE(r.exitCode, 1);
    QCOMPARE(r.err,
        "railyard-cli: " + path.toStdString() + ": cannot create a temporary file in '"
            + dir.filePath(QStringLiteral("missing")).toStdString()
            + "': No such file or directory\n");
    QVERIFY(QDir(dir.path()).isEmpty());
}

QTEST_GUILESS_MAIN(TestCliGenerate)
#include "tst_cli_generate.moc"
