// railyard-cli rail-audit as a user runs it: the seed job (rail-aligned: no spine needed), the
// same after lesson 2's swap of ranks 1 and 8 (two TP groups split across servers: the spine is
// needed for TP, named in text and JSON), --pxn moving those hops onto NVLink, -o, a bad
// file (exit 1, nothing written), --cross-nic (and a value NCCL does not take: exit 2, nothing
// written) and the disaggregated inference sample's KV hand-off.
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

class TestCliRailAudit : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void seedNeedsNoSpine();
    void swappedRanksNeedTheSpineForTp();
    void badFileWritesNothing();
    void crossNicAndKvHandOff();
};

void TestCliRailAudit::seedNeedsNoSpine()
{
    const CliRun r = runRailyardCli({ QStringLiteral("rail-audit"), seed() });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.startsWith("No traffic needs the spine"));
    QVERIFY(r.out.contains("tp: all 16 groups stay inside one NVLink domain"));
    QVERIFY(r.out.contains("dp-cp: every network hop stays on its rail's leaf"));
}

void TestCliRailAudit::swappedRanksNeedTheSpineForTp()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("audit.json"));
    const CliRun r
        = runRailyardCli({ QStringLiteral("rail-audit"), seed(), QStringLiteral("--swap"),
            QStringLiteral("1:8"), QStringLiteral("--json"), QStringLiteral("-o"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(readTestFile(out).toStdString());
    QCOMPARE(j["format_version"].get<int>(), 1);
    QVERIFY(j["verdict"].get<std::string>().rfind("The spine is needed for tp (", 0) == 0);
    QCOMPARE(j["dims"][0]["kind"].get<std::string>(), std::string("tp"));
    QCOMPARE(j["dims"][0]["groups_via_spine"].get<int>(), 2);
    const int cross = j["dims"][0]["hops"]["cross_rail"].get<int>();
    QVERIFY(cross > 0);
    bool namesRank1 = false;
    for (const auto &g : j["groups_off_rail"])
        for (const auto &h : g["examples"])
            namesRank1 = namesRank1 || h["src_rank"] == 1 || h["dst_rank"] == 1;
    QVERIFY(namesRank1);

    const CliRun p
        = runRailyardCli({ QStringLiteral("rail-audit"), seed(), QStringLiteral("--swap"),
            QStringLiteral("1:8"), QStringLiteral("--pxn"), QStringLiteral("--json") });
    QVERIFY2(p.exitCode == 0, p.err.constData());
    const nlohmann::json q = nlohmann::json::parse(p.out.toStdString());
    QCOMPARE(q["pxn"].get<bool>(), true);
    QCOMPARE(q["dims"][0]["hops"]["cross_rail"].get<int>(), 0);
    QCOMPARE(q["dims"][0]["hops"]["pxn"].get<int>(), cross);
}

void TestCliRailAudit::badFileWritesNothing()
{
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    QFile f(bad);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("{\"fabric\": 7}");
    f.close();
    const QString out = dir.filePath(QStringLiteral("audit.txt"));
    const CliRun r
        = runRailyardCli({ QStringLiteral("rail-audit"), bad, QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.err.contains("format_version: missing required field"));
    QVERIFY(!QFile::exists(out));
}

void TestCliRailAudit::crossNicAndKvHandOff()
{
    const CliRun r = runRailyardCli({ QStringLiteral("rail-audit"), seed(),
        QStringLiteral("--cross-nic"), QStringLiteral("0"), QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(nlohmann::json::parse(r.out.toStdString())["cross_nic"].get<int>(), 0);

    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("audit.txt"));
    const CliRun bad = runRailyardCli({ QStringLiteral("rail-audit"), seed(),
        QStringLiteral("--cross-nic"), QStringLiteral("3"), QStringLiteral("-o"), out });
    QCOMPARE(bad.exitCode, 2);
    QVERIFY(bad.err.contains("--cross-nic"));
    QVERIFY(!QFile::exists(out));

    const CliRun kv = runRailyardCli({ QStringLiteral("rail-audit"),
        QStringLiteral(RAILYARD_SOURCE_DIR "/samples/inference-disaggregated.json") });
    QVERIFY2(kv.exitCode == 0, kv.err.constData());
    QVERIFY(
        kv.out.contains("kv: every network hop stays on its rail's leaf (32 hops over 4 groups)"));
}

QTEST_GUILESS_MAIN(TestCliRailAudit)
#include "tst_cli_railaudit.moc"
