// The tied word embedding's gradient all-reduce between the first and the last pipeline stage
// (GPT-style models: the input embedding and the output layer are one weight): its size, its
// time on the fabric (a ring of two, 2 alpha + S / B), where it sits in the iteration (after both
// ends have reduced their gradients, before the optimizer step), and its bytes.
#include "cost/costengine.h"
#include "cost/iterationtiming.h"
#include "fixtures.h"

#include <QTest>

#include <algorithm>

using namespace railyard;

namespace {

/// The phase the report lists for the tied embedding's all-reduce, nullptr without one.
const PhaseResult *tiedPhase(const CostReport &r)
{
    const auto it = std::find_if(r.phases.begin(), r.phases.end(),
        [](const PhaseResult &p) { return p.name.rfind("pp tied embedding", 0) == 0; });
    return it == r.phases.end() ? nullptr : &*it;
}

/// tp 8 x pp 2 on two servers of 8 GPUs: stage 0 on server 0, stage 1 on server 1, so each tied
/// pair (same tp index) crosses its rail: GPU -> NIC -> rail leaf -> NIC -> GPU.
Scenario twoStages(bool gated)
{
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 2, 1));
    s.model.gatedMlp = gated;
    return s;
}

} // namespace

class TestTiedEmbedding : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void allReduceFollowsBothEnds();
    void sizeIsTheShardInTheGradientType();
    void timedAsARingOfTwo();
    void endsTheIterationBeforeTheOptimizer();
    void bytesReachTheLinks();
};

void TestTiedEmbedding::allReduceFollowsBothEnds()
{
    // Three stages whose last backwards end at 10, 9 and 8; a DP reduction of 0.5 + 1.5 after
    // each (no overlap): reductions end at 12, 11, 10. The tied all-reduce (3) starts when both
    // ends have reduced, max(12, 10), and holds the first and the last stage until 15; the
    // middle stage ends at 11. Then the optimizer step (0.5).
    const auto backward = [](int stage, double start, double end) {
        return fixtures::pipeEvent(PipelineEventKind::Backward, stage, 0, start, end);
    };
    PipelineTimeline t;
    t.events = { backward(0, 6, 10), backward(1, 5, 9), backward(2, 4, 8) };
    SyncPlan sync;
    sync.present = true;
    sync.reduceAlpha = 0.5;
    sync.reduceBeta = 1.5;
    sync.optimizer = 0.5;
    sync.tiedEmbedding = 3.0;
    const IterationTiming it = timeIteration(t, 3, 1, sync);
    QCOMPARE(it.stages[0].reduceEnd, 12.0);
    QCOMPARE(it.stages[2].reduceEnd, 10.0);
    QCOMPARE(it.stages[0].syncEnd, 15.0);
    QCOMPARE(it.stages[2].syncEnd, 15.0);
    QCOMPARE(it.stages[1].syncEnd, 11.0);
    QCOMPARE(it.end, 15.5);

    // Without it every stage's sync ends with its reduction.
    sync.tiedEmbedding = 0.0;
    const IterationTiming plain = timeIteration(t, 3, 1, sync);
    QCOMPARE(plain.stages[2].syncEnd, 10.0);
    QCOMPARE(plain.end, 12.5);
}

void TestTiedEmbedding::sizeIsTheShardInTheGradientType()
{
    // Vocabulary 32,000 padded to a multiple of 128 x tp = 1,024 (Megatron-LM's
    // --make-vocab-size-divisible-by 128 per TP rank): 32,768 rows of hidden 1,024, an eighth per
    // TP rank, fp32 main gradients in bf16 training.
    const double shard = 32768.0 * 1024.0 / 8.0;
    QCOMPARE(CostEngine(twoStages(false)).plan().tiedEmbeddingBytes, shard * 4.0);
    Scenario bf16Grads = twoStages(false);
    bf16Grads.training.gradReduceBf16 = true;
    QCOMPARE(CostEngine(bf16Grads).plan().tiedEmbeddingBytes, shard * 2.0);
    // The Llama block has an output layer of its own; one stage has nothing to all-reduce.
    QCOMPARE(CostEngine(twoStages(true)).plan().tiedEmbeddingBytes, 0.0);
    QCOMPARE(CostEngine(fixtures::smallDense(1, 8, fixtures::degrees(8, 1, 1)))
                 .plan()
                 .tiedEmbeddingBytes,
        0.0);
    QVERIFY(!tiedPhase(CostEngine(twoStages(true)).report()));
}

void TestTiedEmbedding::timedAsARingOfTwo()
{
    // Each pair's ring of two: a reduce-scatter and an all-gather step of S/2 each way, over the
    // 400 Gb/s NICs (50 GB/s, the route's narrowest hop): 2 alpha + S / 50 GB/s.
    CostEngine engine(twoStages(false));
    const CostReport &r = engine.report();
    const PhaseResult *tied = tiedPhase(r);
    QVERIFY(tied);
    const double S = engine.plan().tiedEmbeddingBytes;
    QCOMPARE(tied->bytes, S);
    QVERIFY(tied->alphaTime > 0.0 && tied->alphaTime < 1e-4);
    QCOMPARE(tied->time, tied->alphaTime + S / 50e9);
    QVERIFY(tied->bottleneckLink >= 0);
}

void TestTiedEmbedding::endsTheIterationBeforeTheOptimizer()
{
    CostEngine engine(twoStages(false));
    const CostReport &r = engine.report();
    const PhaseResult *tied = tiedPhase(r);
    QVERIFY(tied);
    const StageReport &first = r.stages.front();
    const StageReport &last = r.stages.back();
    // dp 1: no DP sync, so each end's gradients are ready at its last backward.
    QCOMPARE(first.tiedEmbeddingStart, std::max(first.lastCompute, last.lastCompute));
    QCOMPARE(first.tiedEmbeddingEnd - first.tiedEmbeddingStart, tied->time);
    QCOMPARE(last.tiedEmbeddingEnd, first.tiedEmbeddingEnd);
    double optimizer = 0.0;
    for (const StageCompute &c : engine.plan().stages)
        optimizer = std::max(optimizer, c.optimizerTime);
    QCOMPARE(r.iterationTime, first.tiedEmbeddingEnd + optimizer);
    // It is pipeline traffic: the PP exposure includes it, and nothing else moves (the Llama
    // block differs in its compute, not in what crosses the boundary).
    QVERIFY(r.dimExposed[index(Dim::Pp)] >= tied->time * (1.0 - 1e-9));
    QVERIFY(r.dimExposed[index(Dim::Pp)] <= r.iterationTime);
}

void TestTiedEmbedding::bytesReachTheLinks()
{
    // Bytes sent: every one of the 8 pairs' two ends sends S (S/2 per ring step) beside the
    // boundary sends (m micro-batches each way per pair).
    CostEngine tiedEngine(twoStages(false));
    const CostReport &r = tiedEngine.report();
    const double S = tiedEngine.plan().tiedEmbeddingBytes;
    const double m = tiedEngine.plan().microbatches;
    const double boundary = tiedEngine.plan().boundaryActivationBytes;
    QCOMPARE(r.dimBytesSent[index(Dim::Pp)], 8.0 * 2.0 * m * boundary + 2.0 * 8.0 * S);
    // On the links: the Llama block moves the same boundary tensors (same hidden, sequence and
    // micro-batch), so the difference at the leaf tier is the all-reduce's: per pair S each way,
    // on the NIC -> leaf and the leaf -> NIC link of each direction.
    CostEngine untied(twoStages(true));
    QCOMPARE(untied.plan().boundaryActivationBytes, boundary);
    const double leafTied = fixtures::tierDimBytes(tiedEngine, Tier::Leaf, Dim::Pp);
    const double leafUntied = fixtures::tierDimBytes(untied, Tier::Leaf, Dim::Pp);
    QCOMPARE(leafTied - leafUntied, 8.0 * 2.0 * 2.0 * S);
}

QTEST_APPLESS_MAIN(TestTiedEmbedding)
#include "tst_tiedembedding.moc"
