// One collective alone on a fabric (model/cost/collectiveestimate.cpp): bus bandwidth per tier
// against published nccl-tests figures (tests/data/published/nccl_busbw.json, each cited below),
// the algorithm NCCL's cost model picks by size and rank count against NCCL's published
// behaviour, and the pipelined hierarchical all-reduce at 512 and 4,096 GPUs against its
// formula.
#include "cost/collectiveplanner.h"
#include "cost/costengine.h"
#include "fixtures.h"
#include "workload/presets.h"

#include <QTest>

#include <cmath>

using namespace railyard;

namespace {

constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
constexpr double kNetEff = 47.0 / 50.0; // nccl-tests issue #290: 46-48 GB/s per NDR NIC

/// `servers` x `gpus` rail-optimised, the given device and per-direction link rates, with a
/// small dense job of tp = gpus, dp = servers on it (only the fabric and mapping matter here).
Scenario system(int servers, int gpus, const char *device, double scaleupGbps, double nicGbps)
{
    Scenario s = fixtures::smallDense(servers, gpus, fixtures::degrees(gpus, 1, servers));
    s.device = *devicePreset(device);
    s.fabric.scaleUp.gbps = scaleupGbps;
    s.fabric.nic.gbps = nicGbps;
    s.fabric.fabricPort.gbps = nicGbps;
    return s;
}

std::vector<int> firstRanks(int n)
{
    std::vector<int> r(n);
    for (int i = 0; i < n; ++i)
        r[i] = i;
    return r;
}

double busbwGBps(const CollectiveResult &r)
{
    return r.busBandwidth / 1e9;
}

} // namespace

class TestCollectiveEstimate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void busbwMatchesPublishedFigures_data();
    void busbwMatchesPublishedFigures();
    void nvlsBusbwRisesWithGpuCount_data();
    void nvlsBusbwRisesWithGpuCount();
    void autoAtScaleIsTheHierarchicalFormula_data();
    void autoAtScaleIsTheHierarchicalFormula();
    void twoServersGoBeyondTheNicLimit();
    void treeForSmallRingForLargeBeyondTwoServers();
    void autoReportsEveryCandidate();
    void hierarchicalFlagMakesAllReducesHierarchical();
};

void TestCollectiveEstimate::busbwMatchesPublishedFigures_data()
{
    QTest::addColumn<int>("servers");
    QTest::addColumn<int>("gpus");
    QTest::addColumn<QString>("device");
    QTest::addColumn<double>("scaleupGbps");
    QTest::addColumn<double>("nicGbps");
    QTest::addColumn<int>("op");
    QTest::addColumn<int>("algorithm");
    QTest::addColumn<double>("bytes");
    QTest::addColumn<double>("published"); // GB/s, nccl-tests busbw
    const int AR = int(Collective::AllReduce), AG = int(Collective::AllGather),
              RS = int(Collective::ReduceScatter);
    const int autoAlgo = int(CollectiveAlgorithm::Auto), ring = int(CollectiveAlgorithm::Ring);
    // NVLink 4 = 450 GB/s per direction (3600 Gb/s). NCCL team, nccl-tests issue #212: "~480
    // GB/s" NVLS all-reduce peak on 8 H100, "~370 GB/s" with NCCL_ALGO=RING; the DGX H100 log
    // (NVIDIA/dgxc-benchmarking nccl/README.md) plateaus at 480.16 GB/s at 8 GiB.
    QTest::newRow("H100 x8 NVLS all-reduce (nccl-tests#212)")
        << 1 << 8 << "h100-sxm" << 3600.0 << 400.0 << AR << autoAlgo << 8 * GiB << 480.0;
    QTest::newRow("H100 x8 ring all-reduce (nccl-tests#212)")
        << 1 << 8 << "h100-sxm" << 3600.0 << 400.0 << AR << ring << 8 * GiB << 370.0;
    // NVIDIA/nccl issue #1047: reduce-scatter with NCCL_ALGO=RING, 8 GiB, 362.16 GB/s.
    QTest::newRow("H100 x8 ring reduce-scatter (nccl#1047)")
        << 1 << 8 << "h100-sxm" << 3600.0 << 400.0 << RS << autoAlgo << 8 * GiB << 362.16;
    // nccl-tests issue #272: 8 x H200 (NVLink 4), NCCL 2.20.3, peak 475 GB/s.
    QTest::newRow("H200 x8 all-reduce (nccl-tests#272)")
        << 1 << 8 << "h200" << 3600.0 << 400.0 << AR << autoAlgo << 4 * GiB << 475.0;
    // NVIDIA/nccl issue #1807: 8 x B200 (NVLink 5, 900 GB/s per direction), NCCL 2.27.1,
    // all_reduce_perf 830+ GB/s.
    QTest::newRow("B200 x8 all-reduce (nccl#1807)")
        << 1 << 8 << "b200" << 7200.0 << 400.0 << AR << autoAlgo << 8 * GiB << 830.0;
    // microsoft/mscclpp docs/performance-ndmv4.md, NCCL 2.17.1 on 1 x 8 A100 (NVLink 3, 300
    // GB/s per direction): all-gather 1 GiB 253.59 GB/s.
    QTest::newRow("A100 x8 all-gather (mscclpp NDmv4)")
        << 1 << 8 << "a100-80g" << 2400.0 << 200.0 << AG << autoAlgo << GiB << 253.59;
    // NVIDIA/nccl issue #412 (NCCL team): 8 x A800 (NVLink cut to 400 GB/s both ways) ~160 GB/s.
    QTest::newRow("A800 x8 all-reduce (nccl#412)")
        << 1 << 8 << "a100-80g" << 1600.0 << 200.0 << AR << autoAlgo << 8 * GiB << 160.0;
    // NVIDIA/nccl issue #812 (NCCL team): DGX A100 with 8 x HDR 200G, multi-node all-reduce
    // 192 GB/s; issue #412: 24 GB/s per HDR NIC.
    QTest::newRow("DGX A100 x16 all-reduce (nccl#812)")
        << 16 << 8 << "a100-80g" << 2400.0 << 200.0 << AR << autoAlgo << 8 * GiB << 192.0;
    // microsoft/mscclpp docs/performance-ndmv4.md, NCCL 2.17.1 on 2 x 8 A100 with 8 HDR NICs
    // each: all-reduce 4 GiB 188.18 GB/s (the tree's per-channel ceiling keeps it to the ring).
    QTest::newRow("A100 2 x 8 all-reduce (mscclpp NDmv4)")
        << 2 << 8 << "a100-80g" << 2400.0 << 200.0 << AR << autoAlgo << 4 * GiB << 188.18;
    // nccl-tests issue #290 (NCCL team): an NDR 400G NIC gives 46-48 GB/s - the figure the
    // network efficiency is taken from: one GPU on each of two servers, one NIC each.
    QTest::newRow("NDR 400G NIC (nccl-tests#290)")
        << 2 << 1 << "h100-sxm" << 3600.0 << 400.0 << AR << ring << 8 * GiB << 47.0;
}

void TestCollectiveEstimate::busbwMatchesPublishedFigures()
{
    QFETCH(int, servers);
    QFETCH(int, gpus);
    QFETCH(QString, device);
    QFETCH(double, scaleupGbps);
    QFETCH(double, nicGbps);
    QFETCH(int, op);
    QFETCH(int, algorithm);
    QFETCH(double, bytes);
    QFETCH(double, published);
    CostEngine engine(system(servers, gpus, qPrintable(device), scaleupGbps, nicGbps));
    const CollectiveResult r = engine.collective(static_cast<Collective>(op),
        firstRanks(servers * gpus), bytes, static_cast<CollectiveAlgorithm>(algorithm));
    QVERIFY2(std::abs(busbwGBps(r) / published - 1.0) <= 0.05,
        qPrintable(QStringLiteral("busbw %1 GB/s with %2, published %3 GB/s")
                       .arg(busbwGBps(r))
                       .arg(QString::fromStdString(std::string(planAlgorithmName(r.algorithm))))
                       .arg(published)));
}

void TestCollectiveEstimate::nvlsBusbwRisesWithGpuCount_data()
{
    // NVIDIA/nccl issue #1455, 8 x H100, all_reduce_perf -b 2G -e 4G: NCCL_ALGO=NVLS gives
    // 420/440/460/480 GB/s on 5/6/7/8 GPUs; NCCL_ALGO=RING 365-370 GB/s on 2..8 GPUs, and NVLS
    // no better than ~370 on 2-4 GPUs.
    QTest::addColumn<int>("n");
    QTest::addColumn<double>("nvls");
    QTest::newRow("5") << 5 << 420.0;
    QTest::newRow("6") << 6 << 440.0;
    QTest::newRow("7") << 7 << 460.0;
    QTest::newRow("8") << 8 << 480.0;
    QTest::newRow("2 (ring)") << 2 << 0.0;
    QTest::newRow("3 (ring)") << 3 << 0.0;
    QTest::newRow("4 (ring)") << 4 << 0.0;
}

void TestCollectiveEstimate::nvlsBusbwRisesWithGpuCount()
{
    // A GPU moves S(1 + 1/n) through its NVSwitch port for an NVLS all-reduce (S into the
    // reduction, S/n back, S/n out for the multicast, S in), against 2(n-1)/n S for a ring: NVLS
    // wins from 5 GPUs on, and its bus bandwidth grows with n as 2(n-1)/(n+1).
    QFETCH(int, n);
    QFETCH(double, nvls);
    CostEngine engine(system(1, 8, "h100-sxm", 3600.0, 400.0));
    const CollectiveResult r = engine.collective(Collective::AllReduce, firstRanks(n), 4 * GiB);
    if (nvls > 0.0) {
        QCOMPARE(r.algorithm, PlanAlgorithm::Nvls);
        QVERIFY2(
            std::abs(busbwGBps(r) / nvls - 1.0) <= 0.05, qPrintable(QString::number(busbwGBps(r))));
    } else {
        QVERIFY2(std::abs(busbwGBps(r) / 370.0 - 1.0) <= 0.05,
            qPrintable(QString::number(busbwGBps(r))));
    }
    // The ring is 365-370 GB/s at every size.
    const CollectiveResult ring = engine.collective(
        Collective::AllReduce, firstRanks(n), 4 * GiB, CollectiveAlgorithm::Ring);
    QVERIFY(std::abs(busbwGBps(ring) / 367.5 - 1.0) <= 0.05);
}

void TestCollectiveEstimate::autoAtScaleIsTheHierarchicalFormula_data()
{
    QTest::addColumn<int>("servers");
    QTest::newRow("512 GPUs") << 64;
    QTest::newRow("4096 GPUs") << 512;
}

void TestCollectiveEstimate::autoAtScaleIsTheHierarchicalFormula()
{
    // 8 x H100 per server, 400G NICs on rails, a 1 GiB all-reduce over every GPU. NCCL's
    // choice there is NVLSTree: NVLS reduce-scatter inside each server, an all-reduce of S/8 on
    // each rail (a double binary tree over the servers, GPU j of each), NVLS all-gather. The
    // three run at once, chunk by chunk, so (pipelined form)
    //   T = latency of the critical chain + max over links (bytes of all three) / bandwidth.
    // Bytes: a server that is inner in one tree and a leaf in the other sends 3 + 1 halves of
    // its rail's S/8 per tree direction, 2 * S/8 per NIC over the whole all-reduce, at 47 of
    // 50 GB/s; NVLink carries S(1 + 1/8) per GPU at 370 x 0.85 GB/s (NVLS efficiency, NCCL
    // tuning.cc), less. Chain: NVLS once (25 us in NCCL's tuner, of which the 1.2 us GPU ->
    // NVSwitch -> GPU hop is the fabric's), then per pass the deepest tree path, each hop its
    // route latency + 18.2 us (NCCL's NVLSTree network step, 20.9 us, above LL's 2.7 us).
    QFETCH(int, servers);
    Scenario s = system(servers, 8, "h100-sxm", 3600.0, 400.0);
    CostEngine engine(s);
    const double S = GiB;
    const CollectiveResult r = engine.collective(Collective::AllReduce, firstRanks(servers * 8), S);
    QCOMPARE(r.algorithm, PlanAlgorithm::NvlsTree);
    QCOMPARE(r.channels, 8);
    QCOMPARE(engine.fabric().link(r.bottleneckLink).tier, Tier::Leaf); // a NIC -> leaf link

    // The critical path: the tree path with the most hops, of those the slowest.
    Router router(engine.fabric());
    int depth = 0;
    double deepest = 0.0;
    for (int rail = 0; rail < 8; ++rail)
        for (int tree = 0; tree < 2; ++tree)
            for (int node = 0; node < servers; ++node) {
                int hops = 0;
                double path = 0.0;
                for (int x = node; doubleBinaryTreeParent(tree, x, servers) >= 0; ++hops) {
                    const int up = doubleBinaryTreeParent(tree, x, servers);
                    path += router.latency(8 * x + rail, 8 * up + rail);
                    x = up;
                }
                if (hops > depth || (hops == depth && path > deepest)) {
                    depth = hops;
                    deepest = path;
                }
            }
    QCOMPARE(depth, static_cast<int>(std::log2(servers))); // 6 and 9
    const double nvlsHop = router.latency(0, 1);
    const double alpha = (25.0e-6 - 0.6e-6) + 2.0 * (nvlsHop + deepest + depth * 18.2e-6);
    const double nic = s.fabric.nic.gbps * 1e9 / 8.0 * kNetEff;
    const double expected = alpha + 2.0 * (S / 8.0) / nic;
    QVERIFY2(std::abs(r.time / expected - 1.0) <= 1e-9,
        qPrintable(QStringLiteral("%1 s against %2 s").arg(r.time).arg(expected)));
    QVERIFY(std::abs(r.alphaTime / alpha - 1.0) <= 1e-9);
    // The NICs do the work: the bus bandwidth is 8 NICs at ~47 GB/s (NCCL team: 46-48 GB/s per
    // NDR NIC, nccl-tests issue #290), less the chain's latency.
    QVERIFY(busbwGBps(r) > 0.9 * 8 * 47.0 && busbwGBps(r) < 8 * 47.0);

    // The ring-based hierarchical variant (--algo hierarchical, not one of NCCL's): rings per
    // rail of 2 (N-1)/N S/8 per NIC, and a chain of 2 x (7 NVLink + N-1 network) steps whose
    // hops are summed one by one; the fastest protocol. Its latency grows with N, the tree's
    // with log2 N: at these sizes NCCL's tree is the faster.
    const CollectiveResult h = engine.collective(
        Collective::AllReduce, firstRanks(servers * 8), S, CollectiveAlgorithm::Hierarchical);
    QCOMPARE(h.algorithm, PlanAlgorithm::Hierarchical);
    double ringPass = 0.0, cheapest = 1.0;
    for (int k = 0; k < servers; ++k) {
        const double hop = router.latency(8 * k, 8 * ((k + 1) % servers));
        ringPass += hop;
        cheapest = std::min(cheapest, hop);
    }
    ringPass -= cheapest; // every edge of the rail's ring but the cheapest
    const double base[3] = { 6.6e-6, 14.0e-6, 8.4e-6 };
    const double nvl[3] = { 0.0, 1.3e-6, 2.8e-6 };
    const double net[3] = { 0.0, 1.3e-6, 11.3e-6 };
    const double factor[3] = { 0.5, 0.92, 1.0 };
    double best = 1e9;
    for (int p = 0; p < 3; ++p) {
        const double a
            = base[p] + 2.0 * (7 * (nvlsHop + nvl[p]) + ringPass + (servers - 1) * net[p]);
        const double bw = 2.0 * (servers - 1.0) / servers * (S / 8.0) / (nic * factor[p]);
        best = std::min(best, a + bw);
    }
    QVERIFY2(std::abs(h.time / best - 1.0) <= 1e-9,
        qPrintable(QStringLiteral("%1 s against %2 s").arg(h.time).arg(best)));
    QVERIFY(r.time < h.time);
}

void TestCollectiveEstimate::twoServersGoBeyondTheNicLimit()
{
    // NCCL team: on two nodes NCCL uses "the tree (or NVLSTree) algorithm, which can go beyond
    // the network bottleneck if intra-node bandwidth sustains it" (nccl-tests issue #196);
    // "with Tree, on 2 nodes ... 2x less traffic on the network than on the intra-node
    // connections" (NVIDIA/nccl issue #946). 2 x 8 H100 with 8 NDR NICs each: the ring is held
    // to the NICs (8 x 47 GB/s), the NVLS tree to NVLink, well above 8 x 50 GB/s.
    CostEngine engine(system(2, 8, "h100-sxm", 3600.0, 400.0));
    const CollectiveResult r = engine.collective(Collective::AllReduce, firstRanks(16), 4 * GiB);
    QCOMPARE(r.algorithm, PlanAlgorithm::NvlsTree);
    QVERIFY(busbwGBps(r) > 8 * 50.0);
    const CollectiveResult ring = engine.collective(
        Collective::AllReduce, firstRanks(16), 4 * GiB, CollectiveAlgorithm::Ring);
    QVERIFY(std::abs(busbwGBps(ring) / (8 * 400.0 / 8 * kNetEff) - 1.0) <= 0.01);
    // Beyond two servers the NVLS tree's network share is the ring's: both near the NICs.
    CostEngine eight(system(8, 8, "h100-sxm", 3600.0, 400.0));
    const CollectiveResult e = eight.collective(Collective::AllReduce, firstRanks(64), 4 * GiB);
    QVERIFY(busbwGBps(e) < 8 * 50.0);
}

void TestCollectiveEstimate::treeForSmallRingForLargeBeyondTwoServers()
{
    // NCCL team: "a flat ring (high latency, best bandwidth) and a tree (low latency, ok
    // bandwidth)" (NVIDIA/nccl issue #471); "the latency of ring increases linearly with the
    // communicator size ... the tree algorithm may be a better answer for smaller messages"
    // (issue #1712); tree's advantage on two nodes "disappears beyond two nodes" (issue #812).
    // On DGX A100 servers (no NVLS) the choice must go from tree to ring once, as the size
    // grows, and the crossover must move up with the server count.
    const auto crossover = [](int servers) {
        CostEngine engine(system(servers, 8, "a100-80g", 2400.0, 200.0));
        const std::vector<int> ranks = firstRanks(servers * 8);
        double first = 0.0;
        PlanAlgorithm previous = PlanAlgorithm::Tree;
        for (double bytes = 1024.0; bytes <= 16 * GiB; bytes *= 2.0) {
            const CollectiveResult r = engine.collective(Collective::AllReduce, ranks, bytes);
            // auto is the fastest of the forced algorithms at every size.
            const double ring
                = engine.collective(Collective::AllReduce, ranks, bytes, CollectiveAlgorithm::Ring)
                      .time;
            const double tree
                = engine.collective(Collective::AllReduce, ranks, bytes, CollectiveAlgorithm::Tree)
                      .time;
            if (std::abs(r.time - std::min(ring, tree)) > 1e-9 * r.time)
                return -1.0;
            if (r.algorithm != previous) {
                if (previous != PlanAlgorithm::Tree || r.algorithm != PlanAlgorithm::Ring
                    || first > 0.0)
                    return -2.0; // more than one switch, or the wrong way round
                first = bytes;
            }
            previous = r.algorithm;
        }
        return previous == PlanAlgorithm::Ring ? first : -3.0;
    };
    const double at16 = crossover(16);
    const double at64 = crossover(64);
    QVERIFY2(at16 > 1024.0, qPrintable(QString::number(at16)));
    QVERIFY2(at64 > at16, qPrintable(QStringLiteral("%1 vs %2").arg(at64).arg(at16)));
    // Trees up to hundreds of MB, rings for the largest gradient buckets.
    QVERIFY(at16 > 1e6 && at16 < 2e9);
}

void TestCollectiveEstimate::autoReportsEveryCandidate()
{
    // Under auto every algorithm that applies is costed and reported; the result is the
    // fastest of them, with its fastest protocol.
    CostEngine engine(system(4, 8, "h100-sxm", 3600.0, 400.0));
    const CollectiveResult r = engine.collective(Collective::AllReduce, firstRanks(32), 64e6);
    QCOMPARE(r.considered.size(), std::size_t { 3 }); // ring, tree, NVLS tree
    double fastest = 1e9;
    for (const AlgorithmTime &t : r.considered) {
        fastest = std::min(fastest, t.time);
        QCOMPARE(t.time, t.protocolTimes[static_cast<int>(t.protocol)]);
        for (const double pt : t.protocolTimes)
            QVERIFY(pt == 0.0 || pt >= t.time);
    }
    QCOMPARE(r.time, fastest);
    // A fixed algorithm reports itself alone; the member-order ring is never chosen by auto.
    const CollectiveResult m = engine.collective(
        Collective::AllReduce, firstRanks(32), 64e6, CollectiveAlgorithm::MemberOrder);
    QCOMPARE(m.considered.size(), std::size_t { 1 });
    QCOMPARE(m.algorithm, PlanAlgorithm::MemberOrder);
}

void TestCollectiveEstimate::hierarchicalFlagMakesAllReducesHierarchical()
{
    // training.hierarchical_allreduce: under auto, all-reduces run the hierarchical algorithm
    // (it had no effect on isolated collectives before); other ops are unaffected.
    Scenario s = system(4, 8, "a100-80g", 2400.0, 200.0);
    s.training.hierarchicalAllReduce = true;
    CostEngine engine(s);
    QCOMPARE(engine.collective(Collective::AllReduce, firstRanks(32), GiB).algorithm,
        PlanAlgorithm::Hierarchical);
    QCOMPARE(engine.collective(Collective::AllGather, firstRanks(32), GiB).algorithm,
        PlanAlgorithm::Ring);
}

QTEST_GUILESS_MAIN(TestCollectiveEstimate)
#include "tst_collectiveestimate.moc"
