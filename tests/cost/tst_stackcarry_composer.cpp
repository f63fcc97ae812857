// One measured step of the composer stack (llm-foundry's MPT benchmarks on H100) carried to the
// stack's other runs through the compute calibration (tests/cost/stackcarry.h): the goal is
// within 10 %, mean at most 6 % (issue 34). Not met: the measured run (MPT-7B on 8 GPUs) trains
// without activation checkpointing, and every run with it comes out 12-19 % slow (the engine
// charges the whole recomputed forward at the measured run's efficiency; llm-foundry's tables
// show 55-58 % hardware FLOPs utilisation with checkpointing against 40-46 % without), while
// MPT-13B at micro-batch 2 (4,096 tokens a step per GPU) comes out 11-13 % fast. Each miss is an
// expected failure with its reason (an XPASS fails the suite, so a fix shows).
#include "stackcarry.h"

#include <QTest>

#include <string>

using namespace railyard;

namespace {

/// Why a carried composer run misses the goal, or nullptr when it should meet it.
const char *knownMiss(const std::string &id)
{
    for (const char *checkpointed : { "lf-h100-mpt-30b-32gpu", "lf-h100-mpt-70b-64gpu",
             "lf-h100-mpt-13b-512gpu", "lf-h100-mpt-70b-128gpu", "lf-h100-mpt-70b-512gpu" })
        if (id == checkpointed)
            return "activation checkpointing: measured without it, runs with it come out slow";
    if (id == "lf-h100-mpt-13b-8gpu" || id == "lf-h100-mpt-13b-64gpu")
        return "MPT-13B at micro-batch 2: a per-step cost the engine does not have";
    return nullptr;
}

} // namespace

class TestStackCarryComposer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneMeasuredStepCarries();
};

void TestStackCarryComposer::oneMeasuredStepCarries()
{
    const std::vector<stackcarry::Group> groups = stackcarry::carryOneStep("composer");
    QCOMPARE(groups.size(), std::size_t { 1 }); // h100-sxm bf16
    for (const stackcarry::Group &g : groups) {
        QVERIFY2(g.efficiency > 0.0, qPrintable(QString::fromStdString(g.label) + ": not fitted"));
        QCOMPARE(g.others.size(), std::size_t { 11 });
        for (const stackcarry::Carried &c : g.others) {
            if (const char *why = knownMiss(c.id))
                QEXPECT_FAIL("", why, Continue);
            QVERIFY2(std::abs(c.error()) <= stackcarry::kWorst,
                qPrintable(QString::fromStdString(c.id) + QString(": %1").arg(c.error())));
        }
        QEXPECT_FAIL("", "the misses above", Continue);
        QVERIFY2(g.mean <= stackcarry::kMean, qPrintable(QString("mean %1").arg(g.mean)));
    }
}

QTEST_APPLESS_MAIN(TestStackCarryComposer)
#include "tst_stackcarry_composer.moc"
