// railyard-cli export --format astra-sim / simai-topo, run as a user would: the directory it
// writes (every file, the same text the engine's exporter builds, checked against the goldens'
// counts on the seed), and bad requests that must write nothing: no -o, an option the format
// does not read, --hosts, a missing parent directory, a file in the directory's place, a
// mapping SimAI cannot express.
#include "clirun.h"
#include "scenario/scenariofile.h"

#include <QDir>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

QStringList exportArgs(const QString &scenario, const char *format)
{
    return { QStringLiteral("export"), scenario, QStringLiteral("--format"),
        QString::fromLatin1(format) };
}

QStringList entries(const QString &dir)
{
    return QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
}

} // namespace

class TestCliAstraSim : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void writesTheDirectory();
    void badRequestsWriteNothing_data();
    void badRequestsWriteNothing();
    void simAiTopology();
};

void TestCliAstraSim::writesTheDirectory()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("seed.astra-sim"));
    const CliRun r = runRailyardCli(
        exportArgs(sample("seed-128.json"), "astra-sim") << QStringLiteral("-o") << out);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.isEmpty());
    QCOMPARE(entries(out),
        QStringList({ "comm-groups.json", "logical-topology.json", "network.yml", "ns3-config.txt",
            "ns3-trace.txt", "remote-memory.json", "replay.txt", "system.json", "topology.txt" }));
    QCOMPARE(entries(tmp.path()), QStringList({ "seed.astra-sim" })); // no staging left

    // seed-128: 128 NPUs; tp 8 (16 groups), pp 4 (32 groups), dp 4 (32 groups), ids 1..80.
    const auto groups = nlohmann::json::parse(
        readTestFile(out + QStringLiteral("/comm-groups.json")).toStdString());
    QCOMPARE(static_cast<int>(groups.size()), 16 + 32 + 32);
    QCOMPARE(groups["1"], nlohmann::json({ 0, 1, 2, 3, 4, 5, 6, 7 }));
    QCOMPARE(groups["17"], nlohmann::json({ 0, 32, 64, 96 })); // pp group of rank 0
    QCOMPARE(groups["49"], nlohmann::json({ 0, 8, 16, 24 })); // dp group of rank 0
    const QByteArray topo = readTestFile(out + QStringLiteral("/topology.txt"));
    QVERIFY(topo.contains("\n0 128 3600Gbps 0.0006ms 0\n")); // rank 0 to node000's NVSwitch
    QCOMPARE(
        readTestFile(out + QStringLiteral("/network.yml")).contains("npus_count: [ 8, 16 ]"), true);

    // Again into the same directory: the files are replaced, a file of the user's stays.
    writeTestFile(out + QStringLiteral("/notes.txt"), "mine\n");
    const CliRun again = runRailyardCli(exportArgs(sample("seed-128.json"), "astra-sim")
        << QStringLiteral("--swap") << QStringLiteral("0:9") << QStringLiteral("-o") << out);
    QVERIFY2(again.exitCode == 0, again.err.constData());
    // The swap breaks node000's rank block: the analytical network says it cannot place it.
    QVERIFY2(again.err.contains("warning: astra-sim: network.yml:"), again.err.constData());
    QCOMPARE(readTestFile(out + QStringLiteral("/notes.txt")), QByteArray("mine\n"));
    QVERIFY(readTestFile(out + QStringLiteral("/network.yml")).contains("npus_count: [ 128 ]"));
    QCOMPARE(entries(out).size(), 10);
}

void TestCliAstraSim::badRequestsWriteNothing_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("target"); // "new", "file" or "missing-parent"
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("no -o") << QStringList() << QString() << 2
                           << QStringLiteral("--format astra-sim writes a directory of files");
    QTest::newRow("option of another format")
        << QStringList { QStringLiteral("--json-plan") } << QStringLiteral("new") << 2
        << QStringLiteral("--json-plan applies only to --format nccl-plan, not to astra-sim");
    QTest::newRow("hosts") << QStringList { QStringLiteral("--hosts"), QStringLiteral("HOSTS") }
                           << QStringLiteral("new") << 2
                           << QStringLiteral("--hosts does not apply to --format astra-sim");
    QTest::newRow("missing parent") << QStringList() << QStringLiteral("missing-parent") << 1
                                    << QStringLiteral("cannot create a directory in");
    QTest::newRow("file in the way") << QStringList() << QStringLiteral("file") << 1
                                     << QStringLiteral("exists and is not a directory");
    QTest::newRow("bad swap") << QStringList { QStringLiteral("--swap"), QStringLiteral("0:500") }
                              << QStringLiteral("new") << 1
                              << QStringLiteral("swap: rank 500 is outside 0..127");
}

void TestCliAstraSim::badRequestsWriteNothing()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, target);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir tmp;
    writeTestFile(tmp.filePath(QStringLiteral("plain")), "earlier\n");
    const QStringList before = entries(tmp.path());
    QStringList args = exportArgs(sample("seed-128.json"), "astra-sim");
    for (QString e : extra)
        args << (e == QLatin1String("HOSTS") ? tmp.filePath(QStringLiteral("plain")) : e);
    if (target == QLatin1String("new"))
        args << QStringLiteral("-o") << tmp.filePath(QStringLiteral("out"));
    else if (target == QLatin1String("file"))
        args << QStringLiteral("-o") << tmp.filePath(QStringLiteral("plain"));
    else if (target == QLatin1String("missing-parent"))
        args << QStringLiteral("-o") << tmp.filePath(QStringLiteral("no/such/out"));
    const CliRun r = runRailyardCli(args);
    QCOMPARE(r.exitCode, exitCode);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(r.out.isEmpty());
    QCOMPARE(entries(tmp.path()), before);
    QCOMPARE(readTestFile(tmp.filePath(QStringLiteral("plain"))), QByteArray("earlier\n"));
}

void TestCliAstraSim::simAiTopology()
{
    QTemporaryDir tmp;
    const QString out = tmp.filePath(QStringLiteral("seed.topo"));
    const CliRun r = runRailyardCli(
        exportArgs(sample("seed-128.json"), "simai-topo") << QStringLiteral("-o") << out);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const railyard::Scenario seed = railyard::loadScenario(sample("seed-128.json").toStdString());
    const QList<QByteArray> lines = readTestFile(out).split('\n');
    // 128 GPUs + 16 NVSwitches + leaves and spines; links: 128 NVLink + 128 GPU-leaf + the
    // leaf-spine bundles.
    const QList<QByteArray> head = lines[0].split(' ');
    QCOMPARE(head.size(), 6);
    QCOMPARE(head[1], QByteArray("8"));
    QCOMPARE(head[2], QByteArray("16"));
    QCOMPARE(head[5], QByteArray("H100"));
    QCOMPARE(head[0].toInt(), 128 + 16 + head[3].toInt());
    QCOMPARE(lines[1].split(' ').size(), 16 + head[3].toInt());
    QCOMPARE(lines.size() - 3, head[4].toInt()); // header, ids, links, then the final newline
    QVERIFY(lines[2] == "0 128 3600Gbps 0.0006ms 0");

    // A swap across servers breaks the rank blocks SimAI needs: refused, nothing written.
    const QString refused = tmp.filePath(QStringLiteral("swapped.topo"));
    const CliRun bad = runRailyardCli(exportArgs(sample("seed-128.json"), "simai-topo")
        << QStringLiteral("--swap") << QStringLiteral("0:9") << QStringLiteral("-o") << refused);
    QCOMPARE(bad.exitCode, 1);
    QVERIFY2(bad.err.contains("mapping: SimAI pairs GPU i with the NVSwitch"), bad.err.constData());
    QVERIFY(!QFileInfo::exists(refused));
}

QTEST_GUILESS_MAIN(TestCliAstraSim)
#include "tst_cli_astrasim.moc"
