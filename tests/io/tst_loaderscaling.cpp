// Every loader of outside files grows linearly in its input, valid or refused: CPU time and
// peak heap at 16x the input stay far below the 256x a quadratic reader takes. The inputs are
// tests/common/loaderinputs.h's (also bench_loaders', which reports the speeds at 1, 10 and
// 60 MB). Time is the best of three runs of process CPU time, so other processes on the machine
// do not count; the heap is this binary's live operator-new bytes, counted below (deterministic).
//
// The bounds, for 16x the input: linear gives 16; a vector's doubling can hold twice what it
// needs at one size and not at the other (32), and caches and allocator pools move time by a
// few times more; a quadratic loader gives 256. So 64 (4x) for time and 48 (3x) for the heap.
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "export/exporters.h"
#include "export/preflight.h"
#include "export/runrecord.h"
#include "io/cablingcsv.h"
#include "io/nccltestslog.h"
#include "io/nccltopology.h"
#include "loaderinputs.h"
#include "scenario/scenariofile.h"
#include "workload/eprouting.h"

#include <QTest>

#include <malloc.h>

#include <atomic>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <new>
#include <string>

// ---- the heap counter: every operator new/delete of this process ----------------------------

namespace {
std::atomic<long long> g_live { 0 };
std::atomic<long long> g_peak { 0 };

void *countedAlloc(std::size_t n)
{
    void *p = std::malloc(n ? n : 1);
    if (!p)
        throw std::bad_alloc();
    const long long live = g_live += static_cast<long long>(malloc_usable_size(p));
    long long peak = g_peak.load();
    while (live > peak && !g_peak.compare_exchange_weak(peak, live)) { }
    return p;
}

void countedFree(void *p) noexcept
{
    if (!p)
        return;
    g_live -= static_cast<long long>(malloc_usable_size(p));
    std::free(p);
}
} // namespace

void *operator new(std::size_t n)
{
    return countedAlloc(n);
}
void *operator new[](std::size_t n)
{
    return countedAlloc(n);
}
void operator delete(void *p) noexcept
{
    countedFree(p);
}
void operator delete[](void *p) noexcept
{
    countedFree(p);
}
void operator delete(void *p, std::size_t) noexcept
{
    countedFree(p);
}
void operator delete[](void *p, std::size_t) noexcept
{
    countedFree(p);
}

// ---- the suite ------------------------------------------------------------------------------

using namespace railyard;
namespace ti = railyard::testinputs;

namespace {

struct Cost
{
    double cpuNs = -1.0;
    long long peakBytes = 0;
};

double processCpuNs()
{
    timespec ts {};
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
}

/// Best CPU time of three runs of `load` and its peak heap above what was live before it.
/// `load` returns whether the loader did what the input asks (accepted a valid input, refused
/// an invalid one with a ScenarioError).
Cost measure(const std::function<bool()> &load)
{
    Cost c;
    for (int run = 0; run < 3; ++run) {
        const long long before = g_live.load();
        g_peak = before;
        const double start = processCpuNs();
        const bool right = load();
        const double ns = processCpuNs() - start;
        if (!right)
            return {};
        c.cpuNs = c.cpuNs < 0.0 ? ns : std::min(c.cpuNs, ns);
        c.peakBytes = std::max(c.peakBytes, g_peak.load() - before);
    }
    return c;
}

bool refuses(const std::function<void()> &load)
{
    try {
        load();
    } catch (const ScenarioError &) {
        return true;
    }
    return false;
}

PreflightEnvironment rank0()
{
    PreflightEnvironment e;
    e.hostname = "node000";
    e.env["RANK"] = "0";
    e.env["LOCAL_RANK"] = "0";
    return e;
}

} // namespace

class TestLoaderScaling : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void growsLinearly_data();
    void growsLinearly();
};

using Loader = std::function<bool(int scale)>; // scale 1 or kLarge

// The large input's size in small ones. Under the sanitizers (about 20x slower) 8: a linear
// loader gives 8, a quadratic one 64, still four times the bound.
#ifdef RAILYARD_SANITIZED
constexpr int kLarge = 8;
#else
constexpr int kLarge = 16;
#endif

void TestLoaderScaling::growsLinearly_data()
{
    QTest::addColumn<Loader>("load");
    // Sizes: small enough for the sanitizer build's -O0 (the large input is read three times),
    // large enough that fixed costs (a fabric built for a record, a regex compiled) are small
    // beside the reading.
    constexpr std::size_t kJson = 64 * 1000;
    QTest::newRow("json objects") << Loader([](int k) {
        const std::string t = ti::jsonObjects(kJson * k);
        return !parseJsonGuarded(t, 32).at("a").empty();
    });
    QTest::newRow("scenario valid") << Loader([](int k) {
        // The fabric grows with the input: a file holds at most 256 snapshots.
        const std::string t = ti::scenarioText(kJson * k, 8 * k);
        return parseScenario(t).snapshots.size() > 1;
    });
    QTest::newRow("scenario refused") << Loader([](int k) {
        const std::string t = ti::jsonObjects(kJson * k);
        return refuses([&] { parseScenario(t); });
    });
    QTest::newRow("run record preflight") << Loader([](int k) {
        const ti::RecordInput in = ti::recordInput(kJson * k);
        return checkPreflight(in.text, rank0(), 1, "record.json").gpu == 0;
    });
    QTest::newRow("run record preflight refused") << Loader([](int k) {
        const ti::RecordInput in = ti::recordInput(kJson * k);
        return refuses([&] { checkPreflight(in.invalid, rank0(), 1, "record.json"); });
    });
    QTest::newRow("run record import") << Loader([](int k) {
        const ti::RecordInput in = ti::recordInput(kJson * k);
        return importMappingJson(in.text, *in.engine).mapping.rankCount()
            == in.engine->layout().worldSize();
    });
    QTest::newRow("nccl-tests log") << Loader([](int k) {
        const std::string t = ti::ncclTestsLog(256 * k);
        return parseNcclTestsLogs(t, "log.txt").front().rows.size() == std::size_t(256 * k);
    });
    QTest::newRow("nccl-tests log refused") << Loader([](int k) {
        const std::string t = ti::ncclTestsLog(256 * k, true);
        return refuses([&] { parseNcclTestsLogs(t, "log.txt"); });
    });
    QTest::newRow("cabling csv") << Loader([](int k) {
        const std::string t = ti::cablingCsv(1000 * k);
        return parseCablingCsv(t, "cables.csv").cables.size() == std::size_t(1000 * k);
    });
    QTest::newRow("cabling csv refused") << Loader([](int k) {
        const std::string t = ti::cablingCsv(1000 * k, true);
        return refuses([&] { parseCablingCsv(t, "cables.csv"); });
    });
    QTest::newRow("topology xml") << Loader([](int k) {
        const std::string t = ti::ncclTopologyXml(64 * k);
        return parseNcclTopology(t, "topo.xml").gpus.size() == std::size_t(64 * k);
    });
    QTest::newRow("topology xml refused") << Loader([](int k) {
        const std::string t = ti::ncclTopologyXml(64 * k, true);
        return refuses([&] { parseNcclTopology(t, "topo.xml"); });
    });
    QTest::newRow("hosts file") << Loader([](int k) {
        const std::string t = ti::hostsFile(2000 * k);
        return parseHostsFile(t, 2000 * k).size() == std::size_t(2000 * k);
    });
    QTest::newRow("hosts file refused") << Loader([](int k) {
        const std::string t = ti::hostsFile(2000 * k, true);
        return refuses([&] { parseHostsFile(t, 2000 * k); });
    });
    QTest::newRow("hotness csv") << Loader([](int k) {
        const std::string t = ti::hotnessCsv(4000 * k);
        return parseHotnessText(t, "hot.csv").size() == std::size_t(4000 * k);
    });
    QTest::newRow("hotness csv refused") << Loader([](int k) {
        const std::string t = ti::hotnessCsv(4000 * k, true);
        return refuses([&] { parseHotnessText(t, "hot.csv"); });
    });
}

void TestLoaderScaling::growsLinearly()
{
    QFETCH(Loader, load);
    // Input generation is inside `load` but outside nothing else: it is linear by construction
    // and counted at both sizes alike, so it cannot hide a quadratic reader.
    Cost small;
    Cost large;
    try {
        small = measure([&] { return load(1); });
        large = measure([&] { return load(kLarge); });
    } catch (const std::exception &e) {
        QFAIL(e.what());
    }
    QVERIFY2(small.cpuNs >= 0.0 && large.cpuNs >= 0.0, "the loader did not do what its input asks");
    const double timeRatio = large.cpuNs / std::max(small.cpuNs, 1.0);
    const double heapRatio = static_cast<double>(large.peakBytes)
        / static_cast<double>(std::max<long long>(small.peakBytes, 1));
    qInfo("%s: CPU %.2f ms -> %.2f ms (x%.1f), peak heap %.0f kB -> %.0f kB (x%.1f)",
        QTest::currentDataTag(), small.cpuNs / 1e6, large.cpuNs / 1e6, timeRatio,
        static_cast<double>(small.peakBytes) / 1e3, static_cast<double>(large.peakBytes) / 1e3,
        heapRatio);
    QVERIFY2(timeRatio < 4.0 * kLarge,
        qPrintable(QString("CPU time grew %1x for %2x the input").arg(timeRatio).arg(kLarge)));
    QVERIFY2(heapRatio < 3.0 * kLarge,
        qPrintable(QString("peak heap grew %1x for %2x the input").arg(heapRatio).arg(kLarge)));
}

QTEST_GUILESS_MAIN(TestLoaderScaling)
#include "tst_loaderscaling.moc"
