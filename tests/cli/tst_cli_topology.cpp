// railyard-cli import-topology, run as a user would: the sample server XML on the seed job, a
// server whose NICs are numbered against its GPUs, several servers compared, and bad input
// (exit 1, nothing written; a missing option exits 2). Then export --format nccl-topo of the
// imported scenario, read back by import-topology (the same server model), and refused with
// exit 1 and nothing written on a scenario without PCI bus ids.
#include "clirun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

/// The sample with the nets dev 0 and dev 2 renumbered (NIC 0 on the second PCIe switch).
QByteArray swappedSample()
{
    QByteArray xml = readTestFile(sample("dgx-h100-topology.xml"));
    xml.replace("name=\"mlx5_0\" dev=\"0\"", "name=\"mlx5_0\" dev=\"TMP\"");
    xml.replace("name=\"mlx5_2\" dev=\"2\"", "name=\"mlx5_2\" dev=\"0\"");
    xml.replace("name=\"mlx5_0\" dev=\"TMP\"", "name=\"mlx5_0\" dev=\"2\"");
    return xml;
}

} // namespace

class TestCliTopology : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sampleSetsTheServerModel();
    void swappedNicsChangeTheAffinityAndWarn();
    void providerClassCodeFile();
    void badInputWritesNothing_data();
    void badInputWritesNothing();
    void cablingInventoryBuildsTheFabric();
    void badCablingWritesNothing_data();
    void badCablingWritesNothing();
    void ncclTopoExportRoundTrips();
    void ncclTopoWithoutBusIdsWritesNothing();
};

void TestCliTopology::ncclTopoExportRoundTrips()
{
    QTemporaryDir dir;
    const QString imported = dir.filePath(QStringLiteral("imported.json"));
    QCOMPARE(runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
                                QStringLiteral("--topology"), sample("dgx-h100-topology.xml"),
                                QStringLiteral("-o"), imported })
                 .exitCode,
        0);
    const QString xml = dir.filePath(QStringLiteral("railyard.nccl-topo.xml"));
    const CliRun w = runRailyardCli({ QStringLiteral("export"), imported,
        QStringLiteral("--format"), QStringLiteral("nccl-topo"), QStringLiteral("-o"), xml });
    QVERIFY2(w.exitCode == 0, w.err.constData());
    const QByteArray text = readTestFile(xml);
    QVERIFY(text.contains("<system version=\"1\">"));
    QVERIFY(text.contains("<net name=\"mlx5_7\" dev=\"7\" speed=\"400000\"/>"));
    // Read back: the same server model as from NCCL's own dump, PCIe switches included.
    const QString again = dir.filePath(QStringLiteral("again.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), imported,
        QStringLiteral("--topology"), xml, QStringLiteral("-o"), again });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("GPU 7 0000:db:00.0   -> mlx5_7   rail 7  PIX  numa 1"));
    const nlohmann::json a = nlohmann::json::parse(readTestFile(imported).toStdString());
    const nlohmann::json b = nlohmann::json::parse(readTestFile(again).toStdString());
    for (const char *key : { "gpu_to_nic", "nic_devices", "gpu_pci_bus_ids", "nic_pci_bus_ids",
             "gpu_numa", "nic_numa", "gpu_pci_paths", "nic_pci_paths", "nics_per_server" })
        QVERIFY2(a["fabric"][key] == b["fabric"][key], key);
    QCOMPARE(b["fabric"]["gpu_pci_paths"][0], nlohmann::json({ "0000:15:00.0" }));
    // The launchers of the imported scenario use the file when it is there.
    const CliRun t = runRailyardCli({ QStringLiteral("export"), imported,
        QStringLiteral("--format"), QStringLiteral("torchrun"), QStringLiteral("--nccl-topo"),
        QStringLiteral("topo/server.xml") });
    QVERIFY2(t.exitCode == 0, t.err.constData());
    QVERIFY(t.out.contains("[ -f 'topo/server.xml' ]; then NCCL_TOPO_FILE='topo/server.xml'; fi"));
    // nccl-topo names no hosts; --nccl-topo is for the launchers.
    const QString hosts = dir.filePath(QStringLiteral("hosts.txt"));
    writeTestFile(hosts, QByteArray("h\n").repeated(16));
    QCOMPARE(runRailyardCli({ QStringLiteral("export"), imported, QStringLiteral("--format"),
                                QStringLiteral("nccl-topo"), QStringLiteral("--hosts"), hosts })
                 .exitCode,
        2);
    QCOMPARE(runRailyardCli({ QStringLiteral("export"), imported, QStringLiteral("--format"),
                                QStringLiteral("csv"), QStringLiteral("--nccl-topo"), xml })
                 .exitCode,
        2);
}

void TestCliTopology::ncclTopoWithoutBusIdsWritesNothing()
{
    QTemporaryDir dir;
    const QString xml = dir.filePath(QStringLiteral("seed.nccl-topo.xml"));
    const CliRun r = runRailyardCli({ QStringLiteral("export"), sample("seed-128.json"),
        QStringLiteral("--format"), QStringLiteral("nccl-topo"), QStringLiteral("-o"), xml });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(
        r.err.contains("fabric.gpu_pci_bus_ids and fabric.nic_pci_bus_ids"), r.err.constData());
    QVERIFY(r.err.contains("railyard-cli import-topology"));
    QVERIFY(!QFile::exists(xml));
    QVERIFY(r.out.isEmpty());
}

void TestCliTopology::sampleSetsTheServerModel()
{
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("seed-topo.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
        QStringLiteral("--topology"), sample("dgx-h100-topology.xml"), QStringLiteral("-o"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("8 GPUs, 8 rail NICs, NVLink 450 GB/s per GPU and direction"));
    QVERIFY(r.err.contains("GPU 7 0000:db:00.0   -> mlx5_7   rail 7  PIX  numa 1"));
    QVERIFY(!r.err.contains("warning:"));
    const nlohmann::json s = nlohmann::json::parse(readTestFile(out).toStdString());
    QCOMPARE(s["fabric"]["gpu_to_nic"], nlohmann::json({ 0, 1, 2, 3, 4, 5, 6, 7 }));
    QCOMPARE(s["fabric"]["nics_per_server"].get<int>(), 8);
    QCOMPARE(s["fabric"]["scaleup_gbps"].get<double>(), 3600.0);
    QCOMPARE(s["fabric"]["nic_devices"][7].get<std::string>(), std::string("mlx5_7"));
    QCOMPARE(s["fabric"]["gpu_pci_bus_ids"][0].get<std::string>(), std::string("0000:18:00.0"));
    // What the launchers take from it: the rank's rail NIC by its RDMA name.
    const CliRun x = runRailyardCli({ QStringLiteral("export"), out, QStringLiteral("--format"),
        QStringLiteral("mapping-json") });
    QVERIFY2(x.exitCode == 0, x.err.constData());
    QVERIFY(x.out.contains("\"gpu_pci_bus_id\": \"0000:18:00.0\"")
        || x.out.contains("\"gpu_pci_bus_id\":\"0000:18:00.0\""));
    // The result is a scenario the engine takes.
    const CliRun e = runRailyardCli({ QStringLiteral("evaluate"), out, QStringLiteral("--json") });
    QVERIFY2(e.exitCode == 0, e.err.constData());
}

void TestCliTopology::providerClassCodeFile()
{
    // A provider's NCCL_TOPO_FILE that gives GPUs and NICs only by PCI class (written here in
    // the shape of Azure's ND H100 v5 file): the server model comes from it, the warnings say
    // what it could not give, and the exports keep the default RDMA names.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("ndv5.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
        QStringLiteral("--topology"),
        QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/nccl-topology/azure-ndv5-class-codes.xml"),
        QStringLiteral("-o"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("8 GPUs, 8 rail NICs\n"));
    QVERIFY(r.err.contains("GPU 4 0005:00:00.0   -> 0105:00:00.0 rail 4  PIX  numa 1"));
    QVERIFY(r.err.contains("warning: 8 NICs are given only by PCI class"));
    const nlohmann::json s = nlohmann::json::parse(readTestFile(out).toStdString());
    QCOMPARE(s["fabric"]["gpu_to_nic"], nlohmann::json({ 0, 1, 2, 3, 4, 5, 6, 7 }));
    QCOMPARE(s["fabric"]["gpu_pci_bus_ids"][0].get<std::string>(), std::string("0001:00:00.0"));
    QCOMPARE(s["fabric"]["nic_pci_bus_ids"][7].get<std::string>(), std::string("0108:00:00.0"));
    QVERIFY(!s["fabric"].contains("nic_devices"));
    const CliRun e = runRailyardCli({ QStringLiteral("evaluate"), out, QStringLiteral("--json") });
    QVERIFY2(e.exitCode == 0, e.err.constData());
}

void TestCliTopology::swappedNicsChangeTheAffinityAndWarn()
{
    QTemporaryDir dir;
    const QString xml = dir.filePath(QStringLiteral("node001.xml"));
    writeTestFile(xml, swappedSample());
    const QString out = dir.filePath(QStringLiteral("out.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
        QStringLiteral("--topology"), xml, QStringLiteral("--topology"),
        sample("dgx-h100-topology.xml"), QStringLiteral("-o"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json s = nlohmann::json::parse(readTestFile(out).toStdString());
    QCOMPARE(s["fabric"]["gpu_to_nic"], nlohmann::json({ 1, 2, 0, 3, 4, 5, 6, 7 }));
    // The pairing warnings of the first file and the comparison with the second.
    QVERIFY2(r.err.contains(
                 "warning: GPU 0 (0000:18:00.0) sits closest to NIC mlx5_1 (rail 1), not rail 0"),
        r.err.constData());
    QVERIFY2(r.err.contains("the same GPU index lands on different rails across servers"),
        r.err.constData());
    QCOMPARE(r.err.count("warning: "), 6); // 3 unpaired GPUs, 3 GPUs on other rails than node000
}

void TestCliTopology::badInputWritesNothing_data()
{
    QTest::addColumn<QByteArray>("xml");
    QTest::addColumn<QString>("message");
    QTest::addColumn<int>("exitCode");
    QTest::newRow("malformed") << QByteArray("<system>\n<cpu numaid=0>\n</cpu></system>\n")
                               << QStringLiteral("bad.xml:2: not XML: ") << 1;
    QTest::newRow("no gpu") << QByteArray("<system><cpu numaid=\"0\"/></system>")
                            << QStringLiteral("bad.xml: no <gpu> element under <system>, and no <pci> of a GPU's class (0x03...)") << 1;
    // GPU 7 renamed (start and end tag alike: the reader refuses mismatched tags).
    QByteArray sevenGpus = readTestFile(sample("dgx-h100-topology.xml"));
    const qsizetype seventh = sevenGpus.indexOf("<gpu dev=\"7\"");
    sevenGpus.replace(sevenGpus.indexOf("</gpu>", seventh), 6, "</gpux>");
    sevenGpus.replace(seventh, 4, "<gpux");
    QTest::newRow("too few gpus for the servers")
        << sevenGpus << QStringLiteral("fabric.gpus_per_server: ") << 1;
}

void TestCliTopology::badInputWritesNothing()
{
    QFETCH(QByteArray, xml);
    QFETCH(QString, message);
    QFETCH(int, exitCode);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.xml"));
    writeTestFile(path, xml);
    const QString out = dir.filePath(QStringLiteral("out.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
        QStringLiteral("--topology"), path, QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFile::exists(out));
    QVERIFY(r.out.isEmpty());
    // Without --topology: a usage error.
    const CliRun u = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json") });
    QCOMPARE(u.exitCode, 2);
    QVERIFY(u.err.contains("--topology"));
}

void TestCliTopology::cablingInventoryBuildsTheFabric()
{
    // The 2-SU sample inventory under the 1-SU job: 64 servers, the three findings of its two
    // miswirings on stderr and in evaluate's warnings; the job (256 ranks) keeps its preset.
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("cabled.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"),
        sample("dgx-h100-1su.json"), QStringLiteral("--topology"), sample("dgx-h100-topology.xml"),
        QStringLiteral("--cabling"), sample("cabling-2su.csv"), QStringLiteral("-o"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.err.contains("1023 cables, 64 servers, 16 leaves, 8 spines, 0 super-spines"));
    QVERIFY(r.err.contains("dgx-su1-n07 NIC 2 is on leaf-su1-r3"));
    QVERIFY(r.err.contains("dgx-su2-n20 NICs 4 and 5 on leaf-su2-r4"));
    QVERIFY(r.err.contains("leaf-su2-r4 has 31"));
    const nlohmann::json scenario = nlohmann::json::parse(readTestFile(out).toStdString());
    QCOMPARE(scenario["fabric"]["servers"].get<int>(), 64);
    QCOMPARE(scenario["fabric"]["cabling"].size(), std::size_t(1023));
    QCOMPARE(scenario["fabric"]["nic_devices"][0].get<std::string>(), std::string("mlx5_0"));
    const CliRun e = runRailyardCli({ QStringLiteral("evaluate"), out, QStringLiteral("--json") });
    QVERIFY2(e.exitCode == 0, e.err.constData());
    const nlohmann::json report = nlohmann::json::parse(e.out.toStdString());
    int cabling = 0;
    for (const auto &w : report["warnings"])
        cabling += w.get<std::string>().rfind("cabling: ", 0) == 0;
    QCOMPARE(cabling, 3);
}

void TestCliTopology::badCablingWritesNothing_data()
{
    QTest::addColumn<QByteArray>("csv");
    QTest::addColumn<QString>("message");
    QTest::newRow("port twice") << QByteArray(
        "node000,nic0,leaf,p1,400\nnode001,nic0,leaf,p1,400\n")
                                << QStringLiteral("bad.csv:2: leaf port p1 is already cabled");
    QTest::newRow("columns") << QByteArray("node000,nic0,leaf\n")
                             << QStringLiteral("bad.csv:1: expected 5 or 6 columns");
    QTest::newRow("job too large")
        << QByteArray("node000,nic0,leaf,p1,400\nnode001,nic0,leaf,p2,400\n")
        << QStringLiteral("the job has 128 ranks but the imported fabric has 16 GPU slots");
}

void TestCliTopology::badCablingWritesNothing()
{
    QFETCH(QByteArray, csv);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.csv"));
    writeTestFile(path, csv);
    const QString out = dir.filePath(QStringLiteral("out.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("import-topology"), sample("seed-128.json"),
        QStringLiteral("--cabling"), path, QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

QTEST_APPLESS_MAIN(TestCliTopology)
#include "tst_cli_topology.moc"
