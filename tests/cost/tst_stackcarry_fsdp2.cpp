// One measured step of the fsdp2 stack (torchtitan's Llama 3.1 8B benchmarks on H100) carried to
// the stack's other runs of the same precision through the compute calibration
// (tests/cost/stackcarry.h): the goal is within 10 %, mean at most 6 % (issue 34). Two kinds of
// run miss it, each an expected failure with its reason (an XPASS fails the suite, so a fix shows):
//  - torch.compile: the engine has no switch for it, so the eager run measured here predicts the
//    compiled runs of the same layout as slow as itself, which torchtitan measured 14 % faster;
//  - context parallelism: the 64K-256K runs on cp 2-8, 10-41 % faster predicted than measured
//    (docs/validation.md, "Per stack").
#include "stackcarry.h"

#include <QTest>

#include <string>

using namespace railyard;

namespace {

/// Why a carried run of fsdp2 misses the goal, or nullptr when it should meet it.
const char *knownMiss(const std::string &id)
{
    if (id.find("-compile") != std::string::npos && id.find("-fp8") == std::string::npos)
        return "torch.compile is not modelled: eager and compiled runs get one prediction";
    if (id.find("-cp2-") != std::string::npos || id.find("-cp4-") != std::string::npos
        || id.find("-cp8-") != std::string::npos)
        return "torchtitan's context-parallel runs grow faster with the sequence than the "
               "engine's ring attention (docs/validation.md)";
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
