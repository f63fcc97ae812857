// The compute-efficiency fit of calibrate --compute-out (model/cost/computefit.cpp): a step
// time the engine itself predicts under a known GEMM efficiency gives that efficiency back
// through the whole engine; a step faster than the engine at 100 % efficiency, or slower than at
// 5 %, is not fitted and says why.
#include "cost/computefit.h"
#include "cost/costengine.h"
#include "fixtures.h"

#include <QTest>

#include <cmath>

using namespace railyard;

class TestComputeFit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void recoversKnownEfficiency_data();
    void recoversKnownEfficiency();
    void outOfRange();
};

void TestComputeFit::recoversKnownEfficiency_data()
{
    QTest::addColumn<double>("efficiency");
    QTest::addColumn<bool>("fp8");
    QTest::newRow("0.55 bf16") << 0.55 << false;
    QTest::newRow("0.30 bf16") << 0.30 << false;
    QTest::newRow("0.45 fp8") << 0.45 << true;
}

void TestComputeFit::recoversKnownEfficiency()
{
    QFETCH(double, efficiency);
    QFETCH(bool, fp8);
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(4, 2, 2));
    if (fp8)
        s.training.precision = Precision::Fp8;
    Scenario truth = s;
    (fp8 ? truth.device.maxEfficiencyFp8 : truth.device.maxEfficiency) = efficiency;
    const double measured = evaluate(truth).iterationTime;
    const ComputeFit fit = fitComputeEfficiency(s, measured);
    QVERIFY2(fit.fitted, fit.reason.c_str());
    QVERIFY2(std::fabs(fit.maxEfficiency - efficiency) < 1e-6,
        qPrintable(QString::number(fit.maxEfficiency)));
    QVERIFY(std::fabs(fit.predictedAfter - measured) < 1e-9 * measured);
    QVERIFY(std::fabs(fit.predictedBefore - evaluate(s).iterationTime) < 1e-15);
    QVERIFY(fit.tableEfficiency > 0.0 && fit.kernelOverheadUs > 0.0);
}

void TestComputeFit::outOfRange()
{
    const Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(4, 2, 2));
    const ComputeFit fast = fitComputeEfficiency(s, 1e-9);
    QVERIFY(!fast.fitted);
    QVERIFY(fast.reason.find("faster") != std::string::npos);
    const ComputeFit slow = fitComputeEfficiency(s, 1e6);
    QVERIFY(!slow.fitted);
    QVERIFY(slow.reason.find("slower") != std::string::npos);
}

QTEST_GUILESS_MAIN(TestComputeFit)
#include "tst_computefit.moc"
