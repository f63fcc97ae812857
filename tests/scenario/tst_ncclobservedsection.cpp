// The scenario file's "nccl_observed" section (model/scenario/ncclobservedsection.cpp): a save
// and load give back the same section, a scenario without it writes none and stays
// byte-identical through a load and save, and every malformed section is refused with its
// field path.
#include "base/scenarioerror.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"

#include <QFile>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace railyard;
using nlohmann::json;

namespace {

NcclObservedSpec observedSample()
{
    NcclObservedSpec o;
    o.readAt = "2026-12-06T10:40:00Z";
    o.files = { "job.log" };
    NcclObservedComm c;
    c.id = "0x5c31e0a2d4f78b16";
    c.group = "dp 0";
    c.slots = { 0, 4, 8, 12 };
    c.rings = { { 0, 1, 2, 3 }, { 0, 3, 2, 1 } };
    o.comms = { c };
    return o;
}

json withObserved(const json &observed)
{
    json j = scenarioToJson(fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4)));
    j["nccl_observed"] = observed;
    return j;
}

} // namespace

class TestNcclObservedSection : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void filesWithoutItStayByteIdentical();
    void malformed_data();
    void malformed();
};

void TestNcclObservedSection::roundTrip()
{
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4));
    s.ncclObserved = observedSample();
    const Scenario back = parseScenario(scenarioToText(s));
    QVERIFY(back.ncclObserved == s.ncclObserved);
    QVERIFY(back == s);
    const json j = scenarioToJson(s).at("nccl_observed");
    QCOMPARE(j.at("version").get<int>(), 1);
    QCOMPARE(j.at("comms").at(0).at("rings").at(1), json::array({ 0, 3, 2, 1 }));
}

void TestNcclObservedSection::filesWithoutItStayByteIdentical()
{
    QVERIFY(!scenarioToJson(fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4)))
                 .contains("nccl_observed"));
    // Every sample written before the section existed is written back byte for byte.
    for (const char *name : { "seed-128.json", "dgx-h100-1su.json", "mixtral-ep8-zipf.json" }) {
        QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name));
        QVERIFY(f.open(QIODevice::ReadOnly));
        const std::string text = f.readAll().toStdString();
        const Scenario s = parseScenario(text);
        QVERIFY(s.ncclObserved.empty());
        QCOMPARE(parseScenario(scenarioToText(s)), s);
        QVERIFY2(scenarioToText(s) == text, name);
    }
}

void TestNcclObservedSection::malformed_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("message");
    QTest::newRow("newer version") << "version=2"
                                   << "nccl_observed.version: section version 2 is newer";
    QTest::newRow("unknown key") << "bogus"
                                 << "nccl_observed.bogus: unknown field";
    QTest::newRow("no comms") << "comms=[]"
                              << "nccl_observed.comms: at least one communicator is needed";
    QTest::newRow("slot outside") << "slot=99"
                                  << "nccl_observed.comms[0].slots[3]:";
    QTest::newRow("slot twice") << "slot=0"
                                << "nccl_observed.comms[0].slots: a slot is listed twice";
    QTest::newRow("ring no order")
        << "ring=0013"
        << "nccl_observed.comms[0].rings[0]: is no order of the communicator's ranks 0..3";
    QTest::newRow("ring short") << "ring=012"
                                << "nccl_observed.comms[0].rings[0]: is no order";
    QTest::newRow("no rings") << "rings=[]"
                              << "nccl_observed.comms[0].rings: at least one ring is needed";
}

void TestNcclObservedSection::malformed()
{
    QFETCH(QString, edit);
    QFETCH(QString, message);
    json c = scenarioToJson([] {
        Scenario x = fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4));
        x.ncclObserved = observedSample();
        return x;
    }())
                 .at("nccl_observed");
    if (edit == QLatin1String("version=2"))
        c["version"] = 2;
    else if (edit == QLatin1String("bogus"))
        c["bogus"] = 1;
    else if (edit == QLatin1String("comms=[]"))
        c["comms"] = json::array();
    else if (edit == QLatin1String("slot=99"))
        c["comms"][0]["slots"][3] = 99;
    else if (edit == QLatin1String("slot=0"))
        c["comms"][0]["slots"][3] = 0;
    else if (edit == QLatin1String("ring=0013"))
        c["comms"][0]["rings"][0] = json::array({ 0, 0, 1, 3 });
    else if (edit == QLatin1String("ring=012"))
        c["comms"][0]["rings"][0] = json::array({ 0, 1, 2 });
    else if (edit == QLatin1String("rings=[]"))
        c["comms"][0]["rings"] = json::array();
    try {
        scenarioFromJson(withObserved(c));
        QFAIL("a malformed nccl_observed section loaded");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(message), e.what());
    }
}

QTEST_GUILESS_MAIN(TestNcclObservedSection)
#include "tst_ncclobservedsection.moc"
