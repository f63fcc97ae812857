// railyard-cli bom as a user runs it on the seed: the table, --json (the counts, every line's
// source or illustrative marker, the figures per job and per fabric), --csv, a catalogue file
// changing the capital by count x difference, --write-catalogue writing one to edit, and bad
// input (a catalogue with a bad field, --json with --csv): exit non-zero, the file and field
// named, nothing written.
#include "clirun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

QString seed()
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

} // namespace

class TestCliBom : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void seedTable();
    void seedJson();
    void csvRows();
    void catalogueFileChangesTheCapital();
    void scenarioSectionPricesTheBom();
    void badCatalogueWritesNothing();
    void jsonAndCsvTogetherIsAUsageError();
};

void TestCliBom::seedTable()
{
    const CliRun r = runRailyardCli({ QStringLiteral("bom"), seed() });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    // 16 servers x 8 GPUs: 8 rail leaves of 16 down + 16 up ports, 2 spines (128 uplinks / 64).
    QVERIFY2(r.out.startsWith("Bill of materials: 128 GPUs on 16 servers, 10 switches, 256 cables"),
        r.out.left(200).constData());
    QVERIFY(r.out.contains("leaf switch, 64 x 400G *"));
    QVERIFY(r.out.contains("(* = illustrative figure)"));
    QVERIFY(r.out.contains("tokens per joule"));
}

void TestCliBom::seedJson()
{
    const CliRun r = runRailyardCli({ QStringLiteral("bom"), seed(), QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["format_version"].get<int>(), 1);
    QCOMPARE(j["counts"]["gpus"].get<int>(), 128);
    QCOMPARE(j["counts"]["switches"].get<int>(), 10);
    QCOMPARE(j["counts"]["cables"].get<int>(), 256); // 128 NIC-leaf + 128 leaf-spine
    QCOMPARE(j["switches"][0]["ports_used"].get<int>(), 8 * 32);
    QCOMPARE(j["switches"][0]["ports_free"].get<int>(), 8 * 32);
    for (const auto &line : j["lines"])
        QVERIFY(line.contains("source") && line.contains("illustrative"));
    QVERIFY(j["unpriced"].empty());
    QCOMPARE(j["gpu_power"]["gpu_tdp_w"].get<double>(), 700.0);
    QVERIFY(j["job"]["usd_per_million_tokens"].get<double>() > 0.0);
    QCOMPARE(j["job"]["usd_per_iteration"].get<double>(),
        j["fabric"]["usd_per_iteration"].get<double>());
    QVERIFY(j["economics"]["pue"].contains("source"));
}

void TestCliBom::csvRows()
{
    const CliRun r = runRailyardCli({ QStringLiteral("bom"), seed(), QStringLiteral("--csv") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const QList<QByteArray> rows = r.out.split('\n');
    QVERIFY(rows.front().startsWith("group,item,quantity,ports_used,ports_free,part,"));
    QVERIFY(r.out.contains("switch,\"leaf switch, 64 x 400G\",8,256,256,switch-64x400,"));
}

void TestCliBom::catalogueFileChangesTheCapital()
{
    QTemporaryDir dir;
    const QString written = dir.filePath(QStringLiteral("cat.json"));
    const CliRun base = runRailyardCli({ QStringLiteral("bom"), seed(), QStringLiteral("--json"),
        QStringLiteral("--write-catalogue"), written });
    QVERIFY2(base.exitCode == 0, base.err.constData());
    nlohmann::json cat = nlohmann::json::parse(readTestFile(written).toStdString());
    for (auto &p : cat["parts"])
        if (p["id"] == "switch-64x400")
            p["price_usd"] = p["price_usd"].get<double>() + 1000.0;
    writeTestFile(written, QByteArray::fromStdString(cat.dump(2)));
    const CliRun edited = runRailyardCli({ QStringLiteral("bom"), seed(), QStringLiteral("--json"),
        QStringLiteral("--catalogue"), written });
    QVERIFY2(edited.exitCode == 0, edited.err.constData());
    const double a
        = nlohmann::json::parse(base.out.toStdString())["totals"]["capex_usd"].get<double>();
    const double b
        = nlohmann::json::parse(edited.out.toStdString())["totals"]["capex_usd"].get<double>();
    QCOMPARE(b - a, 10 * 1000.0); // 8 leaves and 2 spines of 64 x 400G
}

// A scenario with a "catalogue" section prices with it (no --catalogue), and names it.
void TestCliBom::scenarioSectionPricesTheBom()
{
    QTemporaryDir dir;
    const QString cat = dir.filePath(QStringLiteral("cat.json"));
    QVERIFY(
        runRailyardCli({ QStringLiteral("bom"), seed(), QStringLiteral("--write-catalogue"), cat })
            .exitCode
        == 0);
    nlohmann::json catalogue = nlohmann::json::parse(readTestFile(cat).toStdString());
    catalogue["name"] = "site quotes";
    for (auto &p : catalogue["parts"])
        if (p["id"] == "gpu-h100-sxm")
            p["price_usd"] = 20000.0; // 5,000 less than the default, 128 GPUs
    nlohmann::json scenario = nlohmann::json::parse(readTestFile(seed()).toStdString());
    scenario["catalogue"] = catalogue;
    const QString file = dir.filePath(QStringLiteral("priced.json"));
    writeTestFile(file, QByteArray::fromStdString(scenario.dump(2)));
    const CliRun base = runRailyardCli({ QStringLiteral("bom"), seed(), QStringLiteral("--json") });
    const CliRun own = runRailyardCli({ QStringLiteral("bom"), file, QStringLiteral("--json") });
    QVERIFY2(own.exitCode == 0, own.err.constData());
    const nlohmann::json a = nlohmann::json::parse(base.out.toStdString());
    const nlohmann::json b = nlohmann::json::parse(own.out.toStdString());
    QCOMPARE(b["catalogue"].get<std::string>(), std::string("site quotes"));
    QVERIFY(!b["default_catalogue"].get<bool>());
    QCOMPARE(a["totals"]["capex_usd"].get<double>() - b["totals"]["capex_usd"].get<double>(),
        128 * 5000.0);
}

void TestCliBom::badCatalogueWritesNothing()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    writeTestFile(bad,
        R"({"version": 1, "parts": [{"id": "s", "kind": "switch", "gbps": 400, "illustrative": true}]})");
    const QString out = dir.filePath(QStringLiteral("bom.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("bom"), seed(), QStringLiteral("--catalogue"),
        bad, QStringLiteral("--json"), QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(
        r.err.contains((bad + QStringLiteral(": parts[0].radix: missing required field")).toUtf8()),
        r.err.constData());
    QVERIFY(!QFile::exists(out));
    // A syntax error names the file and the line.
    writeTestFile(bad, "{\n  \"version\": 1,\n  \"parts\": [\n}\n");
    const CliRun syntax = runRailyardCli({ QStringLiteral("bom"), seed(),
        QStringLiteral("--catalogue"), bad, QStringLiteral("-o"), out });
    QCOMPARE(syntax.exitCode, 1);
    QVERIFY2(syntax.err.contains("line 4"), syntax.err.constData());
    QVERIFY(!QFile::exists(out));
}

void TestCliBom::jsonAndCsvTogetherIsAUsageError()
{
    const CliRun r = runRailyardCli(
        { QStringLiteral("bom"), seed(), QStringLiteral("--json"), QStringLiteral("--csv") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestCliBom)
#include "tst_cli_bom.moc"
