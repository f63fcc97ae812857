// Fragmentation of a shared fabric's free servers (model/studies/fragmentation.cpp), counted
// by hand on the two-job sample's 16 x 8 ToR fabric: leaves tor-0..tor-3 take servers 0-3,
// 4-7, 8-11 and 12-15 (a 64-port leaf: 32 ports down = 4 servers x 8 NICs).
#include "studies/fragmentation.h"

#include "fabric/fabric.h"
#include "scenario/scenariofile.h"

#include <QTest>

using namespace railyard;

class TestFragmentation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void twoJobSample();
    void handMask_data();
    void handMask();
    void nvlinkDomains();
    void failedServerIsNotFree();
};

namespace {

Scenario sample()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/two-jobs.json");
}

std::vector<char> mask(int servers, std::initializer_list<int> free)
{
    std::vector<char> m(static_cast<std::size_t>(servers), 0);
    for (const int s : free)
        m[static_cast<std::size_t>(s)] = 1;
    return m;
}

} // namespace

void TestFragmentation::twoJobSample()
{
    // Job a on servers 0 and 8, job b on 1 and 9: free 2,3 | 4-7 | 10,11 | 12-15 = 12.
    const Scenario s = sample();
    const Fabric fabric = Fabric::build(s.fabric);
    const std::vector<char> free = freeServers(fabric, s);
    QCOMPARE(free, mask(16, { 2, 3, 4, 5, 6, 7, 10, 11, 12, 13, 14, 15 }));
    const Fragmentation f = fragmentation(fabric, free, 2);
    QCOMPARE(f.freeServers, 12);
    QCOMPARE(f.leaves.size(), std::size_t(4));
    QCOMPARE(f.leaves[0].name, std::string("tor-0"));
    QCOMPARE(f.leaves[0].servers, 4);
    const int freePerLeaf[] = { 2, 4, 2, 4 };
    for (std::size_t i = 0; i < 4; ++i) {
        QCOMPARE(f.leaves[i].freeServers, freePerLeaf[i]);
        QCOMPARE(f.leaves[i].largestRun, freePerLeaf[i]); // each leaf's free servers are adjacent
    }
    QCOMPARE(f.largestRun, 4);
    QCOMPARE(f.jobsFit, 6); // 12 / 2
    QCOMPARE(f.jobsFitInOneLeaf, 1 + 2 + 1 + 2);
    QVERIFY(f.domains.empty()); // NVLink domains of one server
    QVERIFY(fragmentationText(f).find("12 free servers; 6 more jobs of 2 servers fit") == 0);
}

void TestFragmentation::handMask_data()
{
    QTest::addColumn<int>("perJob");
    QTest::addColumn<int>("fit");
    QTest::addColumn<int>("fitInLeaf");
    // Free 0,2,3 (tor-0: 3 free, run 2), 5,6,7 (tor-1: 3, run 3), none under tor-2, 12 (tor-3).
    QTest::newRow("2 servers") << 2 << 3 << 1 + 1 + 0 + 0; // 7/2; 3/2 + 3/2 + 0 + 1/2
    QTest::newRow("3 servers") << 3 << 2 << 1 + 1 + 0 + 0; // 7/3; 3/3 + 3/3
    QTest::newRow("4 servers") << 4 << 1 << 0; // 7/4; no leaf has 4 free
}

void TestFragmentation::handMask()
{
    QFETCH(int, perJob);
    QFETCH(int, fit);
    QFETCH(int, fitInLeaf);
    const Fabric fabric = Fabric::build(sample().fabric);
    const Fragmentation f = fragmentation(fabric, mask(16, { 0, 2, 3, 5, 6, 7, 12 }), perJob);
    QCOMPARE(f.freeServers, 7);
    QCOMPARE(f.leaves[0].freeServers, 3);
    QCOMPARE(f.leaves[0].largestRun, 2);
    QCOMPARE(f.leaves[1].largestRun, 3);
    QCOMPARE(f.leaves[2].freeServers, 0);
    QCOMPARE(f.leaves[2].largestRun, 0);
    QCOMPARE(f.leaves[3].largestRun, 1);
    QCOMPARE(f.largestRun, 3);
    QCOMPARE(f.jobsFit, fit);
    QCOMPARE(f.jobsFitInOneLeaf, fitInLeaf);
}

void TestFragmentation::nvlinkDomains()
{
    // The same fabric with NVLink domains of 4 servers (rack0 = servers 0-3, ...).
    Scenario s = sample();
    s.fabric.scaleUpDomainServers = 4;
    const Fabric fabric = Fabric::build(s.fabric);
    const Fragmentation f = fragmentation(fabric, mask(16, { 0, 2, 3, 5, 6, 7, 12 }), 2);
    QCOMPARE(f.domains.size(), std::size_t(4));
    QCOMPARE(f.domains[0].name, std::string("rack0"));
    QCOMPARE(f.domains[0].freeServers, 3);
    QCOMPARE(f.domains[0].largestRun, 2);
    QCOMPARE(f.domains[1].largestRun, 3);
    QCOMPARE(f.domains[3].freeServers, 1);
}

void TestFragmentation::failedServerIsNotFree()
{
    Scenario s = sample();
    s.failures.push_back({ FailedComponent::Kind::Gpu, 5 * 8 + 3 }); // one GPU of server 5
    const Fabric fabric = Fabric::build(s.fabric);
    const Fragmentation f = fragmentation(fabric, freeServers(fabric, s), 2);
    QCOMPARE(f.freeServers, 11);
    QCOMPARE(f.leaves[1].freeServers, 3);
    QCOMPARE(f.leaves[1].largestRun, 2); // 4 | 6,7
    QCOMPARE(f.jobsFit, 5);
}

QTEST_GUILESS_MAIN(TestFragmentation)
#include "tst_fragmentation.moc"
