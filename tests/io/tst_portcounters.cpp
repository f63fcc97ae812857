// Tests of the port counter readers (model/io/portcounters.cpp, portcounterformats.cpp,
// portmap.cpp): perfquery -x blocks (4-byte words), Prometheus text (node exporter's
// InfiniBand and netdev series, switch exporters, timestamps), the CSV, rates from two
// snapshots or a window, the mapping file, and FILE:LINE for every malformed line.
// The perfquery and Prometheus texts here are written in those tools' real formats
// (infiniband-diags perfquery -x; node exporter 1.5's /metrics), not captured from a cluster.

#include "base/scenarioerror.h"
#include "io/portcounters.h"
#include "io/portmap.h"

#include <QTest>

#include <cmath>
#include <string>

using namespace railyard;

namespace {

std::string refusal(const std::string &text)
{
    try {
        (void)parsePortCounters(text, "c.txt");
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return "(parsed)";
}

std::string perfqueryBlock(
    const std::string &prefix, int lid, int port, unsigned long long xmit, unsigned long long rcv)
{
    const std::string p = prefix.empty() ? "" : prefix + ": ";
    return p + "# Port extended counters: Lid " + std::to_string(lid) + " port "
        + std::to_string(port) + " (CapMask: 0x5A00)\n" + p + "PortSelect:......................"
        + std::to_string(port) + "\n" + p + "CounterSelect:...................0x0000\n" + p
        + "PortXmitData:...................." + std::to_string(xmit) + "\n" + p
        + "PortRcvData:....................." + std::to_string(rcv) + "\n" + p
        + "PortXmitPkts:....................267579\n" + p
        + "PortRcvPkts:.....................267579\n" + p
        + "PortUnicastXmitPkts:.............267579\n";
}

} // namespace

class TestPortCounters : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void perfqueryCountsFourByteWords();
    void perfqueryHostPrefixesCommandLinesAndTimes();
    void prometheusNodeExporterSeries();
    void prometheusSwitchExportersAndTimestamps();
    void csvWindowAndHeader();
    void ratesFromTwoSnapshots();
    void ratesRefuseWhatCannotBeMeasured();
    void malformedLinesNameFileAndLine_data();
    void malformedLinesNameFileAndLine();
    void mappingFile();
};

void TestPortCounters::perfqueryCountsFourByteWords()
{
    const PortCounterFile f = parsePortCounters(perfqueryBlock("", 12, 1, 1000, 2500), "pq.txt");
    QCOMPARE(f.format, std::string("perfquery"));
    QCOMPARE(f.samples.size(), std::size_t(1));
    const PortSample &s = f.samples[0];
    // PortXmitData counts 32-bit words (IBA 1.3 vol. 1): 1000 words = 4000 bytes.
    QCOMPARE(s.tx, 4000.0);
    QCOMPARE(s.rx, 10000.0);
    QCOMPARE(s.device, std::string("lid 12"));
    QCOMPARE(s.port, std::string("1"));
    QCOMPARE(s.line, 1);
    QVERIFY(std::isnan(s.time));
}

void TestPortCounters::perfqueryHostPrefixesCommandLinesAndTimes()
{
    // pdsh -w node[001-002] 'date +%s; perfquery -x -C mlx5_0 -P 1' with `set -x` echoes.
    const std::string text = "node001: 1733476000.5\n"
                             "node001: + perfquery -x -C mlx5_0 -P 1\n"
        + perfqueryBlock("node001", 3, 1, 100, 200) + "node002: 1733476001\n"
        + "node002: + perfquery -x -C mlx5_3 -P 1\n" + perfqueryBlock("node002", 7, 1, 300, 400)
        + "pdsh@head: node003: ssh exited with exit code 255\n";
    const PortCounterFile f = parsePortCounters(text, "pq.txt");
    QCOMPARE(f.samples.size(), std::size_t(2));
    QCOMPARE(f.samples[0].host, std::string("node001"));
    QCOMPARE(f.samples[0].device, std::string("mlx5_0"));
    QCOMPARE(f.samples[0].tx, 400.0);
    QCOMPARE(f.samples[0].time, 1733476000.5);
    QCOMPARE(f.samples[0].line, 3);
    QCOMPARE(f.samples[1].host, std::string("node002"));
    QCOMPARE(f.samples[1].device, std::string("mlx5_3"));
    QCOMPARE(f.samples[1].rx, 1600.0);
    QCOMPARE(f.samples[1].time, 1733476001.0);
    // srun -l labels ("0: ") come off like nccl-tests' (launcherlabels.h).
    const PortCounterFile labelled = parsePortCounters(
        "0: + perfquery -x -C mlx5_1 -P 1\n" + perfqueryBlock("0", 4, 1, 1, 2), "l.txt");
    QCOMPARE(labelled.samples.size(), std::size_t(1));
    QCOMPARE(labelled.samples[0].device, std::string("mlx5_1"));
}

void TestPortCounters::prometheusNodeExporterSeries()
{
    const std::string text
        = "# HELP node_infiniband_port_data_received_bytes_total Number of data octets received on "
          "all links\n"
          "# TYPE node_infiniband_port_data_received_bytes_total counter\n"
          "node_infiniband_port_data_received_bytes_total{device=\"mlx5_0\",port=\"1\"} 1.2e+10\n"
          "node_infiniband_port_data_received_bytes_total{device=\"mlx5_1\",port=\"1\"} 7\n"
          "# HELP node_infiniband_port_data_transmitted_bytes_total Number of data octets "
          "transmitted on all links\n"
          "# TYPE node_infiniband_port_data_transmitted_bytes_total counter\n"
          "node_infiniband_port_data_transmitted_bytes_total{device=\"mlx5_0\",port=\"1\"} "
          "3.5e+10\n"
          "node_infiniband_port_data_transmitted_bytes_total{device=\"mlx5_1\",port=\"1\"} 9\n"
          "# TYPE node_network_receive_bytes_total counter\n"
          "node_network_receive_bytes_total{device=\"lo\"} 5.419337e+07\n"
          "node_network_transmit_bytes_total{device=\"lo\"} 54193370\n"
          "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 123.5\n";
    const PortCounterFile f = parsePortCounters(text, "m.prom");
    QCOMPARE(f.format, std::string("prometheus"));
    QCOMPARE(f.samples.size(), std::size_t(3));
    QCOMPARE(f.samples[0].device, std::string("mlx5_0"));
    QCOMPARE(f.samples[0].port, std::string("1"));
    // node exporter already multiplies the word counters by 4: bytes stay bytes.
    QCOMPARE(f.samples[0].tx, 3.5e10);
    QCOMPARE(f.samples[0].rx, 1.2e10);
    QCOMPARE(f.samples[0].line, 3);
    QCOMPARE(f.samples[1].tx, 9.0);
    QCOMPARE(f.samples[2].device, std::string("lo"));
    QCOMPARE(f.samples[2].port, std::string());
    QCOMPARE(f.samples[2].rx, 54193370.0);
    QCOMPARE(f.samples[2].tx, 54193370.0);
}

void TestPortCounters::prometheusSwitchExportersAndTimestamps()
{
    const std::string text
        = "leaf01: ifHCOutOctets{ifIndex=\"5\",ifName=\"swp5\"} 1000 1733476000000\n"
          "leaf01: ifHCInOctets{ifIndex=\"5\",ifName=\"swp5\"} 2000 1733476000000\n"
          "infiniband_switch_port_transmit_data_bytes_total{guid=\"0x1\",port=\"7\",switch="
          "\"spine3\"} 10\n"
          "infiniband_switch_port_receive_data_bytes_total{guid=\"0x1\",port=\"7\",switch="
          "\"spine3\"} 20\n"
          "node_network_transmit_bytes_total{device=\"eth0\",instance=\"node009:9100\"} 5\n"
          "node_network_receive_bytes_total{device=\"eth0\",instance=\"node009:9100\"} 6\n";
    const PortCounterFile f = parsePortCounters(text, "s.prom");
    QCOMPARE(f.samples.size(), std::size_t(3));
    QCOMPARE(f.samples[0].host, std::string("leaf01"));
    QCOMPARE(f.samples[0].port, std::string("swp5"));
    QCOMPARE(f.samples[0].time, 1733476000.0);
    QCOMPARE(f.samples[1].host, std::string("spine3"));
    QCOMPARE(f.samples[1].port, std::string("7"));
    QCOMPARE(f.samples[1].rx, 20.0);
    QCOMPARE(f.samples[2].host, std::string("node009"));
}

void TestPortCounters::csvWindowAndHeader()
{
    const PortCounterFile positional = parsePortCounters(
        "# device,port,tx,rx,seconds\nmlx5_0,1,4e9,2e9,10\nmlx5_1,1,0,0,10\n", "c.csv");
    QCOMPARE(positional.format, std::string("csv"));
    QCOMPARE(positional.samples.size(), std::size_t(2));
    QCOMPARE(positional.samples[0].window, 10.0);
    QCOMPARE(positional.samples[0].tx, 4e9);
    QCOMPARE(positional.samples[0].line, 2);
    const PortCounterFile header = parsePortCounters(
        "rx_bytes,timestamp,host,device,port,tx_bytes,note\n5,100.5,node001,mlx5_2,1,7,x\n",
        "h.csv");
    QCOMPARE(header.samples[0].host, std::string("node001"));
    QCOMPARE(header.samples[0].device, std::string("mlx5_2"));
    QCOMPARE(header.samples[0].tx, 7.0);
    QCOMPARE(header.samples[0].rx, 5.0);
    QCOMPARE(header.samples[0].time, 100.5);
    QCOMPARE(header.samples[0].window, 0.0);
    const std::vector<PortRate> r = portRates({ positional }, 0.0);
    QCOMPARE(r[0].txRate, 4e8);
    QCOMPARE(r[0].rxRate, 2e8);
}

void TestPortCounters::ratesFromTwoSnapshots()
{
    // Two perfquery snapshots 10 s apart: 250,000,000 words more = 1e9 bytes = 1e8 B/s.
    const PortCounterFile a
        = parsePortCounters("node001: 1000\nnode001: perfquery -x -C mlx5_0 -P 1\n"
                + perfqueryBlock("node001", 3, 1, 0, 10),
            "a.txt");
    const PortCounterFile b
        = parsePortCounters("node001: 1010\nnode001: perfquery -x -C mlx5_0 -P 1\n"
                + perfqueryBlock("node001", 3, 1, 250000000, 10 + 25000000),
            "b.txt");
    const std::vector<PortRate> fromTimes = portRates({ a, b }, 0.0);
    QCOMPARE(fromTimes.size(), std::size_t(1));
    QCOMPARE(fromTimes[0].txRate, 1e8);
    QCOMPARE(fromTimes[0].rxRate, 1e7);
    QCOMPARE(fromTimes[0].window, 10.0);
    QCOMPARE(fromTimes[0].where, std::string("b.txt:3"));
    // --window wins over the timestamps.
    QCOMPARE(portRates({ a, b }, 20.0)[0].txRate, 5e7);
}

void TestPortCounters::ratesRefuseWhatCannotBeMeasured()
{
    const auto refused = [](const std::vector<PortCounterFile> &files, double window) {
        try {
            (void)portRates(files, window);
        } catch (const ScenarioError &e) {
            return std::string(e.what());
        }
        return std::string("(measured)");
    };
    const PortCounterFile a = parsePortCounters(perfqueryBlock("", 3, 1, 100, 100), "a.txt");
    const PortCounterFile b = parsePortCounters(perfqueryBlock("", 3, 1, 50, 200), "b.txt");
    QCOMPARE(
        refused({ a }, 0.0).rfind("a.txt:1: port lid 3:1 is read only once", 0), std::size_t(0));
    QCOMPARE(refused({ a, b }, 5.0).rfind("b.txt:1: port lid 3:1's counter went backwards", 0),
        std::size_t(0));
    // 400 bytes in 10^-14 s (4e16 B/s): no port does that; the window is wrong.
    const PortCounterFile d = parsePortCounters(perfqueryBlock("", 3, 1, 200, 300), "d.txt");
    QCOMPARE(refused({ a, d }, 1e-14).rfind("d.txt:1: port lid 3:1 moves more than 10^15 bytes", 0),
        std::size_t(0));
    const PortCounterFile c = parsePortCounters(perfqueryBlock("", 3, 1, 200, 300), "c.txt");
    QCOMPARE(refused({ a, c }, 0.0).rfind("c.txt:1: no time between the two readings", 0),
        std::size_t(0));
}

void TestPortCounters::malformedLinesNameFileAndLine_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("words not a number")
        << "# Port extended counters: Lid 1 port 1\nPortXmitData:.....12x\nPortRcvData:....1\n"
        << "c.txt:2: PortXmitData value \"12x\" is not a count of words";
    QTest::newRow("block without rcv")
        << "# Port extended counters: Lid 1 port 1\nPortXmitData:.....12\n"
        << "c.txt:1: the counter block has no PortRcvData line";
    QTest::newRow("field outside block") << "PortXmitData:.....12\n"
                                         << "c.txt:1: PortXmitData outside a counter block";
    QTest::newRow("saturated 32-bit")
        << "# Port counters: Lid 1 port 1\nPortXmitData:.....4294967295\nPortRcvData:....1\n"
        << "c.txt:2: PortXmitData is saturated at 2^32-1 words";
    QTest::newRow("prometheus garbage")
        << "# TYPE x counter\nnode_network_receive_bytes_total{device=\"lo\"} 1\n{oops} 3\n"
        << "c.txt:3: not a Prometheus sample line";
    QTest::newRow("prometheus negative")
        << "node_network_receive_bytes_total{device=\"lo\"} -1\n"
        << "c.txt:1: node_network_receive_bytes_total value \"-1\" is not a byte count";
    QTest::newRow("prometheus beyond a 64-bit counter")
        << "node_network_receive_bytes_total{device=\"lo\"} 1e30\n"
        << "c.txt:1: node_network_receive_bytes_total value \"1e30\" is not a byte count";
    QTest::newRow("prometheus unclosed label")
        << "node_network_receive_bytes_total{device=\"lo} 1\n"
        << "c.txt:1: label device of node_network_receive_bytes_total is not closed";
    QTest::newRow("prometheus lone direction")
        << "node_network_receive_bytes_total{device=\"lo\"} 1\n"
        << "c.txt:1: port lo has received bytes but no transmitted series";
    QTest::newRow("prometheus bad timestamp")
        << "node_network_receive_bytes_total{device=\"lo\"} 1 soon\n"
        << "c.txt:1: timestamp \"soon\" is not milliseconds";
    QTest::newRow("csv fields") << "mlx5_0,1,2,3\n"
                                << "c.txt:1: expected device,port,tx_bytes";
    QTest::newRow("csv number") << "mlx5_0,1,2,x,4\n"
                                << "c.txt:1: rx_bytes \"x\" is not a number";
    QTest::newRow("csv window") << "mlx5_0,1,2,3,0\n"
                                << "c.txt:1: seconds must be > 0";
    QTest::newRow("csv no device") << ",1,2,3,4\n"
                                   << "c.txt:1: the line names no device";
    QTest::newRow("nothing") << "hello\n"
                             << "c.txt: no port counters";
}

void TestPortCounters::malformedLinesNameFileAndLine()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const std::string got = refusal(text.toStdString());
    QVERIFY2(got.rfind(message.toStdString(), 0) == 0, got.c_str());
}

void TestPortCounters::mappingFile()
{
    const PortMap map = parsePortMap("# loopback as a NIC link\n"
                                     "from,port,host,to,device\n"
                                     "node000/nic0,,*,leaf-su0-rail0,lo\n"
                                     "node001/nic1,1,node001,leaf-su0-rail1,mlx5_9\n",
        "m.csv");
    QCOMPARE(map.entries.size(), std::size_t(2));
    QCOMPARE(map.entries[0].line, 3);
    const PortMapEntry *lo = map.find("anyhost", "lo", "");
    QVERIFY(lo);
    QCOMPARE(lo->from, std::string("node000/nic0"));
    QCOMPARE(lo->to, std::string("leaf-su0-rail0"));
    QVERIFY(!map.find("anyhost", "lo", "1"));
    QVERIFY(map.find("node001", "mlx5_9", "1"));
    QVERIFY(!map.find("node002", "mlx5_9", "1"));
    try {
        (void)parsePortMap("node001,mlx5_0,1,,leaf\n", "m.csv");
        QFAIL("an empty from was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).rfind("m.csv:1: from and to must name", 0) == 0, e.what());
    }
}

QTEST_GUILESS_MAIN(TestPortCounters)
#include "tst_portcounters.moc"
