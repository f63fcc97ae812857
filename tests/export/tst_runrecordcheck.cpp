// A run record checked on its own (model/export/runrecord.h checkRunRecord), as the preflight
// checks it at every rank's start-up: what import-mapping refuses (a missing "ranks", duplicate
// or negative slots, a wrong world size, coordinates of another layout) is refused too, even for
// a rank whose own row is right, naming the record file and the field; a negative
// --mapping-version is refused; and the run-record csv refuses a column named twice.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exporters.h"
#include "export/preflight.h"
#include "export/runrecord.h"
#include "fixtures.h"

#include <QTest>

#include <nlohmann/json.hpp>

#include <string>

using namespace railyard;
using nlohmann::json;

namespace {

template<typename F> QString failureOf(F &&f)
{
    try {
        f();
    } catch (const ScenarioError &e) {
        return QString::fromStdString(e.what());
    }
    return QStringLiteral("(accepted)");
}

/// Rank 12 of seed-128, packed: node001, GPU 4, NIC mlx5_4, launched by Slurm.
PreflightEnvironment rank12()
{
    PreflightEnvironment e;
    e.hostname = "node001";
    e.env["SLURM_PROCID"] = "12";
    e.env["SLURM_LOCALID"] = "4";
    e.env["SLURM_NTASKS"] = "128";
    e.env["NCCL_IB_HCA"] = "=mlx5_4";
    return e;
}

/// seed-128's record with one edit; rank 12's own row stays right in every edit.
std::string editedRecord(const QString &edit)
{
    const CostEngine engine(fixtures::seed128());
    const std::string text = exportText(engine, ExportFormat::MappingJson);
    json j = json::parse(text);
    if (edit == "none")
        return text;
    if (edit == "no ranks")
        j.erase("ranks");
    else if (edit == "ranks not an array")
        j["ranks"] = json::object();
    else if (edit == "duplicate slot") { // rank 1 moved onto rank 0's GPU
        j["ranks"][1]["slot"] = 0;
        j["ranks"][1]["gpu"] = 0;
    } else if (edit == "negative slot")
        j["ranks"][0]["slot"] = -1;
    else if (edit == "slot outside the fabric")
        j["ranks"][0]["slot"] = 128;
    else if (edit == "world size")
        j["parallel"]["world_size"] = 64;
    else if (edit == "rank missing")
        j["ranks"].erase(j["ranks"].size() - 1);
    else if (edit == "rank twice")
        j["ranks"][1]["rank"] = 0;
    else if (edit == "coordinates")
        j["ranks"][0]["d"] = 3;
    else if (edit == "gpu of another slot")
        j["ranks"][0]["gpu"] = 5;
    else if (edit == "rank a string")
        j["ranks"][0]["rank"] = "0";
    else if (edit == "row not an object")
        j["ranks"][0] = 7;
    else if (edit == "format")
        j["format"] = "something-else";
    else if (edit == "degrees")
        j["parallel"]["tp"] = 0;
    if (edit == "not json")
        return text.substr(0, text.size() / 2);
    if (edit == "duplicate key") {
        std::string t = j.dump();
        t.replace(t.find("\"slot\":"), 7, "\"slot\":0,\"slot\":");
        return t;
    }
    return j.dump();
}

} // namespace

class TestRunRecordCheck : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void preflightRefusesABrokenRecord_data();
    void preflightRefusesABrokenRecord();
    void importRefusesTheSame_data();
    void importRefusesTheSame();
    void preflightAcceptsTheRecord();
    void negativeMappingVersion();
    void csvColumnTwice();
};

void TestRunRecordCheck::preflightRefusesABrokenRecord_data()
{
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("message");
    QTest::newRow("no ranks") << "no ranks"
                              << "r.json: ranks: missing required field";
    QTest::newRow("ranks not an array") << "ranks not an array"
                                        << "r.json: ranks: expected an array, got object";
    QTest::newRow("duplicate slot") << "duplicate slot"
                                    << "r.json: ranks: ranks 0 and 1 are both on slot 0";
    QTest::newRow("negative slot") << "negative slot"
                                   << "r.json: ranks[0].slot: must not be negative, got -1";
    QTest::newRow("slot outside the fabric")
        << "slot outside the fabric"
        << "r.json: ranks[0].slot: expected a GPU slot in 0..127";
    QTest::newRow("world size") << "world size"
                                << "r.json: parallel.world_size: is 64 but tp*pp*dp*cp is 128";
    QTest::newRow("rank missing")
        << "rank missing"
        << "r.json: ranks: has 127 entries but the record's layout has 128 ranks";
    QTest::newRow("rank twice") << "rank twice"
                                << "r.json: ranks[1].rank: rank 0 appears twice";
    QTest::newRow("coordinates") << "coordinates"
                                 << "r.json: ranks[0].d: is 3 but rank 0 has d 0 in this record";
    QTest::newRow("gpu of another slot")
        << "gpu of another slot"
        << "r.json: ranks[0].gpu: is 5 but slot 0 has gpu 0 in this record";
    QTest::newRow("rank a string") << "rank a string"
                                   << "r.json: ranks[0].rank: expected an integer, got string";
    QTest::newRow("row not an object") << "row not an object"
                                       << "r.json: ranks[0]: expected an object, got number";
    QTest::newRow("format") << "format"
                            << "r.json: format: expected \"railyard-mapping\" (a mapping-json "
                               "export), got \"something-else\"";
    QTest::newRow("degrees") << "degrees"
                             << "r.json: parallel.tp: must be at least 1, got 0";
    QTest::newRow("not json") << "not json"
                              << "r.json: not valid JSON: parse error at line";
    QTest::newRow("duplicate key") << "duplicate key"
                                   << "r.json: ranks[].slot: duplicate field";
}

void TestRunRecordCheck::preflightRefusesABrokenRecord()
{
    QFETCH(QString, edit);
    QFETCH(QString, message);
    const std::string record = editedRecord(edit);
    const QString error = failureOf([&] { checkPreflight(record, rank12(), 1, "r.json"); });
    QVERIFY2(error.startsWith(message), qPrintable(error));
}

void TestRunRecordCheck::importRefusesTheSame_data()
{
    // The same edits, refused by import-mapping with the same field (its checks are shared).
    QTest::addColumn<QString>("edit");
    QTest::addColumn<QString>("field");
    QTest::newRow("no ranks") << "no ranks"
                              << "ranks";
    QTest::newRow("duplicate slot") << "duplicate slot"
                                    << "ranks";
    QTest::newRow("negative slot") << "negative slot"
                                   << "ranks[0].slot";
    QTest::newRow("rank missing") << "rank missing"
                                  << "ranks";
    QTest::newRow("rank twice") << "rank twice"
                                << "ranks[1].rank";
    QTest::newRow("coordinates") << "coordinates"
                                 << "ranks[0].d";
    QTest::newRow("rank a string") << "rank a string"
                                   << "ranks[0].rank";
    QTest::newRow("row not an object") << "row not an object"
                                       << "ranks[0]";
    QTest::newRow("duplicate key") << "duplicate key"
                                   << "ranks[].slot";
}

void TestRunRecordCheck::importRefusesTheSame()
{
    QFETCH(QString, edit);
    QFETCH(QString, field);
    const CostEngine engine(fixtures::seed128());
    try {
        importMappingJson(editedRecord(edit), engine);
        QFAIL("the import was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
    }
}

void TestRunRecordCheck::preflightAcceptsTheRecord()
{
    const PreflightPlace p = checkPreflight(editedRecord("none"), rank12(), 1, "r.json");
    QCOMPARE(p.rank, 12);
    QCOMPARE(p.gpu, 4);
    QCOMPARE(p.host, std::string("node001"));
    QCOMPARE(p.hca, std::string("mlx5_4"));
    // With a BOM, as import-mapping reads it.
    QCOMPARE(checkPreflight("\xEF\xBB\xBF" + editedRecord("none"), rank12(), 1).gpu, 4);
}

void TestRunRecordCheck::negativeMappingVersion()
{
    // -1 used to turn the stale-record check off and pass against version 1.
    QCOMPARE(failureOf([] { checkPreflight(editedRecord("none"), rank12(), -1, "r.json"); }),
        QStringLiteral("--mapping-version: must be at least 1, got -1"));
}

void TestRunRecordCheck::csvColumnTwice()
{
    const CostEngine engine(fixtures::seed128());
    std::string csv = exportText(engine, ExportFormat::Csv);
    // A second "slot" column at the end of every line: the header names it twice.
    std::string twice;
    std::size_t pos = 0;
    bool header = true;
    while (pos < csv.size()) {
        const std::size_t nl = csv.find('\n', pos);
        twice += csv.substr(pos, nl - pos) + (header ? ",slot\n" : ",5\n");
        header = false;
        pos = nl + 1;
    }
    QCOMPARE(failureOf([&] { importMappingCsv(twice, engine); }),
        QStringLiteral("csv line 1: column 'slot' appears twice (columns 9 and 19)"));
}

QTEST_GUILESS_MAIN(TestRunRecordCheck)
#include "tst_runrecordcheck.moc"
