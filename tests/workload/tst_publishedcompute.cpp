// The compute model against published Megatron-LM runs on A100s (Narayanan et al. SC'21,
// Korthikanti et al. 2022; tests/workload/calibration_data.h): the runs' own figures agree with
// each other (iteration time, TFLOP/s, MFU), and the workload plan's compute-only rate sits above
// the published end-to-end rate by no more than the communication and bubble such runs show.
#include "calibration_data.h"
#include "fixtures.h"
#include "workload/presets.h"
#include "workload/workloadplan.h"

#include <QtTest>

#include <algorithm>
#include <cmath>

using namespace railyard;
using fixtures::degrees;

namespace {

struct Predicted
{
    double published = 0.0; ///< TFLOP/s per GPU, source convention
    double computeOnly = 0.0; ///< compute of the slowest stage, m micro-batches + optimizer
    double withBubble = 0.0; ///< plus the 1F1B fill/drain, (m + p - 1) slots
};

Predicted predict(const calibration::PublishedRun &r)
{
    ModelSpec m;
    m.layers = r.layers;
    m.hidden = r.hidden;
    m.heads = r.heads;
    m.kvHeads = 0;
    m.ffn = 4 * r.hidden;
    m.gatedMlp = false;
    m.seq = r.seq;
    m.vocab = r.vocab;
    TrainingSpec t;
    t.microBatch = r.microBatch;
    t.globalBatch = r.globalBatch;
    t.sequenceParallel = r.sequenceParallel;
    t.recompute = r.recompute;
    t.distributedOptimizer = false;
    t.flashAttention = false;
    const WorkloadPlan plan
        = planWorkload(m, t, *devicePreset("a100-80g"), degrees(r.tp, r.pp, r.dp));
    double slowest = 0.0;
    double optimizer = 0.0;
    for (const StageCompute &s : plan.stages) {
        slowest = std::max(slowest, s.forwardTime + s.backwardTime);
        optimizer = std::max(optimizer, s.optimizerTime);
    }
    const double B = r.globalBatch, s = r.seq, l = r.layers, h = r.hidden, V = r.vocab;
    const double flops = r.modelFlops
        ? 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h))
        : 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
    const double gpus = double(r.tp) * r.pp * r.dp;
    const double m_ = plan.microbatches;
    Predicted p;
    p.published
        = r.iterationSeconds > 0 ? flops / (gpus * r.iterationSeconds) / 1e12 : r.tflopsPerGpu;
    p.computeOnly = flops / (gpus * (m_ * slowest + optimizer)) / 1e12;
    p.withBubble = flops / (gpus * ((m_ + r.pp - 1) * slowest + optimizer)) / 1e12;
    return p;
}

} // namespace

class TestPublishedCompute : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void publishedRunsAreConsistent();
    void calibrationAgainstPublishedRuns();
};

void TestPublishedCompute::publishedRunsAreConsistent()
{
    // Korthikanti's iteration times reproduce the README's MFU (model FLOPs / (GPUs T peak)).
    int k = 0;
    for (const calibration::PublishedRun &r : calibration::kPublishedRuns) {
        if (!r.modelFlops || r.recompute != Recompute::Selective)
            continue;
        const double mfu = predict(r).published / calibration::kA100PeakTflops;
        QVERIFY2(std::abs(mfu - calibration::kPublishedMfu[k]) < 0.003,
            qPrintable(QString("%1: %2").arg(r.label).arg(mfu)));
        ++k;
    }
    QCOMPARE(k, 4);
    // The README's 175B example: 32 s per iteration and 138 TFLOP/s per GPU agree.
    const calibration::PublishedRun &readme = calibration::kPublishedRuns[10];
    QVERIFY(std::abs(predict(readme).published - readme.tflopsPerGpu) < 1.0);
}

void TestPublishedCompute::calibrationAgainstPublishedRuns()
{
    // Compute-only predictions must be faster than the published end-to-end numbers (those
    // include TP/DP communication and pipeline bubbles), but not by more than the
    // communication share such runs show. Korthikanti's dp = 1 pipelined runs (no DP sync)
    // with the 1F1B bubble added leave only TP communication (~5-12 % of a layer on NVLink3):
    // the calibrated efficiency must put them within 0..18 % above the published rate.
    for (const calibration::PublishedRun &r : calibration::kPublishedRuns) {
        const Predicted p = predict(r);
        const double ratio = p.computeOnly / p.published;
        QVERIFY2(ratio > 1.0 && ratio < 1.45,
            qPrintable(QString("%1 %2: compute-only %3 vs %4")
                           .arg(r.source, r.label)
                           .arg(p.computeOnly)
                           .arg(p.published)));
        if (r.modelFlops && r.pp > 1) {
            const double bubbled = p.withBubble / p.published;
            QVERIFY2(bubbled > 1.0 && bubbled < 1.18,
                qPrintable(QString("%1 %2: with bubble %3 vs %4")
                               .arg(r.source, r.label)
                               .arg(p.withBubble)
                               .arg(p.published)));
        }
    }
}

QTEST_GUILESS_MAIN(TestPublishedCompute)
#include "tst_publishedcompute.moc"
