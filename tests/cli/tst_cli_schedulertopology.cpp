// railyard-cli and the scheduler hand-off, run as a user would: export --format slurm-topology
// read back by import-topology --topology (the file told by its content) as the fabric's
// network; per-host nvidia-smi -q files (named after their hosts) as its NVLink domains; bad
// input (a switch under two parents, a ClusterUUID that is no UUID, a file of no known kind)
// exits 1 naming FILE:LINE and writes nothing; two sources of NVLink domains exit 2.
#include "clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

/// nvidia-smi -q's Fabric lines for two GPUs of one host in NVLink domain `domain`.
QByteArray nvidiaSmi(int domain)
{
    QByteArray out = "==============NVSMI LOG==============\n\nAttached GPUs : 2\n";
    for (const char *bus : { "00000008:01:00.0", "00000009:01:00.0" })
        out += QByteArray("GPU ") + bus
            + "\n    Fabric\n        State      : Completed\n        CliqueId   : 32766\n"
              "        ClusterUUID : 5c4f6b8a-1d2e-4f30-9a1b-2c3d4e5f6a7"
            + QByteArray::number(domain) + "\n";
    return out;
}

} // namespace

class TestCliSchedulerTopology : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void treeExportImportsAsTheNetwork();
    void nvidiaSmiFilesSetTheNvlinkDomains();
    void badInputWritesNothing_data();
    void badInputWritesNothing();
    void twoDomainSourcesAreAUsageError();
};

void TestCliSchedulerTopology::treeExportImportsAsTheNetwork()
{
    QTemporaryDir dir;
    const QString conf = dir.filePath(QStringLiteral("topology.conf"));
    QCOMPARE(runRailyardCli({ QStringLiteral("export"), sample("seed-128-tor.json"),
                                QStringLiteral("--format"), QStringLiteral("slurm-topology"),
                                QStringLiteral("-o"), conf })
                 .exitCode,
        0);
    // Onto the rail-optimised seed: the network becomes the tree's (4 ToR leaves of 4 nodes).
    const QString out = dir.filePath(QStringLiteral("from-slurm.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
        QStringLiteral("--topology"), conf, QStringLiteral("-o"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(
        r.err.contains("topology.conf: topology/tree, 16 nodes, 5 switches"), r.err.constData());
    QVERIFY2(r.err.contains("fabric: 16 servers, 4 leaves, 1 spines, 0 super-spines"),
        r.err.constData());
    const nlohmann::json s = nlohmann::json::parse(readTestFile(out).toStdString());
    QCOMPARE(s["fabric"]["kind"].get<std::string>(), std::string("tor"));
    // 16 servers x 8 NICs to their leaves, and per leaf 4 x 8 x 400 / 400 = 32 uplinks.
    QCOMPARE(s["fabric"]["cabling"].size(), std::size_t(16 * 8 + 4 * 32));
}

void TestCliSchedulerTopology::nvidiaSmiFilesSetTheNvlinkDomains()
{
    QTemporaryDir dir;
    QStringList args { QStringLiteral("import-topology"), sample("seed-128.json") };
    // 16 hosts named by their files, in two domains of 8: hosts 0-7 and 8-15.
    for (int h = 15; h >= 0; --h) {
        const QString file
            = dir.filePath(QStringLiteral("node%1.txt").arg(h, 3, 10, QLatin1Char('0')));
        writeTestFile(file, nvidiaSmi(h / 8));
        args << QStringLiteral("--topology") << file;
    }
    const QString out = dir.filePath(QStringLiteral("domains.json"));
    const CliRun r = runRailyardCli(args << QStringLiteral("-o") << out);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json s = nlohmann::json::parse(readTestFile(out).toStdString());
    QCOMPARE(s["fabric"]["scaleup_domain_servers"].get<int>(), 8);
    // The domains in the order first seen (node015's first): node015..node008, then node007...
    QCOMPARE(s["fabric"]["server_names"][0].get<std::string>(), std::string("node015"));
    QCOMPARE(s["fabric"]["server_names"][8].get<std::string>(), std::string("node007"));
    QVERIFY2(r.err.contains("2 NVLink domain(s) of 8 server(s)"), r.err.constData());
}

void TestCliSchedulerTopology::badInputWritesNothing_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("not a tree") << QByteArray(
        "SwitchName=s0 Nodes=n1\nSwitchName=a Switches=s0\nSwitchName=b Switches=s0\n")
                                << QStringLiteral(
                                       "bad.txt:3: switch s0 is a child of a (line 2) too");
    QTest::newRow("bad uuid") << QByteArray("h1: GPU 00000008:01:00.0\nh1: ClusterUUID : 42\n")
                              << QStringLiteral("bad.txt:2: ClusterUUID '42' is not a UUID");
    QTest::newRow("unknown kind") << QByteArray("hello\n")
                                  << QStringLiteral("bad.txt: is neither NCCL topology XML");
}

void TestCliSchedulerTopology::badInputWritesNothing()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.txt"));
    writeTestFile(bad, text);
    const QString out = dir.filePath(QStringLiteral("out.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
        QStringLiteral("--topology"), bad, QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

void TestCliSchedulerTopology::twoDomainSourcesAreAUsageError()
{
    QTemporaryDir dir;
    const QString block = dir.filePath(QStringLiteral("block.conf"));
    writeTestFile(block, "BlockName=b0 Nodes=node[000-015]\n");
    const QString smi = dir.filePath(QStringLiteral("node000.txt"));
    writeTestFile(smi, nvidiaSmi(0));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
        QStringLiteral("--topology"), block, QStringLiteral("--topology"), smi });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("NVLink domains from two sources"), r.err.constData());
    QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestCliSchedulerTopology)
#include "tst_cli_schedulertopology.moc"
