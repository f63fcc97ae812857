// One measured step of the fsdp2 stack (torchtitan's Llama 3.1 8B benchmarks on H100) carried to
// the stack's other runs of the same precision through the compute calibration
// (tests/cost/stackcarry.h): the goal is within 10 %, mean at most 6 % (issue 34). The bf16
// group meets it: the eager run measured here carries to the compiled runs within 3 %, since
// the engine counts eager PyTorch's element-wise kernels and Inductor's fused ones apart
// (model/workload/elementwise.cpp). In the fp8 group the 32K and 64K runs (cp 1 and 2) carry
// within 10 % (-0.4 % and +9.9 %) since the attention runs at FlashAttention-2's published rate,
// SDPA's kernel (model/workload/deviceefficiency.cpp); the 128K and 256K runs (cp 4 and 8) miss
// it, each an expected failure with its reason (an XPASS fails the suite, so a fix shows): they
// come out 18-21 % fast, their attention running slower per FLOP than at cp 1 and 2
// (docs/validation.md, "Per stack").
#include "stackcarry.h"

#include <QTest>

#include <string>

using namespace railyard;

namespace {

/// Why a carried run of fsdp2 misses the goal, or nullptr when it should meet it.
const char *knownMiss(const std::string &id)
{
    for (const char *longContext : { "-cp4-128k", "-cp8-256k" })
        if (id.find(longContext) != std::string::npos)
            return "torchtitan's 128K-256K runs (cp 4, 8): attention slower per FLOP than "
                   "FlashAttention-2's published rate and than at cp 1-2 (docs/validation.md)";
    return nullptr;
}

} // namespace

class TestStackCarryFsdp2 : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneMeasuredStepCarries();
};

void TestStackCarryFsdp2::oneMeasuredStepCarries()
{
    const std::vector<stackcarry::Group> groups = stackcarry::carryOneStep("fsdp2");
    QCOMPARE(groups.size(), std::size_t { 2 }); // h100-sxm bf16 (eager) and fp8 (compiled)
    for (const stackcarry::Group &g : groups) {
        QVERIFY2(g.efficiency > 0.0, qPrintable(QString::fromStdString(g.label) + ": not fitted"));
        bool missing = false;
        for (const stackcarry::Carried &c : g.others) {
            const char *why = knownMiss(c.id);
            missing = missing || why;
            if (why)
                QEXPECT_FAIL("", why, Continue);
            QVERIFY2(std::abs(c.error()) <= stackcarry::kWorst,
                qPrintable(QString::fromStdString(c.id) + QString(": %1").arg(c.error())));
        }
        if (missing)
            QEXPECT_FAIL("", "the misses above", Continue);
        QVERIFY2(g.mean <= stackcarry::kMean, qPrintable(QString("mean %1").arg(g.mean)));
    }
}

QTEST_APPLESS_MAIN(TestStackCarryFsdp2)
#include "tst_stackcarry_fsdp2.moc"
