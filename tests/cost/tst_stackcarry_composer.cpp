// One measured step of the composer stack (llm-foundry's MPT benchmarks on H100) carried to the
// stack's other runs through the compute calibration (tests/cost/stackcarry.h): the goal is
// within 10 %, mean at most 6 % (issue 34). Met: the measured run (MPT-7B on 8 GPUs, no
// activation checkpointing, 1.2 s a step) carries to the runs with checkpointing (6.6-63 s)
// and to MPT-13B at micro-batch 2 (0.85 s) once the stack's fixed time per optimizer step is
// separated from its compute rate (model/workload/deviceefficiency.cpp, stackStepSeconds).
#include "stackcarry.h"

#include <QTest>

#include <string>

using namespace railyard;

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
        for (const stackcarry::Carried &c : g.others)
            QVERIFY2(std::abs(c.error()) <= stackcarry::kWorst,
                qPrintable(QString::fromStdString(c.id) + QString(": %1").arg(c.error())));
        QVERIFY2(g.mean <= stackcarry::kMean, qPrintable(QString("mean %1").arg(g.mean)));
    }
}

QTEST_APPLESS_MAIN(TestStackCarryComposer)
#include "tst_stackcarry_composer.moc"
