// Pricing the bill of materials (model/studies/bomcost.h) and the parts catalogue
// (scenario/cataloguesection.h): capital, network and GPU power and the per-iteration figures
// against hand-derived sums on a small fabric, the job's share of a fabric it half uses, an
// edited price moving the capital by count x difference, an unpriced line named, every default
// sourced or illustrative, round trips (catalogue file, scenario section) and refusals naming
// the field path.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "fabric/bom.h"
#include "fixtures.h"
#include "scenario/cataloguesection.h"
#include "scenario/scenariofile.h"
#include "studies/bomcost.h"
#include "studies/bomreport.h"

#include <QTemporaryDir>
#include <QTest>

#include <cmath>
#include <fstream>

using namespace railyard;

namespace {

CataloguePart testPart(std::string id, PartKind kind, double price, double typical, double max)
{
    CataloguePart p;
    p.id = std::move(id);
    p.kind = kind;
    p.priceUsd = price;
    p.typicalW = typical;
    p.maxW = max;
    p.source = "test figures";
    return p;
}

/// Round numbers for every part the 4-server fabric below needs.
PartsCatalogue testCatalogue()
{
    PartsCatalogue c;
    c.name = "test";
    CataloguePart gpu = testPart("gpu", PartKind::Gpu, 10000, 100, 700);
    gpu.device = "h100-sxm";
    CataloguePart host = testPart("host", PartKind::Server, 5000, 500, 800);
    host.gpus = 2;
    CataloguePart nic = testPart("nic", PartKind::Nic, 1000, 20, 25);
    nic.gbps = 400;
    CataloguePart sw = testPart("switch", PartKind::Switch, 20000, 300, 400);
    sw.radix = 8;
    sw.gbps = 400;
    CataloguePart copper = testPart("copper", PartKind::Cable, 100, 0, 0);
    copper.cableClass = CableClass::Copper;
    copper.gbps = 400;
    CataloguePart fibre = testPart("fibre", PartKind::Cable, 50, 0, 0);
    fibre.cableClass = CableClass::Optics;
    fibre.gbps = 400;
    CataloguePart optic = testPart("optic", PartKind::Transceiver, 500, 10, 12);
    optic.gbps = 400;
    c.parts = { gpu, host, nic, sw, copper, fibre, optic,
        testPart("rack", PartKind::Rack, 2000, 0, 0) };
    c.economics.electricityUsdPerKwh = 0.1;
    c.economics.pue = 1.5;
    c.economics.amortisationYears = 1.0;
    return c;
}

/// 4 servers x 2 GPUs, 2 servers an SU, radix 8 (tst_fabric's "rail 2-tier one spine"): 4 rail
/// leaves of 2 down + 2 up ports, 1 spine of 8. One compute rack holds the 4 servers and,
/// since every leaf's servers sit in it, the 4 leaves; the spine has a network rack in a row
/// of its own. So: 8 NIC-leaf copper cables, 8 leaf-spine optics with 16 transceivers, 2 racks.
Scenario smallScenario(int dp)
{
    Scenario s = fixtures::smallDense(4, 2, fixtures::degrees(2, 1, dp));
    s.fabric = fixtures::railFabric(4, 2, 2, 8);
    return s;
}

double busyOf(const Scenario &s, const CostReport &r)
{
    const double microbatches = s.training.globalBatch / (s.training.microBatch * s.degrees.dp);
    double sum = 0.0;
    for (const StageReport &st : r.stages)
        sum += microbatches * (st.computeForward + st.computeBackward);
    return sum / static_cast<double>(r.stages.size()) / r.iterationTime;
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b));
}

std::string fieldOf(const std::string &text)
{
    try {
        cataloguesection::parseCatalogueText(text);
    } catch (const ScenarioError &e) {
        return e.field();
    }
    return "(accepted)";
}

} // namespace

class TestBomCost : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void handDerivedSums();
    void jobShareOfAFabric();
    void editedPriceMovesCapital();
    void unpricedLineIsNamed();
    void defaultsAreSourcedOrIllustrative();
    void catalogueRoundTrips();
    void scenarioSectionRoundTrips();
    void refusals_data();
    void refusals();
    void fileErrorsNameTheFile();
};

void TestBomCost::handDerivedSums()
{
    const Scenario s = smallScenario(4);
    CostEngine engine(s);
    const PartsCatalogue c = testCatalogue();
    const BillOfMaterials bom = billOfMaterials(engine.fabric(), c.rules);
    QCOMPARE(bom.cableCount(), std::int64_t { 16 });
    QCOMPARE(bom.transceiverCount(), std::int64_t { 16 });
    QCOMPARE(bom.racks.size(), std::size_t { 2 });
    const BomCost cost = priceBom(bom, c, s, engine.report());
    QVERIFY2(cost.unpriced.empty(), cost.unpriced.empty() ? "" : cost.unpriced.front().c_str());
    // 8 GPUs x 10k + 4 hosts x 5k + 8 NICs x 1k + 5 switches x 20k + 8 copper x 100
    // + 8 fibres x 50 + 16 transceivers x 500 + 2 racks x 2k.
    QCOMPARE(cost.capexUsd, 221200.0);
    QCOMPARE(cost.networkCapexUsd, 117200.0); // NICs, switches, cables, transceivers
    QCOMPARE(cost.networkTypicalW, 8 * 20.0 + 5 * 300.0 + 16 * 10.0);
    QCOMPARE(cost.networkMaxW, 8 * 25.0 + 5 * 400.0 + 16 * 12.0);
    QCOMPARE(cost.hostTypicalW, 2000.0);

    const CostReport &r = engine.report();
    const double busy = busyOf(s, r);
    QVERIFY(busy > 0.05 && busy < 1.0);
    QVERIFY(near(cost.busyFraction, busy));
    QVERIFY(near(cost.gpuW, 100.0 + 600.0 * busy));
    const double power = 8 * cost.gpuW + 1820.0 + 2000.0;
    QVERIFY(near(cost.fabric.powerW, power));
    const double kwh = power * r.iterationTime / 3.6e6;
    QVERIFY(near(cost.fabric.kwhPerIteration, kwh));
    const double usd = kwh * 1.5 * 0.1 + 221200.0 / (365.25 * 86400.0) * r.iterationTime;
    QVERIFY(near(cost.fabric.usdPerIteration, usd));
    const double tokens = s.training.globalBatch * 2048.0;
    QCOMPARE(cost.tokensPerIteration, tokens);
    QVERIFY(near(cost.fabric.usdPerMillionTokens, usd * 1e6 / tokens));
    QVERIFY(near(cost.fabric.kwhPerMillionTokens, kwh * 1e6 / tokens));
    QVERIFY(near(cost.fabric.tokensPerJoule, tokens / (power * r.iterationTime)));
    // Every GPU is the job's: job and fabric figures agree.
    QVERIFY(near(cost.job.usdPerIteration, cost.fabric.usdPerIteration));
}

// 4 ranks on 8 GPUs: the job pays half the capital, host and network power, and its own GPUs;
// the fabric's other 4 GPUs idle.
void TestBomCost::jobShareOfAFabric()
{
    const Scenario s = smallScenario(2);
    CostEngine engine(s);
    const PartsCatalogue c = testCatalogue();
    const BomCost cost = priceBom(billOfMaterials(engine.fabric(), c.rules), c, s, engine.report());
    QCOMPARE(cost.job.gpus, 4);
    QCOMPARE(cost.fabric.gpus, 8);
    QCOMPARE(cost.job.capexUsd, 221200.0 / 2);
    QVERIFY(near(cost.job.powerW, 4 * cost.gpuW + (1820.0 + 2000.0) / 2));
    QVERIFY(near(cost.fabric.gpuPowerW, 4 * cost.gpuW + 4 * 100.0));
    QVERIFY(cost.job.usdPerIteration < cost.fabric.usdPerIteration);
}

void TestBomCost::editedPriceMovesCapital()
{
    const Scenario s = smallScenario(4);
    CostEngine engine(s);
    PartsCatalogue c = testCatalogue();
    const BillOfMaterials bom = billOfMaterials(engine.fabric(), c.rules);
    const double before = priceBom(bom, c, s, engine.report()).capexUsd;
    c.parts[3].priceUsd += 1000; // the switch: 5 of them
    const BomCost after = priceBom(bom, c, s, engine.report());
    QCOMPARE(after.capexUsd - before, 5000.0);
}

void TestBomCost::unpricedLineIsNamed()
{
    const Scenario s = smallScenario(4);
    CostEngine engine(s);
    PartsCatalogue c = testCatalogue();
    c.parts.erase(c.parts.begin() + 3); // no switch part
    const BomCost cost = priceBom(billOfMaterials(engine.fabric(), c.rules), c, s, engine.report());
    QCOMPARE(cost.unpriced.size(), std::size_t { 2 }); // leaves and the spine
    QCOMPARE(QString::fromStdString(cost.unpriced.front()),
        QStringLiteral(
            "leaf switch, 8 x 400G: no catalogue part (kind switch, radix 8, gbps 400G)"));
    QCOMPARE(cost.capexUsd, 221200.0 - 100000.0);
}

// Every default part cites a source or is illustrative, and so does every rule and economics
// value in the JSON the CLI prints (a value without a source is marked illustrative).
void TestBomCost::defaultsAreSourcedOrIllustrative()
{
    const PartsCatalogue &d = defaultCatalogue();
    QVERIFY(d.parts.size() >= 20);
    for (const CataloguePart &p : d.parts)
        QVERIFY2(!p.source.empty() || p.illustrative, p.id.c_str());
    const Scenario s = fixtures::seed128();
    CostEngine engine(s);
    const BillOfMaterials bom = billOfMaterials(engine.fabric(), d.rules);
    const BomCost cost = priceBom(bom, d, s, engine.report());
    QVERIFY2(cost.unpriced.empty(), cost.unpriced.empty() ? "" : cost.unpriced.front().c_str());
    QVERIFY(cost.defaultCatalogue);
    const nlohmann::ordered_json j = bomJson(bom, cost);
    for (const char *section : { "rules", "economics" })
        for (const auto &[key, v] : j[section].items())
            QVERIFY2(v.contains("source") != v.contains("illustrative"), key.c_str());
    for (const auto &line : j["lines"])
        QVERIFY(line.contains("source") && line.contains("illustrative"));
    QCOMPARE(j["economics"]["pue"]["source"].get<std::string>().substr(0, 15),
        std::string("Uptime Institut"));
    QVERIFY(j["rules"]["slack_m"]["illustrative"].get<bool>());
    // The seed's H100 at 700 W TDP (the datasheet's figure) and its 16 x 8 GPUs.
    QCOMPARE(cost.gpuTdpW, 700.0);
    QCOMPARE(j["fabric"]["gpus"].get<int>(), 128);
}

void TestBomCost::catalogueRoundTrips()
{
    const std::string text = cataloguesection::catalogueToText(defaultCatalogue());
    QCOMPARE(cataloguesection::parseCatalogueText(text), defaultCatalogue());
    const PartsCatalogue t = testCatalogue();
    QCOMPARE(cataloguesection::parseCatalogueText(cataloguesection::catalogueToText(t)), t);
}

void TestBomCost::scenarioSectionRoundTrips()
{
    Scenario s = fixtures::seed128();
    QVERIFY(scenarioToText(s).find("\"catalogue\"") == std::string::npos); // absent by default
    s.catalogue = testCatalogue();
    const Scenario back = parseScenario(scenarioToText(s));
    QVERIFY(back.catalogue.has_value());
    QCOMPARE(*back.catalogue, *s.catalogue);
    QCOMPARE(back, s);
}

void TestBomCost::refusals_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("field");
    const QString head = R"({"version": 1, "parts": [)";
    QTest::newRow("newer version") << R"({"version": 2})"
                                   << "version";
    QTest::newRow("unknown key") << R"({"version": 1, "prices": []})"
                                 << "prices";
    QTest::newRow("negative price")
        << head + R"({"id": "r", "kind": "rack", "price_usd": -1, "illustrative": true}]})"
        << "parts[0].price_usd";
    QTest::newRow("no source") << head + R"({"id": "r", "kind": "rack", "price_usd": 1}]})"
                               << "parts[0]";
    QTest::newRow("max below typical") << head
            + R"({"id": "r", "kind": "rack", "typical_w": 5, "max_w": 1, "illustrative": true}]})"
                                       << "parts[0].max_w";
    QTest::newRow("switch without radix")
        << head + R"({"id": "s", "kind": "switch", "gbps": 400, "illustrative": true}]})"
        << "parts[0].radix";
    QTest::newRow("radix on a nic")
        << head + R"({"id": "n", "kind": "nic", "gbps": 400, "radix": 4, "illustrative": true}]})"
        << "parts[0].radix";
    QTest::newRow("unknown cable class") << head
            + R"({"id": "c", "kind": "cable", "class": "laser", "gbps": 400, "illustrative": true}]})"
                                         << "parts[0].class";
    QTest::newRow("same part twice") << head
            + R"({"id": "a", "kind": "rack", "illustrative": true}, {"id": "b", "kind": "rack", "illustrative": true}]})"
                                     << "parts[1]";
    QTest::newRow("active below copper")
        << R"({"version": 1, "rules": {"copper_max_m": 3, "active_max_m": 2}})"
        << "rules.active_max_m";
    QTest::newRow("pue below one") << R"({"version": 1, "economics": {"pue": 0.5}})"
                                   << "economics.pue";
    QTest::newRow("unknown source key")
        << R"({"version": 1, "economics": {"sources": {"price": "x"}}})"
        << "economics.sources.price";
}

void TestBomCost::refusals()
{
    QFETCH(QString, text);
    QFETCH(QString, field);
    QCOMPARE(QString::fromStdString(fieldOf(text.toStdString())), field);
}

void TestBomCost::fileErrorsNameTheFile()
{
    QTemporaryDir dir;
    const std::string path = dir.filePath("cat.json").toStdString();
    std::ofstream(path) << "{\n  \"version\": 1,\n  \"parts\": [\n}\n";
    try {
        cataloguesection::loadCatalogueFile(path);
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        const QString what = QString::fromStdString(e.what());
        QVERIFY2(
            what.startsWith(QString::fromStdString(path) + ": not valid JSON"), qPrintable(what));
        QVERIFY2(what.contains("line 4"), qPrintable(what));
    }
    std::ofstream(path) << R"({"version": 1, "parts": [{"id": "r", "kind": "rack"}]})";
    try {
        cataloguesection::loadCatalogueFile(path);
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), QString::fromStdString(path + ": parts[0]"));
    }
}

QTEST_GUILESS_MAIN(TestBomCost)
#include "tst_bomcost.moc"
