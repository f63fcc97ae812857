// The NCCL log reader (model/io/nccllog.h) on tests/data/nccl-logs/dgx-h100-2node-world.log
// (written here in NCCL 2.21's INFO format, srun -l labels): one communicator of 16 ranks
// rebuilt from 16 processes' lines, its two rings, every connection with its transport and NIC;
// NCCL 2.18's bus-id brackets and a PXN send; and bad lines refused with FILE:LINE. The GRAPH
// and TUNING lines on tests/data/nccl-logs/h100-2node-nccl227-rails.log (written here in NCCL
// 2.27's format): the searched graphs once per host, the algorithm and protocol per call size,
// NVLS use; the pick lines of 2.21 and 2.23 (numbers) and 2.18's graphs printed before the
// communicator's first line.
#include "base/scenarioerror.h"
#include "io/nccllog.h"

#include <QFile>
#include <QTest>

#include <string>

using namespace railyard;

namespace {

std::string sample(const char *name = "dgx-h100-2node-world.log")
{
    QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/nccl-logs/") + QLatin1String(name));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

NcclLog parsed(const std::string &text)
{
    NcclLog log;
    parseNcclLog(text, "nccl.log", log);
    return log;
}

} // namespace

class TestNcclLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sampleRebuildsTheCommunicator();
    void olderFormatsAndPxn();
    void graphAndTuningLines();
    void olderPickAndGraphFormats();
    void badLines_data();
    void badLines();
};

void TestNcclLog::sampleRebuildsTheCommunicator()
{
    const NcclLog log = parsed(sample());
    QCOMPARE(log.comms.size(), std::size_t(1)); // 16 processes' pointers, one commId
    const NcclLogComm &c = log.comms.front();
    QCOMPARE(c.id, std::string("0x8f2a61c03b7d4e19"));
    QCOMPARE(c.nranks, 16);
    QCOMPARE(c.ranks.size(), std::size_t(16));
    QCOMPARE(c.ranks.at(11).host, std::string("node001"));
    QCOMPARE(c.ranks.at(11).cudaDev, 3);
    QCOMPARE(c.ranks.at(11).busId, std::string("5d000"));
    QCOMPARE(c.rings.size(), std::size_t(2));
    QCOMPARE(
        c.rings[0], (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7, 15, 14, 13, 12, 11, 10, 9, 8 }));
    QCOMPARE(c.rings[1].front(), 1);
    QCOMPARE(c.trees.size(), std::size_t(16));
    // Two rings of 16 hops: 14 inside a server each (P2P), 2 across (a send and a receive line).
    int p2p = 0, sends = 0, receives = 0;
    for (const NcclLogConnection &k : c.connections) {
        if (k.transport == "P2P")
            ++p2p;
        else if (k.send)
            ++sends;
        else
            ++receives;
    }
    QCOMPARE(p2p, 28);
    QCOMPARE(sends, 4);
    QCOMPARE(receives, 4);
    const auto send = std::find_if(c.connections.begin(), c.connections.end(),
        [](const NcclLogConnection &k) { return k.transport == "NET" && k.send && k.src == 7; });
    QVERIFY(send != c.connections.end());
    QCOMPARE(send->dst, 15);
    QCOMPARE(send->nic, 7);
    QVERIFY(send->gdr);
    QCOMPARE(send->proxyRank, -1);
    QCOMPARE(send->line, 77);
    QCOMPARE(log.nics.at("node000").size(), std::size_t(8));
    QCOMPARE(log.nics.at("node000")[1], std::string("mlx5_3"));
    QCOMPARE(log.ncclLines, 118); // the two comment lines and the epoch line are not NCCL's
}

void TestNcclLog::olderFormatsAndPxn()
{
    // NCCL 2.18 printed bus ids in the brackets and no MNNVL; a PXN send names its proxy rank.
    const std::string text
        = "h1:10:10 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 2 localRanks 1 localRank 0\n"
          "h2:20:20 [3] NCCL INFO comm 0x2 rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0\n"
          "h1:10:10 [0] NCCL INFO Channel 00/02 :    0   1\n"
          "h1:10:10 [0] NCCL INFO Channel 00/0 : 0[18000] -> 1[5d000] [send] via "
          "NET/IB/2(5)/GDRDMA\n"
          "h2:20:20 [3] NCCL INFO Channel 00/0 : 0[18000] -> 1[5d000] [receive] via "
          "NET/IB/3/GDRDMA\n"
          "h1:10:10 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 18000 commId 0xabc - "
          "Init COMPLETE\n"
          "h2:20:20 [3] NCCL INFO comm 0x2 rank 1 nranks 2 cudaDev 3 busId 5d000 commId 0xabc - "
          "Init COMPLETE\n";
    const NcclLog log = parsed(text);
    QCOMPARE(log.comms.size(), std::size_t(1));
    const NcclLogComm &c = log.comms.front();
    QCOMPARE(c.ranks.at(1).cudaDev, 3);
    QCOMPARE(c.connections.size(), std::size_t(2));
    QCOMPARE(c.connections[0].nic, 2);
    QCOMPARE(c.connections[0].proxyRank, 5);
    QCOMPARE(c.connections[1].nic, 3);
    QVERIFY(!c.connections[1].send);
}

void TestNcclLog::graphAndTuningLines()
{
    const NcclLog log = parsed(sample("h100-2node-nccl227-rails.log"));
    QCOMPARE(log.comms.size(), std::size_t(1));
    const NcclLogComm &c = log.comms.front();
    QCOMPARE(c.id, std::string("0x5c31e0a2d4f78b16"));
    QCOMPARE(c.rings.size(), std::size_t(2));
    QCOMPARE(
        c.rings[1], (std::vector<int> { 0, 3, 4, 5, 6, 7, 2, 10, 9, 11, 12, 13, 14, 15, 8, 1 }));
    // Ranks 0 and 1 print the same two graphs of dgx-a01 (kept once), rank 8 those of dgx-a02.
    QCOMPARE(c.graphs.size(), std::size_t(4));
    const NcclLogGraph &ring = c.graphs[0];
    QCOMPARE(ring.host, std::string("dgx-a01"));
    QCOMPARE(ring.pattern, 4);
    QCOMPARE(ring.crossNic, 0);
    QCOMPARE(ring.nChannels, 2);
    QCOMPARE(ring.bwIntra, 40.0);
    QCOMPARE(ring.bwInter, 40.0);
    QCOMPARE(ring.typeIntra, std::string("NVL"));
    QCOMPARE(ring.typeInter, std::string("PIX"));
    QCOMPARE(ring.channels.size(), std::size_t(2));
    QCOMPARE(ring.channels[1],
        std::string("NET/0-1 GPU/1 GPU/0 GPU/3 GPU/4 GPU/5 GPU/6 GPU/7 GPU/2 NET/0-2"));
    QCOMPARE(ring.place, std::string("nccl.log:69"));
    QCOMPARE(c.graphs[1].pattern, 1);
    QCOMPARE(c.graphs[2].host, std::string("dgx-a02"));
    QCOMPARE(c.graphs[2].channels[0],
        std::string("NET/0-1 GPU/9 GPU/10 GPU/11 GPU/12 GPU/13 GPU/14 GPU/15 GPU/8 NET/0-0"));
    // Rank 0's picks, one entry per function, size and pick, with its call count.
    QCOMPARE(c.picks.size(), std::size_t(4));
    QCOMPARE(c.picks[0].function, std::string("AllReduce"));
    QCOMPARE(c.picks[0].bytes, 8192ll);
    QCOMPARE(c.picks[0].algorithm, std::string("Tree"));
    QCOMPARE(c.picks[0].protocol, std::string("LL"));
    QCOMPARE(c.picks[0].calls, 2);
    QCOMPARE(c.picks[1].protocol, std::string("LL128"));
    QCOMPARE(c.picks[1].calls, 3);
    QCOMPARE(c.picks[2].bytes, 268435456ll);
    QCOMPARE(c.picks[2].algorithm, std::string("Ring"));
    QCOMPARE(c.picks[2].protocol, std::string("Simple"));
    QCOMPARE(c.picks[2].channelLo, 0);
    QCOMPARE(c.picks[2].channelHi, 1);
    QCOMPARE(c.picks[3].function, std::string("AllGather"));
    QCOMPARE(c.picks[3].calls, 1);
    QCOMPARE(c.nvlsSupport, 16);
    QVERIFY(c.nvlsTree);
    QVERIFY(!c.collNet);
}

void TestNcclLog::olderPickAndGraphFormats()
{
    // NCCL 2.18 searches and prints its graphs before the communicator's first line (no
    // "Init START" yet); 2.21 prints picks as numbers without the function, 2.23 with it.
    const std::string text
        = "h1:10:10 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 1, bw 24.000000/24.000000, "
          "type NVL/PIX, sameChannels 1\n"
          "h1:10:10 [0] NCCL INFO  0 : NET/0 GPU/0 GPU/1 NET/0\n"
          "h1:10:10 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0\n"
          "h1:10:10 [0] NCCL INFO comm 0x1 rank 0 nranks 2 cudaDev 0 busId 18000 commId 0xabc - "
          "Init COMPLETE\n"
          "h1:10:10 [0] NCCL INFO 1048576 Bytes -> Algo 1 proto 2 time 38.500000\n"
          "h1:10:10 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo 0 proto 0 time 9.250000\n"
          "h1:10:10 [0] NCCL INFO AllReduce: 4096 Bytes -> Algo 0 proto 0 time 9.250000\n"
          "h1:10:10 [0] NCCL INFO ReduceScatter: 65536 Bytes -> Algo 6 proto 1 time 12.0\n"
          "h1:10:10 [0] NCCL INFO Collnet Chains 0->1->-1\n";
    const NcclLog log = parsed(text);
    QCOMPARE(log.comms.size(), std::size_t(1));
    const NcclLogComm &c = log.comms.front();
    QCOMPARE(c.graphs.size(), std::size_t(1));
    QCOMPARE(c.graphs[0].channels[0], std::string("NET/0 GPU/0 GPU/1 NET/0"));
    QCOMPARE(c.graphs[0].bwInter, 24.0);
    QCOMPARE(c.picks.size(), std::size_t(3));
    QCOMPARE(c.picks[0].function, std::string());
    QCOMPARE(c.picks[0].algorithm, std::string("Ring"));
    QCOMPARE(c.picks[0].protocol, std::string("Simple"));
    QCOMPARE(c.picks[0].channelLo, -1);
    QCOMPARE(c.picks[1].function, std::string("AllReduce"));
    QCOMPARE(c.picks[1].algorithm, std::string("Tree"));
    QCOMPARE(c.picks[1].protocol, std::string("LL"));
    QCOMPARE(c.picks[1].calls, 2);
    QCOMPARE(c.picks[2].algorithm, std::string("PAT"));
    QCOMPARE(c.picks[2].protocol, std::string("LL128"));
    QVERIFY(c.collNet);
    QCOMPARE(c.nvlsSupport, -1);
}

void TestNcclLog::badLines_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    const QString comm = QStringLiteral("h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 1\n");
    QTest::newRow("no NCCL line")
        << QStringLiteral("hello\nworld\n")
        << QStringLiteral("nccl.log: no NCCL INFO line: run the job with NCCL_DEBUG=INFO");
    QTest::newRow("ring no permutation")
        << comm + QStringLiteral("h:1:1 [0] NCCL INFO Channel 00/02 : 0 1 1 3\n")
        << QStringLiteral("nccl.log:2: ring of channel 0 is no order of ranks 0..3");
    QTest::newRow("ring too short")
        << comm + QStringLiteral("h:1:1 [0] NCCL INFO Channel 00/02 : 0 1 2\n")
        << QStringLiteral("nccl.log:2: ring of channel 0 lists 3 ranks, the communicator has 4");
    QTest::newRow("rank outside")
        << comm + QStringLiteral("h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 9[1] via P2P/IPC\n")
        << QStringLiteral("nccl.log:2: a connection 0 -> 9 outside the communicator's 4 ranks");
    QTest::newRow("channel before comm")
        << QStringLiteral("h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n")
        << QStringLiteral("nccl.log:1: a channel line before any communicator of its process");
    QTest::newRow("bad net device")
        << comm
            + QStringLiteral(
                "h:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/x/GDRDMA\n")
        << QStringLiteral("nccl.log:2: net device: expected an integer, got 'x'");
    QTest::newRow("ring before the size is known")
        << QStringLiteral("h:1:1 [0] NCCL INFO comm 0x1 rank 0 nNodes 1\n"
                          "h:1:1 [0] NCCL INFO Channel 00/02 : 0 1\n"
                          "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nranks 1 cudaDev 0 busId 1 commId "
                          "0xab - Init COMPLETE\n")
        << QStringLiteral("nccl.log:2: ring of channel 0 lists 2 ranks, the communicator has 1");
    QTest::newRow("graph channel without pattern")
        << comm + QStringLiteral("h:1:1 [0] NCCL INFO  0 : NET/0 GPU/0 NET/0\n")
        << QStringLiteral("nccl.log:2: a graph channel line without its 'Pattern ...' line");
    QTest::newRow("graph channel out of order")
        << comm
            + QStringLiteral("h:1:1 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw 1/1, "
                             "type NVL/PIX, sameChannels 0\n"
                             "h:1:1 [0] NCCL INFO  1 : NET/0 GPU/0 NET/0\n")
        << QStringLiteral("nccl.log:3: graph channel 1 where channel 0 of 2 was due");
    QTest::newRow("graph bandwidth")
        << comm
            + QStringLiteral("h:1:1 [0] NCCL INFO Pattern 4, crossNic 0, nChannels 2, bw nan/1, "
                             "type NVL/PIX, sameChannels 0\n")
        << QStringLiteral("nccl.log:2: graph bw: expected a non-negative number, got 'nan'");
    QTest::newRow("unknown algorithm")
        << comm
            + QStringLiteral("h:1:1 [0] NCCL INFO AllReduce: 64 Bytes -> Algo Star proto LL "
                             "channel{Lo..Hi}={0..0}\n")
        << QStringLiteral("nccl.log:2: unknown NCCL algorithm 'Star'");
    QTest::newRow("algorithm number")
        << comm + QStringLiteral("h:1:1 [0] NCCL INFO 64 Bytes -> Algo 9 proto 0 time 1.0\n")
        << QStringLiteral("nccl.log:2: algorithm 9 is outside 0..6");
    QTest::newRow("channel range") << comm
            + QStringLiteral("h:1:1 [0] NCCL INFO AllReduce: 64 Bytes -> Algo Ring proto LL "
                             "channel{Lo..Hi}={3..1}\n")
                                   << QStringLiteral("nccl.log:2: channel 1 is outside 3..255");
    QTest::newRow("channel out of range")
        << comm + QStringLiteral("h:1:1 [0] NCCL INFO Channel 999/0 : 0[0] -> 1[1] via P2P/IPC\n")
        << QStringLiteral("nccl.log:2: channel 999 is outside 0..255");
}

void TestNcclLog::badLines()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        parsed(text.toStdString());
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromStdString(e.what()).startsWith(message), e.what());
    }
}

QTEST_GUILESS_MAIN(TestNcclLog)
#include "tst_nccllog.moc"
