// A compute calibration carried to another layout (model/io/computecalibration.h): the file
// calibrate --compute-out writes read back, applied to a scenario of the same device, precision
// and stack (the device efficiency the engine then uses is the file's, and the iteration time
// equals setting it by hand), and refused with both sides named for another device, precision or
// stack, or a malformed file.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fixtures.h"
#include "io/computecalibration.h"

#include <QTest>

#include <string>

using namespace railyard;

namespace {

std::string calibrationText(const std::string &device, const std::string &precision,
    const std::string &stack, double efficiency)
{
    return "{\"calibration\": {\"compute\": {\"version\": 1, \"device\": \"" + device
        + "\", \"precision\": \"" + precision + "\", \"stack\": \"" + stack
        + "\", \"max_efficiency\": " + std::to_string(efficiency)
        + ", \"kernel_overhead_us\": 7.5, \"fitted\": [\"max_efficiency\"], "
          "\"measured_step_time_s\": 4.2, \"provenance\": {\"measured_at\": "
          "\"2026-12-06T08:00:00Z\", \"scenario\": \"job8\"}}}}";
}

std::string refusal(Scenario s, const ComputeCalibration &c)
{
    try {
        applyComputeCalibration(s, c);
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return {};
}

} // namespace

class TestComputeCalibration : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void carriesToAnotherLayout();
    void refusesAnotherDevicePrecisionOrStack();
    void malformedFilesAreNamed_data();
    void malformedFilesAreNamed();
};

void TestComputeCalibration::carriesToAnotherLayout()
{
    Scenario s = fixtures::smallDense(4, 8, fixtures::degrees(8, 1, 4));
    const ComputeCalibration c = parseComputeCalibration(
        calibrationText(s.device.name, "bf16", "unknown", 0.5), "cal.json");
    QCOMPARE(c.maxEfficiency, 0.5);
    QCOMPARE(c.kernelOverheadUs, 7.5);
    QVERIFY(!c.stack);
    QCOMPARE(c.measuredScenario, std::string("job8"));
    Scenario carried = s;
    applyComputeCalibration(carried, c);
    QCOMPARE(carried.device.maxEfficiency, 0.5);
    QCOMPARE(carried.device.kernelOverheadUs, 7.5);
    Scenario byHand = s;
    byHand.device.maxEfficiency = 0.5;
    byHand.device.kernelOverheadUs = 7.5;
    QCOMPARE(CostEngine(carried).report().iterationTime, CostEngine(byHand).report().iterationTime);
    // Not the table's figures (H100 bf16: 0.603 and 10 us per kernel, docs/validation.md).
    QVERIFY(CostEngine(carried).report().iterationTime != CostEngine(s).report().iterationTime);
    QVERIFY(
        computeCalibrationText(c).find("max efficiency 0.500 (measured 4.2 s on job8, 2026-12-06)")
        != std::string::npos);
}

void TestComputeCalibration::refusesAnotherDevicePrecisionOrStack()
{
    Scenario s = fixtures::smallDense(4, 8, fixtures::degrees(8, 1, 4));
    s.training.stack = SoftwareStack::Fsdp2;
    const std::string device = s.device.name;
    QVERIFY(
        refusal(s,
            parseComputeCalibration(
                calibrationText("a100-80g", "bf16", "unknown", 0.5), "cal.json"))
            .find(
                "--calibration: cal.json was measured on device a100-80g; the scenario's device is "
                + device)
        == 0);
    QVERIFY(refusal(s,
                parseComputeCalibration(calibrationText(device, "fp8", "unknown", 0.5), "cal.json"))
                .find("cal.json was measured on fp8; the scenario trains in bf16")
        != std::string::npos);
    QVERIFY(refusal(s,
                parseComputeCalibration(
                    calibrationText(device, "bf16", "megatron-core-te", 0.5), "cal.json"))
                .find("was measured on stack megatron-core-te; the scenario's stack is fsdp2")
        != std::string::npos);
    // The same stack, or a scenario without one, takes it.
    QVERIFY(refusal(
        s, parseComputeCalibration(calibrationText(device, "bf16", "fsdp2", 0.5), "cal.json"))
                .empty());
}

void TestComputeCalibration::malformedFilesAreNamed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("not JSON") << QStringLiteral("{") << QStringLiteral("cal.json: ");
    QTest::newRow("no compute") << QStringLiteral("{\"calibration\": {}}")
                                << QStringLiteral(
                                       "cal.json: calibration.compute: missing required field");
    QTest::newRow("version 2")
        << QString::fromStdString(calibrationText("h100-sxm", "bf16", "unknown", 0.5))
               .replace("\"version\": 1", "\"version\": 2")
        << QStringLiteral(
               "cal.json: calibration.compute.version: is 2; this Railyard reads version 1");
    QTest::newRow("efficiency above 1")
        << QString::fromStdString(calibrationText("h100-sxm", "bf16", "unknown", 1.5))
        << QStringLiteral("cal.json: calibration.compute.max_efficiency");
    QTest::newRow("unknown stack")
        << QString::fromStdString(calibrationText("h100-sxm", "bf16", "jax", 0.5))
        << QStringLiteral("cal.json: calibration.compute.stack: unknown stack 'jax'");
}

void TestComputeCalibration::malformedFilesAreNamed()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        parseComputeCalibration(text.toStdString(), "cal.json");
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(message), e.what());
    }
}

QTEST_GUILESS_MAIN(TestComputeCalibration)
#include "tst_computecalibration.moc"
