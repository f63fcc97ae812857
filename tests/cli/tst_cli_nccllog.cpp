// railyard-cli nccl-log as a user runs it, on tests/data/nccl-logs/dgx-h100-2node-world.log
// (written here in NCCL 2.21's INFO format) against a 2 x 8 rail-optimised scenario: the clean
// log (every send on its GPU's NIC, every hop on its rail), a send moved to another NIC (a
// mis-bound NIC and a hop that leaves its rail, named with file:line), JSON, and refusals
// (exit 1, nothing written).
#include "clirun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

QString sampleLog()
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/nccl-logs/dgx-h100-2node-world.log");
}

void writeFile(const QString &path, const QByteArray &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
}

} // namespace

class TestCliNcclLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void cleanLogMatches();
    void misBoundNicIsNamed();
    void badInputWritesNothing();

private:
    QTemporaryDir m_dir;
    QString m_scenario;
};

void TestCliNcclLog::initTestCase()
{
    m_scenario = m_dir.filePath(QStringLiteral("two.json"));
    const CliRun g = runRailyardCli({ QStringLiteral("generate"), QStringLiteral("--fabric"),
        QStringLiteral("rail-optimised"), QStringLiteral("--servers"), QStringLiteral("2"),
        QStringLiteral("--gpus-per-server"), QStringLiteral("8"), QStringLiteral("--tp"),
        QStringLiteral("8"), QStringLiteral("--model"), QStringLiteral("llama3-8b"),
        QStringLiteral("-o"), m_scenario });
    QVERIFY2(g.exitCode == 0, g.err.constData());
}

void TestCliNcclLog::cleanLogMatches()
{
    const CliRun r = runRailyardCli(
        { QStringLiteral("nccl-log"), m_scenario, QStringLiteral("--log"), sampleLog() });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.startsWith("1 communicator from 1 file (118 NCCL INFO lines)\n"));
    QVERIFY(r.out.contains("16 ranks (16 placed), 2 rings, 4 network sends (0 via PXN), 28 "
                           "NVLink/SHM connections; 0 on an unexpected NIC, 0 leaving their rail"));
    QVERIFY(r.out.contains("Every network send uses the NIC the scenario binds its GPU to"));
}

void TestCliNcclLog::misBoundNicIsNamed()
{
    // Rank 7 (node000, GPU 7) sends channel 0 over net device 3 (mlx5_5) instead of 7: its GPU
    // is bound to NIC 7, and the receiver on node001 listens on rail 7.
    QByteArray text = readTestFile(sampleLog());
    text.replace(
        "7[7] -> 15[7] [send] via NET/IB/7/GDRDMA", "7[7] -> 15[7] [send] via NET/IB/3/GDRDMA");
    const QString log = m_dir.filePath(QStringLiteral("bound.log"));
    writeFile(log, text);
    const CliRun r = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario,
        QStringLiteral("--log"), log, QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["format_version"].get<int>(), 1);
    QCOMPARE(j["comms"][0]["mis_bound_nic"].get<int>(), 1);
    QCOMPARE(j["comms"][0]["leaving_rail"].get<int>(), 1);
    QCOMPARE(j["findings"].size(), std::size_t(2));
    QCOMPARE(j["findings"][0]["kind"].get<std::string>(), std::string("mis-bound-nic"));
    QCOMPARE(j["findings"][0]["line"].get<int>(), 77);
    QCOMPARE(j["findings"][0]["src"].get<int>(), 7);
    QCOMPARE(j["findings"][0]["text"].get<std::string>(),
        std::string("rank 7 -> 15, channel 0: node000 GPU 7 sends over mlx5_5 (NIC 3); the "
                    "scenario binds that GPU to NIC 7"));
    QCOMPARE(j["findings"][1]["kind"].get<std::string>(), std::string("leaves-rail"));
    QVERIFY(j["findings"][1]["text"].get<std::string>().find("the hop crosses a spine")
        != std::string::npos);
}

void TestCliNcclLog::badInputWritesNothing()
{
    const QString out = m_dir.filePath(QStringLiteral("out.txt"));
    const QString log = m_dir.filePath(QStringLiteral("garbage.log"));
    writeFile(log,
        "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4\nh:1:1 [0] NCCL INFO Channel 00/02 : 0 0 1 "
        "2\n");
    const CliRun r = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario,
        QStringLiteral("--log"), log, QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("garbage.log:2: ring of channel 0 is no order of ranks 0..3"),
        r.err.constData());
    QVERIFY(!QFile::exists(out));
    const CliRun none = runRailyardCli(
        { QStringLiteral("nccl-log"), m_scenario, QStringLiteral("--log"), m_scenario });
    QCOMPARE(none.exitCode, 1);
    QVERIFY(none.err.contains("no NCCL INFO line"));
}

QTEST_GUILESS_MAIN(TestCliNcclLog)
#include "tst_cli_nccllog.moc"
