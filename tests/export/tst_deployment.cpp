// Tests for what a deployment engineer meets taking the exports to a cluster: Megatron-LM flags
// that exist in a named release and build the scenario's model, nccl-plan details (null
// predictions, element types, the RDMA prefix), a chrome trace that covers the whole predicted
// iteration, run-record import edge cases (BOM, slot-only edits, mapping versions), host-name
// checks, NUMA-aware core binding, the NIC identity in the run record and the preflight check.
#include "cost/costengine.h"
#include "export/exporters.h"
#include "export/preflight.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "workload/presets.h"
#include "fixtures.h"

#include <QFile>
#include <QRegularExpression>
#include <QSet>
#include <QString>
#include <QTest>

#include <nlohmann/json.hpp>

#include <map>

using namespace railyard;

namespace {

/// The option names of Megatron-LM core_v0.12.0's arguments.py (tests/export/data, with its
/// provenance in the file's header).
QSet<QString> megatronOptions()
{
    QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/tests/export/data/megatron_core_v0.12.0_options.txt"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QSet<QString> out;
    for (const QByteArray &line : f.readAll().split('\n'))
        if (line.startsWith("--"))
            out.insert(QString::fromUtf8(line.trimmed()));
    return out;
}

/// Every "--flag" of an export's argument arrays (not its comments).
QStringList flagsOf(const std::string &text)
{
    QStringList out;
    for (const QString &line : QString::fromStdString(text).split(QLatin1Char('\n'))) {
        const QString t = line.trimmed();
        if (t.startsWith(QLatin1String("--")))
            out << t.section(QLatin1Char(' '), 0, 0);
    }
    return out;
}

/// A one-rank-per-line mapping-json export as JSON.
nlohmann::json recordOf(const CostEngine &engine, const ExportOptions &options = {})
{
    return nlohmann::json::parse(exportText(engine, ExportFormat::MappingJson, options));
}

template<typename F> QString fieldOfFailure(F &&f)
{
    try {
        f();
    } catch (const ScenarioError &e) {
        return QString::fromStdString(e.field());
    }
    return QStringLiteral("(accepted)");
}

template<typename F> QString reasonOfFailure(F &&f)
{
    try {
        f();
    } catch (const ScenarioError &e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("(accepted)");
}

} // namespace

class TestDeployment : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void megatronFlagsExistInRelease_data();
    void megatronFlagsExistInRelease();
    void megatronBuildsTheScenariosModel();
    void ncclPlanJsonHasNullWithoutPrediction();
    void ncclPlanElementTypes();
    void hcaPrefixChecked();
    void chromeTraceCoversTheIteration_data();
    void chromeTraceCoversTheIteration();
    void importAcceptsBomAndSlotEdits();
    void importBumpsMappingVersion();
    void duplicateHostsRefused();
    void coresFollowNuma();
    void runRecordCarriesNicIdentity();
    void fabricIdentityFieldsChecked();
    void preflightAccepts_data();
    void preflightAccepts();
    void preflightRefuses_data();
    void preflightRefuses();
};

void TestDeployment::megatronFlagsExistInRelease_data()
{
    QTest::addColumn<QString>("preset");
    for (const char *p : { "llama2-70b", "llama3-8b", "mixtral-8x7b", "gpt3-175b" })
        QTest::newRow(p) << QString::fromLatin1(p);
}

void TestDeployment::megatronFlagsExistInRelease()
{
    QFETCH(QString, preset);
    const QSet<QString> known = megatronOptions();
    QVERIFY2(known.size() > 400, "the option list of arguments.py is missing");
    Scenario s = fixtures::seed128();
    s.model = *modelPreset(preset.toStdString());
    if (s.model.experts > 0) {
        s.degrees = fixtures::degrees(1, 4, 32, 1, 8);
        s.training.sequenceParallel = false;
    }
    s.training.overlapParamGather = true;
    s.training.tpCommOverlap = true;
    s.training.gradReduceBf16 = true;
    s.training.recompute = Recompute::Full;
    const CostEngine engine(s);
    const QStringList flags = flagsOf(exportText(engine, ExportFormat::Megatron));
    QVERIFY(flags.size() > 15);
    for (const QString &f : flags)
        QVERIFY2(known.contains(f), qPrintable(f + " is not an option of Megatron-LM core_v0.12.0"));
}

void TestDeployment::megatronBuildsTheScenariosModel()
{
    // Llama 2 70B (Touvron et al. 2023, Table 1 and section 2.2): RMSNorm, SwiGLU, RoPE, GQA
    // with 8 key-value heads, no biases, an output layer of its own.
    const CostEngine llama(fixtures::seed128());
    const std::string l = exportText(llama, ExportFormat::Megatron);
    for (const char *want : { "  --position-embedding-type rope\n", "  --normalization RMSNorm\n",
             "  --untie-embeddings-and-output-weights\n", "  --disable-bias-linear\n",
             "  --swiglu\n", "  --group-query-attention\n", "  --num-query-groups 8\n" })
        QVERIFY2(l.find(want) != std::string::npos, want);
    QVERIFY(l.find("--moe-token-dispatcher-type") == std::string::npos);
    // seed-128 does not overlap the parameter all-gather, so neither may the flags.
    QVERIFY(l.find("--overlap-param-gather") == std::string::npos);

    // Mixtral 8x7B: the engine predicts all-to-all dispatch, which Megatron's default
    // dispatcher (allgather) would not produce.
    Scenario moe = fixtures::seed128();
    moe.model = *modelPreset("mixtral-8x7b");
    moe.degrees = fixtures::degrees(1, 4, 32, 1, 8);
    const std::string m = exportText(CostEngine(moe), ExportFormat::Megatron);
    QVERIFY(m.find("  --moe-token-dispatcher-type alltoall\n") != std::string::npos);
    QVERIFY(m.find("  --num-experts 8\n  --moe-router-topk 2\n") != std::string::npos);
    QVERIFY(m.find("  --normalization RMSNorm\n") != std::string::npos);

    // GPT-3 (Brown et al. 2020): LayerNorm, learned positions, GeLU, tied embeddings.
    Scenario gpt = fixtures::seed128();
    gpt.model = *modelPreset("gpt3-175b");
    gpt.degrees = fixtures::degrees(8, 8, 2);
    const std::string g = exportText(CostEngine(gpt), ExportFormat::Megatron);
    QVERIFY(g.find("--swiglu") == std::string::npos);
    QVERIFY(g.find("--untie-embeddings-and-output-weights") == std::string::npos);
    QVERIFY(g.find("  --normalization LayerNorm\n") != std::string::npos);
    QVERIFY(g.find("  --position-embedding-type learned_absolute\n") != std::string::npos);
}

void TestDeployment::ncclPlanJsonHasNullWithoutPrediction()
{
    // Mixtral on ep 8: the expert-DP runs "-all" have no engine phase of their own.
    Scenario s = fixtures::seed128();
    s.model = *modelPreset("mixtral-8x7b");
    s.degrees = fixtures::degrees(1, 4, 32, 1, 8);
    ExportOptions o;
    o.jsonPlan = true;
    const nlohmann::json plan = nlohmann::json::parse(exportText(CostEngine(s), ExportFormat::NcclPlan, o));
    int withoutPrediction = 0;
    for (const auto &t : plan.at("tests")) {
        const auto &p = t.at("predicted");
        QVERIFY2(!(p.at("time_s").is_number() && p.at("time_s").get<double>() <= 0.0),
            t.at("name").get<std::string>().c_str());
        if (p.at("time_s").is_null()) {
            ++withoutPrediction;
            QVERIFY(p.at("busbw_gbytes_per_s").is_null());
            QVERIFY(p.at("algbw_gbytes_per_s").is_null());
        } else {
            QVERIFY(p.at("busbw_gbytes_per_s").get<double>() > 0.0);
        }
    }
    QVERIFY(withoutPrediction >= 1);
    QCOMPARE(plan.at("nccl_env").at("NCCL_PXN_DISABLE").get<std::string>(), std::string("1"));
}

void TestDeployment::ncclPlanElementTypes()
{
    // bf16 training: TP activations travel as bfloat16, Megatron reduces bf16 gradients in
    // fp32 (accumulate_allreduce_grads_in_fp32) and all-gathers bf16 parameters; fp16
    // training keeps both in half. -d must say so, since nccl-tests' default is float.
    const QString bf16 = QString::fromStdString(exportText(CostEngine(fixtures::seed128()), ExportFormat::NcclPlan));
    const QRegularExpression run(QStringLiteral("^ry_test (\\S+) .* -d (\\S+)$"),
        QRegularExpression::MultilineOption);
    std::map<QString, QString> dtype;
    for (auto it = run.globalMatch(bf16); it.hasNext();) {
        const auto m = it.next();
        dtype[m.captured(1)] = m.captured(2);
    }
    QVERIFY(dtype.size() >= 10);
    QCOMPARE(dtype[QStringLiteral("tp-all-gather-67108864")], QStringLiteral("bfloat16"));
    QCOMPARE(dtype[QStringLiteral("tp-reduce-scatter-67108864-all")], QStringLiteral("bfloat16"));
    QCOMPARE(dtype[QStringLiteral("pp-boundary-0-1")], QStringLiteral("bfloat16"));
    QCOMPARE(dtype[QStringLiteral("dp-reduce-scatter-8690761728")], QStringLiteral("float"));
    QCOMPARE(dtype[QStringLiteral("dp-all-gather-4345380864")], QStringLiteral("bfloat16"));
    // The cross-entropy's three fp32 values per token.
    QCOMPARE(dtype[QStringLiteral("tp-all-reduce-16384")], QStringLiteral("float"));
    for (const auto &[name, type] : dtype)
        QVERIFY2(!name.startsWith(QLatin1String("tp-")) || type != QStringLiteral("float")
                || name.startsWith(QLatin1String("tp-all-reduce-16384")),
            qPrintable(name));

    Scenario half = fixtures::seed128();
    half.training.precision = Precision::Fp16;
    const std::string h = exportText(CostEngine(half), ExportFormat::NcclPlan);
    QVERIFY(h.find("-d bfloat16") == std::string::npos);
    QVERIFY(h.find("reduce_scatter_perf -b 67108864 -e 67108864 -d half") != std::string::npos);
}

void TestDeployment::hcaPrefixChecked()
{
    const CostEngine engine(fixtures::seed128());
    for (const char *bad : { "", "mlx5 _", "$(touch pwned)", "mlx5_\n" }) {
        ExportOptions o;
        o.hcaPrefix = bad;
        for (ExportFormat f : { ExportFormat::NcclPlan, ExportFormat::Slurm, ExportFormat::Torchrun,
                 ExportFormat::MappingJson })
            QCOMPARE(fieldOfFailure([&] { exportText(engine, f, o); }), QStringLiteral("--hca-prefix"));
    }
    ExportOptions o;
    o.hcaPrefix = "bnxt_re";
    const std::string plan = exportText(engine, ExportFormat::NcclPlan, o);
    QVERIFY(plan.find("HCA_PREFIX=${HCA_PREFIX:-bnxt_re}") != std::string::npos);
    QCOMPARE(recordOf(engine, o).at("ranks").at(3).at("hca").get<std::string>(), std::string("bnxt_re3"));
}

void TestDeployment::chromeTraceCoversTheIteration_data()
{
    QTest::addColumn<QString>("which");
    QTest::newRow("seed-128 (tp, pp, dp)") << QStringLiteral("seed");
    QTest::newRow("moe (ep, pp, dp)") << QStringLiteral("moe");
    QTest::newRow("interleaved") << QStringLiteral("interleaved");
}

void TestDeployment::chromeTraceCoversTheIteration()
{
    QFETCH(QString, which);
    Scenario s = fixtures::seed128();
    if (which == QLatin1String("moe")) {
        s.model = *modelPreset("mixtral-8x7b");
        s.degrees = fixtures::degrees(1, 4, 32, 1, 8);
    } else if (which == QLatin1String("interleaved")) {
        s.training.schedule = ScheduleKind::Interleaved;
        s.training.interleave = 2;
    }
    const CostEngine engine(s);
    const CostReport &r = engine.report();
    const nlohmann::json j = nlohmann::json::parse(exportText(engine, ExportFormat::ChromeTrace));
    std::map<int, std::string> trackName;
    std::map<int, std::vector<std::pair<long long, long long>>> slices; // ns
    int flowsStart = 0, flowsEnd = 0;
    const auto ns = [](double us) { return std::llround(us * 1000.0); };
    for (const auto &e : j.at("traceEvents")) {
        const std::string ph = e.at("ph");
        if (ph == "M" && e.at("name") == "thread_name")
            trackName[e.at("tid").get<int>()] = e.at("args").at("name").get<std::string>();
        if (ph == "s")
            ++flowsStart;
        if (ph == "f") {
            ++flowsEnd;
            QCOMPARE(e.at("bp").get<std::string>(), std::string("e"));
        }
        if (ph == "X")
            slices[e.at("tid").get<int>()].emplace_back(
                ns(e.at("ts").get<double>()), ns(e.at("ts").get<double>()) + ns(e.at("dur").get<double>()));
    }
    // No two slices of a track overlap, not even by a nanosecond of rounding.
    long long phaseEnd = 0;
    for (auto &[tid, list] : slices) {
        std::sort(list.begin(), list.end());
        for (std::size_t i = 1; i < list.size(); ++i)
            QVERIFY2(list[i - 1].second <= list[i].first, trackName[tid].c_str());
        if (trackName[tid] != "iteration")
            phaseEnd = std::max(phaseEnd, list.back().second);
    }
    // The phases end at the predicted iteration time (to the nanosecond).
    const long long T = std::llround(r.iterationTime * 1e9);
    QVERIFY2(std::llabs(phaseEnd - T) <= 1,
        qPrintable(QStringLiteral("phases end at %1 ns, iteration %2 ns").arg(phaseEnd).arg(T)));
    // Every phase has its track per stage.
    const auto has = [&](const std::string &n) {
        for (const auto &[tid, name] : trackName)
            if (name == n && !slices[tid].empty())
                return true;
        return false;
    };
    for (int st = 0; st < s.degrees.pp; ++st) {
        const std::string stage = "stage " + std::to_string(st);
        QVERIFY2(has(stage + " compute"), stage.c_str());
        QVERIFY2(has(stage + " PP send/recv"), stage.c_str());
        QVERIFY2(has(stage + " DP"), stage.c_str());
        QVERIFY2(has(stage + " optimizer"), stage.c_str());
        if (s.degrees.tp > 1)
            QVERIFY2(has(stage + " TP"), stage.c_str());
        if (s.degrees.ep > 1)
            QVERIFY2(has(stage + " EP"), stage.c_str());
    }
    // One flow arrow per boundary send, each start with its end.
    int sends = 0;
    for (const PipelineEvent &e : r.timeline.events)
        sends += e.kind == PipelineEventKind::SendForward || e.kind == PipelineEventKind::SendBackward;
    QCOMPARE(flowsStart, flowsEnd);
    QCOMPARE(flowsStart, sends);
    // A stage's compute slices plus its TP/EP/CP slices add up to its passes in the timeline.
    double busy0 = 0.0;
    for (const PipelineEvent &e : r.timeline.events)
        if (e.stage == 0 && (e.kind == PipelineEventKind::Forward || e.kind == PipelineEventKind::Backward))
            busy0 += e.end - e.start;
    long long traced0 = 0;
    for (const auto &[tid, name] : trackName)
        if (name == "stage 0 compute" || name == "stage 0 TP" || name == "stage 0 EP" || name == "stage 0 CP")
            for (const auto &[a, b] : slices[tid])
                traced0 += b - a;
    QVERIFY(std::llabs(traced0 - std::llround(busy0 * 1e9)) < 1000);
}

void TestDeployment::importAcceptsBomAndSlotEdits()
{
    const CostEngine engine(fixtures::seed128());
    const std::string csv = exportText(engine, ExportFormat::Csv);
    // A spreadsheet's UTF-8 byte order mark.
    const ImportedMapping bom = importMappingCsv("\xEF\xBB\xBF" + csv, engine);
    QVERIFY(bom.mapping == engine.mapping());
    nlohmann::json j = recordOf(engine);
    QVERIFY(importMappingJson("\xEF\xBB\xBF" + j.dump(), engine).mapping == engine.mapping());

    // Swap ranks 0 and 9 by editing only the slot column (rows 1 and 10, column 9).
    QStringList rows = QString::fromStdString(csv).split(QLatin1Char('\n'));
    for (int row : { 1, 10 }) {
        QStringList f = rows[row].split(QLatin1Char(','));
        f[8] = row == 1 ? QStringLiteral("9") : QStringLiteral("0");
        rows[row] = f.join(QLatin1Char(','));
    }
    const ImportedMapping edited = importMappingCsv(rows.join(QLatin1Char('\n')).toStdString(), engine);
    CostEngine swapped(fixtures::seed128());
    swapped.swapRanks(0, 9);
    QVERIFY(edited.mapping == swapped.mapping());
    // The minimal form: rank and slot alone.
    std::string minimal = "rank,slot\n";
    for (int r = 0; r < 128; ++r)
        minimal += std::to_string(r) + "," + std::to_string(swapped.mapping().slotOf(r)) + "\n";
    QVERIFY(importMappingCsv(minimal, engine).mapping == swapped.mapping());
    // A derived column edited to a third value is still refused, naming it.
    QStringList wrong = rows;
    QStringList f = wrong[1].split(QLatin1Char(','));
    f[6] = QStringLiteral("7"); // server: neither slot 9's (1) nor slot 0's (0)
    wrong[1] = f.join(QLatin1Char(','));
    QCOMPARE(fieldOfFailure([&] { importMappingCsv(wrong.join(QLatin1Char('\n')).toStdString(), engine); }),
        QStringLiteral("csv row 1.server"));
}

void TestDeployment::importBumpsMappingVersion()
{
    Scenario s = fixtures::seed128();
    s.mappingVersion = 3;
    const CostEngine engine(s);
    // Unchanged: the version stays.
    QCOMPARE(importMappingCsv(exportText(engine, ExportFormat::Csv), engine).mappingVersion, 3);
    QCOMPARE(importMappingJson(exportText(engine, ExportFormat::MappingJson), engine).mappingVersion, 3);
    // Changed: the next version, for csv and for a json record still saying 3 (or less).
    CostEngine moved(s);
    moved.swapRanks(0, 9);
    QCOMPARE(importMappingCsv(exportText(moved, ExportFormat::Csv), engine).mappingVersion, 4);
    nlohmann::json j = recordOf(moved);
    QCOMPARE(importMappingJson(j.dump(), engine).mappingVersion, 4);
    j["mapping_version"] = 1;
    QCOMPARE(importMappingJson(j.dump(), engine).mappingVersion, 4);
    // A record that already is a later version keeps it.
    j["mapping_version"] = 9;
    QCOMPARE(importMappingJson(j.dump(), engine).mappingVersion, 9);
}

void TestDeployment::duplicateHostsRefused()
{
    QCOMPARE(fieldOfFailure([] { parseHostsFile("a\nb\na\nc\n", 4); }), QStringLiteral("--hosts line 3"));
    // An FQDN and its short name are one host.
    QCOMPARE(fieldOfFailure([] { parseHostsFile("a.x\nb\na\nc\n", 4); }), QStringLiteral("--hosts line 3"));
    QCOMPARE(fieldOfFailure([] { parseHostsFile("0 a\n1 b.cluster\n2 b\n3 c\n", 4); }),
        QStringLiteral("--hosts line 3"));
    Scenario s = fixtures::seed128();
    s.fabric.servers = 2;
    s.degrees = fixtures::degrees(8, 2, 1);
    const CostEngine engine(s);
    ExportOptions o;
    o.hosts = { "gpu1.dc", "gpu1" };
    QCOMPARE(fieldOfFailure([&] { exportText(engine, ExportFormat::Rankfile, o); }), QStringLiteral("--hosts"));
    // FQDNs: the torchrun script matches a node by its short name.
    o.hosts = { "gpu1.dc.example", "gpu2.dc.example" };
    const std::string t = exportText(engine, ExportFormat::Torchrun, o);
    QVERIFY(t.find("case \"${host%%.*}\" in") != std::string::npos);
    QVERIFY(t.find("  'gpu2') NODE_RANK=1;") != std::string::npos);
}

void TestDeployment::coresFollowNuma()
{
    Scenario s = fixtures::seed128();
    ExportOptions o;
    o.cpusPerHost = 64;
    // Default: GPUs 0-3 on socket 0 (cores 0-31), 4-7 on socket 1 (cores 32-63).
    std::string rf = exportText(CostEngine(s), ExportFormat::Rankfile, o);
    QVERIFY(rf.find("rank 3=node000 slot=24-31\n") != std::string::npos);
    QVERIFY(rf.find("rank 4=node000 slot=32-39\n") != std::string::npos);
    // An even/odd split (GPUs 0, 2, 4, 6 on socket 0): GPU 1 is socket 1's first.
    s.fabric.gpuNuma = { 0, 1, 0, 1, 0, 1, 0, 1 };
    const CostEngine alternate(s);
    rf = exportText(alternate, ExportFormat::Rankfile, o);
    QVERIFY(rf.find("rank 1=node000 slot=32-39\n") != std::string::npos);
    QVERIFY(rf.find("rank 2=node000 slot=8-15\n") != std::string::npos);
    const std::string slurm = exportText(alternate, ExportFormat::Slurm, o);
    QVERIFY(slurm.find("#SBATCH --cpus-per-task=8\n") != std::string::npos);
    QVERIFY(slurm.find("export RAILYARD_CPUS=\"0-7 32-39 8-15 ") != std::string::npos);
    QVERIFY(slurm.find("exec taskset -c \"${cpus[$SLURM_PROCID]}\"") != std::string::npos);
    QCOMPARE(recordOf(alternate).at("ranks").at(1).at("numa").get<int>(), 1);
    o.cpusPerHost = 7; // fewer cores than the 8 GPUs
    QCOMPARE(fieldOfFailure([&] { exportText(alternate, ExportFormat::Slurm, o); }),
        QStringLiteral("--cpus-per-host"));
}

void TestDeployment::runRecordCarriesNicIdentity()
{
    Scenario s = fixtures::seed128();
    s.fabric.nicDevices = { "mlx5_10", "mlx5_11", "mlx5_12", "mlx5_13", "mlx5_14", "mlx5_15",
        "mlx5_16", "mlx5_17" };
    for (int g = 0; g < 8; ++g) {
        s.fabric.gpuPciBusIds.push_back(QStringLiteral("0000:%1:00.0").arg(0x18 + g, 2, 16, QLatin1Char('0')).toStdString());
        s.fabric.nicPciBusIds.push_back(QStringLiteral("0000:%1:00.0").arg(0x40 + g, 2, 16, QLatin1Char('0')).toStdString());
    }
    const CostEngine engine(s);
    const auto rank5 = recordOf(engine).at("ranks").at(5);
    QCOMPARE(rank5.at("hca").get<std::string>(), std::string("mlx5_15"));
    QCOMPARE(rank5.at("gpu_pci_bus_id").get<std::string>(), std::string("0000:1d:00.0"));
    QCOMPARE(rank5.at("nic_pci_bus_id").get<std::string>(), std::string("0000:45:00.0"));
    QCOMPARE(rank5.at("numa").get<int>(), 1);
    // Without a topology import the bus IDs are unknown: null, not invented.
    const auto plain = recordOf(CostEngine(fixtures::seed128())).at("ranks").at(5);
    QVERIFY(plain.at("gpu_pci_bus_id").is_null());
    QCOMPARE(plain.at("hca").get<std::string>(), std::string("mlx5_5"));
    // The launchers pin the fabric's device names too, and the record round-trips.
    const std::string slurm = exportText(engine, ExportFormat::Slurm);
    QVERIFY(slurm.find("export RAILYARD_HCAS='mlx5_10 mlx5_11 ") != std::string::npos);
    QVERIFY(importMappingJson(exportText(engine, ExportFormat::MappingJson), engine).mapping == engine.mapping());
    // The fields survive a scenario file, which keeps their hash when they are absent.
    const Scenario again = parseScenario(scenarioToText(s));
    QVERIFY(again.fabric == s.fabric);
    QCOMPARE(fabricHash(fixtures::seed128().fabric),
        fabricHash(parseScenario(scenarioToText(fixtures::seed128())).fabric));
}

void TestDeployment::fabricIdentityFieldsChecked()
{
    Scenario s = fixtures::seed128();
    nlohmann::json j = nlohmann::json::parse(scenarioToText(s));
    const auto fails = [&](const char *key, nlohmann::json value) {
        nlohmann::json k = j;
        k["fabric"][key] = std::move(value);
        return fieldOfFailure([&] { parseScenario(k.dump()); });
    };
    QCOMPARE(fails("gpu_numa", { 0, 1 }), QStringLiteral("fabric.gpu_numa"));
    QCOMPARE(fails("nic_devices", { "a", "b", "c", "d", "e", "f", "g", "$(x)" }),
        QStringLiteral("fabric.nic_devices[7]"));
    QCOMPARE(fails("gpu_pci_bus_ids", { "0000:18:00.0", "x", "a", "b", "c", "d", "e", "f" }),
        QStringLiteral("fabric.gpu_pci_bus_ids[1]"));
}

void TestDeployment::preflightAccepts_data()
{
    QTest::addColumn<QString>("launcher");
    QTest::newRow("torchrun") << QStringLiteral("torchrun");
    QTest::newRow("slurm") << QStringLiteral("slurm");
    QTest::newRow("mpirun") << QStringLiteral("mpirun");
    QTest::newRow("one gpu visible") << QStringLiteral("one");
    QTest::newRow("fqdn") << QStringLiteral("fqdn");
    QTest::newRow("uuid") << QStringLiteral("uuid");
    QTest::newRow("torchrun under srun") << QStringLiteral("nested");
}

/// Rank 12 of seed-128 after swapping ranks 12 and 14: node001, GPU 6, NIC mlx5_6.
PreflightEnvironment rank12(const QString &launcher)
{
    PreflightEnvironment e;
    e.hostname = "node001";
    e.env["CUDA_VISIBLE_DEVICES"] = "0,1,2,3,6,5,4,7";
    e.env["NCCL_IB_HCA"] = "=mlx5_6";
    if (launcher == QLatin1String("torchrun") || launcher == QLatin1String("nested")) {
        e.env["RANK"] = "12";
        e.env["LOCAL_RANK"] = "4";
        e.env["WORLD_SIZE"] = "128";
    } else if (launcher == QLatin1String("slurm")) {
        e.env["SLURM_PROCID"] = "12";
        e.env["RANK"] = "12";
        e.env["LOCAL_RANK"] = "4";
        e.env["SLURM_NTASKS"] = "128";
    } else {
        e.env["OMPI_COMM_WORLD_RANK"] = "12";
        e.env["OMPI_COMM_WORLD_LOCAL_RANK"] = "4";
        e.env["OMPI_COMM_WORLD_SIZE"] = "128";
    }
    return e;
}

void TestDeployment::preflightAccepts()
{
    QFETCH(QString, launcher);
    CostEngine engine(fixtures::seed128());
    engine.swapRanks(12, 14);
    const std::string record = exportText(engine, ExportFormat::MappingJson);
    PreflightEnvironment e = rank12(launcher);
    if (launcher == QLatin1String("one"))
        e.env["CUDA_VISIBLE_DEVICES"] = "6";
    if (launcher == QLatin1String("nested")) {
        // srun started one torchrun per node: its task id and task count are the node's.
        e.env["SLURM_PROCID"] = "1";
        e.env["SLURM_LOCALID"] = "0";
        e.env["SLURM_NTASKS"] = "16";
    }
    if (launcher == QLatin1String("fqdn"))
        e.hostname = "node001.cluster.example";
    if (launcher == QLatin1String("uuid")) {
        e.env["CUDA_VISIBLE_DEVICES"] = "GPU-aaaa,GPU-bbbb,GPU-cccc,GPU-dddd,GPU-6666";
        e.nvidiaSmi = "0, GPU-aaaa, 00000000:18:00.0\n6, GPU-6666, 00000000:1E:00.0\n";
    }
    const PreflightPlace p = checkPreflight(record, e, 1);
    QCOMPARE(p.rank, 12);
    QCOMPARE(p.gpu, 6);
    QCOMPARE(p.hca, std::string("mlx5_6"));
}

void TestDeployment::preflightRefuses_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("says");
    QTest::newRow("wrong host") << QStringLiteral("host") << QStringLiteral("rank 12 runs on node002 but the run record places it on node001");
    QTest::newRow("wrong gpu") << QStringLiteral("gpu") << QStringLiteral("uses GPU 4 but the run record gives it GPU 6");
    QTest::newRow("wrong rank") << QStringLiteral("rank") << QStringLiteral("rank 14 on node001 uses GPU 6 but the run record gives it GPU 4");
    QTest::newRow("wrong nic") << QStringLiteral("nic") << QStringLiteral("NCCL_IB_HCA=mlx5_4 but the run record gives it NIC mlx5_6");
    QTest::newRow("world size") << QStringLiteral("world") << QStringLiteral("the job has 64 ranks but the run record 128");
    QTest::newRow("no rank") << QStringLiteral("norank") << QStringLiteral("no rank in the environment");
    QTest::newRow("stale record") << QStringLiteral("version") << QStringLiteral("mapping version 1 but the launcher was written for version 2");
    QTest::newRow("missing gpu") << QStringLiteral("smi") << QStringLiteral("GPU 6 does not exist on node001 (nvidia-smi lists 2)");
    QTest::newRow("other bus id") << QStringLiteral("bus") << QStringLiteral("GPU 6 on node001 is 0000:9a:00.0 but the run record says 0000:1e:00.0");
}

void TestDeployment::preflightRefuses()
{
    QFETCH(QString, edit);
    QFETCH(QString, says);
    Scenario s = fixtures::seed128();
    if (edit == QLatin1String("bus"))
        for (int g = 0; g < 8; ++g)
            s.fabric.gpuPciBusIds.push_back(QStringLiteral("0000:%1:00.0").arg(0x18 + g, 2, 16, QLatin1Char('0')).toStdString());
    CostEngine engine(s);
    engine.swapRanks(12, 14);
    const std::string record = exportText(engine, ExportFormat::MappingJson);
    PreflightEnvironment e = rank12(QStringLiteral("slurm"));
    int version = 1;
    if (edit == QLatin1String("host"))
        e.hostname = "node002";
    else if (edit == QLatin1String("gpu"))
        e.env["LOCAL_RANK"] = "6"; // CUDA_VISIBLE_DEVICES[6] = 4
    else if (edit == QLatin1String("rank")) { // ranks 12 and 14 started the other way round
        e.env["SLURM_PROCID"] = "14";
        e.env["RANK"] = "14";
        e.env["NCCL_IB_HCA"] = "=mlx5_4";
    } else if (edit == QLatin1String("nic"))
        e.env["NCCL_IB_HCA"] = "mlx5_4";
    else if (edit == QLatin1String("world"))
        e.env["SLURM_NTASKS"] = "64";
    else if (edit == QLatin1String("norank")) {
        e.env.erase("SLURM_PROCID");
        e.env.erase("RANK");
    } else if (edit == QLatin1String("version"))
        version = 2;
    else if (edit == QLatin1String("smi"))
        e.nvidiaSmi = "0, GPU-a, 00000000:18:00.0\n1, GPU-b, 00000000:19:00.0\n";
    else if (edit == QLatin1String("bus"))
        e.nvidiaSmi = "6, GPU-a, 00000000:9A:00.0\n";
    const QString reason = reasonOfFailure([&] { checkPreflight(record, e, version); });
    QVERIFY2(reason.contains(says), qPrintable(reason));
    QVERIFY(!reason.contains(QLatin1Char('\n')));
}

QTEST_GUILESS_MAIN(TestDeployment)
#include "tst_deployment.moc"
