/**
 * `railyard-cli generate`'s model, device-variant, sharding and stack flags (issue 34): without
 * --model the flags given define the model and nothing is inherited from a preset silently;
 * --zero / --fsdp type the data-parallel sharding; --stack writes a stack's defaults; --compile
 * switches torch.compile for the PyTorch-native stacks; --cp-attention names the context-parallel
 * attention.
 */
#include "scenario/scenariofile.h"
#include "workload/presets.h"
#include "workload/workloadplan.h"

#include "generaterun.h"

#include <QTest>

#include <optional>
#include <string>

using namespace railyard;

namespace {

/// Korthikanti et al. 2022's 1T GPT: 128 layers, hidden 25600, 160 heads, ffn 4h.
QStringList gpt1t()
{
    return seedArgs()
        + QStringList { "--layers", "128", "--hidden", "25600", "--heads", "160", "--ffn", "102400",
              "--global-batch", "64" };
}

double planParameters(const Scenario &s)
{
    return planWorkload(s.model, s.training, s.device, s.degrees).parametersTotal;
}

} // namespace

class TestCliGenerateModel : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void customModelInheritsNothing();
    void customModelParametersAreGpt3s();
    void gatedMlpFlag();
    void customModelNeedsItsShape();
    void deviceVariant();
    void zeroAndFsdp();
    void zeroAndFsdpRefusals_data();
    void zeroAndFsdpRefusals();
    void stackDefaults();
    void compileFlag();
    void cpAttentionFlag();
};

void TestCliGenerateModel::customModelInheritsNothing()
{
    const Run r = runCli(gpt1t());
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    const Scenario s = parseScenario(r.out);
    // Before: llama2-70b's 8 KV heads, gated MLP and name stayed under these flags.
    QCOMPARE(s.model.name, std::string("custom"));
    QCOMPARE(s.model.layers, 128);
    QCOMPARE(s.model.hidden, 25600);
    QCOMPARE(s.model.heads, 160);
    QCOMPARE(s.model.kvHeads, 160);
    QCOMPARE(s.model.ffn, 102400);
    QCOMPARE(s.model.gatedMlp, false);
    QCOMPARE(s.model.seq, 2048);
    QCOMPARE(s.model.vocab, 51200);
    QCOMPARE(s.name, std::string("custom-tp8-pp4-dp4"));
    // What was assumed is stated: in the description and on stderr.
    QVERIFY2(
        s.description.find("custom model, assumed: kv_heads = heads = 160") != std::string::npos,
        s.description.c_str());
    QVERIFY2(s.description.find("gated_mlp false") != std::string::npos, s.description.c_str());
    QVERIFY2(r.err.find("note: custom model (no --model), assumed:") != std::string::npos,
        r.err.c_str());
    QVERIFY2(r.err.find("seq 2048 (GPT-3)") != std::string::npos, r.err.c_str());
    // Flags given are not assumed: --ffn was given, so no ffn line.
    QVERIFY2(r.err.find("ffn = 4 x hidden") == std::string::npos, r.err.c_str());

    // --seq alone keeps the default preset (it describes the data, not the network).
    const Run seqOnly = runCli(seedArgs() + QStringList { "--seq", "2048" });
    QVERIFY2(seqOnly.exitCode == 0, seqOnly.err.c_str());
    const Scenario p = parseScenario(seqOnly.out);
    QCOMPARE(p.model.name, std::string("llama2-70b"));
    QCOMPARE(p.model.kvHeads, 8);
    QVERIFY(seqOnly.err.empty());
}

void TestCliGenerateModel::customModelParametersAreGpt3s()
{
    // Narayanan et al. SC'21 Eq. 2 by hand: P = 12 l h^2 (1 + 13/(12h) + (V + s)/(12 l h)), the
    // GPT block 12 h^2 + 13 h per layer, embedding V h (tied, counted once) and learned positions
    // s h; the engine adds the final LayerNorm's 2 h.
    const double l = 128, h = 25600, V = 51200, sq = 2048;
    const Run gpt = runCli(gpt1t());
    QVERIFY2(gpt.exitCode == 0, gpt.err.c_str());
    const double expectedGpt = l * (12 * h * h + 13 * h) + (V + sq) * h + 2 * h;
    QCOMPARE(planParameters(parseScenario(gpt.out)), expectedGpt); // 1.0076e12
    QVERIFY(std::abs(expectedGpt - 1.0076e12) < 1e9);

    // The same shape with --gated-mlp: attention 4 h^2, SwiGLU 3 h ffn = 12 h^2, two RMSNorms 2h
    // (no biases) per layer; untied embedding and output V h each, final RMSNorm h.
    const Run gated = runCli(gpt1t() + QStringList { "--gated-mlp" });
    QVERIFY2(gated.exitCode == 0, gated.err.c_str());
    const double expectedGated = l * (16 * h * h + 2 * h) + 2 * V * h + h;
    QCOMPARE(planParameters(parseScenario(gated.out)), expectedGated);
}

void TestCliGenerateModel::gatedMlpFlag()
{
    // With a preset, --no-gated-mlp overrides its gated MLP; nothing is assumed.
    const Run r = runCli(seedArgs() + QStringList { "--model", "llama2-70b", "--no-gated-mlp" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    const Scenario s = parseScenario(r.out);
    QCOMPARE(s.model.gatedMlp, false);
    QCOMPARE(s.model.kvHeads, 8); // the preset's, asked for with --model
    QVERIFY(r.err.empty());
    const Run both = runCli(
        seedArgs() + QStringList { "--model", "llama2-70b", "--gated-mlp", "--no-gated-mlp" });
    QCOMPARE(both.exitCode, 1);
    QVERIFY2(both.err.find("--gated-mlp: contradicts --no-gated-mlp") != std::string::npos,
        both.err.c_str());
    QVERIFY(both.out.empty());
}

void TestCliGenerateModel::customModelNeedsItsShape()
{
    const Run r = runCli(seedArgs() + QStringList { "--hidden", "4096" });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.find("a model flag without --model describes a custom model: give --layers "
                        "--heads too")
            != std::string::npos,
        r.err.c_str());
    QVERIFY(r.out.empty());
}

void TestCliGenerateModel::deviceVariant()
{
    // An H100 at a lower power cap with 96 GB of HBM2e (torchtitan's benchmark machines).
    const Run r = runCli(seedArgs()
        + QStringList { "--device-peak-tflops", "800", "--hbm-gb", "96", "--hbm-gbps", "2400" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    const Scenario s = parseScenario(r.out);
    const DeviceSpec h100 = *devicePreset("h100-sxm");
    QCOMPARE(s.device.name, std::string("h100-sxm"));
    QCOMPARE(s.device.peakTflopsBf16, 800.0);
    QCOMPARE(s.device.peakTflopsFp16, 800.0);
    QCOMPARE(s.device.peakTflopsFp8, 800.0 * h100.peakTflopsFp8 / h100.peakTflopsBf16); // 1600.8
    QCOMPARE(s.device.hbmBytes, 96e9);
    QCOMPARE(s.device.hbmGBps, 2400.0);
    const Run bad = runCli(seedArgs() + QStringList { "--hbm-gb", "0" });
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.find("--hbm-gb") != std::string::npos, bad.err.c_str());
}

void TestCliGenerateModel::zeroAndFsdp()
{
    const struct
    {
        QStringList flags;
        DpSharding sharding;
    } cases[] = {
        { { "--zero", "1" }, DpSharding::Optim },
        { { "--zero", "2" }, DpSharding::OptimGrads },
        { { "--zero", "3" }, DpSharding::OptimGradsParams },
        { { "--fsdp", "full" }, DpSharding::OptimGradsParams },
    };
    for (const auto &c : cases) {
        const Run r = runCli(seedArgs() + c.flags);
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const Scenario s = parseScenario(r.out);
        QCOMPARE(s.training.dpSharding, c.sharding);
        QVERIFY(s.training.distributedOptimizer);
        QCOMPARE(s.training.fsdpShard, 0);
        QVERIFY(!s.training.fsdpPrefetch);
    }
    // Hybrid sharding: ZeRO-3 within groups of 2 of the 4 data-parallel ranks, written as
    // training.fsdp; the prefetch switch as training.fsdp_prefetch (on = 1, off = 0, a share).
    const struct
    {
        QStringList flags;
        int shard;
        std::optional<double> prefetch;
    } hybrid[] = {
        { { "--fsdp", "hybrid:2" }, 2, std::nullopt },
        { { "--fsdp", "hybrid:2", "--fsdp-prefetch", "on" }, 2, 1.0 },
        { { "--fsdp", "full", "--fsdp-prefetch", "off" }, 0, 0.0 },
        { { "--zero", "3", "--fsdp-prefetch", "0.25" }, 0, 0.25 },
    };
    for (const auto &c : hybrid) {
        const Run r = runCli(seedArgs() + c.flags);
        QVERIFY2(r.exitCode == 0, r.err.c_str());
        const Scenario s = parseScenario(r.out);
        QCOMPARE(s.training.dpSharding, DpSharding::OptimGradsParams);
        QCOMPARE(s.training.fsdpShard, c.shard);
        QCOMPARE(s.training.fsdpPrefetch, c.prefetch);
        QCOMPARE(r.out.find("\"fsdp\": \"hybrid:2\"") != std::string::npos, c.shard == 2);
    }
    // The prefetch switch is ZeRO-3's: with ZeRO-2 the scenario check names the field.
    Run r = runCli(seedArgs() + QStringList { "--zero", "2", "--fsdp-prefetch", "on" });
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.find("--fsdp-prefetch: prefetches the per-layer parameter all-gathers")
            != std::string::npos,
        r.err.c_str());
    QVERIFY(r.out.empty());
    // 128 GPUs at tp 8, pp 4: dp 4, which a shard group of 3 does not divide.
    r = runCli(seedArgs() + QStringList { "--fsdp", "hybrid:3" });
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.find("--fsdp: \"hybrid:3\": R = 3 must divide dp x cp = 4")
            != std::string::npos,
        r.err.c_str());
    QVERIFY(r.out.empty());
}

void TestCliGenerateModel::zeroAndFsdpRefusals_data()
{
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("message");
    QTest::newRow("stage 4") << QStringList { "--zero", "4" }
                             << "--zero: ZeRO stage 1, 2 or 3, got 4";
    QTest::newRow("both") << QStringList { "--zero", "3", "--fsdp", "full" }
                          << "--zero and --fsdp both set the data-parallel sharding";
    QTest::newRow("hybrid zero") << QStringList { "--fsdp", "hybrid:0" }
                                 << "--fsdp: expected full or hybrid:R";
    QTest::newRow("prefetch word") << QStringList { "--fsdp", "full", "--fsdp-prefetch", "some" }
                                   << "--fsdp-prefetch: expected on, off or a share from 0 to 1, "
                                      "got 'some'";
    QTest::newRow("prefetch above 1") << QStringList { "--fsdp", "full", "--fsdp-prefetch",
        "1.5" } << "--fsdp-prefetch: expected on, off or a share from 0 to 1, got '1.5'";
    QTest::newRow("unknown") << QStringList { "--fsdp", "half" }
                             << "--fsdp: expected full or hybrid:R, got 'half'";
    QTest::newRow("no distributed optimizer") << QStringList { "--zero", "2",
        "--no-distributed-optimizer" } << "contradicts --no-distributed-optimizer";
}

void TestCliGenerateModel::zeroAndFsdpRefusals()
{
    QFETCH(QStringList, flags);
    QFETCH(QString, message);
    const Run r = runCli(seedArgs() + flags);
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.find(message.toStdString()) != std::string::npos, r.err.c_str());
    QVERIFY(r.out.empty());
}

void TestCliGenerateModel::stackDefaults()
{
    Run r = runCli(seedArgs() + QStringList { "--stack", "fsdp2" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    Scenario s = parseScenario(r.out);
    QVERIFY(s.training.stack == SoftwareStack::Fsdp2);
    QCOMPARE(s.training.dpSharding, DpSharding::OptimGradsParams);
    QVERIFY(s.training.dpOverlap && s.training.overlapParamGather);
    QVERIFY(!s.training.gradReduceBf16); // FSDP2 reduces in fp32 by default
    QVERIFY(r.out.find("\"stack\": \"fsdp2\"") != std::string::npos);

    // A flag wins over the stack's default: FSDP2 with ZeRO-2 (reshard_after_forward off).
    r = runCli(seedArgs() + QStringList { "--stack", "fsdp2", "--zero", "2" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QCOMPARE(parseScenario(r.out).training.dpSharding, DpSharding::OptimGrads);

    r = runCli(seedArgs() + QStringList { "--stack", "megatron-lm" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    s = parseScenario(r.out);
    QVERIFY(s.training.stack == SoftwareStack::MegatronLm);
    QVERIFY(!s.training.distributedOptimizer && !s.training.sequenceParallel);
    QVERIFY(!s.training.flashAttention && !s.training.dpOverlap);

    r = runCli(seedArgs() + QStringList { "--stack", "megatron-core-te" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    s = parseScenario(r.out);
    QVERIFY(s.training.tpCommOverlap && s.training.sequenceParallel && s.training.gradReduceBf16);

    r = runCli(seedArgs() + QStringList { "--stack", "deepspeed", "--zero", "3" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    s = parseScenario(r.out);
    QCOMPARE(s.training.dpSharding, DpSharding::OptimGradsParams);
    QVERIFY(s.training.dpOverlap && s.training.overlapParamGather); // overlap_comm's ZeRO-3 default
    // FlashAttention is opt-in in Megatron-DeepSpeed, and off where its constant was fitted.
    QVERIFY(!s.training.flashAttention);

    // Without --stack the file has no stack key (files stay as they were).
    r = runCli(seedArgs());
    QVERIFY(r.out.find("\"stack\"") == std::string::npos);
    QVERIFY(!parseScenario(r.out).training.stack.has_value());

    r = runCli(seedArgs() + QStringList { "--stack", "jax" });
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.find("megatron-core-te") != std::string::npos, r.err.c_str());
    QVERIFY(r.out.empty());

    // Composer writes the FSDP prefetch its constant was fitted with; --zero 2 drops it.
    r = runCli(seedArgs() + QStringList { "--stack", "composer" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QCOMPARE(parseScenario(r.out).training.fsdpPrefetch, std::optional<double>(1.0));
    r = runCli(seedArgs() + QStringList { "--stack", "composer", "--zero", "2" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QVERIFY(!parseScenario(r.out).training.fsdpPrefetch);
}

void TestCliGenerateModel::compileFlag()
{
    // --compile on|off as training.compile; absent, the key is not written (eager, the stack's
    // default).
    const QStringList fsdp2
        = seedArgs() + QStringList { "--model", "llama3-8b", "--stack", "fsdp2" };
    Run r = runCli(fsdp2);
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QVERIFY(r.out.find("\"compile\"") == std::string::npos);
    const Scenario eager = parseScenario(r.out);
    QVERIFY(!eager.training.compile.has_value());
    r = runCli(fsdp2 + QStringList { "--compile", "on" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    const Scenario compiled = parseScenario(r.out);
    QCOMPARE(compiled.training.compile, std::optional<bool>(true));
    r = runCli(fsdp2 + QStringList { "--compile", "off" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QCOMPARE(parseScenario(r.out).training.compile, std::optional<bool>(false));
    // Inductor's fused element-wise kernels make the compiled layout's compute faster, by what
    // the eager kernels stream beyond them (tst_elementwise derives it by hand).
    const auto forward = [](const Scenario &s) {
        return planWorkload(s.model, s.training, s.device, s.degrees).stages.front().forwardTime;
    };
    QVERIFY2(forward(compiled) < 0.97 * forward(eager),
        qPrintable(
            QString("compiled %1 s, eager %2 s").arg(forward(compiled)).arg(forward(eager))));

    // Anything but on/off is a usage error; a Megatron stack (or none) refuses the switch,
    // named by its flag with the stacks that take it, and nothing is written.
    r = runCli(fsdp2 + QStringList { "--compile", "yes" });
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.find("--compile") != std::string::npos, r.err.c_str());
    QVERIFY(r.out.empty());
    for (const QStringList &stack :
        { QStringList { "--stack", "megatron-core-te" }, QStringList {} }) {
        r = runCli(seedArgs() + stack + QStringList { "--compile", "on" });
        QVERIFY(r.exitCode != 0);
        QVERIFY2(r.err.find("--compile") != std::string::npos
                && r.err.find("fsdp2, composer") != std::string::npos,
            r.err.c_str());
        QVERIFY(r.out.empty());
    }
}

void TestCliGenerateModel::cpAttentionFlag()
{
    // --cp-attention writes training.cp_attention, which wins over the stack's default.
    Run r = runCli(seedArgs() + QStringList { "--stack", "fsdp2", "--cp-attention", "te-p2p" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    Scenario s = parseScenario(r.out);
    QVERIFY(s.training.cpAttention == CpAttention::TeP2p);
    QCOMPARE(cpAttentionOf(s.training), CpAttention::TeP2p);
    r = runCli(seedArgs() + QStringList { "--cp-attention", "torch-allgather" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QVERIFY(r.out.find("\"cp_attention\": \"torch-allgather\"") != std::string::npos);
    QCOMPARE(cpAttentionOf(parseScenario(r.out).training), CpAttention::TorchAllGather);
    // Without it the file has no key; the stack decides (fsdp2: PyTorch's ring).
    r = runCli(seedArgs() + QStringList { "--stack", "fsdp2" });
    QVERIFY2(r.exitCode == 0, r.err.c_str());
    QVERIFY(r.out.find("\"cp_attention\"") == std::string::npos);
    QCOMPARE(cpAttentionOf(parseScenario(r.out).training), CpAttention::TorchAllGather);
    // An unknown name: refused, the accepted ones named, nothing written.
    r = runCli(seedArgs() + QStringList { "--cp-attention", "ulysses" });
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.find("torch-allgather") != std::string::npos, r.err.c_str());
    QVERIFY(r.out.empty());
}

QTEST_GUILESS_MAIN(TestCliGenerateModel)
#include "tst_cli_generatemodel.moc"
