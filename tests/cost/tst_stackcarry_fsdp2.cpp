// One measured step of the fsdp2 stack (torchtitan's Llama 3.1 8B benchmarks on H100) carried to
// the stack's other runs of the same precision through the compute calibration
// (tests/cost/stackcarry.h): within 10 %, mean at most 6 % (issue 34).
#include "stackcarry.h"

#include <QTest>

using namespace railyard;

class TestStackCarryFsdp2 : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void oneMeasuredStepCarries();
};

void TestStackCarryFsdp2::oneMeasuredStepCarries()
{
    const std::vector<stackcarry::Group> groups = stackcarry::carryOneStep("fsdp2");
    QCOMPARE(groups.size(), std::size_t { 2 }); // h100-sxm bf16 and fp8
    for (const stackcarry::Group &g : groups) {
        QVERIFY2(g.efficiency > 0.0, qPrintable(QString::fromStdString(g.label) + ": not fitted"));
        for (const stackcarry::Carried &c : g.others)
            QVERIFY2(std::abs(c.error()) <= stackcarry::kWorst,
                qPrintable(QString::fromStdString(c.id) + QString(": %1").arg(c.error())));
        QVERIFY2(g.mean <= stackcarry::kMean, qPrintable(QString("mean %1").arg(g.mean)));
    }
}

QTEST_APPLESS_MAIN(TestStackCarryFsdp2)
#include "tst_stackcarry_fsdp2.moc"
