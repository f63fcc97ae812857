// The NCCL topology reader (model/io/nccltopology.h) on samples/dgx-h100-topology.xml and on
// variants of it: the affinity NCCL's path ranking gives (worked out by hand below), the
// warnings for unpaired, CPU-routed and mixed-speed NICs, the comparison across servers, the
// server model it sets, and a clear message naming file and line or element for every bad file.
#include "base/scenarioerror.h"
#include "fabric/fabricspec.h"
#include "io/nccltopology.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <string>

using namespace railyard;

namespace {

std::string sampleText()
{
    QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/dgx-h100-topology.xml"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    return f.readAll().toStdString();
}

/// `text` with the first occurrence of `from` replaced by `to` (the test's edits must apply).
std::string edited(std::string text, const std::string &from, const std::string &to)
{
    const std::size_t at = text.find(from);
    if (at == std::string::npos)
        qFatal("edit not found: %s", from.c_str());
    return text.replace(at, from.size(), to);
}

bool anyContains(const std::vector<std::string> &lines, const std::string &part)
{
    for (const std::string &l : lines)
        if (l.find(part) != std::string::npos)
            return true;
    return false;
}

} // namespace

class TestNcclTopology : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sampleIsPairedOnItsSwitches();
    void swappedNicsAreNamed();
    void cpuRoutedNicsAreNamed();
    void serversAreCompared();
    void appliesTheServerModel();
    void badFiles_data();
    void badFiles();
    void wellFormedVariantsParse();
    void missingFileIsNamed();
};

void TestNcclTopology::sampleIsPairedOnItsSwitches()
{
    const ServerTopology t = parseNcclTopology(sampleText(), "dgx.xml");
    QCOMPARE(t.gpus.size(), std::size_t(8));
    QCOMPARE(t.nics.size(), std::size_t(10)); // 8 compute ports and 2 storage NICs
    // Two GPUs and two NICs per PCIe switch: each GPU's NICs at PIX are its switch's two; the
    // first GPU takes the lower index, the second the other (fewer GPUs so far): GPU i <-> NIC i.
    // The storage NICs hang off the CPU root ports (PHB): no GPU takes them.
    QCOMPARE(t.gpuToRail(), (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    QCOMPARE(t.rails.size(), std::size_t(8));
    for (const TopologyGpu &g : t.gpus) {
        QCOMPARE(g.pathType, std::string("PIX"));
        QCOMPARE(g.numa, g.dev < 4 ? 0 : 1);
        QCOMPARE(g.nvlinks, 18);
        QCOMPARE(t.nics[static_cast<std::size_t>(t.rails[static_cast<std::size_t>(g.nic)])].name,
                 "mlx5_" + std::to_string(g.dev));
    }
    QCOMPARE(t.nics.front().gbps, 400.0); // speed="400000" Mbit/s
    // 18 NVLink 4 lanes x 25 GB/s each way = 450 GB/s = 3600 Gb/s per GPU and direction.
    QCOMPARE(t.scaleUpGbps, 3600.0);
    QVERIFY(t.warnings.empty());
}

void TestNcclTopology::swappedNicsAreNamed()
{
    // Renumber the nets dev 0 <-> dev 2: NIC 0 now sits on the second switch (with GPUs 2, 3),
    // NIC 2 on the first. First switch: GPU 0 and 1 at PIX to NICs 1 and 2 -> GPU 0 takes 1,
    // GPU 1 takes 2. Second switch: NICs 0 and 3 -> GPU 2 takes 0, GPU 3 takes 3.
    std::string text = sampleText();
    text = edited(text, "name=\"mlx5_0\" dev=\"0\"", "name=\"mlx5_0\" dev=\"TMP\"");
    text = edited(text, "name=\"mlx5_2\" dev=\"2\"", "name=\"mlx5_2\" dev=\"0\"");
    text = edited(text, "name=\"mlx5_0\" dev=\"TMP\"", "name=\"mlx5_0\" dev=\"2\"");
    const ServerTopology t = parseNcclTopology(text, "swapped.xml");
    QCOMPARE(t.gpuToRail(), (std::vector<int>{1, 2, 0, 3, 4, 5, 6, 7}));
    QCOMPARE(t.warnings.size(), std::size_t(3));
    QVERIFY(anyContains(t.warnings, "GPU 0 (0000:18:00.0) sits closest to NIC mlx5_1 (rail 1), not rail 0"));
    QVERIFY(anyContains(t.warnings, "GPU 2 (0000:3a:00.0) sits closest to NIC mlx5_2 (rail 0)"));
}

void TestNcclTopology::cpuRoutedNicsAreNamed()
{
    // Take the two compute ports off the last switch (GPUs 6, 7): their nearest NICs are now
    // on the same CPU but outside their switch, all PHB with no switch hop in common. By load
    // the storage NIC mlx5_9 (no GPU yet) goes to GPU 6, then NIC 4 (one GPU, lower index than
    // NIC 5) to GPU 7. The storage NIC's 200 Gb/s makes the rails' speeds differ.
    std::string text = sampleText();
    for (const char *nic : {"mlx5_6", "mlx5_7"}) {
        const std::size_t at = text.find(std::string("name=\"") + nic);
        const std::size_t open = text.rfind("<pci ", at);
        const std::size_t close = text.find("</pci>", at) + 6;
        text.erase(open, close - open);
    }
    const ServerTopology t = parseNcclTopology(text, "cpu.xml");
    QCOMPARE(t.gpus[6].pathType, std::string("PHB"));
    QCOMPARE(t.gpus[7].pathType, std::string("PHB"));
    QCOMPARE(t.nics[static_cast<std::size_t>(t.rails[static_cast<std::size_t>(t.gpus[6].nic)])].name,
             std::string("mlx5_9"));
    QCOMPARE(t.nics[static_cast<std::size_t>(t.rails[static_cast<std::size_t>(t.gpus[7].nic)])].name,
             std::string("mlx5_4"));
    QVERIFY(anyContains(t.warnings, "GPU 6 (0000:ba:00.0) reaches its nearest NIC mlx5_9 only through the CPU (PHB)"));
    QVERIFY(anyContains(t.warnings, "different speeds (200 to 400 Gb/s)"));
}

void TestNcclTopology::serversAreCompared()
{
    std::string text = sampleText();
    const ServerTopology a = parseNcclTopology(text, "node000.xml");
    text = edited(text, "name=\"mlx5_0\" dev=\"0\"", "name=\"mlx5_0\" dev=\"TMP\"");
    text = edited(text, "name=\"mlx5_1\" dev=\"1\"", "name=\"mlx5_1\" dev=\"0\"");
    text = edited(text, "name=\"mlx5_0\" dev=\"TMP\"", "name=\"mlx5_0\" dev=\"1\"");
    const ServerTopology b = parseNcclTopology(text, "node001.xml");
    // Renumbering the two NICs of one switch changes nothing: both GPUs still pair in order.
    QVERIFY(compareTopologies({a, b}).empty());
    text = edited(sampleText(), "name=\"mlx5_0\" dev=\"0\"", "name=\"mlx5_0\" dev=\"TMP\"");
    text = edited(text, "name=\"mlx5_2\" dev=\"2\"", "name=\"mlx5_2\" dev=\"0\"");
    text = edited(text, "name=\"mlx5_0\" dev=\"TMP\"", "name=\"mlx5_0\" dev=\"2\"");
    const ServerTopology c = parseNcclTopology(text, "node002.xml");
    const std::vector<std::string> w = compareTopologies({a, b, c});
    QCOMPARE(w.size(), std::size_t(3)); // GPUs 0, 1, 2 of node002
    QVERIFY(anyContains(w, "GPU 0 is on rail 1 in node002.xml but on rail 0 in node000.xml"));
}

void TestNcclTopology::appliesTheServerModel()
{
    FabricSpec spec;
    spec.gpusPerServer = 8;
    spec.nic.gbps = 200.0;
    spec.scaleUp.gbps = 1000.0;
    applyTopology(spec, parseNcclTopology(sampleText(), "dgx.xml"));
    QCOMPARE(spec.nicsPerServer, 8);
    QCOMPARE(spec.gpuToNic, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7}));
    QCOMPARE(spec.nic.gbps, 400.0);
    QCOMPARE(spec.scaleUp.gbps, 3600.0);
    QCOMPARE(spec.nicDevices.front(), std::string("mlx5_0"));
    QCOMPARE(spec.nicDevices.back(), std::string("mlx5_7"));
    QCOMPARE(spec.nicPciBusIds.front(), std::string("0000:19:00.0"));
    QCOMPARE(spec.gpuPciBusIds.back(), std::string("0000:db:00.0"));
    QCOMPARE(spec.gpuNuma, (std::vector<int>{0, 0, 0, 0, 1, 1, 1, 1}));
    FabricSpec four;
    four.gpusPerServer = 4;
    try {
        applyTopology(four, parseNcclTopology(sampleText(), "dgx.xml"));
        QFAIL("no error for 8 GPUs against 4");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("fabric.gpus_per_server"));
        QCOMPARE(e.reason(), std::string("dgx.xml has 8 GPUs; the scenario's servers have 4"));
    }
}

void TestNcclTopology::badFiles_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    const QString sample = QString::fromStdString(sampleText());
    QTest::newRow("not xml") << QStringLiteral("<system>\n<cpu numaid=0>\n</cpu></system>\n")
                             << QStringLiteral("bad.xml:2: not XML: ");
    QTest::newRow("no system") << QStringLiteral("<topology/>")
                               << QStringLiteral("bad.xml: no <system> element: not an NCCL topology file");
    QTest::newRow("no gpu") << QStringLiteral("<system><cpu numaid=\"0\"><pci busid=\"a\"><nic><net name=\"m\" dev=\"0\"/></nic></pci></cpu></system>")
                            << QStringLiteral("bad.xml: no <gpu> element under <system>");
    QTest::newRow("no net") << QStringLiteral("<system><cpu numaid=\"0\"><pci busid=\"a\"><gpu dev=\"0\"/></pci></cpu></system>")
                            << QStringLiteral("bad.xml: no <net> element under <system>");
    QTest::newRow("gpu without dev")
        << QString(sample).replace(QStringLiteral("<gpu dev=\"3\""), QStringLiteral("<gpu"))
        << QStringLiteral("bad.xml:48: system/cpu/pci[0000:37:00.0]/pci[0000:5d:00.0]/gpu: missing "
                          "attribute 'dev'");
    QTest::newRow("dev not a number")
        << QString(sample).replace(QStringLiteral("name=\"mlx5_4\" dev=\"4\""), QStringLiteral("name=\"mlx5_4\" dev=\"four\""))
        << QStringLiteral("attribute 'dev': expected an integer, got 'four'");
    QTest::newRow("duplicate gpu")
        << QString(sample).replace(QStringLiteral("<gpu dev=\"5\""), QStringLiteral("<gpu dev=\"4\""))
        << QStringLiteral("bad.xml: two GPUs with dev=\"4\"");
    QTest::newRow("negative speed")
        << QString(sample).replace(
               QStringLiteral("speed=\"400000\""), QStringLiteral("speed=\"-5\""))
        << QStringLiteral(
               "bad.xml:29: system/cpu/pci[0000:15:00.0]/pci[0000:19:00.0]/nic/net: "
               "attribute 'speed' is -5, outside 1..1000000000 (Mbit/s: 1 Mbit/s to 1 Pbit/s)");
    // Values the reader took silently (#40), each now refused with its range and reason.
    QTest::newRow("gpu dev wraps")
        << QString(sample).replace(
               QStringLiteral("<gpu dev=\"3\""), QStringLiteral("<gpu dev=\"99999999999\""))
        << QStringLiteral(
               "bad.xml:48: system/cpu/pci[0000:37:00.0]/pci[0000:5d:00.0]/gpu: attribute 'dev' "
               "is 99999999999, outside 0..1023 (a GPU index within one server)");
    QTest::newRow("gpu dev beyond long long")
        << QString(sample).replace(QStringLiteral("<gpu dev=\"3\""),
               QStringLiteral("<gpu dev=\"99999999999999999999999\""))
        << QStringLiteral(
               "bad.xml:48: system/cpu/pci[0000:37:00.0]/pci[0000:5d:00.0]/gpu: attribute 'dev' "
               "is 99999999999999999999999, outside 0..1023");
    QTest::newRow("net dev negative")
        << QString(sample).replace(QStringLiteral("name=\"mlx5_4\" dev=\"4\""),
               QStringLiteral("name=\"mlx5_4\" dev=\"-4\""))
        << QStringLiteral("bad.xml:92: system/cpu/pci[0000:97:00.0]/pci[0000:9b:00.0]/nic/net: "
                          "attribute 'dev' is -4, outside 0..1023");
    QTest::newRow("negative nvlink count")
        << QString(sample).replace(QStringLiteral("count=\"5\""), QStringLiteral("count=\"-5\""))
        << QStringLiteral("bad.xml:13: system/cpu/pci[0000:15:00.0]/pci[0000:18:00.0]/gpu/nvlink: "
                          "attribute 'count' is -5, outside 1..18");
    QTest::newRow("nvlink lanes add up past 18")
        << QString(sample).replace(QStringLiteral("count=\"4\""), QStringLiteral("count=\"18\""))
        << QStringLiteral(
               "bad.xml:12: system/cpu/pci[0000:15:00.0]/pci[0000:18:00.0]/gpu: "
               "the GPU's nvlink counts add up to 46 lanes; no NVIDIA GPU has more than 18");
    QTest::newRow("numaid negative")
        << QString(sample).replace(QStringLiteral("numaid=\"0\""), QStringLiteral("numaid=\"-1\""))
        << QStringLiteral("bad.xml:9: system/cpu: attribute 'numaid' is -1, outside 0..1023 (a "
                          "Linux NUMA node)");
    QTest::newRow("speed zero")
        << QString(sample).replace(
               QStringLiteral("speed=\"400000\""), QStringLiteral("speed=\"0\""))
        << QStringLiteral("bad.xml:29: system/cpu/pci[0000:15:00.0]/pci[0000:19:00.0]/nic/net: "
                          "attribute 'speed' is 0, outside 1..");
    QTest::newRow("sm zero")
        << QString(sample).replace(QStringLiteral("sm=\"90\""), QStringLiteral("sm=\"0\""))
        << QStringLiteral("bad.xml:12: system/cpu/pci[0000:15:00.0]/pci[0000:18:00.0]/gpu: "
                          "attribute 'sm' is 0, outside 10..999");
    QTest::newRow("octal is no number")
        << QString(sample).replace(
               QStringLiteral("<gpu dev=\"3\""), QStringLiteral("<gpu dev=\"0x3\""))
        << QStringLiteral("attribute 'dev': expected an integer, got '0x3'");
    // Malformed XML the old parser took (#40): each names its line.
    QTest::newRow("mismatched end tag")
        << QString(sample).replace(QStringLiteral("</gpu>"), QStringLiteral("</gpx>"))
        << QStringLiteral(
               "bad.xml:17: not XML: end tag </gpx> does not match <gpu> opened at line 12");
    QTest::newRow("duplicate attribute")
        << QString(sample).replace(
               QStringLiteral("<gpu dev=\"3\""), QStringLiteral("<gpu dev=\"3\" dev=\"7\""))
        << QStringLiteral("bad.xml:48: not XML: attribute 'dev' appears twice in <gpu>");
    QTest::newRow("two roots")
        << QString(sample) + QStringLiteral("<system version=\"1\"></system>\n")
        << QStringLiteral(
               "bad.xml:136: not XML: a second root element; an XML document has exactly one");
    QTest::newRow("unclosed")
        << QStringLiteral("<system>\n<cpu numaid=\"0\">\n</system>\n")
        << QStringLiteral(
               "bad.xml:3: not XML: end tag </system> does not match <cpu> opened at line 2");
    QTest::newRow("end of file inside")
        << QStringLiteral("<system>\n<cpu numaid=\"0\">\n")
        << QStringLiteral("bad.xml:3: not XML: <cpu> opened at line 2 is not closed");
    QTest::newRow("doctype") << QStringLiteral("<!DOCTYPE system [<!ENTITY x \"y\">]>\n<system/>")
                             << QStringLiteral(
                                    "bad.xml:1: not XML: a DOCTYPE or other declaration");
    QTest::newRow("unknown entity")
        << QStringLiteral("<system>\n<cpu numaid=\"&x;\"/></system>")
        << QStringLiteral("bad.xml:2: not XML: attribute 'numaid': &x; is no predefined entity");
    QTest::newRow("text after root") << QStringLiteral(
        "<system/>\njunk") << QStringLiteral("bad.xml:2: not XML: text after the root element");
    // Caps that keep a hostile file's memory and time small (xmlelements.cpp).
    QString many = QStringLiteral("<system>");
    for (int i = 0; i < 70000; ++i)
        many += QStringLiteral("<a/>");
    QTest::newRow("too many elements")
        << many + QStringLiteral("</system>")
        << QStringLiteral("bad.xml:1: not XML: more than 65536 elements");
    QString wide = QStringLiteral("<system");
    for (int i = 0; i < 300; ++i)
        wide += QStringLiteral(" a%1=\"\"").arg(i);
    QTest::newRow("too many attributes")
        << wide + QStringLiteral("/>")
        << QStringLiteral("bad.xml:1: not XML: more than 256 attributes in <system>");
    QString deep = QStringLiteral("<system>");
    for (int i = 0; i < 70; ++i)
        deep += QStringLiteral("<pci>");
    QTest::newRow("too deep") << deep << QStringLiteral("bad.xml:1: elements nested more than 64 deep");
}

void TestNcclTopology::badFiles()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    try {
        parseNcclTopology(text.toStdString(), "bad.xml");
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

void TestNcclTopology::wellFormedVariantsParse()
{
    // A byte order mark, single quotes, entities and character references, comments and
    // declarations, space around = and in end tags: all XML, all read.
    std::string text = sampleText();
    text = edited(text, "<?xml version=\"1.0\"?>", "\xEF\xBB\xBF<?xml version='1.0'?>");
    text = edited(text, "name=\"mlx5_0\"", "name = 'mlx&#x35;_&#48;'");
    text = edited(text, "</system>", "<!-- end --></system >\n<!-- trailing -->\n");
    text = edited(text, "arch=\"x86_64\"", "arch=\"x86&amp;64 &lt;&gt;&quot;&apos;\"");
    const ServerTopology t = parseNcclTopology(text, "dgx.xml");
    QCOMPARE(t.nics.front().name, std::string("mlx5_0"));
    QCOMPARE(t.gpuToRail(), (std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 }));
    QCOMPARE(t.scaleUpGbps, 3600.0);
    // A net without speed keeps the fabric's NIC speed (0: unknown), as before.
    const ServerTopology quiet
        = parseNcclTopology(edited(sampleText(), " speed=\"400000\"", ""), "dgx.xml");
    QCOMPARE(quiet.nics.front().gbps, 0.0);
}

void TestNcclTopology::missingFileIsNamed()
{
    QTemporaryDir dir;
    try {
        loadNcclTopology(dir.filePath(QStringLiteral("none.xml")).toStdString());
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("none.xml: cannot open: ")), e.what());
    }
    try {
        loadNcclTopology(dir.path().toStdString());
        QFAIL("accepted a directory");
    } catch (const ScenarioError &e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral("is a directory, not an NCCL topology file")), e.what());
    }
}

QTEST_APPLESS_MAIN(TestNcclTopology)
#include "tst_nccltopology.moc"
