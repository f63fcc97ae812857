// The scenario file's "calibration" section (model/scenario/calibrationsection.cpp): a save and
// load give back the same section field by field, an uncalibrated scenario writes none, and every
// malformed section is refused with its field path.
#include "base/scenarioerror.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <nlohmann/json.hpp>

using namespace railyard;
using nlohmann::json;

namespace {

CalibrationSpec sample()
{
    CalibrationSpec c;
    c.measuredAt = "2026-12-01T21:40:00Z";
    c.fabricHash = "fnv1a64:0123456789abcdef";
    c.mappingVersion = 3;
    c.ncclVersion = "2.26.2";
    CalibratedTier su;
    su.tier = Tier::ScaleUp;
    su.stepLatencyUs = 0.7;
    su.bandwidthScale = 0.962;
    su.bandwidthGbps = 2420.5;
    su.defaultStepLatencyUs = 1.2;
    su.defaultBandwidthGbps = 2516.25;
    su.runs = 1;
    su.points = 39;
    su.rmsResidual = 0.09;
    su.maxResidual = 1.4;
    su.rSquared = 0.999;
    CalibratedTier leaf;
    leaf.tier = Tier::Leaf;
    leaf.algorithm = "ring";
    leaf.bandwidthScale = 0.85;
    c.tiers = { su, leaf };
    CalibrationRun r;
    r.id = "tp-all-reduce-8192";
    r.file = "results/tp-all-reduce-8192.log";
    r.collective = "all-reduce";
    r.ranks = { 0, 1, 2, 3, 4, 5, 6, 7 };
    r.bottleneckTier = Tier::ScaleUp;
    r.note = "a note";
    r.points = { { 8192, 20.5, 23.4, 20.0, 1.0 }, { 8192, 21.0, 23.4, 20.0, 0.25 } };
    c.runs = { r };
    return c;
}

/// The scenario's JSON with `calibration` replaced.
json withCalibration(const json &calibration)
{
    json j = scenarioToJson(fixtures::smallDense(1, 8, fixtures::degrees(8)));
    j["calibration"] = calibration;
    return j;
}

} // namespace

class TestCalibrationSection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void absentWhenEmpty();
    void malformed_data();
    void malformed();
};

void TestCalibrationSection::roundTrip()
{
    Scenario s = fixtures::smallDense(1, 8, fixtures::degrees(8));
    s.calibration = sample();
    const Scenario back = parseScenario(scenarioToText(s));
    QVERIFY(back.calibration == s.calibration);
    QVERIFY(back == s);
    const json j = scenarioToJson(s).at("calibration");
    QCOMPARE(j.at("version").get<int>(), 1);
    QCOMPARE(j.at("tiers").at(0).at("algorithm").get<std::string>(), std::string("any"));
    QCOMPARE(j.at("tiers").at(1).at("tier").get<std::string>(), std::string("leaf"));
    QVERIFY(!j.at("tiers").at(1).contains("step_latency_us")); // not calibrated: not written
}

void TestCalibrationSection::absentWhenEmpty()
{
    const json j = scenarioToJson(fixtures::smallDense(1, 8, fixtures::degrees(8)));
    QVERIFY(!j.contains("calibration"));
}

void TestCalibrationSection::malformed_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("message");
    QTest::newRow("newer version") << "version=2" << "calibration.version: calibration section version 2 is newer";
    QTest::newRow("unknown key") << "bogus" << "calibration.bogus: unknown field";
    QTest::newRow("no tiers") << "tiers=[]" << "calibration.tiers: a calibration needs at least one fitted tier";
    QTest::newRow("bad tier") << "tier=rack" << "calibration.tiers[0].tier:";
    QTest::newRow("bad algorithm") << "algorithm=fast" << "calibration.tiers[0].algorithm: \"fast\" is not one of";
    QTest::newRow("calibrates nothing") << "nothing" << "calibration.tiers[0]: calibrates nothing";
    QTest::newRow("twice") << "twice" << "calibration.tiers[1]: tier scale_up / any is calibrated twice";
    QTest::newRow("negative alpha") << "alpha=-1" << "calibration.tiers[0].step_latency_us:";
    QTest::newRow("short point") << "point" << "calibration.runs[0].points[0]: expected [bytes, measured_us";
    QTest::newRow("zero time") << "zerotime" << "calibration.runs[0].points[0][1]:";
}

void TestCalibrationSection::malformed()
{
    QFETCH(QString, edit);
    QFETCH(QString, message);
    json c = scenarioToJson([] {
        Scenario x = fixtures::smallDense(1, 8, fixtures::degrees(8));
        x.calibration = sample();
        return x;
    }()).at("calibration");
    if (edit == QLatin1String("version=2"))
        c["version"] = 2;
    else if (edit == QLatin1String("bogus"))
        c["bogus"] = 1;
    else if (edit == QLatin1String("tiers=[]"))
        c["tiers"] = json::array();
    else if (edit == QLatin1String("tier=rack"))
        c["tiers"][0]["tier"] = "rack";
    else if (edit == QLatin1String("algorithm=fast"))
        c["tiers"][0]["algorithm"] = "fast";
    else if (edit == QLatin1String("nothing")) {
        c["tiers"][0].erase("step_latency_us");
        c["tiers"][0].erase("bandwidth_scale");
    } else if (edit == QLatin1String("twice"))
        c["tiers"][1] = c["tiers"][0];
    else if (edit == QLatin1String("alpha=-1"))
        c["tiers"][0]["step_latency_us"] = -1;
    else if (edit == QLatin1String("point"))
        c["runs"][0]["points"][0] = json::array({ 8192, 20.5 });
    else if (edit == QLatin1String("zerotime"))
        c["runs"][0]["points"][0][1] = 0.0;
    try {
        scenarioFromJson(withCalibration(c));
        QFAIL("a malformed calibration section loaded");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(message), e.what());
    }
}

QTEST_GUILESS_MAIN(TestCalibrationSection)
#include "tst_calibrationsection.moc"
