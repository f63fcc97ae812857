// The "why is this step slower than predicted" sentence (studies/trainingcomparison.h),
// composed from figures: hand-made steps whose largest difference, its sign and its share of
// the step's difference are known.
#include "studies/trainingcomparison.h"

#include <QTest>

#include <string>

using namespace railyard;

class TestTrainingComparison : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void namesTheLargestDifference();
    void fasterAndOpposite();
    void nothingDiffers();
};

void TestTrainingComparison::namesTheLargestDifference()
{
    // 3.0 s measured against 2.5 s: compute as predicted, DP 0.4 s over (0.5 against 0.1 s),
    // TP 0.1 s under. DP differs most; 0.4 of the 0.5 s gap is 80 %.
    const std::string why = explainStepDifference(3.0, 2.5,
        { { "compute", 2.0, 2.0 }, { "dp exposed communication", 0.5, 0.1 },
            { "tp exposed communication", 0.2, 0.3 } });
    QCOMPARE(why,
        std::string("the step took 3 s against 2.5 s predicted (20.0 % slower); the part that "
                    "differs most is dp exposed communication: 500 ms measured against 100 ms "
                    "predicted per step (+400 ms, 80 % of the difference)"));
}

void TestTrainingComparison::fasterAndOpposite()
{
    // Faster overall (1.8 against 2.0 s) while compute took longer (+0.3 s) than predicted and
    // TP hid 0.1 s: the largest difference points the other way, so no share is claimed.
    const std::string why = explainStepDifference(
        1.8, 2.0, { { "compute", 1.5, 1.2 }, { "tp exposed communication", 0.1, 0.2 } });
    QVERIFY2(why.find("(10.0 % faster)") != std::string::npos, why.c_str());
    QVERIFY2(why.find("differs most is compute: 1.5 s measured against 1.2 s predicted per step "
                      "(+300 ms)")
            != std::string::npos,
        why.c_str());
    QVERIFY(why.find("% of the difference") == std::string::npos);
}

void TestTrainingComparison::nothingDiffers()
{
    QCOMPARE(explainStepDifference(2.0, 2.0, { { "compute", 1.0, 1.0 } }),
        std::string("the step took 2 s against 2 s predicted; no part of it differs from the "
                    "prediction"));
}

QTEST_APPLESS_MAIN(TestTrainingComparison)
#include "tst_trainingcomparison.moc"
