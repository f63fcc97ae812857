// The whole engine (compute, communication, pipeline, data-parallel sync) against the published
// training runs of tests/data/published/training_runs.json (SOURCES.md there gives provenance,
// caveats and the calibration/validation split). The GEMM efficiency table
// (model/workload/deviceefficiency.cpp) was fitted once on the calibration runs and never on the
// validation runs. Each set must meet the stated bounds on its complete runs:
// mean |error| <= 5 % and worst |error| <= 10 % (Calculon, Isaev et al. SC'23, reports 3.65 %
// mean and 8.87 % worst on Selene A100 runs).
//
//   build/bin/cost_tst_calibration              the tables and the bounds
//   build/bin/cost_tst_calibration fit          refits the table on the calibration set, prints it
#include "publishedruns.h"

#include "cost/costengine.h"
#include "scenario/scenariofile.h"
#include "workload/deviceefficiency.h"
#include "workload/workloadnames.h"

#include <QCoreApplication>
#include <QTest>

#include <cmath>
#include <map>
#include <memory>
#include <numeric>

using namespace railyard;
using namespace railyard::published;

namespace {

constexpr double kMeanBound = 0.05;
constexpr double kWorstBound = 0.10;

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
    qInfo("%d runs: mean |error| %.2f %%, worst %.2f %%", st.count, 100.0 * st.mean,
          100.0 * st.worst);
    return st;
}

/** The fit: Gauss-Newton on sum_i log(predicted_i / published_i)^2 per device. */
struct Parameter
{
    const char *name;
    double *value;
    double lo;
    double hi;
};

void gaussNewton(std::vector<Evaluated *> &runs, DeviceSpec &device,
                 std::vector<Parameter> params)
{
    const auto residuals = [&]() {
        std::vector<double> r;
        for (Evaluated *e : runs)
            r.push_back(std::log(evaluateWith(*e, device) / e->published));
        return r;
    };
    for (int iteration = 0; iteration < 8; ++iteration) {
        const std::vector<double> r0 = residuals();
        const std::size_t n = params.size();
        std::vector<std::vector<double>> jac(n);
        for (std::size_t j = 0; j < n; ++j) {
            const double keep = *params[j].value;
            const double step = keep * 0.01;
            *params[j].value = keep + step;
            const std::vector<double> r1 = residuals();
            *params[j].value = keep;
            for (std::size_t i = 0; i < r0.size(); ++i)
                jac[j].push_back((r1[i] - r0[i]) / step);
        }
        // Normal equations (J^T J + lambda I) delta = -J^T r, solved by Gaussian elimination.
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
            const double next = std::clamp(*params[j].value + delta[j], params[j].lo, params[j].hi);
            moved = std::max(moved, std::abs(next - *params[j].value) / *params[j].value);
            *params[j].value = next;
        }
        const double sse = std::inner_product(r0.begin(), r0.end(), r0.begin(), 0.0);
        qInfo("  %s iteration %d: rms log error %.4f", device.name.c_str(), iteration,
              std::sqrt(sse / r0.size()));
        if (moved < 1e-4)
            break;
    }
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
    void fit();

private:
    std::vector<Evaluated> completeRuns(const std::string &set, bool moe);
    std::vector<PublishedRun> m_runs;
};

void TestCalibration::initTestCase()
{
    m_runs = loadPublishedRuns();
    QCOMPARE(m_runs.size(), std::size_t{83});
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
    QVERIFY2(st.mean <= kMeanBound, qPrintable(QString("mean %1").arg(st.mean)));
    QVERIFY2(st.worst <= kWorstBound, qPrintable(QString("worst %1").arg(st.worst)));
}

void TestCalibration::validationSet()
{
    std::vector<Evaluated> rows = completeRuns("validation", false);
    const SetStats st = printTable("Validation set: complete dense runs (held out)", rows);
    QVERIFY(st.count >= 15);
    QVERIFY2(st.mean <= kMeanBound, qPrintable(QString("mean %1").arg(st.mean)));
    QVERIFY2(st.worst <= kWorstBound, qPrintable(QString("worst %1").arg(st.worst)));
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

void TestCalibration::fit()
{
    if (!QCoreApplication::arguments().contains(QStringLiteral("fit")))
        QSKIP("the fit runs only when asked: cost_tst_calibration fit");
    // Dense runs only: the MoE runs' software overheads are not a device constant (moeRuns()).
    std::vector<Evaluated> rows = completeRuns("calibration", false);
    std::map<std::string, std::vector<Evaluated *>> byDevice;
    for (Evaluated &e : rows)
        byDevice[e.run->device].push_back(&e);
    for (auto &[name, runs] : byDevice) {
        DeviceSpec device = runs.front()->run->scenario.device;
        const Precision mainPrecision = runs.front()->run->scenario.training.precision;
        device.maxEfficiency = gemmEfficiency(name, mainPrecision == Precision::Fp8
                                                        ? Precision::Bf16
                                                        : mainPrecision)
                                   .maxEfficiency;
        device.maxEfficiencyFp8 = gemmEfficiency(name, Precision::Fp8).maxEfficiency;
        device.kernelOverheadUs = gemmEfficiency(name, mainPrecision).kernelOverheadUs;
        bool anyFp8 = false;
        bool any16 = false;
        for (Evaluated *e : runs) {
            anyFp8 = anyFp8 || e->run->scenario.training.precision == Precision::Fp8;
            any16 = any16 || e->run->scenario.training.precision != Precision::Fp8;
        }
        std::vector<Parameter> params;
        if (any16)
            params.push_back({"max_efficiency (bf16/fp16)", &device.maxEfficiency, 0.3, 0.98});
        if (anyFp8)
            params.push_back({"max_efficiency_fp8", &device.maxEfficiencyFp8, 0.3, 0.98});
        if (runs.size() > params.size() + 2)
            params.push_back({"kernel_overhead_us", &device.kernelOverheadUs, 0.5, 30.0});
        gaussNewton(runs, device, params);
        qInfo("fit %s on %zu runs:", name.c_str(), runs.size());
        for (const Parameter &p : params)
            qInfo("  %s = %.4f", p.name, *p.value);
        for (Evaluated *e : runs) {
            e->predicted = evaluateWith(*e, device);
            qInfo("    %s %+.1f %%", e->run->id.c_str(), 100.0 * e->error());
        }
    }
    printTable("Calibration set with the fitted values", rows);
}

QTEST_GUILESS_MAIN(TestCalibration)
#include "tst_calibration.moc"
