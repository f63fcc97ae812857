// The scenario file's "nccl_observed" section (model/scenario/ncclobservedsection.cpp): a save
// and load give back the same section (version 2, with the NICs of each logged hop), a version 1
// section (rings only) still reads and is written back as it was, a scenario without it writes
// none and stays byte-identical through a load and save, and every malformed section is refused
// with its field path.
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
    // Rank 1 (slot 4) sends ring 0's hop to rank 2 over NIC 5; ring 1's hop from rank 2 arrives
    // at rank 1 over NIC 5 through PXN on the sender's side.
    c.nics = { { 0, 1, 5, 0, false }, { 1, 2, 0, 5, true } };
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
    void versionOneStillReads();
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
    QCOMPARE(j.at("version").get<int>(), 2);
    QCOMPARE(j.at("comms").at(0).at("rings").at(1), json::array({ 0, 3, 2, 1 }));
    QCOMPARE(j.at("comms").at(0).at("nics").at(1),
        json::parse(R"({"channel": 1, "rank": 2, "send": 0, "receive": 5, "pxn": true})"));
}

void TestNcclObservedSection::versionOneStillReads()
{
    // A section as version 1 wrote it (rings, no NICs) loads with no NIC and is written back
    // exactly as it was read: its version stays 1, no "nics" key appears.
    json v1 = scenarioToJson([] {
        Scenario x = fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4));
        x.ncclObserved = observedSample();
        return x;
    }())
                  .at("nccl_observed");
    v1["version"] = 1;
    v1["comms"][0].erase("nics");
    const Scenario s = scenarioFromJson(withObserved(v1));
    QCOMPARE(s.ncclObserved.version, 1);
    QVERIFY(s.ncclObserved.comms.at(0).nics.empty());
    QCOMPARE(s.ncclObserved.comms.at(0).rings.size(), std::size_t(2));
    QCOMPARE(scenarioToJson(s).at("nccl_observed"), v1);
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
    QTest::newRow("newer version") << "version=3"
                                   << "nccl_observed.version: section version 3 is newer";
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
    QTest::newRow("nics in version 1") << "v1-nics"
                                       << "nccl_observed.comms[0].nics: needs section version 2";
    QTest::newRow("nic channel outside") << "channel=2"
                                         << "nccl_observed.comms[0].nics[0].channel:";
    QTest::newRow("nic rank outside") << "rank=4"
                                      << "nccl_observed.comms[0].nics[0].rank:";
    QTest::newRow("nic past the servers' NICs") << "send=8"
                                                << "nccl_observed.comms[0].nics[0].send:";
    QTest::newRow("nic below -1") << "receive=-2"
                                  << "nccl_observed.comms[0].nics[0].receive:";
    QTest::newRow("nic names none") << "none"
                                    << "nccl_observed.comms[0].nics[0]: names no NIC";
    QTest::newRow("pxn without send")
        << "pxn"
        << "nccl_observed.comms[0].nics[0].pxn: PXN needs the NIC it sends over";
    QTest::newRow("hop twice") << "twice"
                               << "nccl_observed.comms[0].nics[1]: the hop of channel 0 from "
                                  "rank 1 is listed twice";
    QTest::newRow("nic unknown key") << "nic-bogus"
                                     << "nccl_observed.comms[0].nics[0].bogus: unknown field";
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
    json &hop = c["comms"][0]["nics"][0];
    if (edit == QLatin1String("version=3"))
        c["version"] = 3;
    else if (edit == QLatin1String("v1-nics"))
        c["version"] = 1;
    else if (edit == QLatin1String("channel=2"))
        hop["channel"] = 2;
    else if (edit == QLatin1String("rank=4"))
        hop["rank"] = 4;
    else if (edit == QLatin1String("send=8"))
        hop["send"] = 8; // the 2 x 8 fabric's servers have NICs 0..7
    else if (edit == QLatin1String("receive=-2"))
        hop["receive"] = -2;
    else if (edit == QLatin1String("none"))
        hop["send"] = hop["receive"] = -1;
    else if (edit == QLatin1String("pxn")) {
        hop["send"] = -1;
        hop["pxn"] = true;
    } else if (edit == QLatin1String("twice"))
        c["comms"][0]["nics"][1] = hop;
    else if (edit == QLatin1String("nic-bogus"))
        hop["bogus"] = 1;
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
