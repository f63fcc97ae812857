// The memory ledger item by item against hand-derived numbers (issue 34): the optimizer step's
// transient fp32 gradients beside (not on top of) the activations, the recomputed layer's working
// set under full recompute, the FSDP2 (torchtitan) rules, and which items decide a fit.
#include "workload/memoryledger.h"
#include "workload/presets.h"
#include "workload/workloadplan.h"

#include <QTest>

#include <cmath>

using namespace railyard;

namespace {

// Llama 3.1 8B (presets.cpp): h 4096, 32 heads of 128, 8 KV heads, ffn 14336, vocab 128256.
constexpr double kH = 4096.0;
constexpr double kKv = 1024.0;
constexpr double kFfn = 14336.0;
constexpr double kVocab = 128256.0;
/// Per layer: W_qkv h (h + 2 kv), W_o h^2, SwiGLU 3 h ffn, two RMSNorms 2h = 218,112,000.
constexpr double kLayerParams = kH * (kH + 2.0 * kKv) + kH * kH + 3.0 * kH * kFfn + 2.0 * kH;
/// 32 layers, untied embedding and output layer (V h each), final RMSNorm: 8,030,261,248.
constexpr double kParams = 32.0 * kLayerParams + 2.0 * kVocab * kH + kH;

/// Llama 3.1 8B on 8 GPUs, pure data parallelism, as torchtitan's benchmark runs it.
struct Run8b
{
    ModelSpec model = *modelPreset("llama3-8b");
    TrainingSpec training;
    DeviceSpec device = *devicePreset("h100-sxm");
    ParallelDegrees degrees { 1, 1, 8, 1, 1 };
    Run8b()
    {
        training.microBatch = 2;
        training.globalBatch = 16;
        training.precision = Precision::Bf16;
        training.recompute = Recompute::Selective;
        training.distributedOptimizer = true;
    }
    WorkloadPlan plan() const { return planWorkload(model, training, device, degrees); }
};

bool near(double a, double b)
{
    return std::abs(a / b - 1.0) < 1e-9;
}

} // namespace

class TestMemoryItems : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void optimizerStepIsHeldBesideTheActivations();
    void fullRecomputeHoldsOneLayer();
    void fsdp2Torchtitan8b();
    void decidingItems();
};

void TestMemoryItems::optimizerStepIsHeldBesideTheActivations()
{
    // bf16 gradients (--grad-reduce-in-bf16) with the distributed optimizer over 8: parameters
    // 2 P, gradients 2 P, optimizer 12 P / 8 (fp32 main parameters, Adam m and v), and the fp32
    // main gradients, 4 P / 8, only during the step. Before: 16 P / 8 held with the activations.
    Run8b r;
    r.training.gradReduceBf16 = true;
    const MemoryLedger m = r.plan().memory.front();
    QVERIFY(near(m.parameters, 2.0 * kParams));
    QVERIFY(near(m.gradients, 2.0 * kParams));
    QVERIFY(near(m.optimizer, 12.0 * kParams / 8.0));
    QVERIFY(near(m.optimizerStep, 4.0 * kParams / 8.0));
    MemoryLedger held = m;
    held.activations = 30e9; // more than the step's 4.0 GB: the peak holds the activations
    QVERIFY(near(held.ledger(), held.parameters + held.gradients + held.optimizer + 30e9));
    held.activations = 1e9; // less: the step sets the peak
    QVERIFY(near(
        held.ledger(), held.parameters + held.gradients + held.optimizer + 4.0 * kParams / 8.0));
    // fp32 gradients are their own main gradients: no step transient.
    Run8b fp32;
    QCOMPARE(fp32.plan().memory.front().optimizerStep, 0.0);
    QVERIFY(near(fp32.plan().memory.front().optimizer, 12.0 * kParams / 8.0));
}

void TestMemoryItems::fullRecomputeHoldsOneLayer()
{
    // Full recompute keeps each layer's input, 2 b s h per layer, plus the recomputed layer's
    // whole activations during its backward, once: per token 8h (norm inputs, QKV and fc1
    // inputs) + 2(q + kv) + 2 kv + 2q (Q, K, V, projection input) + 6 ffn (SwiGLU) = 139,264
    // bytes, times 2 x 8192 tokens.
    Run8b r;
    r.training.recompute = Recompute::Full;
    const MemoryLedger m = r.plan().memory.front();
    const double tokens = 2.0 * 8192.0;
    const double perToken
        = 8.0 * kH + 2.0 * (kH + kKv) + 2.0 * kKv + 2.0 * kH + 6.0 * kFfn; // 139,264
    QVERIFY(near(m.recomputeWorkspace, tokens * perToken));
    // The stored inputs: 32 layers x 2 b s h, plus the last stage's final-norm input and fp32
    // logits (Korthikanti 2022 §4.3): 4 b s h + 4 b s V.
    QVERIFY(near(m.activationsPerMicrobatch,
        32.0 * 2.0 * tokens * kH + 4.0 * tokens * kH + 4.0 * tokens * kVocab));
    Run8b selective;
    QCOMPARE(selective.plan().memory.front().recomputeWorkspace, 0.0);
}

void TestMemoryItems::fsdp2Torchtitan8b()
{
    // torchtitan's FSDP2 (fully_shard over 8, reshard after forward, reduce in fp32, op-level
    // selective AC), micro-batch 2 x 8192 tokens:
    Run8b r;
    r.training.stack = SoftwareStack::Fsdp2;
    r.training.dpSharding = DpSharding::OptimGradsParams;
    const MemoryLedger m = r.plan().memory.front();
    // Parameters: the fp32 shard is the optimizer's master copy, so bf16 parameters are only
    // the gathered ones: the root module (embedding + output, 2 V h) and two layers' worth of
    // the rest: 1,486,897,408 parameters, 2.97 GB.
    const double root = 2.0 * kVocab * kH;
    const double gathered = root + 2.0 * (kParams - root) / 32.0;
    QVERIFY(near(m.parameters, 2.0 * gathered));
    QVERIFY(near(m.gradients, 4.0 * kParams / 8.0)); // fp32 gradient shard
    QVERIFY(near(m.optimizer, 12.0 * kParams / 8.0)); // fp32 master + Adam m, v
    // Activations: per layer and token the block input 2h, wq 2q, wv 2 kv, w1 2 ffn, w2 2h and
    // the attention output 2q (63,488 bytes); the loss 12 bytes per logit, the final norm 4h.
    const double tokens = 2.0 * 8192.0;
    const double perLayer = 2.0 * kH + 2.0 * kH + 2.0 * kKv + 2.0 * kFfn + 2.0 * kH + 2.0 * kH;
    QCOMPARE(perLayer, 63488.0);
    QVERIFY(near(m.activationsPerMicrobatch,
        32.0 * tokens * perLayer + 4.0 * tokens * kH + 12.0 * tokens * kVocab));
    // 2.97 + 4.02 + 12.05 + 58.8 GB: 77.8 GB of tensors, against the 82.4 GiB (88.5 GB) the
    // framework printed as its reserved peak (tst_memoryvalidation compares them).
    QVERIFY(m.parameters + m.gradients + m.optimizer + m.activationsPerMicrobatch < 80e9);

    // The same job without a stack books Megatron's rules: bf16 parameter shard on top of the
    // optimizer's, the generic activations and a 4-byte loss: 107 GB (issue 34's figure).
    Run8b plain = r;
    plain.training.stack.reset();
    const MemoryLedger p = plain.plan().memory.front();
    QVERIFY(p.parameters > m.parameters);
    QVERIFY(p.activationsPerMicrobatch > m.activationsPerMicrobatch);
}

void TestMemoryItems::decidingItems()
{
    MemoryLedger m;
    m.parameters = 10e9;
    m.gradients = 20e9;
    m.optimizer = 30e9;
    m.activations = 50e9;
    m.cudaContext = 1e9;
    m.nccl = 1e9;
    // Items largest first.
    const std::vector<MemoryItem> items = memoryItems(m);
    QCOMPARE(std::string(items.front().name), std::string("activations"));
    QCOMPARE(items.front().bytes, 50e9);
    QCOMPARE(std::string(items[1].name), std::string("optimizer"));
    // 112 GB on 80: the activations alone cover the 32 GB excess.
    QCOMPARE(decidingMemoryItems(m, 80e9), std::vector<std::string> { "activations" });
    // On 40 GB the excess is 72 GB: activations and optimizer (80 GB) are needed.
    QCOMPARE(
        decidingMemoryItems(m, 40e9), (std::vector<std::string> { "activations", "optimizer" }));
    // It fits 120 GB: the largest item bounds the headroom.
    QCOMPARE(decidingMemoryItems(m, 120e9), std::vector<std::string> { "activations" });
    // The optimizer step replaces the activations when it is larger.
    m.activations = 1e9;
    m.optimizerStep = 5e9;
    // optimizer 30, gradients 20, parameters 10, then the step's 5 GB.
    QCOMPARE(std::string(memoryItems(m)[3].name), std::string("optimizer_step"));
    QVERIFY(near(m.ledger(), 10e9 + 20e9 + 30e9 + 5e9));
}

QTEST_GUILESS_MAIN(TestMemoryItems)
#include "tst_memoryitems.moc"
