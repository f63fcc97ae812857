// Tests for the exporters (model/export/exporters.h): golden files on samples/seed-128.json, swaps
// reaching every export, round trips of the run record, and the checks of the importers.
//
// Golden files live in tests/golden/<format>.<ext>. After an intended change of a format,
// regenerate them with
//   RAILYARD_UPDATE_GOLDEN=1 <build>/bin/export_tst_exporters goldens
// and review the diff before committing it.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/pipelineschedule.h"
#include "export/exporters.h"
#include "fixtures.h"
#include "golden.h"
#include "scenario/scenariofile.h"

#include <QFile>
#include <QSet>
#include <QString>
#include <QStringList>
#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>

using namespace railyard;

namespace {

QStringList lines(const std::string &text)
{
    return QString::fromStdString(text).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
}

/// The lines of `text` that `keep` accepts, as a set.
QSet<QString> lineSet(const std::string &text, const std::function<bool(const QString &)> &keep)
{
    QSet<QString> out;
    for (const QString &l : lines(text))
        if (keep(l))
            out.insert(l);
    return out;
}

/// Does a line describe `rank` in this format?
bool lineOfRank(ExportFormat f, const QString &line, int rank)
{
    const QString r = QString::number(rank);
    switch (f) {
    case ExportFormat::Rankfile:
        return line.startsWith(QStringLiteral("rank ") + r + QLatin1Char('='));
    case ExportFormat::Csv:
        return line.startsWith(r + QLatin1Char(','));
    default:
        return line.startsWith(QStringLiteral("    {\"rank\":") + r + QLatin1Char(','));
    }
}

bool recordLine(ExportFormat f, const QString &line)
{
    switch (f) {
    case ExportFormat::Rankfile:
        return !line.startsWith(QLatin1Char('#'));
    case ExportFormat::Csv:
        return true;
    default:
        return line.startsWith(QStringLiteral("    {\"rank\":"));
    }
}

} // namespace

class TestExporters : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void formatNames();
    void goldens_data();
    void goldens();
    void swapChangesExactlyTwoRanks_data();
    void swapChangesExactlyTwoRanks();
    void roundTrips_data();
    void roundTrips();
    void importRefuses_data();
    void importRefuses();
    void hostsFile_data();
    void hostsFile();
    void rankfileCoresFollowGpus();
    void torchrunNeedsNodeMajor();
    void megatronOrderFlag();
    void zeroBubbleSchedules_data();
    void zeroBubbleSchedules();
    void ncclPlanUsesRealSizesAndPredictions();
};

void TestExporters::formatNames()
{
    QCOMPARE(static_cast<int>(allExportFormats().size()), 16);
    for (ExportFormat f : allExportFormats()) {
        ExportFormat back;
        QVERIFY(parseExportFormat(exportFormatName(f), back));
        QCOMPARE(back, f);
        QVERIFY(exportFormatSuffix(f).front() == '.');
        QVERIFY(!exportFormatDescription(f).empty());
    }
    ExportFormat unused;
    QVERIFY(!parseExportFormat("pdf", unused));
}

void TestExporters::goldens_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<bool>("jsonPlan");
    QTest::addColumn<QString>("file");
    const std::pair<const char *, const char *> files[] = { { "mapping-json", "mapping-json.json" },
        { "csv", "csv.csv" }, { "rankfile", "rankfile.txt" }, { "slurm", "slurm.sh" },
        { "torchrun", "torchrun.sh" }, { "hostfile", "hostfile.txt" },
        { "megatron", "megatron.sh" }, { "chrome-trace", "chrome-trace.json" },
        { "nccl-plan", "nccl-plan.sh" }, { "pytorchjob", "pytorchjob.json" },
        { "slurm-topology", "slurm-topology.conf" },
        { "slurm-topology-block", "slurm-topology-block.conf" }, { "kueue", "kueue.yaml" } };
    for (const auto &[format, file] : files)
        QTest::newRow(format) << QString::fromLatin1(format) << false << QString::fromLatin1(file);
    QTest::newRow("nccl-plan json")
        << QStringLiteral("nccl-plan") << true << QStringLiteral("nccl-plan.json");
}

void TestExporters::goldens()
{
    QFETCH(QString, format);
    QFETCH(bool, jsonPlan);
    QFETCH(QString, file);
    ExportFormat f;
    QVERIFY(parseExportFormat(format.toStdString(), f));
    CostEngine engine(fixtures::seed128());
    ExportOptions options;
    options.jsonPlan = jsonPlan;
    const std::string text = exportText(engine, f, options);
    QVERIFY(!text.empty() && text.back() == '\n');

    fixtures::compareWithGolden(file, text);
}

void TestExporters::swapChangesExactlyTwoRanks_data()
{
    QTest::addColumn<int>("format");
    QTest::addColumn<int>("a");
    QTest::addColumn<int>("b");
    for (ExportFormat f :
        { ExportFormat::Rankfile, ExportFormat::Csv, ExportFormat::MappingJson }) {
        const std::string name(exportFormatName(f));
        // 0 = (d0,p0,t0) on node000/gpu0, 9 = (d1,p0,t1) on node001/gpu1: across servers;
        // 0 and 1 on one server; 5 and 100 across stages.
        QTest::newRow((name + " 0:9").c_str()) << static_cast<int>(f) << 0 << 9;
        QTest::newRow((name + " 0:1").c_str()) << static_cast<int>(f) << 0 << 1;
        QTest::newRow((name + " 5:100").c_str()) << static_cast<int>(f) << 5 << 100;
    }
}

void TestExporters::swapChangesExactlyTwoRanks()
{
    QFETCH(int, format);
    QFETCH(int, a);
    QFETCH(int, b);
    const auto f = static_cast<ExportFormat>(format);
    CostEngine engine(fixtures::seed128());
    const std::string before = exportText(engine, f);
    const int slotA = engine.mapping().slotOf(a), slotB = engine.mapping().slotOf(b);
    engine.swapRanks(a, b);
    const std::string after = exportText(engine, f);

    const auto keep = [f](const QString &l) { return recordLine(f, l); };
    const QSet<QString> old = lineSet(before, keep), now = lineSet(after, keep);
    const QSet<QString> removed = old - now, added = now - old;
    QCOMPARE(removed.size(), 2);
    QCOMPARE(added.size(), 2);
    for (const QSet<QString> *set : { &removed, &added })
        for (const QString &l : *set)
            QVERIFY2(lineOfRank(f, l, a) || lineOfRank(f, l, b), qPrintable(l));
    // The new line of rank a carries rank b's old slot.
    for (const QString &l : added)
        if (lineOfRank(f, l, a) && f != ExportFormat::Rankfile)
            QVERIFY2(l.contains(f == ExportFormat::Csv
                             ? QLatin1Char(',') + QString::number(slotB) + QLatin1Char(',')
                             : QStringLiteral("\"slot\":%1,").arg(slotB)),
                qPrintable(l));
    QVERIFY(slotA != slotB);
}

void TestExporters::roundTrips_data()
{
    QTest::addColumn<bool>("csv");
    QTest::newRow("mapping-json") << false;
    QTest::newRow("csv") << true;
}

void TestExporters::roundTrips()
{
    QFETCH(bool, csv);
    Scenario s = fixtures::seed128();
    s.mappingVersion = 7;
    CostEngine engine(s);
    for (auto [a, b] : { std::pair { 0, 9 }, { 3, 120 }, { 64, 65 }, { 17, 33 } })
        engine.swapRanks(a, b);
    const std::string text
        = exportText(engine, csv ? ExportFormat::Csv : ExportFormat::MappingJson);
    // Import into a fresh engine (packed) of the same scenario.
    Scenario fresh = fixtures::seed128();
    const CostEngine target(fresh);
    const ImportedMapping imported
        = csv ? importMappingCsv(text, target) : importMappingJson(text, target);
    QVERIFY(imported.mapping == engine.mapping());
    QVERIFY(!(imported.mapping == target.mapping()));
    if (!csv) {
        QCOMPARE(imported.mappingVersion, 7);
        QCOMPARE(imported.scenario, std::string("seed-128"));
    }
    // Applying it reproduces the exported file exactly.
    CostEngine applied(fresh);
    applied.setMapping(imported.mapping);
    Scenario versioned = fresh;
    versioned.slots = imported.mapping.slots();
    versioned.mappingVersion = imported.mappingVersion;
    if (!csv) {
        const CostEngine again(versioned);
        QCOMPARE(exportText(again, ExportFormat::MappingJson), text);
    } else {
        QCOMPARE(exportText(applied, ExportFormat::Csv), text);
    }
}

void TestExporters::importRefuses_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("field");
    QTest::newRow("other fabric") << QStringLiteral("fabric") << QStringLiteral("fabric.hash");
    QTest::newRow("other degrees") << QStringLiteral("degrees") << QStringLiteral("parallel.tp");
    QTest::newRow("duplicate rank") << QStringLiteral("dup") << QStringLiteral("ranks[1].rank");
    QTest::newRow("slot of another server")
        << QStringLiteral("server") << QStringLiteral("ranks[0].server");
    QTest::newRow("wrong coordinates") << QStringLiteral("coord") << QStringLiteral("ranks[0].d");
    QTest::newRow("same slot twice") << QStringLiteral("slot") << QStringLiteral("ranks");
    QTest::newRow("not a record") << QStringLiteral("format") << QStringLiteral("format");
    QTest::newRow("rank missing") << QStringLiteral("short") << QStringLiteral("ranks");
}

void TestExporters::importRefuses()
{
    QFETCH(QString, edit);
    QFETCH(QString, field);
    const CostEngine engine(fixtures::seed128());
    nlohmann::json j = nlohmann::json::parse(exportText(engine, ExportFormat::MappingJson));
    Scenario target = fixtures::seed128();
    if (edit == QLatin1String("fabric"))
        target.fabric.nic.gbps = 200.0; // same size, other fabric
    else if (edit == QLatin1String("degrees"))
        j["parallel"]["tp"] = 4;
    else if (edit == QLatin1String("dup"))
        j["ranks"][1]["rank"] = 0;
    else if (edit == QLatin1String("server")) {
        // Slot 9 is on server 1; a stale server 0 (the old slot's) would be accepted, but 5
        // is neither the new slot's server nor the old one's.
        j["ranks"][0]["slot"] = 9;
        j["ranks"][0]["server"] = 5;
    }
    else if (edit == QLatin1String("coord"))
        j["ranks"][0]["d"] = 3;
    else if (edit == QLatin1String("slot")) {
        j["ranks"][1]["slot"] = 0;
        j["ranks"][1]["gpu"] = 0;
    } else if (edit == QLatin1String("format"))
        j["format"] = "something-else";
    else if (edit == QLatin1String("short"))
        j["ranks"].erase(j["ranks"].size() - 1);
    const CostEngine checker(target);
    try {
        importMappingJson(j.dump(), checker);
        QFAIL("the import was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY(!e.reason().empty());
    }
}

void TestExporters::hostsFile_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("hosts"); // comma-joined result, or "!" + field of the error
    QTest::newRow("plain") << QStringLiteral("a\n# comment\nb  \n\nc\n") << QStringLiteral("a,b,c");
    QTest::newRow("indexed") << QStringLiteral("2 c\n0 a # first\n1 b\n")
                             << QStringLiteral("a,b,c");
    QTest::newRow("too few") << QStringLiteral("a\nb\n") << QStringLiteral("!--hosts");
    QTest::newRow("index twice") << QStringLiteral("0 a\n0 b\n1 c\n")
                                 << QStringLiteral("!--hosts line 2");
    QTest::newRow("index missing") << QStringLiteral("0 a\n2 c\n") << QStringLiteral("!--hosts");
    QTest::newRow("no such server")
        << QStringLiteral("0 a\n1 b\n3 c\n") << QStringLiteral("!--hosts line 3");
    QTest::newRow("shell characters")
        << QStringLiteral("a\nb;rm\nc\n") << QStringLiteral("!--hosts line 2");
    QTest::newRow("mixed") << QStringLiteral("a\n1 b\n2 c\n") << QStringLiteral("!--hosts");
}

void TestExporters::hostsFile()
{
    QFETCH(QString, text);
    QFETCH(QString, hosts);
    try {
        const std::vector<std::string> got = parseHostsFile(text.toStdString(), 3);
        QStringList joined;
        for (const std::string &h : got)
            joined << QString::fromStdString(h);
        QCOMPARE(joined.join(QLatin1Char(',')), hosts);
    } catch (const ScenarioError &e) {
        QVERIFY2(hosts.startsWith(QLatin1Char('!')), e.what());
        QCOMPARE(QString::fromStdString(e.field()), hosts.mid(1));
    }
}

void TestExporters::rankfileCoresFollowGpus()
{
    CostEngine engine(fixtures::seed128());
    ExportOptions options;
    options.cpusPerHost = 112; // 2 sockets x 56 cores: GPU g of 8 gets cores 14g .. 14g+13
    const QStringList rf = lines(exportText(engine, ExportFormat::Rankfile, options));
    QVERIFY(rf.contains(QStringLiteral("rank 0=node000 slot=0-13")));
    QVERIFY(rf.contains(QStringLiteral("rank 12=node001 slot=56-69")));
    options.cpusPerHost = 8; // one core per GPU
    const QStringList small = lines(exportText(engine, ExportFormat::Rankfile, options));
    QVERIFY(small.contains(QStringLiteral("rank 3=node000 slot=3")));
    options.cpusPerHost = 2; // fewer cores than GPUs: refused, naming the option
    try {
        exportText(engine, ExportFormat::Rankfile, options);
        QFAIL("2 cores for 8 GPUs were accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("--cpus-per-host"));
    }
    options.cpusPerHost = 0;
    options.hosts.assign(16, "h");
    for (int s = 0; s < 16; ++s)
        options.hosts[static_cast<std::size_t>(s)] = "gpu-" + std::to_string(100 + s);
    const QStringList named = lines(exportText(engine, ExportFormat::Rankfile, options));
    QVERIFY(named.contains(QStringLiteral("rank 127=gpu-115 slot=7")));
}

void TestExporters::torchrunNeedsNodeMajor()
{
    CostEngine engine(fixtures::seed128());
    engine.swapRanks(0, 1); // inside node000: still one block, GPUs permuted
    const std::string inside = exportText(engine, ExportFormat::Torchrun);
    // Local rank i runs on the i-th listed GPU and its NIC is the i-th listed RDMA device.
    QVERIFY(QString::fromStdString(inside).contains(
        QStringLiteral("'node000') NODE_RANK=0; CUDA_VISIBLE_DEVICES=1,0,2,3,4,5,6,7; "
                       "RY_HCAS='mlx5_1 mlx5_0 mlx5_2 ")));
    QVERIFY(exportWarnings(engine, ExportFormat::Torchrun).empty());
    engine.swapRanks(0, 1);
    engine.swapRanks(0, 9); // across servers: node000 holds 1-7 and 9
    const QString across = QString::fromStdString(exportText(engine, ExportFormat::Torchrun));
    QVERIFY(across.contains(QStringLiteral("WARNING: torchrun cannot express this mapping")));
    QVERIFY(across.contains(QStringLiteral("node000 holds ranks 1-7, 9")));
    QVERIFY(across.contains(QStringLiteral("#   rank 9: node000 GPU 0 (NIC 0)")));
    QVERIFY(across.contains(QStringLiteral("exit 1")));
    QVERIFY(!across.contains(QStringLiteral("exec torchrun")));
    const auto warnings = exportWarnings(engine, ExportFormat::Torchrun);
    QVERIFY(!warnings.empty());
    QVERIFY(QString::fromStdString(exportText(engine, ExportFormat::Megatron))
                .contains(QStringLiteral("not expressible as launcher order")));
    QVERIFY(QString::fromStdString(exportText(engine, ExportFormat::Hostfile))
                .contains(QStringLiteral("WARNING")));
}

void TestExporters::megatronOrderFlag()
{
    Scenario s = fixtures::seed128();
    s.order = "tp-cp-ep-pp-dp";
    const QString pp = QString::fromStdString(exportText(CostEngine(s), ExportFormat::Megatron));
    QVERIFY(pp.contains(QStringLiteral("  --use-tp-pp-dp-mapping\n")));
    QVERIFY(!pp.contains(QStringLiteral("WARNING")));
    s.order = "tp-dp-pp"; // cp and ep are 1: the same as Megatron's default
    const QString same = QString::fromStdString(exportText(CostEngine(s), ExportFormat::Megatron));
    QVERIFY(!same.contains(QStringLiteral("--use-tp-pp-dp-mapping")));
    QVERIFY(!same.contains(QStringLiteral("WARNING")));
    s.order = "dp-tp-pp";
    const CostEngine odd(s);
    QVERIFY(QString::fromStdString(exportText(odd, ExportFormat::Megatron))
                .contains(QStringLiteral("# WARNING: order dp-tp-pp is not one Megatron-LM")));
    QVERIFY(!exportWarnings(odd, ExportFormat::Megatron).empty());
    s = fixtures::seed128();
    s.training.schedule = ScheduleKind::Interleaved;
    s.training.interleave = 2;
    const QString inter = QString::fromStdString(exportText(CostEngine(s), ExportFormat::Megatron));
    QVERIFY(inter.contains(QStringLiteral("  --num-layers-per-virtual-pipeline-stage 10\n")));
}

void TestExporters::zeroBubbleSchedules_data()
{
    QTest::addColumn<int>("kind");
    QTest::newRow("zb-h1") << int(ScheduleKind::ZbH1);
    QTest::newRow("dualpipe") << int(ScheduleKind::DualPipe);
}

void TestExporters::zeroBubbleSchedules()
{
    // Upstream Megatron-LM has no flag for ZB-H1 or DualPipe: the export says so and writes no
    // schedule flag; the Chrome trace carries every W pass of the timeline.
    QFETCH(int, kind);
    Scenario s = fixtures::seed128(); // pp 4, 16 micro-batches: DualPipe's m >= 2 pp holds
    s.training.schedule = static_cast<ScheduleKind>(kind);
    const CostEngine engine(s);
    const std::string name(scheduleName(s.training.schedule));
    const QString megatron = QString::fromStdString(exportText(engine, ExportFormat::Megatron));
    QVERIFY2(megatron.contains(QString::fromStdString(
                 "# WARNING: schedule " + name + " has no upstream Megatron-LM flag")),
        qPrintable(megatron.left(800)));
    QVERIFY(!megatron.contains(QStringLiteral("--enable-zero-bubble")));
    QVERIFY(!megatron.contains(QStringLiteral("--dualpipe")));
    QVERIFY(!exportWarnings(engine, ExportFormat::Megatron).empty());

    const QString trace = QString::fromStdString(exportText(engine, ExportFormat::ChromeTrace));
    const int weightSlices = int(trace.count(QStringLiteral("\"cat\":\"weight-gradient\"")));
    const auto &events = engine.report().timeline.events;
    const int weights = int(std::count_if(events.begin(), events.end(),
        [](const PipelineEvent &e) { return e.kind == PipelineEventKind::WeightGrad; }));
    QVERIFY(weights > 0);
    QCOMPARE(weightSlices, weights);
    QVERIFY(trace.contains(QString::fromStdString("(" + name + ", 4 stages")));
}

void TestExporters::ncclPlanUsesRealSizesAndPredictions()
{
    CostEngine engine(fixtures::seed128());
    ExportOptions options;
    options.jsonPlan = true;
    const nlohmann::json plan
        = nlohmann::json::parse(exportText(engine, ExportFormat::NcclPlan, options));
    // Every TP and DP op size of the workload has a test, with the real bytes.
    for (const CommOp &op : engine.plan().ops) {
        if (op.dim == Dim::Pp)
            continue;
        const bool found
            = std::any_of(plan["tests"].begin(), plan["tests"].end(), [&](const auto &t) {
                  return t["bytes"].template get<long long>() == std::llround(op.bytes)
                      && t["collective"] == std::string(collectiveName(op.collective));
              });
        QVERIFY2(found, op.what.c_str());
    }
    int seen = 0;
    for (const auto &t : plan["tests"]) {
        const std::vector<int> ranks = t["ranks"].get<std::vector<int>>();
        const std::string name = t["name"];
        if (name == "tp-all-gather-67108864") {
            ++seen;
            QCOMPARE(ranks, (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 }));
            const CollectiveResult r = engine.collective(Collective::AllGather, ranks, 67108864.0);
            QCOMPARE(t["predicted"]["time_s"].get<double>(),
                std::strtod(QByteArray::number(r.time, 'g', 6).constData(), nullptr));
        }
        if (name == "pp-boundary-0-1") {
            ++seen;
            QCOMPARE(ranks, (std::vector<int> { 0, 32 }));
            QCOMPARE(t["bytes"].get<double>(), std::round(engine.plan().boundaryActivationBytes));
        }
        if (name == "dp-reduce-scatter-8690761728-all") {
            ++seen;
            QCOMPARE(static_cast<int>(ranks.size()), 128);
            QCOMPARE(t["split"].get<std::string>(), std::string("DIV 4"));
            // Consecutive blocks of 4 are the DP groups (fixed p, t): stride 8 in packed order.
            for (std::size_t i = 0; i < ranks.size(); i += 4)
                for (std::size_t k = 1; k < 4; ++k)
                    QCOMPARE(ranks[i + k], ranks[i] + 8 * static_cast<int>(k));
            QVERIFY(t["predicted"]["engine_phase"].get<std::string>().find("dp sync") == 0);
        }
    }
    QCOMPARE(seen, 3);
    // The script pins each process: the DP test's NIC list is the rail of each rank.
    engine.swapRanks(0, 9);
    const QString script = QString::fromStdString(exportText(engine, ExportFormat::NcclPlan));
    QVERIFY(script.contains(QStringLiteral(
        "ry_test dp-reduce-scatter-8690761728 \"DIV 4\" \"node001 node001 node002 node003\" "
        "\"1 0 0 0\" \"1 0 0 0\" \"Ring\" reduce_scatter_perf -b 8690761728 -e 8690761728 "
        "-d float")));
}

QTEST_GUILESS_MAIN(TestExporters)
#include "tst_exporters.moc"
