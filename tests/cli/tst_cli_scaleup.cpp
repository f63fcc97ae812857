// railyard-cli with rack-scale NVLink domains, run as a user would: generate --nvl72 and
// --scaleup-domain-servers, their refusals (non-zero exit, nothing written), and a file whose
// domain does not divide its servers.
#include "clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

QStringList nvl72Args(const QString &out)
{
    return { QStringLiteral("generate"), QStringLiteral("--nvl72"), QStringLiteral("--fabric"),
        QStringLiteral("rail-optimised"), QStringLiteral("--servers"), QStringLiteral("36"),
        QStringLiteral("--gpus-per-server"), QStringLiteral("4"), QStringLiteral("--tp"),
        QStringLiteral("4"), QStringLiteral("-o"), out };
}

} // namespace

class TestCliScaleUp : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void nvl72WritesTheRack();
    void refusalsWriteNothing_data();
    void refusalsWriteNothing();
    void domainNotDividingTheServersIsRefused();
};

void TestCliScaleUp::nvl72WritesTheRack()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("nvl72.json"));
    const CliRun r = runRailyardCli(nvl72Args(out));
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(readTestFile(out).toStdString());
    // 2 racks of 18 trays, a rack per SU, GB200's NVLink 5 port (900 GB/s = 7200 Gbit/s).
    QCOMPARE(j["fabric"]["scaleup_domain_servers"].get<int>(), 18);
    QCOMPARE(j["fabric"]["servers_per_su"].get<int>(), 18);
    QCOMPARE(j["fabric"]["scaleup_gbps"].get<double>(), 7200.0);
    QCOMPARE(j["device"]["name"].get<std::string>(), std::string("gb200"));
    const CliRun e = runRailyardCli({ QStringLiteral("evaluate"), out });
    QVERIFY2(e.exitCode == 0, e.err.constData());
    QVERIFY(!e.out.contains("split across"));
}

void TestCliScaleUp::refusalsWriteNothing_data()
{
    QTest::addColumn<QStringList>("change");
    QTest::addColumn<QString>("message");
    QTest::newRow("8-GPU trays") << QStringList { QStringLiteral("--gpus-per-server"),
        QStringLiteral("8") } << QStringLiteral("compute tray holds 4 GPUs");
    QTest::newRow("no NVL72 device") << QStringList { QStringLiteral("--device"),
        QStringLiteral("h100-sxm") } << QStringLiteral("applies only to a device with NVL72 racks");
    QTest::newRow("both domain flags") << QStringList { QStringLiteral("--scaleup-domain-servers"),
        QStringLiteral("2") } << QStringLiteral("give one of them");
    QTest::newRow("SU splits a rack") << QStringList { QStringLiteral("--servers-per-su"),
        QStringLiteral("12") } << QStringLiteral("straddle two SUs");
}

void TestCliScaleUp::refusalsWriteNothing()
{
    QFETCH(QStringList, change);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("refused.json"));
    QStringList args = nvl72Args(out);
    for (int i = 0; i + 1 < change.size(); i += 2) {
        const int at = static_cast<int>(args.indexOf(change[i]));
        if (at >= 0)
            args[at + 1] = change[i + 1];
        else
            args << change[i] << change[i + 1];
    }
    const CliRun r = runRailyardCli(args);
    QVERIFY(r.exitCode != 0);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

void TestCliScaleUp::domainNotDividingTheServersIsRefused()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("rack.json"));
    QVERIFY(runRailyardCli(nvl72Args(out)).exitCode == 0);
    nlohmann::json j = nlohmann::json::parse(readTestFile(out).toStdString());
    j["fabric"]["scaleup_domain_servers"] = 5; // 36 trays are no whole number of 5-tray domains
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    writeTestFile(bad, QByteArray::fromStdString(j.dump(2)));
    const QString report = dir.filePath(QStringLiteral("report.txt"));
    const CliRun r
        = runRailyardCli({ QStringLiteral("evaluate"), bad, QStringLiteral("-o"), report });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("fabric.scaleup_domain_servers"), r.err.constData());
    QVERIFY2(r.err.contains("do not divide the 36 servers"), r.err.constData());
    QVERIFY(!QFile::exists(report));
}

QTEST_GUILESS_MAIN(TestCliScaleUp)
#include "tst_cli_scaleup.moc"
