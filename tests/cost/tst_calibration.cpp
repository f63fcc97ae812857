// The whole engine (compute, communication, pipeline, data-parallel sync) against the published
// training runs of tests/data/published/training_runs.json (SOURCES.md there gives provenance,
// caveats and the calibration/validation split). The GEMM efficiency table
// (model/workload/deviceefficiency.cpp) was fitted once on the calibration runs and never on the
// validation runs. The goal on each set's complete runs is mean |error| <= 5 % and worst
// |error| <= 10 % (Calculon, Isaev et al. SC'23, reports 3.65 % mean and 8.87 % worst on Selene
// A100 runs); the test prints whether it is met and fails above the regression bounds below.
//
//   build/bin/cost_tst_calibration              the tables and the bounds
//   build/bin/cost_tst_calibration fit          refits the table on the calibration set, prints it
//   RAILYARD_FIT_OVERHEAD_ONLY=1 build/bin/cost_tst_calibration fit   keeps the later devices'
//                                                efficiencies, fits the overheads
//   RAILYARD_FIT_STACK=deepspeed build/bin/cost_tst_calibration fitStack   refits one stack's
//                                                stackComputeFactor on its calibration split
#include "publishedruns.h"

#include "cost/costengine.h"
#include "scenario/scenariofile.h"
#include "workload/deviceefficiency.h"
#include "workload/workloadnames.h"

#include <QCoreApplication>
#include <QTest>

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <numeric>

using namespace railyard;
using namespace railyard::published;

namespace {

/// The goal for both sets: mean |error| <= 5 %, worst <= 10 % (Calculon's 3.65 % / 8.87 %).
constexpr double kGoalMean = 0.05;
constexpr double kGoalWorst = 0.10;
/// What the engine meets today, as regression bounds; the README's tables say which runs miss
/// the goal and why. A change that moves a set above its bounds fails the test.
constexpr double kCalibrationMean = 0.03;
constexpr double kCalibrationWorst = 0.09;
constexpr double kValidationMean = 0.09;
constexpr double kValidationWorst = 0.20;
/// The stacks whose runs are reported apart, each fitted on its own calibration split
/// (deviceefficiency.cpp, stackComputeFactor and stackStepSeconds), with the calibration split's
/// regression bounds and its run counts (docs/validation.md, "Per stack").
struct StackSplit
{
    const char *stack;
    const char *title;
    int calibrationRuns;
    int heldOutRuns;
    double calibrationMean;
    double calibrationWorst;
    /// Held-out runs of the stack printed in a table of their own (their ids start with this),
    /// with their count; nullptr: none.
    const char *apartPrefix = nullptr;
    int apartRuns = 0;
    const char *apartTitle = nullptr;
};
constexpr std::array<StackSplit, 3> kStacks { {
    // fsdp2: its rate factor, with the element-wise kernels counted per torch.compile and
    // torchtitan's op-level selective recompute (docs/validation.md, "Per stack").
    { "fsdp2", "fsdp2 (torchtitan)", 6, 4, 0.03, 0.05 },
    // Composer: its rate and its fixed time per step (stackStepSeconds), fitted together.
    { "composer", "composer (llm-foundry MPT)", 6, 6, 0.02, 0.045 },
    // DeepSpeed: BigScience's Megatron-DeepSpeed runs on Jean Zay's A100s (ZeRO-1, bf16) fit it;
    // Narayanan et al.'s 2021 ZeRO-3 rows are DeepSpeed too, held out in a table of their own.
    { "deepspeed", "deepspeed (Megatron-DeepSpeed, BigScience)", 17, 7, 0.05, 0.13, "n21-t2-zero3-",
        6, "deepspeed ZeRO-3 (Narayanan et al. 2021, Table 2)" },
} };

bool reportedApart(const std::string &stack)
{
    return std::any_of(
        kStacks.begin(), kStacks.end(), [&](const StackSplit &s) { return stack == s.stack; });
}

/// One run's engine; the fabric and router are kept so a refit re-evaluates without rebuilding.
struct Evaluated
{
    const PublishedRun *run = nullptr;
    std::shared_ptr<const Fabric> fabric;
    std::shared_ptr<Router> router;
    double predicted = 0.0;
    CostReport report;      ///< the prediction's breakdown
    double published = 0.0; ///< the run's step time, or its throughput converted (see evaluateWith)
    double error() const { return predicted / published - 1.0; }
};

double evaluateWith(Evaluated &e, const DeviceSpec &device)
{
    Scenario s = e.run->scenario;
    s.device = device;
    CostEngine engine(s, e.fabric, e.router);
    e.fabric = engine.sharedFabric();
    e.router = engine.sharedRouter();
    if (e.run->stepSeconds <= 0.0 && e.run->tflopsPerGpu > 0.0)
        e.published = engine.plan().modelFlopsPerIteration / (e.run->gpus * e.run->tflopsPerGpu * 1e12);
    e.report = engine.report();
    return e.report.iterationTime;
}

struct SetStats
{
    int count = 0;
    double mean = 0.0;
    double worst = 0.0;
};

SetStats printTable(const char *title, std::vector<Evaluated> &rows)
{
    qInfo("\n%s", title);
    qInfo("| run | GPUs | device, precision | t/p/d/c/e (vp) | published s | predicted s | error | bubble | exposed tp/dp/ep s |");
    qInfo("|---|---|---|---|---|---|---|---|---|");
    SetStats st;
    double sum = 0.0;
    for (Evaluated &e : rows) {
        const PublishedRun &r = *e.run;
        const ParallelDegrees &d = r.scenario.degrees;
        const int vp = chunksPerRank(r.scenario.training);
        const std::string layout = std::to_string(d.tp) + "/" + std::to_string(d.pp) + "/"
                                   + std::to_string(d.dp) + "/" + std::to_string(d.cp) + "/"
                                   + std::to_string(d.ep)
                                   + (vp > 1 ? " (" + std::to_string(vp) + ")" : "");
        const DimArray &x = e.report.dimExposed;
        qInfo("| %s | %d | %s %s | %s | %.3f | %.3f | %+.1f %% | %.1f %% | %.2f / %.2f / %.2f |",
              r.id.c_str(), r.gpus, r.device.c_str(), r.precision.c_str(), layout.c_str(),
              e.published, e.predicted, 100.0 * e.error(), 100.0 * e.report.bubbleFraction,
              x[index(Dim::Tp)], x[index(Dim::Dp)], x[index(Dim::Ep)]);
        sum += std::abs(e.error());
        st.worst = std::max(st.worst, std::abs(e.error()));
        ++st.count;
    }
    st.mean = st.count > 0 ? sum / st.count : 0.0;
    qInfo("%d runs: mean |error| %.2f %%, worst %.2f %% (goal %.0f %% / %.0f %%: %s)", st.count,
          100.0 * st.mean, 100.0 * st.worst, 100.0 * kGoalMean, 100.0 * kGoalWorst,
          st.mean <= kGoalMean && st.worst <= kGoalWorst ? "met" : "not met");
    return st;
}

/**
 * The fit: Gauss-Newton (with a small Levenberg damping) on sum_i log(predicted_i / published_i)^2
 * over every complete dense calibration run at once. Each parameter is one number of the table
 * and `apply` writes it into the devices of the runs it belongs to.
 */
struct Parameter
{
    std::string name;
    double value;
    double lo;
    double hi;
    std::function<void(std::map<std::string, DeviceSpec> &, double)> apply;
};

void gaussNewton(std::vector<Evaluated *> &runs, std::map<std::string, DeviceSpec> &devices,
                 std::vector<Parameter> &params)
{
    const auto residuals = [&]() {
        for (Parameter &p : params)
            p.apply(devices, p.value);
        std::vector<double> r;
        for (Evaluated *e : runs)
            r.push_back(std::log(evaluateWith(*e, devices.at(e->run->device)) / e->published));
        return r;
    };
    // A parameter that reaches a bound stays there (a projected Gauss-Newton with an active
    // set); the others are refitted without it.
    std::vector<bool> atBound(params.size(), false);
    for (int iteration = 0; iteration < 20; ++iteration) {
        const std::vector<double> r0 = residuals();
        std::vector<std::size_t> active;
        for (std::size_t j = 0; j < params.size(); ++j)
            if (!atBound[j])
                active.push_back(j);
        const std::size_t n = active.size();
        std::vector<std::vector<double>> jac(n);
        for (std::size_t j = 0; j < n; ++j) {
            Parameter &p = params[active[j]];
            const double keep = p.value;
            const double step = keep * 0.01;
            p.value = keep + step;
            const std::vector<double> r1 = residuals();
            p.value = keep;
            for (std::size_t i = 0; i < r0.size(); ++i)
                jac[j].push_back((r1[i] - r0[i]) / step);
        }
        // Normal equations (J^T J + lambda diag) delta = -J^T r, solved by Gaussian elimination.
        std::vector<std::vector<double>> a(n, std::vector<double>(n + 1, 0.0));
        for (std::size_t p = 0; p < n; ++p) {
            for (std::size_t q = 0; q < n; ++q)
                a[p][q] = std::inner_product(jac[p].begin(), jac[p].end(), jac[q].begin(), 0.0);
            a[p][p] += 1e-9 + 1e-3 * a[p][p];
            a[p][n] = -std::inner_product(jac[p].begin(), jac[p].end(), r0.begin(), 0.0);
        }
        for (std::size_t c = 0; c < n; ++c) {
            for (std::size_t rr = c + 1; rr < n; ++rr) {
                const double f = a[rr][c] / a[c][c];
                for (std::size_t k = c; k <= n; ++k)
                    a[rr][k] -= f * a[c][k];
            }
        }
        std::vector<double> delta(n, 0.0);
        for (std::size_t c = n; c-- > 0;) {
            double v = a[c][n];
            for (std::size_t k = c + 1; k < n; ++k)
                v -= a[c][k] * delta[k];
            delta[c] = v / a[c][c];
        }
        double moved = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            Parameter &p = params[active[j]];
            const double next = std::clamp(p.value + delta[j], p.lo, p.hi);
            moved = std::max(moved, std::abs(next - p.value) / p.value);
            atBound[active[j]] = next <= p.lo || next >= p.hi;
            p.value = next;
        }
        const double sse = std::inner_product(r0.begin(), r0.end(), r0.begin(), 0.0);
        qInfo("  iteration %d: rms log error %.4f", iteration, std::sqrt(sse / r0.size()));
        if (moved < 1e-4)
            break;
    }
    residuals(); // leave the devices at the final values
}

} // namespace

class TestCalibration : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void calibrationSet();
    void validationSet();
    void moeRuns();
    void runsUnderAssumptions();
    void stackRuns();
    void deepSpeedRunsAsTheyRan();
    void fit();
    void fitStack();

private:
    std::vector<Evaluated> completeRuns(const std::string &set, bool moe);
    std::vector<PublishedRun> m_runs;
};

void TestCalibration::initTestCase()
{
    m_runs = loadPublishedRuns();
    QCOMPARE(m_runs.size(), std::size_t { 131 });
    // RAILYARD_CALIBRATION_DIR=DIR writes each run's scenario as DIR/<id>.json, so a row can be
    // reproduced (and inspected phase by phase) with railyard-cli evaluate.
    if (const QByteArray dir = qgetenv("RAILYARD_CALIBRATION_DIR"); !dir.isEmpty())
        for (const PublishedRun &r : m_runs)
            if (r.unsupported.empty())
                saveScenario(r.scenario, dir.toStdString() + "/" + r.id + ".json");
}

std::vector<Evaluated> TestCalibration::completeRuns(const std::string &set, bool moe)
{
    std::vector<Evaluated> out;
    for (const PublishedRun &r : m_runs) {
        if (r.set != set || !r.complete || (r.scenario.model.experts > 0) != moe)
            continue;
        if (reportedApart(r.stack))
            continue; // another stack's runs: stackRuns() reports them apart

        if (!r.unsupported.empty()) {
            qInfo("%s: left out, %s", r.id.c_str(), r.unsupported.c_str());
            continue;
        }
        Evaluated e;
        e.run = &r;
        e.published = r.stepSeconds;
        e.predicted = evaluateWith(e, r.scenario.device);
        out.push_back(std::move(e));
    }
    return out;
}

void TestCalibration::calibrationSet()
{
    std::vector<Evaluated> rows = completeRuns("calibration", false);
    const SetStats st = printTable("Calibration set: complete dense runs", rows);
    QVERIFY(st.count >= 10);
    QVERIFY2(st.mean <= kCalibrationMean, qPrintable(QString("mean %1").arg(st.mean)));
    QVERIFY2(st.worst <= kCalibrationWorst, qPrintable(QString("worst %1").arg(st.worst)));
}

void TestCalibration::validationSet()
{
    std::vector<Evaluated> rows = completeRuns("validation", false);
    const SetStats st = printTable("Validation set: complete dense runs (held out)", rows);
    QVERIFY(st.count >= 12);
    QVERIFY2(st.mean <= kValidationMean, qPrintable(QString("mean %1").arg(st.mean)));
    QVERIFY2(st.worst <= kValidationWorst, qPrintable(QString("worst %1").arg(st.worst)));
}

void TestCalibration::moeRuns()
{
    // Complete MoE runs of both sets, reported but not bounded: the same model and hardware
    // differ by 1.7x in tokens/s/GPU between Megatron-Bridge releases (Qwen3 30B-A3B on 16 H100,
    // 25.11 vs 26.04), so the MoE layer's software overheads are not a device constant.
    for (const char *set : {"calibration", "validation"}) {
        std::vector<Evaluated> rows = completeRuns(set, true);
        printTable((std::string("MoE runs, ") + set + " set (not bounded)").c_str(), rows);
        for (const Evaluated &e : rows)
            QVERIFY(e.predicted > 0.0 && std::isfinite(e.predicted));
    }
}

void TestCalibration::runsUnderAssumptions()
{
    // Incomplete runs, compared only under the assumptions listed per run; not in the headline
    // figures and not bounded, except that the engine must evaluate them.
    std::vector<Evaluated> rows;
    for (const PublishedRun &r : m_runs) {
        if (r.complete || !r.unsupported.empty())
            continue;
        Evaluated e;
        e.run = &r;
        e.published = r.stepSeconds;
        try {
            e.predicted = evaluateWith(e, r.scenario.device);
        } catch (const std::exception &ex) {
            qInfo("%s: not evaluated: %s", r.id.c_str(), ex.what());
            continue;
        }
        rows.push_back(std::move(e));
    }
    printTable("Incomplete runs under stated assumptions (not bounded)", rows);
    for (const Evaluated &e : rows) {
        std::string all;
        for (const std::string &a : e.run->assumptions)
            all += (all.empty() ? "" : "; ") + a;
        qInfo("%s: %s", e.run->id.c_str(), all.c_str());
        QVERIFY(e.predicted > 0.0);
    }
}

void TestCalibration::stackRuns()
{
    // Runs of a stack other than the device table's (PyTorch-native FSDP2 in torchtitan,
    // Composer's FSDP in llm-foundry): each stack's constants (stackComputeFactor,
    // stackStepSeconds, deviceefficiency.cpp) are fitted on its calibration split and the rest
    // is held out. The
    // calibration split is bounded as a regression; the held-out one is reported against the
    // goal (mean <= 8 %, worst <= 15 %), not bounded.
    for (const StackSplit &stack : kStacks) {
        for (const char *set : { "calibration", "validation", "apart" }) {
            const bool apartTable = std::string(set) == "apart";
            if (apartTable && !stack.apartPrefix)
                continue;
            std::vector<Evaluated> rows;
            for (const PublishedRun &r : m_runs) {
                const bool apart = stack.apartPrefix && r.id.rfind(stack.apartPrefix, 0) == 0;
                if (r.stack != stack.stack || !r.complete || !r.unsupported.empty()
                    || apart != apartTable || (!apartTable && r.set != set))
                    continue;
                Evaluated e;
                e.run = &r;
                e.published = r.stepSeconds;
                e.predicted = evaluateWith(e, r.scenario.device);
                rows.push_back(std::move(e));
            }
            const bool calibration = std::string(set) == "calibration";
            const std::string title = apartTable
                ? std::string("Stack ") + stack.apartTitle + ", held out"
                : std::string("Stack ") + stack.title
                    + (calibration ? ", calibration split" : ", held out");
            const SetStats st = printTable(title.c_str(), rows);
            QCOMPARE(st.count,
                apartTable ? stack.apartRuns
                           : (calibration ? stack.calibrationRuns : stack.heldOutRuns));
            for (const Evaluated &e : rows)
                QVERIFY(e.predicted > 0.0 && std::isfinite(e.predicted));
            if (calibration) {
                QVERIFY2(st.mean <= stack.calibrationMean,
                    qPrintable(QString("%1 mean %2").arg(stack.stack).arg(st.mean)));
                QVERIFY2(st.worst <= stack.calibrationWorst,
                    qPrintable(QString("%1 worst %2").arg(stack.stack).arg(st.worst)));
            }
        }
    }
}

void TestCalibration::deepSpeedRunsAsTheyRan()
{
    // BigScience's runs (SOURCES.md [BS22]) as Megatron-DeepSpeed ran them: ZeRO-1 (the
    // BF16_Optimizer's own stage 1), fp32 gradient reduction after the pipeline flush, no
    // FlashAttention, and --pp-partition-method 'type:transformer|embedding', each tied embedding
    // in a layer slot of its own: 70 layers on 12 stages are 5, 6 x 10, 5 (README.md, "pp rank
    // 0: [embed | 5 transformer blocks]"); 100 layers on 6 stages 16, 17 x 4, 16.
    const auto find = [this](const std::string &id) -> const PublishedRun * {
        for (const PublishedRun &r : m_runs)
            if (r.id == id)
                return &r;
        return nullptr;
    };
    const PublishedRun *bloom = find("bs22-a100-bloom-176b-384gpu");
    const PublishedRun *wide = find("bs2202-a100-184b-tp8-pp6-dp8-mbs2-heads64");
    QVERIFY(bloom && wide);
    const TrainingSpec &t = bloom->scenario.training;
    QCOMPARE(t.stack, std::optional<SoftwareStack>(SoftwareStack::DeepSpeed));
    QVERIFY(t.distributedOptimizer);
    QCOMPARE(t.dpSharding, DpSharding::Optim);
    QVERIFY(!t.flashAttention && !t.dpOverlap && !t.gradReduceBf16 && !t.sequenceParallel);
    QCOMPARE(t.recompute, Recompute::Full);
    QCOMPARE(t.precision, Precision::Bf16);
    std::vector<int> split(12, 6);
    split.front() = split.back() = 5;
    QCOMPARE(t.layersPerStage, split);
    QCOMPARE(bloom->scenario.model.layers, 70);
    QCOMPARE(wide->scenario.training.layersPerStage, (std::vector<int> { 16, 17, 17, 17, 17, 16 }));
    // The engine's model FLOPs reproduce the run's printed TFLOPs (149.02 at 105.22 s on 384 GPUs,
    // chronicles.md): Megatron-DeepSpeed prints Narayanan Eq. 3 times 4/3, the recomputed forward
    // counted (math/README.md), so the vocabulary, sequence and shape are read as the run had them.
    const CostEngine engine(bloom->scenario);
    const double printed = engine.plan().modelFlopsPerIteration * 4.0 / 3.0
        / (bloom->stepSeconds * bloom->gpus * 1e12);
    QVERIFY2(std::abs(printed / 149.02 - 1.0) < 0.01, qPrintable(QString::number(printed)));
}

void TestCalibration::fit()
{
    // QTest reads a bare argument as the name of the test function to run: `fit` runs this one.
    if (!QCoreApplication::arguments().contains(QStringLiteral("fit")))
        QSKIP("the fit runs only when asked: cost_tst_calibration fit");
    const bool holdMeasured = qEnvironmentVariableIsSet("RAILYARD_FIT_OVERHEAD_ONLY");
    // Dense runs only: the MoE runs' software overheads are not a device constant (moeRuns()).
    // Parameters: the GEMM efficiency of every (device, precision) the runs use, and the kernel
    // overhead per software stack: 2021-22 Megatron-LM (the A100 runs), and NeMo /
    // Megatron-Bridge with Transformer Engine (every later run), one value for all their
    // devices since it is the per-kernel cost of the framework, not of the GPU.
    // RAILYARD_FIT_OVERHEAD_ONLY=1 keeps every efficiency but the A100's at the table's value
    // (e.g. the cuBLASLt-measured ones) and fits the rest.
    std::vector<Evaluated> rows = completeRuns("calibration", false);
    std::vector<Evaluated *> runs;
    std::map<std::string, DeviceSpec> devices;
    std::map<std::string, Precision> precisions;
    for (Evaluated &e : rows) {
        runs.push_back(&e);
        devices.emplace(e.run->device, e.run->scenario.device);
        precisions.emplace(e.run->device + " " + e.run->precision,
                           e.run->scenario.training.precision);
    }
    std::vector<Parameter> params;
    for (const auto &[key, precision] : precisions) {
        const std::string device = key.substr(0, key.find(' '));
        const bool fp8 = precision == Precision::Fp8;
        if (holdMeasured && device != "a100-80g")
            continue; // keep the table's value
        params.push_back({key + " max_efficiency", gemmEfficiency(device, precision).maxEfficiency,
                          0.3, 0.98, [device, fp8](std::map<std::string, DeviceSpec> &d, double v) {
                              (fp8 ? d.at(device).maxEfficiencyFp8 : d.at(device).maxEfficiency) = v;
                          }});
    }
    // The kernel overhead is bounded to what a kernel launch and its tail cost on the GPU,
    // 1-10 us (CUDA C++ Best Practices Guide: launch overhead of a few microseconds): a fit
    // pushed beyond that is compensating for something the engine does not model.
    const auto overhead = [&](const std::string &name, bool a100) {
        const std::string device = a100 ? "a100-80g" : "h100-sxm";
        if (!devices.count(device))
            return;
        params.push_back({name, gemmEfficiency(device, precisions.begin()->second).kernelOverheadUs,
                          1.0, 10.0, [a100](std::map<std::string, DeviceSpec> &d, double v) {
                              for (auto &[n, spec] : d)
                                  if ((n == "a100-80g") == a100)
                                      spec.kernelOverheadUs = v;
                          }});
    };
    overhead("kernel_overhead_us (Megatron-LM 2021-22, A100)", true);
    overhead("kernel_overhead_us (NeMo / Megatron-Bridge with Transformer Engine)", false);
    gaussNewton(runs, devices, params);
    qInfo("fitted on %zu calibration runs:", runs.size());
    for (const Parameter &p : params)
        qInfo("  %s = %.4f", p.name.c_str(), p.value);
    for (Evaluated *e : runs)
        e->predicted = evaluateWith(*e, devices.at(e->run->device));
    printTable("Calibration set with the fitted values", rows);
}

void TestCalibration::fitStack()
{
    // `RAILYARD_FIT_STACK=NAME cost_tst_calibration fitStack`: the stack's one constant
    // (stackComputeFactor, deviceefficiency.cpp) refitted on its calibration split with the
    // whole engine, as the device table is fitted (gaussNewton). The factor scales the GEMM and
    // attention rates, so the fit scales every device's GEMM efficiency by one multiplier k
    // (DeviceSpec::maxEfficiency, also the attention core's rate at bf16/fp16) and prints
    // factor x k. Exact for runs without fused attention (the factor also scales FlashAttention's
    // rates, which the device override leaves); FlashAttention runs are named.
    const QByteArray stackName = qgetenv("RAILYARD_FIT_STACK");
    if (!QCoreApplication::arguments().contains(QStringLiteral("fitStack")) || stackName.isEmpty())
        QSKIP("runs only when asked: RAILYARD_FIT_STACK=NAME cost_tst_calibration fitStack");
    SoftwareStack stack = SoftwareStack::MegatronCoreTe;
    QVERIFY2(parseStack(stackName.toStdString(), stack), "RAILYARD_FIT_STACK: unknown stack");
    std::vector<Evaluated> rows;
    std::map<std::string, DeviceSpec> devices;
    for (const PublishedRun &r : m_runs) {
        if (r.stack != stackName.toStdString() || r.set != "calibration" || !r.complete
            || !r.unsupported.empty())
            continue;
        if (r.scenario.training.flashAttention)
            qInfo("%s: FlashAttention, the refit is approximate for it", r.id.c_str());
        Evaluated e;
        e.run = &r;
        e.published = r.stepSeconds;
        rows.push_back(std::move(e));
        devices.emplace(r.device, r.scenario.device);
    }
    QVERIFY2(!rows.empty(), "no complete calibration run of that stack");
    std::vector<Evaluated *> runs;
    for (Evaluated &e : rows)
        runs.push_back(&e);
    const std::map<std::string, DeviceSpec> base = devices;
    std::vector<Parameter> params { { "k (multiplier of the device table's efficiency)", 1.0, 0.2,
        2.0, [&base, &rows](std::map<std::string, DeviceSpec> &d, double k) {
            for (auto &[name, spec] : d) {
                const DeviceSpec &b = base.at(name);
                for (const Evaluated &e : rows) {
                    if (e.run->device != name)
                        continue;
                    const Precision p = e.run->scenario.training.precision;
                    const double table = gemmEfficiency(b, p).maxEfficiency;
                    (p == Precision::Fp8 ? spec.maxEfficiencyFp8 : spec.maxEfficiency) = table * k;
                }
            }
        } } };
    gaussNewton(runs, devices, params);
    const double before = stackComputeFactor(stack);
    qInfo("stack %s: %zu calibration runs, k = %.4f: stackComputeFactor %.3f -> %.3f",
        stackName.constData(), runs.size(), params.front().value, before,
        before * params.front().value);
    for (Evaluated *e : runs)
        e->predicted = evaluateWith(*e, devices.at(e->run->device));
    printTable("Stack calibration split with the refitted factor", rows);
}

QTEST_GUILESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
