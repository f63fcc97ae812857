// Tests of the cabling inventory CSV reader and importer (model/io/cablingcsv.cpp): header
// columns in any order with extra columns, quoting, speed units, a clear file:line for every
// malformed line, server detection, rail/top-of-rack detection and server ordering.

#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "fixtures.h"
#include "io/cablingcsv.h"

#include <QElapsedTimer>
#include <QTest>

#include <string>

using namespace railyard;

namespace {

std::string refusal(const std::string &text)
{
    try {
        (void)parseCablingCsv(text, "c.csv");
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return "(parsed)";
}

} // namespace

class TestCablingCsv : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readsHeaderQuotesAndUnits();
    void positionalWithoutHeader();
    void malformedLinesNameFileAndLine_data();
    void malformedLinesNameFileAndLine();
    void invalidUtf8IsRefused();
    void importDetectsServersKindAndOrder();
    void importNamesTheLineOfABadCable();
    void byteOrderMarkIsSkipped();
    void hostileServerPatterns_data();
    void hostileServerPatterns();
    void badServerPatternsAreNamed();
};

void TestCablingCsv::readsHeaderQuotesAndUnits()
{
    const CablingCsv csv
        = parseCablingCsv("# LLDP dump\n"
                          "cable_id,b_port,b_device,gbps,a_device,a_port,latency_us\n"
                          "c1,swp1,leaf-1,400G,node-a,mlx5_0,\n"
                          "\n"
                          "c2,\"Ethernet1/2\",\"leaf, one\",400 Gb/s,node-b,mlx5_0,0.8\r\n"
                          "c3,swp9,spine,200Gbps,leaf-1,swp64,\n",
            "c.csv");
    QCOMPARE(csv.cables.size(), std::size_t(3));
    QCOMPARE(csv.lines, std::vector<int>({ 3, 5, 6 }));
    QCOMPARE(csv.cables[0].aDevice, std::string("node-a"));
    QCOMPARE(csv.cables[0].bPort, std::string("swp1"));
    QCOMPARE(csv.cables[0].gbps, 400.0);
    QCOMPARE(csv.cables[0].latencyUs, -1.0);
    QCOMPARE(csv.cables[1].bDevice, std::string("leaf, one"));
    QCOMPARE(csv.cables[1].bPort, std::string("Ethernet1/2"));
    QCOMPARE(csv.cables[1].latencyUs, 0.8);
    QCOMPARE(csv.cables[2].gbps, 200.0);
}

void TestCablingCsv::positionalWithoutHeader()
{
    const CablingCsv csv = parseCablingCsv("n0,nic0,l0,p1,100\nn0,nic1,l1,p1,100,2\n", "c.csv");
    QCOMPARE(csv.cables.size(), std::size_t(2));
    QCOMPARE(csv.cables[1].latencyUs, 2.0);
}

void TestCablingCsv::malformedLinesNameFileAndLine_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    QTest::newRow("columns") << "n0,nic0,l0,p1,400\nn0,nic1,l1\n"
                             << "c.csv:2: expected 5 or 6 columns";
    QTest::newRow("speed") << "n0,nic0,l0,p1,fast\n"
                           << "c.csv:1: gbps \"fast\" is not a link speed";
    QTest::newRow("negative") << "n0,nic0,l0,p1,-400\n"
                              << "c.csv:1: gbps";
    // 1e-308 Gbit/s was taken and evaluated to an iteration time of inf (#40).
    QTest::newRow("tiny speed") << "n0,nic0,l0,p1,1e-308\n"
                                << "c.csv:1: gbps \"1e-308\" is outside 0.001 to 1000000 Gbit/s";
    QTest::newRow("huge speed") << "n0,nic0,l0,p1,2000000G\n"
                                << "c.csv:1: gbps \"2000000G\" is outside 0.001 to 1000000 Gbit/s";
    QTest::newRow("latency over a second") << "n0,nic0,l0,p1,400,2e6\n"
                                           << "c.csv:1: latency_us \"2e6\" is outside 0 to 1000000";
    QTest::newRow("latency") << "n0,nic0,l0,p1,400,soon\n"
                             << "c.csv:1: latency_us \"soon\"";
    QTest::newRow("empty device") << "# x\n,nic0,l0,p1,400\n"
                                  << "c.csv:2: a_device must be 1 to";
    QTest::newRow("quote") << "n0,\"nic0,l0,p1,400\n"
                           << "c.csv:1: a quoted field is not closed";
    QTest::newRow("header") << "a_device,a_port,b_device,gbps\n"
                            << "c.csv:1: the header has no b_port";
    QTest::newRow("header width") << "a_device,a_port,b_device,b_port,gbps\nn0,nic0,l0,p1,400,1\n"
                                  << "c.csv:2: expected 5 columns as the header has";
    QTest::newRow("control character") << QString::fromLatin1("n0,nic0,l\x01,p1,400\n") << "c.csv:1: b_device is not printable UTF-8";
    QTest::newRow("empty") << "# nothing\n\n"
                           << "c.csv: no cables";
}

void TestCablingCsv::malformedLinesNameFileAndLine()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const std::string what = refusal(text.toStdString());
    QVERIFY2(what.rfind(message.toStdString(), 0) == 0, what.c_str());
}

void TestCablingCsv::invalidUtf8IsRefused()
{
    // Raw bytes (the fuzzer's find: a 0xff in a name later broke the JSON exports).
    for (const std::string &bad : { std::string("n0,nic0,l\xff,p1,400\n"),
             std::string("n0,nic\xc0\x80,l0,p1,400\n"), std::string("n0,nic0,l\xed\xa0\x80,p1,400\n") }) {
        const std::string what = refusal(bad);
        QVERIFY2(what.find("is not printable UTF-8") != std::string::npos, what.c_str());
    }
    // Real UTF-8 is fine.
    QCOMPARE(parseCablingCsv("n0,nic0,leaf-\xc3\xa9,p1,400\n", "c.csv").cables[0].bDevice,
        std::string("leaf-\xc3\xa9"));
}

void TestCablingCsv::importDetectsServersKindAndOrder()
{
    // Servers named so that plain string order would be wrong (n10 before n2), in two ToR
    // racks listed out of order: n10 and n2 on tor-b, n1 and n3 on tor-a.
    std::string text;
    for (const auto &[server, tor] : { std::pair { "n10", "tor-b" }, std::pair { "n2", "tor-b" },
             std::pair { "n1", "tor-a" }, std::pair { "n3", "tor-a" } })
        for (int nic = 0; nic < 2; ++nic)
            text += std::string(server) + ",nic" + std::to_string(nic) + "," + tor + ",p" + server
                + std::to_string(nic) + ",400\n";
    text += "tor-a,u1,spine,d1,400\ntor-b,u1,spine,d2,400\n";
    FabricSpec spec = fixtures::railFabric(4, 2);
    const CablingImport result = importCabling(spec, parseCablingCsv(text, "c.csv"), {});
    QCOMPARE(result.kind, FabricKind::Tor);
    QCOMPARE(spec.kind, FabricKind::Tor);
    QCOMPARE(spec.serverNames, std::vector<std::string>({ "n1", "n3", "n2", "n10" }));
    const Fabric f = Fabric::build(spec);
    QCOMPARE(f.leafCount(), 2);
    QCOMPARE(f.spineCount(), 1);
    QCOMPARE(f.node(f.leafVertex(0)).name, std::string("tor-a"));
    // --server-pattern picks the servers instead of the port names.
    FabricSpec named = fixtures::railFabric(4, 2);
    (void)importCabling(named, parseCablingCsv(text, "c.csv"), "n[0-9]+");
    QCOMPARE(named.serverNames.size(), std::size_t(4));
    try {
        FabricSpec none = fixtures::railFabric(4, 2);
        (void)importCabling(none, parseCablingCsv(text, "c.csv"), "gpu.*");
        QFAIL("a pattern matching nothing was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(
            std::string(e.what()).find("no device matches --server-pattern") != std::string::npos,
            e.what());
    }
}

void TestCablingCsv::importNamesTheLineOfABadCable()
{
    // Line 4 reuses leaf port p1 of line 2: the message points at the file's line, not at an
    // index into the scenario.
    const std::string text
        = "# two servers\nn0,nic0,leaf,p1,400\nn1,nic0,leaf,p2,400\nn1,nic1,leaf,p1,400\n";
    FabricSpec spec = fixtures::railFabric(2, 2);
    const FabricSpec before = spec;
    try {
        (void)importCabling(spec, parseCablingCsv(text, "inv.csv"), {});
        QFAIL("a port cabled twice was accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).rfind("inv.csv:4: leaf port p1 is already cabled", 0) == 0,
            e.what());
    }
    QVERIFY(spec == before); // nothing applied
}

void TestCablingCsv::byteOrderMarkIsSkipped()
{
    // Spreadsheets write a UTF-8 BOM first: the header was then no header, and its "gbps" no
    // link speed (#40).
    const CablingCsv csv
        = parseCablingCsv("\xEF\xBB\xBF"
                          "a_device,a_port,b_device,b_port,gbps\r\nn0,nic0,l0,p1,400\r\n",
            "c.csv");
    QCOMPARE(csv.cables.size(), std::size_t(1));
    QCOMPARE(csv.cables[0].aDevice, std::string("n0"));
    QCOMPARE(csv.lines, std::vector<int>({ 2 }));
    // Without a header, the first device's name loses the mark.
    QCOMPARE(parseCablingCsv("\xEF\xBB\xBFn0,nic0,l0,p1,400\n", "c.csv").cables[0].aDevice,
        std::string("n0"));
}

namespace {

/// Two servers `a` and `b` with two NICs each, on two rail leaves named `leaf0` and `leaf1`,
/// joined by a spine.
std::string twoServers(
    const std::string &a, const std::string &b, const std::string &leaf0, const std::string &leaf1)
{
    std::string text;
    int port = 0;
    for (const std::string &server : { a, b })
        for (int nic = 0; nic < 2; ++nic)
            text += server + ",mlx5_" + std::to_string(nic) + "," + (nic ? leaf1 : leaf0) + ",p"
                + std::to_string(port++) + ",400\n";
    return text + leaf0 + ",u1,spine,d1,400\n" + leaf1 + ",u1,spine,d2,400\n";
}

} // namespace

void TestCablingCsv::hostileServerPatterns_data()
{
    QTest::addColumn<QString>("pattern");
    QTest::addColumn<QString>("text");
    QTest::addColumn<QStringList>("servers");
    // std::regex (ECMAScript, backtracking) took 51 s for (a|aa)*c on a 41-character name and
    // over 60 s for (a*)*b on 251 characters (#40); the leaves' names are those strings. RE2
    // matches in time linear in the name.
    const std::string a40 = std::string(40, 'a');
    QTest::newRow("(a|aa)*c") << "(a|aa)*c"
                              << QString::fromStdString(twoServers(
                                     a40 + "c", "aac", std::string(41, 'a'), std::string(42, 'a')))
                              << QStringList { QString::fromStdString(a40 + "c"), "aac" };
    const std::string a250 = std::string(250, 'a');
    QTest::newRow("(a*)*b") << "(a*)*b"
                            << QString::fromStdString(twoServers(
                                   a250 + "b", "ab", std::string(251, 'a'), std::string(252, 'a')))
                            << QStringList { QString::fromStdString(a250 + "b"), "ab" };
    // 500 nested groups fit the 1024-byte bound and compile without deep recursion.
    QTest::newRow("500 nested groups")
        << QString::fromStdString(std::string(500, '(') + "n[0-9]" + std::string(500, ')'))
        << QString::fromStdString(twoServers("n1", "n2", "leaf-a", "leaf-b"))
        << QStringList { "n1", "n2" };
    QTest::newRow("ordinary") << "node[0-9]{3}"
                              << QString::fromStdString(
                                     twoServers("node001", "node000", "l0", "l1"))
                              << QStringList { "node000", "node001" };
}

void TestCablingCsv::hostileServerPatterns()
{
    QFETCH(QString, pattern);
    QFETCH(QString, text);
    QFETCH(QStringList, servers);
    FabricSpec spec = fixtures::railFabric(2, 2);
    QElapsedTimer clock;
    clock.start();
    (void)importCabling(spec, parseCablingCsv(text.toStdString(), "c.csv"), pattern.toStdString());
    // A guard, not a benchmark: linear matching takes microseconds here.
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed()) + " ms"));
    QStringList got;
    for (const std::string &s : spec.serverNames)
        got << QString::fromStdString(s);
    QCOMPARE(got, servers);
}

void TestCablingCsv::badServerPatternsAreNamed()
{
    const std::string text = twoServers("n1", "n2", "l0", "l1");
    const auto refused = [&](const std::string &pattern) -> std::string {
        FabricSpec spec = fixtures::railFabric(2, 2);
        try {
            (void)importCabling(spec, parseCablingCsv(text, "c.csv"), pattern);
        } catch (const ScenarioError &e) {
            return e.field() == "--server-pattern" ? e.what()
                                                   : "(another field) " + std::string(e.what());
        }
        return "(accepted)";
    };
    // 20,000 nested groups crashed std::regex's recursive parser (SIGSEGV, #40).
    const std::string nested = std::string(20000, '(') + "a" + std::string(20000, ')');
    QCOMPARE(refused(nested),
        std::string("--server-pattern: the pattern is 40001 bytes; at most 1024 are accepted (a "
                    "pattern picking servers out of device names is a few dozen)"));
    QCOMPARE(refused(std::string(1025, 'n')).substr(0, 48),
        std::string("--server-pattern: the pattern is 1025 bytes; at "));
    QCOMPARE(refused("n[0-9"),
        std::string(
            "--server-pattern: \"n[0-9\" is not an RE2 regular expression: missing ]: [0-9"));
    // RE2 refuses what could blow up its automaton: repetition counts over 1000, and programs
    // beyond its memory budget.
    QCOMPARE(refused("n{1001}"),
        std::string("--server-pattern: \"n{1001}\" is not an RE2 regular expression: invalid "
                    "repetition size: {1001}"));
    const std::string huge = refused("((n{1000}){1000}){1000}");
    QVERIFY2(huge.find("is not an RE2 regular expression: ") != std::string::npos, huge.c_str());
}

QTEST_GUILESS_MAIN(TestCablingCsv)
#include "tst_cablingcsv.moc"
