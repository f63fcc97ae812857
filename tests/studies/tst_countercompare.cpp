// The port counter comparison (model/studies/countercompare.h) on synthetic dumps whose
// answers are known: counters equal to the prediction agree; one hot uplink beside idle
// siblings and one dead NIC link rank first and second with their causes; uplink traffic on a
// rail-optimised job that predicts none is "unpredicted"; ports map through server and NIC
// names, a mapping file and the cabling inventory.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/fabric.h"
#include "fixtures.h"
#include "io/cablingcsv.h"
#include "io/portcounters.h"
#include "studies/countercompare.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <string>

using namespace railyard;

namespace {

/// A port whose tx loads `txLink` at utilisation `txU` and whose rx loads its reverse at `rxU`.
PortRate rateOf(const Fabric &f, const std::string &host, const std::string &device,
    const std::string &port, int txLink, double txU, double rxU)
{
    PortRate r;
    r.host = host;
    r.device = device;
    r.port = port;
    r.txRate = txU * f.linkBandwidth(txLink);
    r.rxRate = rxU * f.linkBandwidth(f.link(txLink).reverse);
    r.window = 10.0;
    r.where = "synthetic:1";
    return r;
}

/// The links leaving vertex v towards nodes of `kind`.
std::vector<int> linksTo(const Fabric &f, int v, NodeKind kind)
{
    std::vector<int> out;
    for (auto [it, end] = boost::out_edges(static_cast<FabricVertex>(v), f.graph()); it != end;
         ++it) {
        const FabricLink &l = f.link(f.graph()[*it].id);
        if (f.node(l.dst).kind == kind)
            out.push_back(l.id);
    }
    return out;
}

} // namespace

class TestCounterCompare : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void hotUplinkAndDeadLinkRankFirst();
    void unpredictedUplinkTrafficOnARailJob();
    void countersThroughTheReaderAndCabling();
    void switchPortsThroughTheCablingInventory();
    void nicNamesFromATopologyImport();
    void unknownMapNodesAndNothingMappedAreRefused();
};

void TestCounterCompare::hotUplinkAndDeadLinkRankFirst()
{
    // Four servers, each on its own top-of-rack leaf with four spines above: the DP all-reduce
    // (DP 32, one GPU a replica) crosses the spines; every NIC and uplink ~20 % loaded.
    Scenario s = fixtures::smallDense(4, 8, fixtures::degrees(1, 1, 32), FabricKind::Tor);
    s.fabric.serversPerLeaf = 1;
    s.fabric.spines = 4;
    s.fabric.nic.gbps = 50.0; // slow links: a small job loads them visibly
    s.fabric.fabricPort.gbps = 50.0;
    CostEngine engine(s);
    const Fabric &f = engine.fabric();
    const CostReport &report = engine.report();
    std::vector<PortRate> rates;
    PortMap map;
    map.file = "map.csv";
    // Every NIC: measured = predicted within 2 % (an alternating pattern), except the NIC
    // link with the highest prediction, which is dead.
    int dead = -1;
    for (int srv = 0; srv < f.servers(); ++srv) {
        for (int n = 0; n < f.nicsPerServer(); ++n) {
            const int up = linksTo(f, f.nicVertex(srv, n), NodeKind::Leaf).front();
            if (dead < 0 || report.utilisation(up) > report.utilisation(dead))
                dead = up;
        }
    }
    QVERIFY2(report.utilisation(dead) > 0.08, "the job must load its NICs");
    for (int srv = 0; srv < f.servers(); ++srv) {
        for (int n = 0; n < f.nicsPerServer(); ++n) {
            const int up = linksTo(f, f.nicVertex(srv, n), NodeKind::Leaf).front();
            const int down = f.link(up).reverse;
            const double k = (srv + n) % 2 ? 1.02 : 0.98;
            const bool isDead = up == dead;
            rates.push_back(rateOf(f, f.serverName(srv), "mlx5_" + std::to_string(n), "1", up,
                isDead ? 0.0 : report.utilisation(up) * k,
                isDead ? 0.0 : report.utilisation(down) * k));
        }
    }
    // Every leaf's uplinks through a mapping file, as a switch exporter names them ("upN").
    int hot = -1;
    double hotPredicted = 0.0;
    for (int leaf = 0; leaf < f.leafCount(); ++leaf) {
        const std::vector<int> ups = linksTo(f, f.leafVertex(leaf), NodeKind::Spine);
        QVERIFY(ups.size() >= 2);
        for (std::size_t i = 0; i < ups.size(); ++i) {
            const FabricLink &l = f.link(ups[i]);
            const std::string sw = f.node(l.src).name;
            map.entries.push_back({ sw, "", "up" + std::to_string(i), sw, f.node(l.dst).name,
                static_cast<int>(map.entries.size()) + 1 });
            double u = report.utilisation(ups[i]);
            if (leaf == 1 && i == 0) {
                QVERIFY2(u > 0.05 && u < 0.4, "the hot uplink's prediction must leave room");
                hot = ups[i];
                hotPredicted = u;
                u += 0.5; // several flows hashed onto this one path
            }
            rates.push_back(rateOf(
                f, sw, "", "up" + std::to_string(i), ups[i], u, report.utilisation(l.reverse)));
        }
    }
    // One NIC a little above prediction: a divergence, but a smaller one.
    rates[3].txRate
        += 0.08 * f.linkBandwidth(linksTo(f, f.nicVertex(0, 3), NodeKind::Leaf).front());

    const CounterComparison c = compareCounters(rates, &map, f, report);
    QVERIFY(c.unmapped.empty());
    QCOMPARE(c.links.size(),
        std::size_t(2 * (f.servers() * f.nicsPerServer()))
            + 2 * std::size_t(f.leafCount()) * linksTo(f, f.leafVertex(0), NodeKind::Spine).size());
    QVERIFY(c.divergences.size() >= 2);
    // The dead cable ranks by its direction that differs most: either may be named.
    const auto it = std::find_if(
        c.divergences.begin(), c.divergences.begin() + 2, [&](const CounterDivergence &d) {
            return d.link == dead || d.link == f.link(dead).reverse;
        });
    QVERIFY2(it != c.divergences.begin() + 2, c.divergences[0].text.c_str());
    QCOMPARE(it->cause, DivergenceCause::IdleNic);
    QCOMPARE(it->measured, 0.0);
    const auto h = std::find_if(c.divergences.begin(), c.divergences.begin() + 2,
        [&](const CounterDivergence &d) { return d.link == hot; });
    QVERIFY2(h != c.divergences.begin() + 2, c.divergences[0].text.c_str());
    QCOMPARE(h->cause, DivergenceCause::EcmpCollision);
    QVERIFY(std::abs(h->measured - (hotPredicted + 0.5)) < 1e-9);
    QVERIFY(std::abs(h->score - 0.5) < 1e-9);
    QVERIFY2(h->text.find("ECMP collision") != std::string::npos, h->text.c_str());
    // Ranked largest first.
    for (std::size_t i = 1; i < c.divergences.size(); ++i)
        QVERIFY(c.divergences[i - 1].score >= c.divergences[i].score);
    const nlohmann::json j = counterComparisonJson(f, c);
    QCOMPARE(j["divergences"][0]["rank"].get<int>(), 1);
    QVERIFY(j["divergences"][0]["cause"] == "ecmp-collision"
        || j["divergences"][0]["cause"] == "idle-nic");
}

void TestCounterCompare::unpredictedUplinkTrafficOnARailJob()
{
    // seed-128 keeps every DP group on its rail: no uplink load is predicted.
    CostEngine engine(fixtures::seed128());
    const Fabric &f = engine.fabric();
    const int up = linksTo(f, f.leafVertex(2), NodeKind::Spine).front();
    QCOMPARE(engine.report().utilisation(up), 0.0);
    PortMap map;
    map.file = "m.csv";
    map.entries.push_back(
        { "*", "leafsw", "7", f.node(f.link(up).src).name, f.node(f.link(up).dst).name, 4 });
    const CounterComparison c = compareCounters(
        { rateOf(f, "x", "leafsw", "7", up, 0.3, 0.0) }, &map, f, engine.report());
    QCOMPARE(c.divergences.size(), std::size_t(1));
    QCOMPARE(c.divergences[0].cause, DivergenceCause::UnpredictedTraffic);
    QCOMPARE(c.divergences[0].link, up);
    QVERIFY(std::abs(c.divergences[0].measured - 0.3) < 1e-12);
}

void TestCounterCompare::countersThroughTheReaderAndCabling()
{
    // node003's mlx5_2 by name (no map); bytes over a 10 s window from the CSV.
    CostEngine engine(fixtures::seed128());
    const Fabric &f = engine.fabric();
    const int up = linksTo(f, f.nicVertex(3, 2), NodeKind::Leaf).front();
    const double bytes = 10.0 * 0.25 * f.linkBandwidth(up);
    const PortCounterFile file = parsePortCounters(f.serverName(3) + ",mlx5_2,1,"
            + std::to_string(bytes) + ",0,10\n" + "node999,mlx5_0,1,5,5,10\n",
        "c.csv");
    const CounterComparison c
        = compareCounters(portRates({ file }, 0.0), nullptr, f, engine.report());
    QCOMPARE(c.unmapped.size(), std::size_t(1));
    QVERIFY2(c.unmapped[0].find("node999/mlx5_0:1 (c.csv:2)") == 0, c.unmapped[0].c_str());
    const auto m = std::find_if(
        c.links.begin(), c.links.end(), [&](const MeasuredLink &l) { return l.link == up; });
    QVERIFY(m != c.links.end());
    QVERIFY(std::abs(m->measured - 0.25) < 1e-6);
    QCOMPARE(m->predicted, engine.report().utilisation(up));
    QCOMPARE(measuredUtilisation(c, f.linkCount())[static_cast<std::size_t>(up)], m->measured);
    QVERIFY(std::isnan(measuredUtilisation(c, f.linkCount())[0]));
}

void TestCounterCompare::switchPortsThroughTheCablingInventory()
{
    // samples/cabling-2su.csv: "leaf-su1-r0,swp33,spine-01,swp1,400,0.6" is one of the four
    // cables of the leaf-su1-r0 -> spine-01 bundle; a switch exporter names that port.
    Scenario s = fixtures::seed128();
    importCabling(s.fabric, loadCablingCsv(RAILYARD_SOURCE_DIR "/samples/cabling-2su.csv"), {});
    CostEngine engine(s);
    const Fabric &f = engine.fabric();
    int leaf = -1, spine = -1;
    for (std::size_t v = 0; v < boost::num_vertices(f.graph()); ++v) {
        if (f.graph()[v].name == "leaf-su1-r0")
            leaf = static_cast<int>(v);
        if (f.graph()[v].name == "spine-01")
            spine = static_cast<int>(v);
    }
    const int up = f.linkBetween(leaf, spine);
    QVERIFY(up >= 0);
    PortRate port;
    port.host = "leaf-su1-r0";
    port.port = "swp33";
    port.txRate = 1e9;
    port.rxRate = 2e9;
    port.window = 10.0;
    PortRate nic; // a server NIC by its cable's device name
    nic.host = f.serverName(0);
    nic.device = "mlx5_3";
    nic.port = "1";
    nic.txRate = 3e9;
    nic.window = 10.0;
    const CounterComparison c = compareCounters({ port, nic }, nullptr, f, engine.report());
    QVERIFY(c.unmapped.empty());
    const auto at = [&](int link) {
        const auto it = std::find_if(
            c.links.begin(), c.links.end(), [&](const MeasuredLink &m) { return m.link == link; });
        return it == c.links.end() ? -1.0 : it->rate;
    };
    QCOMPARE(at(up), 1e9);
    QCOMPARE(at(f.link(up).reverse), 2e9);
    QCOMPARE(at(f.linkBetween(f.nicVertex(0, 3), f.leafVertex(f.leafOfNic(0, 3)))), 3e9);
}

void TestCounterCompare::nicNamesFromATopologyImport()
{
    // fabric.nic_devices as import-topology writes it: the RDMA names in NIC order, which need
    // not end in the NIC index (mlx5_6 is NIC 4 here) and may be network interface names.
    Scenario s = fixtures::seed128();
    s.fabric.nicDevices
        = { "mlx5_0", "mlx5_1", "mlx5_2", "mlx5_3", "mlx5_6", "mlx5_7", "ens9f0np0", "mlx5_9" };
    CostEngine engine(s);
    const Fabric &f = engine.fabric();
    const auto port = [&](const std::string &device, double tx) {
        PortRate r;
        r.host = f.serverName(1);
        r.device = device;
        r.port = "1";
        r.txRate = tx;
        r.window = 10.0;
        return r;
    };
    const CounterComparison c
        = compareCounters({ port("mlx5_6", 1e9), port("ens9f0np0", 2e9), port("eth0", 3e9) },
            nullptr, f, engine.report());
    const auto rateOn = [&](int nic) {
        const int link = linksTo(f, f.nicVertex(1, nic), NodeKind::Leaf).front();
        const auto it = std::find_if(
            c.links.begin(), c.links.end(), [&](const MeasuredLink &m) { return m.link == link; });
        return it == c.links.end() ? -1.0 : it->rate;
    };
    QCOMPARE(rateOn(4), 1e9);
    QCOMPARE(rateOn(6), 2e9);
    QCOMPARE(rateOn(0), -1.0); // eth0's trailing 0 names no NIC: it is not listed
    QCOMPARE(c.unmapped.size(), std::size_t(1));
    QVERIFY2(c.unmapped[0].find("/eth0:1") != std::string::npos, c.unmapped[0].c_str());
}

void TestCounterCompare::unknownMapNodesAndNothingMappedAreRefused()
{
    CostEngine engine(fixtures::seed128());
    const Fabric &f = engine.fabric();
    PortMap map;
    map.file = "m.csv";
    map.entries.push_back({ "*", "lo", "", "node000/nic0", "no-such-switch", 3 });
    PortRate lo;
    lo.device = "lo";
    lo.window = 1.0;
    try {
        (void)compareCounters({ lo }, &map, f, engine.report());
        QFAIL("an unknown node was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(
            std::string(e.what()).rfind("m.csv:3: no fabric node is named \"no-such-switch\"", 0)
                == 0,
            e.what());
    }
    try {
        (void)compareCounters({ lo }, nullptr, f, engine.report());
        QFAIL("nothing mapped was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("none of the 1 ports maps to a fabric link")
                != std::string::npos,
            e.what());
    }
}

QTEST_GUILESS_MAIN(TestCounterCompare)
#include "tst_countercompare.moc"
