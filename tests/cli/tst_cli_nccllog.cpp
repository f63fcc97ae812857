// railyard-cli nccl-log as a user runs it, on tests/data/nccl-logs/dgx-h100-2node-world.log
// (written here in NCCL 2.21's INFO format) against a 2 x 8 rail-optimised scenario: the clean
// log (every send on its GPU's NIC, every hop on its rail), a send moved to another NIC (a
// mis-bound NIC and a hop that leaves its rail, named with file:line), JSON, and refusals
// (exit 1, nothing written). On tests/data/nccl-logs/h100-2node-nccl227-rails.log (written here
// in NCCL 2.27's format, with GRAPH and TUNING lines): the rings against the engine's prediction,
// naming the rank whose NIC is mis-bound and the hop whose ring leaves its rail for a spine, and
// the searched graphs and per-size picks. On tests/data/nccl-logs/dp-group-misbound-nic.log
// (NCCL 2.27's format, a GPU bound to another rail's NIC) against a tp 4 x dp 4 scenario:
// --use-observed records each hop's NICs, and evaluating the written scenario moves the GPU's
// bytes from its own NIC's leaf port to the other NIC's.
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
    void ringsAgainstThePrediction();
    void graphsAndPicksAreShown();
    void tpCommunicatorIsNamed();
    void useObservedWritesTheSection();
    void useObservedRoutesTheLoggedNics();

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

void TestCliNcclLog::ringsAgainstThePrediction()
{
    // The engine's rings for 16 ranks on 2 x 8 GPUs (buildRings): channel 0 enters dgx-a01 at
    // GPU 0 and leaves at GPU 1 (1 -> 9 on rail 1), channel 1 leaves dgx-a02 at GPU 1 (9 -> 1).
    // NCCL's channel 0 is that ring, but rank 1 sends over net device 5; its channel 1 leaves
    // dgx-a02 from GPU 0 (8 -> 1: NIC 0 to NIC 1), so ranks 10, 9, 15 and 8 go elsewhere.
    const QString log
        = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/nccl-logs/h100-2node-nccl227-rails.log");
    const CliRun r = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario,
        QStringLiteral("--log"), log, QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    QCOMPARE(j["rings"].size(), std::size_t(1));
    const nlohmann::json &d = j["rings"][0];
    QCOMPARE(d["group"].get<std::string>(), std::string("world"));
    QCOMPARE(d["observed_channels"].get<int>(), 2);
    QCOMPARE(d["predicted_channels"].get<int>(), 8); // one per NIC
    QCOMPARE(d["same_channels"].get<int>(), 0);
    const nlohmann::json &c0 = d["channels"][0];
    QCOMPARE(c0["predicted_channel"].get<int>(), 0);
    QCOMPARE(c0["network_hops"].get<int>(), 2);
    QCOMPARE(c0["spine_hops"].get<int>(), 1);
    QCOMPARE(c0["predicted_spine_hops"].get<int>(), 0);
    QCOMPARE(c0["differing_hops"].size(), std::size_t(1));
    const nlohmann::json &bound = c0["differing_hops"][0];
    QCOMPARE(bound["rank"].get<int>(), 1);
    QCOMPARE(bound["observed"]["dst"].get<int>(), 9);
    QCOMPARE(bound["observed"]["src_nic"].get<int>(), 5);
    QCOMPARE(bound["observed"]["dst_nic"].get<int>(), 1);
    QVERIFY(bound["observed"]["nic_logged"].get<bool>());
    QVERIFY(bound["observed"]["crosses_rail"].get<bool>());
    QVERIFY(bound["observed"]["reaches_spine"].get<bool>());
    QCOMPARE(bound["predicted"]["src_nic"].get<int>(), 1);
    QVERIFY(!bound["predicted"]["reaches_spine"].get<bool>());
    const nlohmann::json &c1 = d["channels"][1];
    QCOMPARE(c1["predicted_channel"].get<int>(), 1);
    QCOMPARE(c1["cross_rail_hops"].get<int>(), 1);
    QCOMPARE(c1["spine_hops"].get<int>(), 1);
    std::vector<int> ranks;
    for (const nlohmann::json &h : c1["differing_hops"])
        ranks.push_back(h["rank"].get<int>());
    QCOMPARE(ranks, (std::vector<int> { 10, 9, 15, 8 }));
    const nlohmann::json &leaves = c1["differing_hops"][3];
    QCOMPARE(leaves["observed"]["dst"].get<int>(), 1);
    QCOMPARE(leaves["observed"]["src_nic"].get<int>(), 0);
    QCOMPARE(leaves["observed"]["dst_nic"].get<int>(), 1);
    QVERIFY(leaves["observed"]["reaches_spine"].get<bool>());
    QCOMPARE(leaves["predicted"]["dst"].get<int>(), 11);
    QVERIFY(!leaves["predicted"]["network"].get<bool>());
    // The per-send checks agree: the mis-bound send, and both hops that leave their rail.
    QCOMPARE(j["comms"][0]["mis_bound_nic"].get<int>(), 1);
    QCOMPARE(j["comms"][0]["leaving_rail"].get<int>(), 2);

    const CliRun text
        = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario, QStringLiteral("--log"), log });
    QVERIFY2(text.exitCode == 0, text.err.constData());
    QVERIFY2(text.out.contains("comm 0x5c31e0a2d4f78b16 (world): 0 of 2 rings as the engine "
                               "predicts (8 predicted channels)\n"),
        text.out.constData());
    QVERIFY2(text.out.contains("    NCCL rank 1 (dgx-a01 GPU 1) -> rank 9 (dgx-a02 GPU 1) over "
                               "NIC 5 -> NIC 1, leaves its rail, reaches a spine; predicted rank 1 "
                               "(dgx-a01 GPU 1) -> rank 9 (dgx-a02 GPU 1) over NIC 1 -> NIC 1\n"),
        text.out.constData());
    QVERIFY(text.out.contains("    NCCL rank 8 (dgx-a02 GPU 0) -> rank 1 (dgx-a01 GPU 1) over "
                              "NIC 0 -> NIC 1, leaves its rail, reaches a spine; predicted rank 8 "
                              "(dgx-a02 GPU 0) -> rank 11 (dgx-a02 GPU 3) over NVLink\n"));
    QVERIFY(text.out.contains("    inside servers (no NIC involved), the next rank differs at "
                              "ranks 10, 15\n"));
}

void TestCliNcclLog::graphsAndPicksAreShown()
{
    const QString log
        = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/nccl-logs/h100-2node-nccl227-rails.log");
    const CliRun r
        = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario, QStringLiteral("--log"), log });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("  dgx-a01: ring graph (pattern 4), 2 channels, crossNic 0, bw "
                            "40.0/40.0 GB/s intra/inter, paths NVL/PIX\n"),
        r.out.constData());
    QVERIFY(r.out.contains("    1: NET/0-1 GPU/1 GPU/0 GPU/3 GPU/4 GPU/5 GPU/6 GPU/7 GPU/2 "
                           "NET/0-2\n"));
    QVERIFY(r.out.contains("  NVLS multicast on 16 ranks, NVLS tree across nodes, no CollNet\n"));
    QVERIFY(r.out.contains("  AllReduce of 8 KiB: Tree/LL, channels 0..1 (2 calls)\n"));
    QVERIFY(r.out.contains("  AllReduce of 256 MiB: Ring/Simple, channels 0..1 (3 calls)\n"));
    const CliRun j = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario,
        QStringLiteral("--log"), log, QStringLiteral("--json") });
    const nlohmann::json v = nlohmann::json::parse(j.out.toStdString());
    QCOMPARE(v["comms"][0]["graphs"].size(), std::size_t(4));
    QCOMPARE(v["comms"][0]["graphs"][1]["pattern_name"].get<std::string>(),
        std::string("balanced tree"));
    QCOMPARE(v["comms"][0]["picks"][1]["bytes"].get<long long>(), 1048576ll);
    QCOMPARE(v["comms"][0]["picks"][1]["protocol"].get<std::string>(), std::string("LL128"));
    QCOMPARE(v["comms"][0]["nvls_ranks"].get<int>(), 16);
}

void TestCliNcclLog::tpCommunicatorIsNamed()
{
    // Eight ranks on one host, GPUs 0..7: the scenario's TP group 0; its one ring by GPU index
    // is the engine's. A second communicator without its Init COMPLETE lines has no GPUs.
    QByteArray text;
    for (int r = 0; r < 8; ++r) {
        const QByteArray p = "h1:" + QByteArray::number(100 + r) + ":" + QByteArray::number(100 + r)
            + " [" + QByteArray::number(r) + "] NCCL INFO ";
        text += p + "comm 0x" + QByteArray::number(r + 1) + " rank " + QByteArray::number(r)
            + " nRanks 8 nNodes 1 localRanks 8 localRank " + QByteArray::number(r) + "\n";
        if (r == 0)
            text += p + "Channel 00/01 : 0 1 2 3 4 5 6 7\n";
        text += p + "comm 0x" + QByteArray::number(r + 1) + " rank " + QByteArray::number(r)
            + " nranks 8 cudaDev " + QByteArray::number(r) + " busId 1 commId 0x77 - Init "
            + "COMPLETE\n";
    }
    text += "h1:200:200 [0] NCCL INFO comm 0xff rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0\n"
            "h1:200:200 [0] NCCL INFO Channel 00/01 : 0 1\n";
    const QString log = m_dir.filePath(QStringLiteral("tp.log"));
    writeFile(log, text);
    const CliRun r
        = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario, QStringLiteral("--log"), log });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(r.out.contains("comm 0x77 (tp 0): 1 of 1 rings as the engine predicts (1 predicted "
                            "channels)\n"),
        r.out.constData());
    QVERIFY2(r.out.contains("comm 0xff@h1:200: rings not compared: 2 of 2 ranks not placed on a "
                            "slot (host or CUDA device unknown)\n"),
        r.out.constData());
}

void TestCliNcclLog::useObservedWritesTheSection()
{
    const QString log
        = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/nccl-logs/h100-2node-nccl227-rails.log");
    const QString out = m_dir.filePath(QStringLiteral("observed.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario,
        QStringLiteral("--log"), log, QStringLiteral("--use-observed"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY(r.out.contains("wrote " + out.toUtf8()
        + " (NCCL's rings of 1 communicator as its nccl_observed section)\n"));
    const nlohmann::json j = nlohmann::json::parse(readTestFile(out).toStdString());
    const nlohmann::json &o = j["nccl_observed"];
    QCOMPARE(o["version"].get<int>(), 2);
    QCOMPARE(o["comms"].size(), std::size_t(1));
    // Rank 1 sends channel 0 over net device 5 (mlx5_9): NIC 5 of the first server.
    bool misBound = false;
    for (const nlohmann::json &h : o["comms"][0]["nics"])
        misBound = misBound
            || (h["channel"] == 0 && h["rank"] == 1 && h["send"] == 5 && h["receive"] == 1);
    QVERIFY(misBound);
    QCOMPARE(o["comms"][0]["group"].get<std::string>(), std::string("world"));
    QCOMPARE(o["comms"][0]["slots"].size(), std::size_t(16));
    QCOMPARE(o["comms"][0]["slots"][9].get<int>(), 9); // dgx-a02 GPU 1: the second server
    QCOMPARE(o["comms"][0]["rings"][1],
        nlohmann::json::array({ 0, 3, 4, 5, 6, 7, 2, 10, 9, 11, 12, 13, 14, 15, 8, 1 }));
    // The written scenario loads and evaluates; without the section it is the input again.
    const CliRun e = runRailyardCli({ QStringLiteral("evaluate"), out });
    QVERIFY2(e.exitCode == 0, e.err.constData());
    nlohmann::json back = j;
    back.erase("nccl_observed");
    QCOMPARE(back, nlohmann::json::parse(readTestFile(m_scenario).toStdString()));

    // Nothing to use (no rank has a GPU): refused, nothing written.
    const QString bare = m_dir.filePath(QStringLiteral("bare.log"));
    writeFile(bare,
        "h1:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0\n"
        "h1:1:1 [0] NCCL INFO Channel 00/01 : 0 1\n");
    const QString none = m_dir.filePath(QStringLiteral("none.json"));
    const CliRun n = runRailyardCli({ QStringLiteral("nccl-log"), m_scenario,
        QStringLiteral("--log"), bare, QStringLiteral("--use-observed"), none });
    QCOMPARE(n.exitCode, 1);
    QVERIFY2(n.err.contains("--use-observed: no communicator of the log has rings and every rank "
                            "placed"),
        n.err.constData());
    QVERIFY(!QFile::exists(none));
}

void TestCliNcclLog::useObservedRoutesTheLoggedNics()
{
    const QString dp4 = m_dir.filePath(QStringLiteral("dp4.json"));
    const CliRun g = runRailyardCli(
        { QStringLiteral("generate"), QStringLiteral("--fabric"), QStringLiteral("rail-optimised"),
            QStringLiteral("--servers"), QStringLiteral("2"), QStringLiteral("--gpus-per-server"),
            QStringLiteral("8"), QStringLiteral("--tp"), QStringLiteral("4"),
            QStringLiteral("--model"), QStringLiteral("llama3-8b"), QStringLiteral("-o"), dp4 });
    QVERIFY2(g.exitCode == 0, g.err.constData());
    const QString log
        = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/nccl-logs/dp-group-misbound-nic.log");
    const QString out = m_dir.filePath(QStringLiteral("dp4-nics.json"));
    const CliRun r = runRailyardCli({ QStringLiteral("nccl-log"), dp4, QStringLiteral("--log"), log,
        QStringLiteral("--use-observed"), out });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(
        r.out.contains("over NIC 5 -> NIC 4, leaves its rail, reaches a spine"), r.out.constData());
    const nlohmann::json j = nlohmann::json::parse(readTestFile(out).toStdString());
    const nlohmann::json &c = j["nccl_observed"]["comms"][0];
    QCOMPARE(c["group"].get<std::string>(), std::string("dp 0"));
    QCOMPARE(c["rings"], nlohmann::json::parse("[[0, 1, 3, 2], [0, 2, 3, 1]]"));
    QCOMPARE(c["nics"], nlohmann::json::parse(R"([
            {"channel": 0, "rank": 1, "send": 5, "receive": 4, "pxn": false},
            {"channel": 0, "rank": 2, "send": 0, "receive": 0, "pxn": false},
            {"channel": 1, "rank": 0, "send": 0, "receive": 0, "pxn": false},
            {"channel": 1, "rank": 3, "send": 4, "receive": 5, "pxn": false}])"));

    // DP bytes per iteration on node000's NIC 4 and NIC 5 ports, predicted and as NCCL ran.
    const auto dpOn = [](const QString &file, const std::string &link) {
        const CliRun e = runRailyardCli({ QStringLiteral("evaluate"), file,
            QStringLiteral("--json"), QStringLiteral("--links") });
        if (e.exitCode != 0)
            return -1.0;
        const nlohmann::json report = nlohmann::json::parse(e.out.toStdString());
        for (const nlohmann::json &l : report["link_loads"])
            if (l["name"].get<std::string>().rfind(link, 0) == 0)
                return l["dimensions"]["dp"].get<double>();
        return 0.0;
    };
    const double own = dpOn(dp4, "node000/nic4 -> leaf");
    QVERIFY(own > 0.0);
    QCOMPARE(dpOn(dp4, "node000/nic5 -> leaf"), own); // DP group 1's hop, slot 5 -> 13
    QCOMPARE(dpOn(out, "node000/nic4 -> leaf"), 0.0);
    QCOMPARE(dpOn(out, "node000/nic5 -> leaf"), 2.0 * own);
    QCOMPARE(dpOn(out, "node001/nic4 -> leaf"), own);
}

QTEST_GUILESS_MAIN(TestCliNcclLog)
#include "tst_cli_nccllog.moc"
