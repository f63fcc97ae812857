// The memory ledger against the published training runs of tests/data/published/training_runs.json
// (SOURCES.md there gives provenance): every run that ran must be reported as fitting its device,
// and where the framework printed its peak memory the ledger must land within 10 % of it. The
// printed table is docs/validation.md's memory table; regenerate it with
//
//   build/bin/cost_tst_memoryvalidation
//
// What a framework prints is its caching allocator's peak reservation (torch.cuda
// max_memory_reserved: torchtitan's "memory" column, Megatron-LM's "max reserved"), which holds
// the tensors and the allocator's own slack but neither the CUDA context nor NCCL's buffers
// (cudaMalloc'd outside the allocator). The comparable figure is therefore the ledger plus its
// fragmentation, without the context and NCCL parts of the allowance.
#include "publishedruns.h"

#include "cost/costengine.h"
#include "workload/memoryledger.h"
#include "workload/presets.h"

#include <QTest>

#include <cmath>
#include <string>
#include <vector>

using namespace railyard;
using namespace railyard::published;

namespace {

/// The target where a peak is published (issue 34): within 10 % of it.
constexpr double kPeakTolerance = 0.10;

/// The fullest stage of a report: its ledger.
const MemoryLedger &fullestStage(const CostReport &r)
{
    std::size_t best = 0;
    for (std::size_t s = 1; s < r.memory.size(); ++s)
        if (r.memory[s].total() > r.memory[best].total())
            best = s;
    return r.memory[best];
}

/// What the framework's allocator would report: the ledger and the fragmentation.
double allocatorPeak(const MemoryLedger &m)
{
    return m.ledger() + m.fragmentation();
}

std::string joined(const std::vector<std::string> &names)
{
    std::string out;
    for (const std::string &n : names)
        out += (out.empty() ? "" : ", ") + n;
    return out;
}

} // namespace

class TestMemoryValidation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void everyRunThatRanFits_data();
    void everyRunThatRanFits();
    void publishedPeaks();
    void nemo405bLayoutFits();

private:
    struct Row
    {
        const PublishedRun *run = nullptr;
        CostReport report;
        double deviceBytes = 0.0;
    };
    std::vector<PublishedRun> m_runs;
    std::vector<Row> m_rows;
};

void TestMemoryValidation::initTestCase()
{
    m_runs = loadPublishedRuns();
    QVERIFY(m_runs.size() >= 90);
    for (const PublishedRun &r : m_runs) {
        if (!r.unsupported.empty())
            continue;
        Row row;
        row.run = &r;
        row.deviceBytes = r.scenario.device.hbmBytes;
        try {
            CostEngine engine(r.memoryScenario ? *r.memoryScenario : r.scenario);
            row.report = engine.report();
        } catch (const std::exception &e) {
            qInfo("%s: not evaluated: %s", r.id.c_str(), e.what());
            continue;
        }
        m_rows.push_back(std::move(row));
    }
    QVERIFY(m_rows.size() >= 80);

    qInfo("| run | stack | t/p/d/c/e | params | grads | optimizer | activations (+ recompute) | "
          "allowance | total GB | device GB | fits | deciding | published peak GB | "
          "predicted peak GB | error |");
    qInfo("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
    for (const Row &row : m_rows) {
        const PublishedRun &r = *row.run;
        const MemoryLedger &m = fullestStage(row.report);
        const ParallelDegrees &d = r.scenario.degrees;
        const std::string layout = std::to_string(d.tp) + "/" + std::to_string(d.pp) + "/"
            + std::to_string(d.dp) + "/" + std::to_string(d.cp) + "/" + std::to_string(d.ep);
        const bool published = r.peakMemoryBytes > 0.0;
        const std::string peak = published
            ? QString::number(r.peakMemoryBytes / 1e9, 'f', 1).toStdString()
            : std::string("-");
        const std::string predicted = QString::number(allocatorPeak(m) / 1e9, 'f', 1).toStdString();
        const std::string error = published
            ? QString::asprintf("%+.1f %%", 100.0 * (allocatorPeak(m) / r.peakMemoryBytes - 1.0))
                  .toStdString()
            : std::string("-");
        qInfo("| %s | %s | %s | %.1f | %.1f | %.1f | %.1f (+ %.1f) | %.1f | %.1f | %.0f | %s | %s "
              "| %s | %s | %s |",
            r.id.c_str(), r.stack.empty() ? "-" : r.stack.c_str(), layout.c_str(),
            m.parameters / 1e9, m.gradients / 1e9, m.optimizer / 1e9, m.activations / 1e9,
            m.recomputeWorkspace / 1e9, m.allowance() / 1e9, m.total() / 1e9, row.deviceBytes / 1e9,
            row.report.memoryFits ? "yes" : "NO",
            joined(decidingMemoryItems(m, row.deviceBytes)).c_str(), peak.c_str(),
            published ? predicted.c_str() : "-", error.c_str());
    }
}

void TestMemoryValidation::everyRunThatRanFits_data()
{
    QTest::addColumn<int>("index");
    for (std::size_t i = 0; i < m_rows.size(); ++i)
        QTest::newRow(m_rows[i].run->id.c_str()) << static_cast<int>(i);
}

void TestMemoryValidation::everyRunThatRanFits()
{
    // Every run in the file ran on its hardware, so each must fit (issue 34: the ledger refused
    // layouts engineers run). Two runs still do not, for reasons the file cannot settle; they
    // are expected failures, so the day they fit the test says so (XPASS):
    QEXPECT_FAIL("nemo2407-h100-nemotron-340b",
        "87 GB: TP8 PP8 DP2 leaves the Adam state sharded over only 2 ranks (34.6 GB); "
        "the run is incomplete (vocabulary assumed) and NeMo 24.07's distributed Adam "
        "options (16-bit master remainders) are not in the source",
        Continue);
    QEXPECT_FAIL("mb2511-gb200-llama31-405b-fp8cs",
        "186.9 GB of 185: over by 1 %, within the allowance's uncertainty; the 25.11 "
        "recipe's recompute / offload settings are not in the source (later GB200 "
        "recipes of this model offload layers to the CPU)",
        Continue);
    QFETCH(int, index);
    const Row &row = m_rows[static_cast<std::size_t>(index)];
    const MemoryLedger &m = fullestStage(row.report);
    QVERIFY2(row.report.memoryFits,
        qPrintable(
            QString("%1: %2 GB of %3 GB (deciding: %4)")
                .arg(QString::fromStdString(row.run->id))
                .arg(m.total() / 1e9, 0, 'f', 1)
                .arg(row.deviceBytes / 1e9, 0, 'f', 1)
                .arg(QString::fromStdString(joined(decidingMemoryItems(m, row.deviceBytes))))));
}

void TestMemoryValidation::publishedPeaks()
{
    int compared = 0;
    for (const Row &row : m_rows) {
        if (row.run->peakMemoryBytes <= 0.0)
            continue;
        const double error
            = allocatorPeak(fullestStage(row.report)) / row.run->peakMemoryBytes - 1.0;
        ++compared;
        QVERIFY2(std::abs(error) <= kPeakTolerance,
            qPrintable(QString("%1: %2 % from the published peak")
                           .arg(QString::fromStdString(row.run->id))
                           .arg(100.0 * error, 0, 'f', 1)));
    }
    QVERIFY(compared >= 10);
}

void TestMemoryValidation::nemo405bLayoutFits()
{
    // Issue 34's report: a NeMo Llama 3.1 405B layout, TP8 PP9 CP2 DP4 on 576 H100 (72 DGX
    // H100), was reported at 87 GB on the 80 GB device. With NeMo's performance-recipe settings
    // (distributed optimizer, bf16 gradient reduction, sequence parallelism, TP overlap, seq
    // 8192, micro-batch 1, 1F1B) the ledger must fit it.
    Scenario s;
    s.name = "nemo-405b-tp8-pp9-cp2-dp4";
    s.model = *modelPreset("llama3-405b");
    s.device = *devicePreset("h100-sxm");
    s.fabric.kind = FabricKind::RailOptimised;
    s.fabric.servers = 72;
    s.fabric.gpusPerServer = 8;
    s.degrees = { 8, 9, 4, 2, 1 };
    TrainingSpec &t = s.training;
    t.microBatch = 1;
    t.globalBatch = 252; // a multiple of micro x dp; the pipeline's depth sets the peak, not this
    t.precision = Precision::Bf16;
    t.recompute = Recompute::None;
    t.sequenceParallel = true;
    t.distributedOptimizer = true;
    t.dpOverlap = true;
    t.overlapParamGather = true;
    t.tpCommOverlap = true;
    t.gradReduceBf16 = true;
    t.stack = SoftwareStack::MegatronCoreTe;
    CostEngine engine(s);
    const CostReport &r = engine.report();
    const MemoryLedger &m = fullestStage(r);
    qInfo("405B TP8 PP9 CP2 DP4: %.1f GB (parameters %.1f, gradients %.1f, optimizer %.1f, "
          "activations %.1f, allowance %.1f)",
        m.total() / 1e9, m.parameters / 1e9, m.gradients / 1e9, m.optimizer / 1e9,
        m.activations / 1e9, m.allowance() / 1e9);
    QVERIFY2(r.memoryFits, qPrintable(QString("%1 GB").arg(r.maxMemoryPerRank / 1e9)));
}

QTEST_GUILESS_MAIN(TestMemoryValidation)
#include "tst_memoryvalidation.moc"
