// railyard-cli counters as a user runs it on samples/seed-128.json with the counter files of
// tests/data/port-counters (written here in the tools' formats, not captured): a CSV of bytes
// over a 30 s window with one idle NIC, two pdsh-gathered perfquery -x snapshots 10 s apart
// (4-byte words), --window, a mapping file, and refusals (exit 1, FILE:LINE, nothing written).
#include "clirun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

namespace {

QString data(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/port-counters/") + QLatin1String(name);
}

QString seed()
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

const nlohmann::json *linkNamed(const nlohmann::json &j, const std::string &name)
{
    for (const nlohmann::json &l : j["links"]) {
        if (l["name"] == name)
            return &l;
    }
    return nullptr;
}

} // namespace

class TestCliCounters : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void windowCsvRanksTheIdleNic();
    void perfquerySnapshotsCountWords();
    void mappingFileNamesALink();
    void badInputWritesNothing_data();
    void badInputWritesNothing();

private:
    QTemporaryDir m_dir;
};

void TestCliCounters::windowCsvRanksTheIdleNic()
{
    const CliRun r = runRailyardCli({ "counters", seed(), data("seed128-window.csv") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.startsWith("Port counters: 16 ports over 30.0 s, 32 directed links measured\n"),
        r.out.left(300).constData());
    // node001's mlx5_5 carries nothing: an idle NIC, named with both figures.
    QVERIFY2(r.out.contains("[idle-nic] node001/nic5 -> "), r.out.constData());
    // 1.05e11 bytes over 30 s on a 400 Gbit/s link: 28.0 Gbit/s, 7.0 %.
    QVERIFY2(r.out.contains("node000/nic0 -> leaf-su0-rail0  7.0 % / "), r.out.constData());
    QVERIFY(r.out.contains("28.00 Gbit/s  (node000/mlx5_0:1 tx)"));
    // The NICs at their prediction are no divergence: the idle one is the first and only.
    QVERIFY2(r.out.contains("\n  1. [idle-nic] node001/nic5 -> leaf-su0-rail5: measured 0.0 %"),
        r.out.constData());
    QVERIFY(!r.out.contains("\n  2. "));
}

void TestCliCounters::perfquerySnapshotsCountWords()
{
    const CliRun r = runRailyardCli({ "counters", seed(), data("perfquery-before.txt"),
        data("perfquery-after.txt"), "--json" });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["format_version"].get<int>(), 1);
    QCOMPARE(j["window_s"].get<double>(), 10.0);
    QCOMPARE(j["ports"].get<int>(), 2);
    // mlx5_1 sent 25e9 words in 10 s: 1e11 bytes, 1e10 B/s, 0.2 of 50 GB/s. Read as bytes
    // (no factor 4) it would be 0.05.
    const nlohmann::json *l = linkNamed(j, "node000/nic1 -> leaf-su0-rail1");
    QVERIFY(l);
    QCOMPARE((*l)["measured_bytes_per_s"].get<double>(), 1e10);
    QCOMPARE((*l)["measured_utilisation"].get<double>(), 0.2);
    QCOMPARE((*l)["ports"].get<std::string>(), std::string("node000/mlx5_1:1 tx"));
    const nlohmann::json *back = linkNamed(j, "leaf-su0-rail1 -> node000/nic1");
    QVERIFY(back);
    QCOMPARE((*back)["measured_bytes_per_s"].get<double>(), 5e9);
    // --window replaces the timestamps' 10 s.
    const CliRun w = runRailyardCli({ "counters", seed(), data("perfquery-before.txt"),
        data("perfquery-after.txt"), "--json", "--window", "20" });
    QVERIFY2(w.exitCode == 0, w.err.constData());
    const nlohmann::json jw = nlohmann::json::parse(w.out.toStdString());
    QCOMPARE(
        (*linkNamed(jw, "node000/nic1 -> leaf-su0-rail1"))["measured_bytes_per_s"].get<double>(),
        5e9);
}

void TestCliCounters::mappingFileNamesALink()
{
    const QString counters = m_dir.filePath("lo.csv");
    writeTestFile(counters, "host,device,port,tx_bytes,rx_bytes,seconds\nhead,lo,,5e10,5e10,10\n");
    const QString map = m_dir.filePath("map.csv");
    writeTestFile(map, "host,device,port,from,to\n*,lo,,node002/nic4,leaf-su0-rail4\n");
    const CliRun r = runRailyardCli({ "counters", seed(), counters, "--map", map, "--json" });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    const nlohmann::json *l = linkNamed(j, "node002/nic4 -> leaf-su0-rail4");
    QVERIFY(l);
    QCOMPARE((*l)["measured_utilisation"].get<double>(), 0.1);
    QVERIFY(linkNamed(j, "leaf-su0-rail4 -> node002/nic4"));
}

void TestCliCounters::badInputWritesNothing_data()
{
    QTest::addColumn<QByteArray>("counters");
    QTest::addColumn<QByteArray>("map");
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("message");
    QTest::newRow("malformed perfquery")
        << QByteArray("# Port extended counters: Lid 3 port 1\nPortXmitData:....12q\n")
        << QByteArray() << QStringList() << "bad.txt:2: PortXmitData value \"12q\"";
    QTest::newRow("one snapshot") << QByteArray(
        "# Port extended counters: Lid 3 port 1\nPortXmitData:....12\nPortRcvData:...1\n")
                                  << QByteArray() << QStringList()
                                  << "bad.txt:1: port lid 3:1 is read only once";
    QTest::newRow("unknown node in map")
        << QByteArray("lo,,1,1,1\n") << QByteArray("*,lo,,node000/nic0,leaf-9\n") << QStringList()
        << "map.csv:1: no fabric node is named \"leaf-9\"";
    QTest::newRow("nothing maps") << QByteArray("eth0,,1,1,1\n") << QByteArray() << QStringList()
                                  << "counters: none of the 1 ports maps to a fabric link";
    QTest::newRow("bad window") << QByteArray("lo,,1,1,1\n") << QByteArray()
                                << QStringList { "--window", "0" }
                                << "--window: must be a number of seconds > 0";
}

void TestCliCounters::badInputWritesNothing()
{
    QFETCH(QByteArray, counters);
    QFETCH(QByteArray, map);
    QFETCH(QStringList, extra);
    QFETCH(QString, message);
    const QString file = m_dir.filePath("bad.txt");
    writeTestFile(file, counters);
    const QString out = m_dir.filePath("out.json");
    QFile::remove(out);
    QStringList args { "counters", seed(), file, "-o", out };
    if (!map.isEmpty()) {
        const QString mapFile = m_dir.filePath("map.csv");
        writeTestFile(mapFile, map);
        args << "--map" << mapFile;
    }
    args << extra;
    const CliRun r = runRailyardCli(args);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains(message.toUtf8()), r.err.constData());
    QVERIFY(!QFile::exists(out));
    QVERIFY(r.out.isEmpty());
}

QTEST_GUILESS_MAIN(TestCliCounters)
#include "tst_cli_counters.moc"
