/** Tests of scenario files: round trip, defaults, presets, atomic save (the refusals of malformed
 *  input are tst_scenariofilerefusals'). */
#include "base/jsonfields.h"
#include "base/sizelimits.h"
#include "workload/presets.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "minimalscenario.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <optional>
#include <set>

using namespace railyard;
using nlohmann::json;
using railyard::scenariotest::kMinimal;

namespace {

/// A scenario with every field away from its default.
Scenario fullScenario()
{
    Scenario s;
    s.name = "round-trip";
    s.description = "every field set; \"quoted\" and unicode \xc2\xb5s";
    FabricSpec &f = s.fabric;
    f.kind = FabricKind::Tor;
    f.name = "two-racks";
    f.servers = 4;
    f.gpusPerServer = 4;
    f.nicsPerServer = 2;
    f.gpuToNic = {1, 0, 1, 0};
    f.serverNames = {"alpha", "beta", "gamma", "delta"};
    f.serversPerSu = 2;
    f.serversPerLeaf = 2;
    f.switchRadix = 32;
    f.spines = 3;
    f.superSpines = 5;
    f.leafOversubscription = 1.5;
    f.spineOversubscription = 3.0;
    f.scaleUp = {1800.0, 0.7};
    f.pcie = {256.0, 0.4};
    f.nic = {200.0, 1.25};
    f.fabricPort = {800.0, 0.3};
    f.pxn = true;
    s.degrees = {2, 2, 2, 1, 2};
    s.order = "tp-dp-pp";
    s.model.name = "tiny-moe";
    s.model.layers = 8;
    s.model.hidden = 1024;
    s.model.heads = 16;
    s.model.kvHeads = 4;
    s.model.ffn = 2816;
    s.model.gatedMlp = false;
    s.model.seq = 2048;
    s.model.vocab = 50257;
    s.model.experts = 8;
    s.model.topK = 2;
    s.model.moeLayerFreq = 2;
    s.training.microBatch = 2;
    s.training.globalBatch = 64;
    s.training.precision = Precision::Fp8;
    s.training.sequenceParallel = false;
    s.training.recompute = Recompute::Full;
    s.training.distributedOptimizer = false;
    s.training.schedule = ScheduleKind::Interleaved;
    s.training.interleave = 2;
    s.training.dpOverlap = false;
    s.training.hierarchicalAllReduce = true;
    s.training.flashAttention = false;
    s.training.pipelineScatterGather = false;
    s.device.name = "custom";
    s.device.peakTflopsBf16 = 500.5;
    s.device.peakTflopsFp16 = 400.25;
    s.device.peakTflopsFp8 = 1000.0;
    s.device.hbmBytes = 96e9;
    s.device.hbmGBps = 4000.0;
    s.device.maxEfficiency = 0.65;
    s.device.kernelOverheadUs = 12.5;
    s.device.streamingMultiprocessors = 108;
    s.placement = Placement::Scattered;
    s.slots = {15, 0, 7, 3, 12, 9, 1, 4};
    s.mappingVersion = 3;
    return s;
}

/// Field-by-field equality (Scenario::operator==); on a difference the two files show where.
void compareScenarios(const Scenario &a, const Scenario &b)
{
    if (!(a == b))
        QCOMPARE(QString::fromStdString(scenarioToText(a)), QString::fromStdString(scenarioToText(b)));
    QVERIFY2(a == b, "the scenarios differ in a field the file text does not show");
}

QStringList tempFilesIn(const QString &dir)
{
    return QDir(dir).entryList({QStringLiteral("*.tmp-*")}, QDir::Files | QDir::Hidden);
}

std::string readAll(const QString &path)
{
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

} // namespace

class TestScenarioFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTripThroughFile();
    void roundTripThroughJson();
    void schemaKeyIsIgnored();
    void textIsExplicitAndOrdered();
    void defaults();
    void newTrainingFieldsRoundTrip();
    void presets();
    void saveReplacesAtomically();
    void saveIntoDirectoryTargetFails();
    void saveIntoMissingDirectoryFails();
    void failedWriteKeepsOldContent();
};

void TestScenarioFile::roundTripThroughFile()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("full.json")).toStdString();
    const Scenario original = fullScenario();
    saveScenario(original, path);
    const Scenario loaded = loadScenario(path);
    compareScenarios(loaded, original);
    QCOMPARE(loaded.slots, (std::vector<int>{15, 0, 7, 3, 12, 9, 1, 4}));
    QCOMPARE(loaded.fabric.gpuToNic, (std::vector<int>{1, 0, 1, 0}));
    QCOMPARE(loaded.device.hbmBytes, 96e9);
    // Saving what was loaded gives the same bytes: nothing drifts over load/save cycles.
    QCOMPARE(scenarioToText(loaded), readAll(dir.filePath(QStringLiteral("full.json"))));
    QVERIFY(tempFilesIn(dir.path()).isEmpty());
}

void TestScenarioFile::roundTripThroughJson()
{
    const Scenario original = fullScenario();
    const json j = scenarioToJson(original);
    QCOMPARE(j.at("format_version").get<int>(), kScenarioFormatVersion);
    QCOMPARE(j.at("fabric").at("kind").get<std::string>(), std::string("tor"));
    QCOMPARE(j.at("device").at("hbm_gb").get<double>(), 96.0);
    QCOMPARE(j.at("mapping").at("placement").get<std::string>(), std::string("scattered"));
    QCOMPARE(j.at("training").at("schedule").get<std::string>(), std::string("interleaved"));
    compareScenarios(scenarioFromJson(j), original);
    // The default Scenario round-trips as well (empty optional arrays stay empty).
    compareScenarios(scenarioFromJson(scenarioToJson(Scenario{})), Scenario{});
}

/// A file that names its JSON Schema ("$schema", as the samples do, for editors) loads as the
/// same scenario plus that name, which is written back first so a saved file keeps it; without
/// it nothing is written; any other unknown key is still refused.
void TestScenarioFile::schemaKeyIsIgnored()
{
    json j = scenarioToJson(fullScenario());
    QVERIFY(!j.contains("$schema"));
    j["$schema"] = "../docs/scenario.schema.json";
    Scenario withSchema = fullScenario();
    withSchema.schema = "../docs/scenario.schema.json";
    compareScenarios(scenarioFromJson(j), withSchema);
    QVERIFY(scenarioToText(withSchema).starts_with(
        "{\n  \"$schema\": \"../docs/scenario.schema.json\",\n  \"format_version\": 1,"));
    j["$schema"] = "a\nb";
    try {
        scenarioFromJson(j);
        QFAIL("a $schema with a control character was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("$schema") != std::string::npos, e.what());
    }
    j["$schema"] = "../docs/scenario.schema.json";
    j["$schemas"] = "x";
    try {
        scenarioFromJson(j);
        QFAIL("an unknown key next to $schema was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("$schemas") != std::string::npos, e.what());
    }
}

void TestScenarioFile::textIsExplicitAndOrdered()
{
    const std::string text = scenarioToText(Scenario{});
    QVERIFY(text.starts_with("{\n  \"format_version\": 1,\n  \"name\": \"\","));
    QVERIFY(text.ends_with("}\n"));
    const json j = json::parse(text);
    // Every field is written...
    QCOMPARE(j.at("fabric").size(), std::size_t{21});
    QCOMPARE(j.at("parallel").size(), std::size_t{6});
    QCOMPARE(j.at("model").size(), std::size_t{12});
    // (14: layers_per_stage is left out for the even split.)
    QCOMPARE(j.at("training").size(), std::size_t{14});
    QCOMPARE(j.at("device").size(), std::size_t{9});
    QCOMPARE(j.at("mapping").size(), std::size_t{2});
    // ...except empty optional arrays.
    QVERIFY(!j.at("fabric").contains("gpu_to_nic"));
    QVERIFY(!j.at("fabric").contains("server_names"));
    QVERIFY(!j.at("mapping").contains("slots"));
    QCOMPARE(j.at("fabric").at("nic_gbps").get<double>(), 400.0);
    QCOMPARE(j.at("fabric").at("scaleup_gbps").get<double>(), 3600.0);
    QCOMPARE(j.at("parallel").at("order").get<std::string>(), std::string("tp-cp-ep-dp-pp"));
}

void TestScenarioFile::defaults()
{
    const Scenario s = parseScenario(kMinimal);
    const Scenario d;
    QCOMPARE(s.fabric.servers, 16);
    QCOMPARE(s.fabric.gpusPerServer, 8);
    QCOMPARE(s.degrees.tp, 8);
    QCOMPARE(s.degrees.pp, 4);
    QCOMPARE(s.degrees.dp, 4);
    QCOMPARE(s.degrees.cp, 1);
    QCOMPARE(s.degrees.ep, 1);
    QCOMPARE(s.fabric.kind, FabricKind::RailOptimised);
    QCOMPARE(s.fabric.nicsPerServer, 0);
    QVERIFY(s.fabric.gpuToNic.empty());
    QVERIFY(s.fabric.serverNames.empty());
    QCOMPARE(s.fabric.serversPerSu, 32);
    QCOMPARE(s.fabric.switchRadix, 64);
    QCOMPARE(s.fabric.nic.gbps, 400.0);
    QCOMPARE(s.fabric.nic.latencyUs, 1.0);
    QCOMPARE(s.fabric.scaleUp.gbps, 3600.0);
    QCOMPARE(s.fabric.pcie.gbps, 512.0);
    QCOMPARE(s.fabric.fabricPort.latencyUs, 0.6);
    QCOMPARE(s.fabric.pxn, false);
    QCOMPARE(s.order, std::string("tp-cp-ep-dp-pp"));
    QCOMPARE(s.placement, Placement::Packed);
    QVERIFY(s.slots.empty());
    QCOMPARE(s.mappingVersion, 1);
    QCOMPARE(s.training.globalBatch, 512);
    QCOMPARE(s.training.precision, Precision::Bf16);
    QCOMPARE(s.training.schedule, ScheduleKind::OneFOneB);
    QCOMPARE(s.device.name, std::string("h100-sxm"));
    QCOMPARE(s.device.hbmBytes, 80e9);
    // Everything not given equals the struct defaults.
    Scenario expected = d;
    expected.degrees = {8, 4, 4, 1, 1};
    compareScenarios(s, expected);

    // "rail-optimized" is read as well; 8.0 counts as the integer 8.
    json doc = json::parse(kMinimal);
    doc["fabric"]["kind"] = "rail-optimized";
    doc["parallel"]["tp"] = 8.0;
    const Scenario t = scenarioFromJson(doc);
    QCOMPARE(t.fabric.kind, FabricKind::RailOptimised);
    QCOMPARE(t.degrees.tp, 8);
}

void TestScenarioFile::newTrainingFieldsRoundTrip()
{
    // fp8 exchanges, bf16 gradient reduction, ZeRO sharding and the memory allowance: written
    // only when set, read back as written.
    const json base = scenarioToJson(Scenario{});
    QVERIFY(!base.at("training").contains("fp8_param_gather"));
    QVERIFY(!base.at("training").contains("memory_allowance"));
    QVERIFY(!base.at("device").contains("max_efficiency_fp8"));
    Scenario s;
    s.training.precision = Precision::Fp8;
    s.training.distributedOptimizer = true;
    s.training.fp8ParamGather = true;
    s.training.gradReduceBf16 = true;
    s.training.dpSharding = DpSharding::OptimGrads;
    s.training.memoryAllowance.cudaContextBytes = 1.0e9;
    s.training.memoryAllowance.fragmentation = 0.1;
    s.device.maxEfficiencyFp8 = 0.6;
    const json j = scenarioToJson(s);
    QCOMPARE(j.at("training").at("fp8_param_gather").get<bool>(), true);
    QCOMPARE(j.at("training").at("dp_sharding").get<std::string>(), std::string("optim_grads"));
    QCOMPARE(j.at("training").at("memory_allowance").at("cuda_context_gb").get<double>(), 1.0);
    QVERIFY(!j.at("training").at("memory_allowance").contains("nccl_gb"));
    const Scenario back = scenarioFromJson(j);
    QCOMPARE(back.training, s.training);
    QCOMPARE(back.device.maxEfficiencyFp8, 0.6);
}

void TestScenarioFile::presets()
{
    json doc = json::parse(kMinimal);
    doc["model"] = "llama2-70b";
    doc["device"] = "h100-sxm";
    const Scenario s = scenarioFromJson(doc);
    const std::optional<ModelSpec> llama = modelPreset("llama2-70b");
    QVERIFY(llama.has_value());
    // Llama 2 70B (Touvron et al. 2023, table 1 / model card): 80 layers, d=8192, 64 heads, GQA 8.
    QCOMPARE(s.model.layers, 80);
    QCOMPARE(s.model.hidden, 8192);
    QCOMPARE(s.model.heads, 64);
    QCOMPARE(s.model.kvHeads, 8);
    QCOMPARE(s.model.ffn, 28672);
    QCOMPARE(s.model.name, llama->name);
    QCOMPARE(s.model.seq, llama->seq);
    QCOMPARE(s.model.vocab, llama->vocab);
    const std::optional<DeviceSpec> h100 = devicePreset("h100-sxm");
    QVERIFY(h100.has_value());
    QCOMPARE(s.device.peakTflopsBf16, h100->peakTflopsBf16);
    QCOMPARE(s.device.hbmBytes, h100->hbmBytes);

    // A preset with overrides: the named fields change, the rest stay the preset's.
    doc["model"] = json{{"preset", "llama2-70b"}, {"layers", 40}, {"name", "half-llama"}};
    doc["device"] = json{{"preset", "h100-sxm"}, {"hbm_gb", 94}};
    const Scenario o = scenarioFromJson(doc);
    QCOMPARE(o.model.layers, 40);
    QCOMPARE(o.model.name, std::string("half-llama"));
    QCOMPARE(o.model.hidden, 8192);
    QCOMPARE(o.model.kvHeads, 8);
    QCOMPARE(o.device.hbmBytes, 94e9);
    QCOMPARE(o.device.peakTflopsFp8, h100->peakTflopsFp8);
    QCOMPARE(o.device.name, h100->name);

    // Saved files are explicit: no preset key, every field written.
    const json saved = scenarioToJson(o);
    QVERIFY(!saved.at("model").contains("preset"));
    QCOMPARE(saved.at("model").at("layers").get<int>(), 40);
    QCOMPARE(saved.at("model").at("ffn").get<int>(), 28672);
}

void TestScenarioFile::saveReplacesAtomically()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("s.json"));
    writeFileAtomically(path.toStdString(), "old\n");
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner
                                    | QFileDevice::ReadGroup);
    Scenario s = fullScenario();
    saveScenario(s, path.toStdString());
    QCOMPARE(readAll(path), scenarioToText(s));
    // The replaced file keeps its permissions (0640), and no temporary file is left.
    struct stat st {};
    QCOMPARE(::stat(path.toLocal8Bit().constData(), &st), 0);
    QCOMPARE(st.st_mode & 0777u, 0640u);
    QVERIFY(tempFilesIn(dir.path()).isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden), QStringList{"s.json"});
}

void TestScenarioFile::saveIntoDirectoryTargetFails()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    // The target is a directory with content: rename() cannot replace it, even as root.
    const QString target = dir.filePath(QStringLiteral("taken"));
    QVERIFY(QDir(dir.path()).mkdir(QStringLiteral("taken")));
    writeFileAtomically((target + QStringLiteral("/inside.txt")).toStdString(), "keep\n");
    try {
        saveScenario(fullScenario(), target.toStdString());
        QFAIL("saving over a directory succeeded");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), target.toStdString());
        QCOMPARE(e.reason(), std::string("cannot replace: Is a directory"));
    }
    QVERIFY(QFileInfo(target).isDir());
    QCOMPARE(readAll(target + QStringLiteral("/inside.txt")), std::string("keep\n"));
    QVERIFY(tempFilesIn(dir.path()).isEmpty());
    QCOMPARE(QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden),
             QStringList{"taken"});
}

void TestScenarioFile::saveIntoMissingDirectoryFails()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string path = dir.filePath(QStringLiteral("no/such/dir/s.json")).toStdString();
    try {
        saveScenario(fullScenario(), path);
        QFAIL("saving into a missing directory succeeded");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), path);
        QCOMPARE(e.reason(), "cannot create a temporary file in '"
                                 + dir.filePath(QStringLiteral("no/such/dir")).toStdString()
                                 + "': No such file or directory");
    }
    QVERIFY(QDir(dir.path()).isEmpty());
}

void TestScenarioFile::failedWriteKeepsOldContent()
{
    // A file-size limit makes write() fail with EFBIG, even for root (SIGXFSZ ignored).
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("s.json"));
    writeFileAtomically(path.toStdString(), "old content\n");

    rlimit saved{};
    QCOMPARE(getrlimit(RLIMIT_FSIZE, &saved), 0);
    const auto oldHandler = std::signal(SIGXFSZ, SIG_IGN);
    rlimit small = saved;
    small.rlim_cur = 1024;
    QCOMPARE(setrlimit(RLIMIT_FSIZE, &small), 0);
    std::optional<ScenarioError> error;
    try {
        writeFileAtomically(path.toStdString(), std::string(4096, 'x'));
    } catch (const ScenarioError &e) {
        error = e;
    }
    setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, oldHandler);

    QVERIFY2(error.has_value(), "the write past RLIMIT_FSIZE succeeded");
    QCOMPARE(error->field(), path.toStdString());
    QVERIFY2(error->reason().starts_with("cannot write '" + path.toStdString() + ".tmp-"),
             error->what());
    QVERIFY2(error->reason().ends_with("': File too large"), error->what());
    QCOMPARE(readAll(path), std::string("old content\n"));
    QVERIFY(tempFilesIn(dir.path()).isEmpty());
}

QTEST_GUILESS_MAIN(TestScenarioFile)
#include "tst_scenariofile.moc"
