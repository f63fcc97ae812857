// One measured step of the deepspeed stack carried to the stack's other runs of the same device
// and precision through the compute calibration (tests/cost/stackcarry.h): the goal is within
// 10 %, mean at most 6 % (issue 34). Two groups:
//  - a100-80g bf16: BigScience's Megatron-DeepSpeed runs on Jean Zay (ZeRO-1, BLOOM and its
//    candidate shapes, 192-384 GPUs); the measured run is the first of the prequel sweep;
//  - a100-80g fp16: Narayanan et al.'s 2021 ZeRO-3 rows (SC'21 Table 2), all held out.
// The BigScience group meets the mean (5.64 %) but not the worst; the ZeRO-3 group neither. Each
// miss is an expected failure with its reason (an XPASS fails the suite, so a fix shows).
// Without the misses, the BigScience group's 17 other runs land within 7.7 %, mean 2.4 %
// (docs/validation.md, "Per stack").
#include "stackcarry.h"

#include <QTest>

#include <string>

using namespace railyard;

namespace {

/// Why a carried deepspeed run misses the goal, or nullptr when it should meet it.
const char *knownMiss(const std::string &id)
{
    // Narayanan et al.'s ZeRO-3 rows, carried from the 174.6B run on 384 GPUs: only the 529.6B
    // run on 640 GPUs, the nearest in GPUs per parameter, lands within 10 %.
    if (id.rfind("n21-t2-zero3-", 0) == 0 && id != "n21-t2-zero3-529.6b-640")
        return "DeepSpeed ZeRO-3 in 2021: the step does not shrink with the GPUs (66.7 s on 768 "
               "and 1,536), a per-layer cost of that implementation the engine does not have "
               "(docs/validation.md)";
    if (id == "bs22-a100-bloom-176b-384gpu-gbs16" || id == "bs22-a100-bloom-176b-384gpu-gbs192")
        return "the batch-size ramp-up's global batch 16 and 192: both miss by about 3.2 s, "
               "a per-step cost independent of the batch that the engine does not have";
    if (id == "bs2202-a100-184b-tp8-pp6-dp8-mbs2-heads64"
        || id == "bs2202-a100-176b-tp8-pp12-dp4-mbs2-heads64")
        return "TP 8 at micro-batch 2, the set's smallest GEMMs per GPU: measured 12-15 % slower "
               "than carried, where TP 8 at micro-batch 4 lands within 4 %";
    if (id == "bs2207-a100-bloom-176b-tp4-pp36-dp2-mbs1")
        return "PP 36 at TP 4 and micro-batch 1: the set's least compute per pipeline step (two "
               "layers of one sequence), 1,024 micro-batches; a cost per micro-batch and stage "
               "of DeepSpeed's pipeline engine is a candidate the engine does not have";
    if (id == "bs2202-a100-178b-tp4-pp12-dp8-mbs2-heads104")
        return "104 heads: measured 18 % slower than 64 heads of the same model and layout, for a "
               "reason the source does not give; the engine's attention moves 1 % between them";
    return nullptr;
}

} // namespace

class TestStackCarryDeepSpeed : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneMeasuredStepCarries();
};

void TestStackCarryDeepSpeed::oneMeasuredStepCarries()
{
    const std::vector<stackcarry::Group> groups = stackcarry::carryOneStep("deepspeed");
    QCOMPARE(groups.size(), std::size_t { 2 }); // a100-80g bf16 (BigScience), fp16 (ZeRO-3)
    for (const stackcarry::Group &g : groups) {
        QVERIFY2(g.efficiency > 0.0, qPrintable(QString::fromStdString(g.label) + ": not fitted"));
        const bool zero3 = g.label == "a100-80g fp16";
        QCOMPARE(g.others.size(), std::size_t { zero3 ? 5u : 23u });
        for (const stackcarry::Carried &c : g.others) {
            if (const char *why = knownMiss(c.id))
                QEXPECT_FAIL("", why, Continue);
            QVERIFY2(std::abs(c.error()) <= stackcarry::kWorst,
                qPrintable(QString::fromStdString(c.id) + QString(": %1").arg(c.error())));
        }
        // The BigScience group's mean meets the goal (5.9 %); the ZeRO-3 group's does not.
        if (zero3)
            QEXPECT_FAIL("", "the ZeRO-3 misses above", Continue);
        QVERIFY2(g.mean <= stackcarry::kMean, qPrintable(QString("mean %1").arg(g.mean)));
    }
}

QTEST_APPLESS_MAIN(TestStackCarryDeepSpeed)
#include "tst_stackcarry_deepspeed.moc"
