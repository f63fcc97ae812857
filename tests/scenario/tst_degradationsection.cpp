// The scenario file's "degradations" section (model/scenario/degradationsection.cpp): a save and
// load give back the same parts, a scenario without it writes none and stays byte-identical,
// and every malformed part is refused with its field path.
#include "base/scenarioerror.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"

#include <QFile>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace railyard;
using nlohmann::json;

namespace {

json withParts(const json &parts)
{
    json j = scenarioToJson(fixtures::seed128());
    j["degradations"] = { { "version", 1 }, { "parts", parts } };
    return j;
}

} // namespace

class TestDegradationSection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void filesWithoutItStayByteIdentical();
    void malformed_data();
    void malformed();
};

void TestDegradationSection::roundTrip()
{
    const json parts = json::parse(R"([
        {"id": "gpu:17", "compute_speed": 0.8},
        {"id": "server:3", "compute_speed": 0.9},
        {"id": "nic:5", "bandwidth_gbps": 200, "added_latency_us": 2},
        {"id": "link:240", "bandwidth_factor": 0.5}])");
    const Scenario s = scenarioFromJson(withParts(parts));
    QCOMPARE(s.degradations.parts.size(), std::size_t { 4 });
    QCOMPARE(s.degradations.parts[0].kind, Degradation::Kind::Gpu);
    QCOMPARE(s.degradations.parts[0].index, 17);
    QCOMPARE(s.degradations.parts[0].computeSpeed, 0.8);
    QCOMPARE(s.degradations.parts[1].kind, Degradation::Kind::Server);
    QCOMPARE(s.degradations.parts[2].bandwidthGbps, 200.0);
    QCOMPARE(s.degradations.parts[2].addedLatencyUs, 2.0);
    QCOMPARE(s.degradations.parts[3].kind, Degradation::Kind::Link);
    QCOMPARE(s.degradations.parts[3].bandwidthFactor, 0.5);
    const Scenario back = parseScenario(scenarioToText(s));
    QVERIFY(back == s);
    QCOMPARE(scenarioToJson(back).at("degradations").at("parts"), parts);
}

void TestDegradationSection::filesWithoutItStayByteIdentical()
{
    QVERIFY(!scenarioToJson(fixtures::seed128()).contains("degradations"));
    for (const char *name :
        { "seed-128.json", "seed-128-degraded.json", "mixtral-ep8-zipf.json" }) {
        QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const std::string text = f.readAll().toStdString();
        const Scenario s = parseScenario(text);
        QVERIFY(s.degradations.empty());
        QVERIFY2(scenarioToText(s) == text, name);
    }
}

void TestDegradationSection::malformed_data()
{
    QTest::addColumn<QString>("part");
    QTest::addColumn<QString>("message");
    QTest::newRow("speed 0") << R"({"id": "gpu:3", "compute_speed": 0})"
                             << "degradations.parts[0].compute_speed: ";
    QTest::newRow("speed above 1") << R"({"id": "gpu:3", "compute_speed": 1.5})"
                                   << "degradations.parts[0].compute_speed: ";
    QTest::newRow("speed missing") << R"({"id": "server:2"})"
                                   << "degradations.parts[0].compute_speed: required for server:2";
    QTest::newRow("gpu outside") << R"({"id": "gpu:128", "compute_speed": 0.5})"
                                 << "degradations.parts[0].id: gpu:128 does not exist (the fabric "
                                    "has 128 GPU slots, 0..127)";
    QTest::newRow("nic outside") << R"({"id": "nic:999", "bandwidth_factor": 0.5})"
                                 << "degradations.parts[0].id: nic:999 does not exist";
    QTest::newRow("unknown kind") << R"({"id": "spine:1", "bandwidth_factor": 0.5})"
                                  << "degradations.parts[0].id: unknown component kind 'spine'";
    QTest::newRow("leaf as a whole") << R"({"id": "leaf:1", "bandwidth_factor": 0.5})"
                                     << "degradations.parts[0].id: a leaf cannot be degraded as a "
                                        "whole";
    QTest::newRow("bad link id") << R"({"id": "link:x", "bandwidth_factor": 0.5})"
                                 << "degradations.parts[0].id: expected a non-negative whole index "
                                    "after 'link:'";
    QTest::newRow("factor 0") << R"({"id": "nic:3", "bandwidth_factor": 0})"
                              << "degradations.parts[0].bandwidth_factor: ";
    QTest::newRow("factor above 1") << R"({"id": "link:3", "bandwidth_factor": 2})"
                                    << "degradations.parts[0].bandwidth_factor: ";
    QTest::newRow("both speeds")
        << R"({"id": "nic:3", "bandwidth_factor": 0.5, "bandwidth_gbps": 100})"
        << "degradations.parts[0].bandwidth_factor: give bandwidth_gbps or bandwidth_factor, not "
           "both";
    QTest::newRow("nothing degraded") << R"({"id": "nic:3"})"
                                      << "degradations.parts[0]: nic:3 needs bandwidth_gbps";
    QTest::newRow("negative latency") << R"({"id": "nic:3", "added_latency_us": -1})"
                                      << "degradations.parts[0].added_latency_us: ";
    QTest::newRow("speed on a nic") << R"({"id": "nic:3", "compute_speed": 0.5})"
                                    << "degradations.parts[0].compute_speed: a nic part takes";
    QTest::newRow("bandwidth on a gpu") << R"({"id": "gpu:3", "bandwidth_gbps": 100})"
                                        << "degradations.parts[0].bandwidth_gbps: a gpu part takes "
                                           "compute_speed only";
    QTest::newRow("unknown field") << R"({"id": "gpu:3", "speed": 0.5})"
                                   << "degradations.parts[0].speed: unknown field";
}

void TestDegradationSection::malformed()
{
    QFETCH(QString, part);
    QFETCH(QString, message);
    try {
        scenarioFromJson(withParts(json::array({ json::parse(part.toStdString()) })));
        QFAIL("a malformed degradations section loaded");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(message), e.what());
    }
    // The section's own rules.
    json j = withParts(json::parse(R"([{"id": "gpu:3", "compute_speed": 0.5},
                                       {"id": "gpu:3", "compute_speed": 0.6}])"));
    try {
        scenarioFromJson(j);
        QFAIL("a part listed twice loaded");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.what()),
            QStringLiteral("degradations.parts[1].id: duplicate part \"gpu:3\" (already "
                           "degradations.parts[0])"));
    }
    j["degradations"]["version"] = 2;
    try {
        scenarioFromJson(j);
        QFAIL("a newer section loaded");
    } catch (const ScenarioError &e) {
        QVERIFY(QString::fromStdString(e.what()).startsWith(
            "degradations.version: section version 2 is newer"));
    }
}

QTEST_GUILESS_MAIN(TestDegradationSection)
#include "tst_degradationsection.moc"
