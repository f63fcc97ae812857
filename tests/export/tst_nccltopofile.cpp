// The NCCL_TOPO_FILE writer (model/export/nccltopofile.h) on samples/dgx-h100-topology.xml as
// import-topology reads it: the XML parses back, holds only the elements and attributes NCCL's
// src/graph/xml.cc and topo.cc read, in the form NCCL's own parser takes, nests each GPU and
// NIC under the PCIe switch the import recorded, and round-trips through the importer (same
// GPUs, NICs, NUMA nodes, bus ids, device names, PCIe paths and GPU <-> NIC locality). A
// fabric without bus ids is refused naming the fields; the PCIe tree and nic_numa round-trip
// through the scenario file and the fabric hash; the launchers set NCCL_TOPO_FILE only when
// the file can be written, and only when it exists where the ranks start.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exporters.h"
#include "export/nccltopofile.h"
#include "golden.h"
#include "io/nccltopology.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <boost/property_tree/ptree.hpp>
#include <boost/property_tree/xml_parser.hpp>

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <map>
#include <set>
#include <sstream>

using namespace railyard;
using boost::property_tree::ptree;

namespace {

std::string sampleText()
{
    QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/dgx-h100-topology.xml"));
    return f.open(QIODevice::ReadOnly) ? f.readAll().toStdString() : std::string();
}

Scenario seed()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

/// The seed's fabric after import-topology of the sample server.
FabricSpec importedSpec()
{
    FabricSpec spec = seed().fabric;
    applyTopology(spec, parseNcclTopology(sampleText(), "dgx.xml"));
    return spec;
}

ptree parseXml(const std::string &text)
{
    ptree root;
    std::istringstream in(text);
    boost::property_tree::read_xml(in, root, boost::property_tree::xml_parser::no_comments);
    return root;
}

std::set<std::string> attributesOf(const ptree &node)
{
    std::set<std::string> out;
    if (const auto attrs = node.get_child_optional("<xmlattr>"))
        for (const auto &[name, value] : *attrs)
            out.insert(name);
    return out;
}

/// Every element below `node` (depth first) with the path of element names above it.
void collect(const ptree &node, const std::string &path,
    std::vector<std::pair<std::string, const ptree *>> &out)
{
    for (const auto &[tag, child] : node) {
        if (tag == "<xmlattr>" || tag == "<xmlcomment>")
            continue;
        out.emplace_back(path + "/" + tag, &child);
        collect(child, path + "/" + tag, out);
    }
}

std::string attr(const ptree &node, const char *name)
{
    return node.get<std::string>(std::string("<xmlattr>.") + name, "");
}

/// The pci element with `busid`, and the bus ids of the pci elements above it.
const ptree *findPci(const ptree &node, const std::string &busId, std::vector<std::string> &above)
{
    for (const auto &[tag, child] : node) {
        if (tag != "pci" && tag != "cpu" && tag != "system")
            continue;
        if (tag == "pci" && attr(child, "busid") == busId)
            return &child;
        if (tag == "pci")
            above.push_back(attr(child, "busid"));
        if (const ptree *hit = findPci(child, busId, above))
            return hit;
        if (tag == "pci")
            above.pop_back();
    }
    return nullptr;
}

} // namespace

class TestNcclTopoFile : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void importRecordsThePcieTree();
    void wellFormedWithNcclsElementSet();
    void nestsEachGpuWithItsNicUnderTheirSwitch();
    void roundTripsThroughTheImporter();
    void withoutTreeDevicesSitOnTheirCpu();
    void refusesWithoutBusIds_data();
    void refusesWithoutBusIds();
    void refusesAnInconsistentTree();
    void affinityFollowsTheCoreBinding();
    void switchLinkFollowsPcieGbps();
    void treeRoundTripsThroughTheScenarioFile();
    void badPathsAreNamed();
    void exportFormatAndLaunchers();
    void launcherUsesTheFileOnlyWhenItExists();
    void golden();
};

void TestNcclTopoFile::importRecordsThePcieTree()
{
    const FabricSpec spec = importedSpec();
    QCOMPARE(spec.gpuPciPaths.size(), std::size_t(8));
    QCOMPARE(spec.nicPciPaths.size(), std::size_t(8));
    // The sample: GPUs 0, 1 and NICs mlx5_0, mlx5_1 under switch 0000:15:00.0 on socket 0;
    // GPUs 6, 7 and mlx5_6, mlx5_7 under a switch on socket 1.
    QCOMPARE(spec.gpuPciPaths[0], std::vector<std::string> { "0000:15:00.0" });
    QCOMPARE(spec.gpuPciPaths[1], std::vector<std::string> { "0000:15:00.0" });
    QCOMPARE(spec.nicPciPaths[0], std::vector<std::string> { "0000:15:00.0" });
    QCOMPARE(spec.nicPciPaths[2], std::vector<std::string> { "0000:37:00.0" });
    QCOMPARE(spec.nicNuma, (std::vector<int> { 0, 0, 0, 0, 1, 1, 1, 1 }));
    QCOMPARE(spec.gpuNuma, (std::vector<int> { 0, 0, 0, 0, 1, 1, 1, 1 }));
}

void TestNcclTopoFile::wellFormedWithNcclsElementSet()
{
    const std::string text = ncclTopoFileText(importedSpec());
    // NCCL's parser (xml.cc, xmlGetNode): no <?xml?> declaration, no tabs, single spaces
    // between attributes, double-quoted values of at most 255 bytes.
    QVERIFY(text.find("<?") == std::string::npos);
    QVERIFY(text.find('\t') == std::string::npos);
    const QRegularExpression tag(QStringLiteral("<([a-z]+)((?: [a-z_]+=\"[^\"]{0,255}\")*)(/?)>"));
    for (const QString &line : QString::fromStdString(text).split(QLatin1Char('\n'))) {
        const QString t = line.trimmed();
        if (t.isEmpty() || t.startsWith(QLatin1String("</")) || !t.startsWith(QLatin1Char('<'))
            || t.startsWith(QLatin1String("<!--")))
            continue;
        QVERIFY2(
            tag.match(t).hasMatch() && tag.match(t).capturedLength(0) == t.size(), qPrintable(t));
    }

    const ptree root = parseXml(text); // throws when not well-formed
    QCOMPARE(root.size(), std::size_t(1));
    QCOMPARE(root.begin()->first, std::string("system"));
    QCOMPARE(attr(root.begin()->second, "version"), std::string("1")); // NCCL_TOPO_XML_VERSION
    // The attributes NCCL reads per element (xml.cc ncclTopoXmlLoad*, topo.cc ncclTopoAdd*)
    // that this writer sets; the required ones must be there.
    const std::map<std::string, std::set<std::string>> allowed {
        { "system", { "version" } },
        { "cpu", { "numaid", "affinity" } },
        { "pci", { "busid", "class", "link_speed", "link_width" } },
        { "gpu", { "dev" } },
        { "nic", {} },
        { "net", { "name", "dev", "speed" } },
    };
    const std::set<std::string> pciGen { "2.5 GT/s PCIe", "5.0 GT/s PCIe", "8.0 GT/s PCIe",
        "16.0 GT/s PCIe", "32.0 GT/s PCIe", "64.0 GT/s PCIe" };
    std::vector<std::pair<std::string, const ptree *>> all;
    collect(root, "", all);
    std::map<std::string, int> count;
    for (const auto &[path, node] : all) {
        const std::string name = path.substr(path.rfind('/') + 1);
        ++count[name];
        QVERIFY2(allowed.count(name), path.c_str());
        const std::set<std::string> attrs = attributesOf(*node);
        for (const std::string &a : attrs)
            QVERIFY2(allowed.at(name).count(a), (path + " @" + a).c_str());
        if (name == "cpu")
            QVERIFY(attrs.count("numaid"));
        if (name == "pci") {
            QVERIFY(attrs.count("busid") && attrs.count("class"));
            // topo.cc's ncclTopoAddPci reads link_width and link_speed of every pci element;
            // a switch and a NIC found by its net's name keep what the file says.
            QVERIFY(pciGen.count(attr(*node, "link_speed")));
            QCOMPARE(attr(*node, "link_width"), std::string("16"));
            const std::string cls = attr(*node, "class");
            if (node->get_child_optional("gpu"))
                QCOMPARE(cls, std::string("0x03"));
            else if (node->get_child_optional("nic"))
                QCOMPARE(cls, std::string("0x02"));
            else
                QCOMPARE(cls, std::string("0x060400")); // a PCIe switch (PCI bridge class)
            QVERIFY(path.find("/cpu/") != std::string::npos);
        }
        if (name == "net") {
            QVERIFY(attrs.count("name") && attrs.count("dev"));
            QVERIFY(path.size() > 8 && path.compare(path.size() - 8, 8, "/nic/net") == 0);
        }
        if (name == "gpu")
            QVERIFY(path.size() > 8 && path.compare(path.size() - 8, 8, "/pci/gpu") == 0);
    }
    // 2 sockets; 4 switches + 8 GPUs + 8 NICs; every device once.
    QCOMPARE(count["cpu"], 2);
    QCOMPARE(count["pci"], 20);
    QCOMPARE(count["gpu"], 8);
    QCOMPARE(count["net"], 8);
}

void TestNcclTopoFile::nestsEachGpuWithItsNicUnderTheirSwitch()
{
    const ptree root = parseXml(ncclTopoFileText(importedSpec()));
    std::vector<std::string> above;
    const ptree *gpu0 = findPci(root, "0000:18:00.0", above);
    QVERIFY(gpu0);
    QCOMPARE(attr(gpu0->get_child("gpu"), "dev"), std::string("0"));
    QCOMPARE(above, std::vector<std::string> { "0000:15:00.0" });
    above.clear();
    const ptree *nic0 = findPci(root, "0000:19:00.0", above);
    QVERIFY(nic0);
    QCOMPARE(above, std::vector<std::string> { "0000:15:00.0" });
    const ptree &net = nic0->get_child("nic").get_child("net");
    QCOMPARE(attr(net, "name"), std::string("mlx5_0"));
    QCOMPARE(attr(net, "dev"), std::string("0"));
    QCOMPARE(attr(net, "speed"), std::string("400000")); // nic_gbps 400 in Mbit/s
    above.clear();
    const ptree *gpu7 = findPci(root, "0000:db:00.0", above);
    QVERIFY(gpu7);
    QVERIFY(!above.empty() && above.front() != "0000:15:00.0");
}

void TestNcclTopoFile::roundTripsThroughTheImporter()
{
    const FabricSpec spec = importedSpec();
    const ServerTopology first = parseNcclTopology(sampleText(), "dgx.xml");
    const ServerTopology back = parseNcclTopology(ncclTopoFileText(spec), "written.xml");
    QCOMPARE(back.gpus.size(), std::size_t(8));
    QCOMPARE(back.nics.size(), std::size_t(8)); // the storage NICs are no rails: not written
    QVERIFY(back.warnings.empty());
    for (std::size_t g = 0; g < 8; ++g) {
        QCOMPARE(back.gpus[g].busId, first.gpus[g].busId);
        QCOMPARE(back.gpus[g].numa, first.gpus[g].numa);
        QCOMPARE(back.gpus[g].pciChain, first.gpus[g].pciChain);
        QCOMPARE(back.gpus[g].nic, first.gpus[g].nic);
        QCOMPARE(back.gpus[g].pathType, std::string("PIX"));
    }
    FabricSpec again = seed().fabric;
    applyTopology(again, back);
    QCOMPARE(again.gpuToNic, spec.gpuToNic);
    QCOMPARE(again.nicsPerServer, spec.nicsPerServer);
    QCOMPARE(again.gpuPciBusIds, spec.gpuPciBusIds);
    QCOMPARE(again.nicPciBusIds, spec.nicPciBusIds);
    QCOMPARE(again.nicDevices, spec.nicDevices);
    QCOMPARE(again.gpuNuma, spec.gpuNuma);
    QCOMPARE(again.nicNuma, spec.nicNuma);
    QCOMPARE(again.gpuPciPaths, spec.gpuPciPaths);
    QCOMPARE(again.nicPciPaths, spec.nicPciPaths);
    QCOMPARE(again.nic.gbps, spec.nic.gbps);
    // And the second write is the first: the file is a fixed point of import + write.
    QCOMPARE(ncclTopoFileText(again), ncclTopoFileText(spec));
}

void TestNcclTopoFile::withoutTreeDevicesSitOnTheirCpu()
{
    FabricSpec spec = importedSpec();
    spec.gpuPciPaths.clear();
    spec.nicPciPaths.clear();
    spec.nicNuma.clear(); // NIC i then takes the socket of its GPUs
    const std::string text = ncclTopoFileText(spec);
    const ptree root = parseXml(text);
    std::vector<std::pair<std::string, const ptree *>> all;
    collect(root, "", all);
    for (const auto &[path, node] : all)
        if (path.rfind("/pci") == path.size() - 4)
            QCOMPARE(path, std::string("/system/cpu/pci")); // no switch invented
    const ServerTopology back = parseNcclTopology(text, "flat.xml");
    for (std::size_t g = 0; g < 8; ++g) {
        // No switch in common: NCCL's PHB (through the CPU), the same socket as its NIC.
        QCOMPARE(back.gpus[g].pathType, std::string("PHB"));
        QCOMPARE(back.gpus[g].numa, g < 4 ? 0 : 1);
        QCOMPARE(back.gpus[g].busId, spec.gpuPciBusIds[g]);
    }
    for (std::size_t n = 0; n < 8; ++n)
        QCOMPARE(back.nics[n].numa, n < 4 ? 0 : 1);
}

void TestNcclTopoFile::refusesWithoutBusIds_data()
{
    QTest::addColumn<bool>("gpuIds");
    QTest::addColumn<bool>("nicIds");
    QTest::newRow("neither") << false << false;
    QTest::newRow("no NIC ids") << true << false;
    QTest::newRow("no GPU ids") << false << true;
}

void TestNcclTopoFile::refusesWithoutBusIds()
{
    QFETCH(bool, gpuIds);
    QFETCH(bool, nicIds);
    FabricSpec spec = importedSpec();
    if (!gpuIds)
        spec.gpuPciBusIds.clear();
    if (!nicIds)
        spec.nicPciBusIds[3].clear(); // one NIC unknown is as bad as all
    try {
        ncclTopoFileText(spec);
        QFAIL("written without bus ids");
    } catch (const ScenarioError &e) {
        const std::string why = e.what();
        QCOMPARE(why.find("fabric.gpu_pci_bus_ids") != std::string::npos, !gpuIds);
        QCOMPARE(why.find("fabric.nic_pci_bus_ids") != std::string::npos, !nicIds);
        QVERIFY2(why.find("railyard-cli import-topology") != std::string::npos, why.c_str());
    }
    QCOMPARE(ncclTopoMissingFields(spec).size(), std::size_t((gpuIds ? 0 : 1) + (nicIds ? 0 : 1)));
    // The seed itself has none.
    QCOMPARE(ncclTopoMissingFields(seed().fabric),
        (std::vector<std::string> { "fabric.gpu_pci_bus_ids", "fabric.nic_pci_bus_ids" }));
}

void TestNcclTopoFile::refusesAnInconsistentTree()
{
    FabricSpec spec = importedSpec();
    spec.gpuPciPaths[1] = { "0000:99:00.0", "0000:15:00.0" }; // the switch under another parent
    try {
        ncclTopoFileText(spec);
        QFAIL("two parents written");
    } catch (const ScenarioError &e) {
        QVERIFY2(std::string(e.what()).find("0000:15:00.0") != std::string::npos, e.what());
    }
    spec = importedSpec();
    spec.nicPciBusIds[1] = spec.gpuPciBusIds[0];
    QVERIFY_THROWS_EXCEPTION(ScenarioError, ncclTopoFileText(spec));
    spec = importedSpec();
    spec.gpuNuma[1] = 1; // GPU 1 on socket 1 under a switch of socket 0
    QVERIFY_THROWS_EXCEPTION(ScenarioError, ncclTopoFileText(spec));
}

void TestNcclTopoFile::affinityFollowsTheCoreBinding()
{
    NcclTopoFileOptions o;
    o.cpusPerHost = 64; // node 0: cores 0-31 (GPUs 0-3), node 1: cores 32-63
    const ptree root = parseXml(ncclTopoFileText(importedSpec(), o));
    std::map<std::string, std::string> affinity;
    for (const auto &[tag, cpu] : root.get_child("system"))
        if (tag == "cpu")
            affinity[attr(cpu, "numaid")] = attr(cpu, "affinity");
    // cpumap words of 32 cores, the highest first.
    QCOMPARE(affinity["0"], std::string("00000000,ffffffff"));
    QCOMPARE(affinity["1"], std::string("ffffffff,00000000"));
    // Without a core count NCCL reads the node's own affinity: none written.
    QVERIFY(ncclTopoFileText(importedSpec()).find("affinity") == std::string::npos);
    o.cpusPerHost = 4; // fewer cores than GPUs: refused as the rankfile refuses it
    QVERIFY_THROWS_EXCEPTION(ScenarioError, ncclTopoFileText(importedSpec(), o));
}

void TestNcclTopoFile::switchLinkFollowsPcieGbps()
{
    FabricSpec spec = importedSpec();
    QVERIFY(ncclTopoFileText(spec).find("link_speed=\"32.0 GT/s PCIe\" link_width=\"16\"")
        != std::string::npos); // 512 Gb/s = Gen5 x16
    spec.pcie.gbps = 256.0;
    QVERIFY(ncclTopoFileText(spec).find("link_speed=\"16.0 GT/s PCIe\"") != std::string::npos);
    spec.pcie.gbps = 300.0; // between Gen4 and Gen5 x16: the generation it reaches
    QVERIFY(ncclTopoFileText(spec).find("link_speed=\"16.0 GT/s PCIe\"") != std::string::npos);
}

void TestNcclTopoFile::treeRoundTripsThroughTheScenarioFile()
{
    Scenario s = seed();
    const std::string plainHash = fabricHash(s.fabric);
    s.fabric = importedSpec();
    const std::string text = scenarioToText(s);
    const Scenario back = parseScenario(text);
    QCOMPARE(back.fabric.gpuPciPaths, s.fabric.gpuPciPaths);
    QCOMPARE(back.fabric.nicPciPaths, s.fabric.nicPciPaths);
    QCOMPARE(back.fabric.nicNuma, s.fabric.nicNuma);
    QVERIFY(back.fabric == s.fabric);
    // Identity fields are in the hash: another tree is another fabric.
    FabricSpec moved = s.fabric;
    moved.nicPciPaths[0] = { "0000:37:00.0" };
    QVERIFY(fabricHash(moved) != fabricHash(s.fabric));
    FabricSpec otherSocket = s.fabric;
    otherSocket.nicNuma[0] = 1;
    QVERIFY(fabricHash(otherSocket) != fabricHash(s.fabric));
    // A fabric without them keeps its hash (and its run records).
    QCOMPARE(fabricHash(seed().fabric), plainHash);
    QVERIFY(scenarioToText(seed()).find("pci_paths") == std::string::npos);
}

void TestNcclTopoFile::badPathsAreNamed()
{
    Scenario s = seed();
    s.fabric = importedSpec();
    nlohmann::json j = nlohmann::json::parse(scenarioToText(s));
    const auto fieldOf = [](const nlohmann::json &doc) -> std::string {
        try {
            parseScenario(doc.dump());
        } catch (const ScenarioError &e) {
            return e.field();
        }
        return "accepted";
    };
    nlohmann::json bad = j;
    bad["fabric"]["gpu_pci_paths"][1][0] = "not-a-bus";
    QCOMPARE(fieldOf(bad), std::string("fabric.gpu_pci_paths[1][0]"));
    bad = j;
    bad["fabric"]["nic_pci_paths"].erase(0);
    QCOMPARE(fieldOf(bad), std::string("fabric.nic_pci_paths"));
    bad = j;
    bad["fabric"]["gpu_pci_paths"][2] = "0000:15:00.0"; // a string, not a list
    QCOMPARE(fieldOf(bad), std::string("fabric.gpu_pci_paths[2]"));
    bad = j;
    bad["fabric"]["nic_numa"][0] = 64;
    QCOMPARE(fieldOf(bad), std::string("fabric.nic_numa[0]"));
}

void TestNcclTopoFile::exportFormatAndLaunchers()
{
    ExportFormat f;
    QVERIFY(parseExportFormat("nccl-topo", f));
    QCOMPARE(f, ExportFormat::NcclTopo);
    QCOMPARE(std::string(exportFormatSuffix(f)), std::string(".nccl-topo.xml"));
    QVERIFY(!exportUsesHosts(f));

    Scenario s = seed();
    const CostEngine plain(s);
    QVERIFY(exportUnavailableReason(plain, f).find("fabric.gpu_pci_bus_ids") != std::string::npos);
    QVERIFY_THROWS_EXCEPTION(ScenarioError, exportText(plain, f));
    for (ExportFormat launcher :
        { ExportFormat::Slurm, ExportFormat::Torchrun, ExportFormat::Rankfile }) {
        const std::string text = exportText(plain, launcher);
        QVERIFY(text.find("No NCCL_TOPO_FILE: the fabric has no PCI bus ids") != std::string::npos);
        QVERIFY(text.find("NCCL_TOPO_FILE=") == std::string::npos);
    }

    s.fabric = importedSpec();
    const CostEngine imported(s);
    QVERIFY(exportUnavailableReason(imported, f).empty());
    QCOMPARE(exportText(imported, f), ncclTopoFileText(s.fabric));
    ExportOptions o;
    o.cpusPerHost = 64;
    QVERIFY(exportText(imported, f, o).find("affinity=\"00000000,ffffffff\"") != std::string::npos);
    for (ExportFormat launcher : { ExportFormat::Slurm, ExportFormat::Torchrun }) {
        const std::string text = exportText(imported, launcher);
        QVERIFY2(
            text.find(
                "[ -f 'railyard.nccl-topo.xml' ]; then NCCL_TOPO_FILE='railyard.nccl-topo.xml'")
                != std::string::npos,
            text.c_str());
    }
    QVERIFY(exportText(imported, ExportFormat::Rankfile)
                .find("mpirun -x NCCL_TOPO_FILE=railyard.nccl-topo.xml")
        != std::string::npos);
    // The PyTorchJob runs the torchrun script: it carries the same lines.
    QVERIFY(
        exportText(imported, ExportFormat::PyTorchJob).find("NCCL_TOPO_FILE") != std::string::npos);
    o = {};
    o.ncclTopoFile = "/shared/topo $(id).xml";
    QVERIFY(exportText(imported, ExportFormat::Torchrun, o)
                .find("NCCL_TOPO_FILE='/shared/topo $(id).xml'")
        != std::string::npos); // quoted: nothing runs
    o.ncclTopoFile = "a\nb";
    QVERIFY_THROWS_EXCEPTION(ScenarioError, exportText(imported, ExportFormat::Slurm, o));
}

void TestNcclTopoFile::launcherUsesTheFileOnlyWhenItExists()
{
    // The torchrun script's NCCL_TOPO_FILE lines, run by sh in a directory with and without
    // the file, and with NCCL_TOPO_FILE already set.
    Scenario s = seed();
    s.fabric = importedSpec();
    const std::string script = exportText(CostEngine(s), ExportFormat::Torchrun);
    std::string lines;
    std::istringstream in(script);
    for (std::string line; std::getline(in, line);)
        if (line.find("NCCL_TOPO_FILE") != std::string::npos && line.rfind('#', 0) != 0)
            lines += line + "\n";
    QCOMPARE(static_cast<int>(std::count(lines.begin(), lines.end(), '\n')), 2);
    const auto run = [&lines](const QString &dir, const QString &preset) {
        QProcess sh;
        sh.setWorkingDirectory(dir);
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("NCCL_TOPO_FILE"));
        if (!preset.isEmpty())
            env.insert(QStringLiteral("NCCL_TOPO_FILE"), preset);
        sh.setProcessEnvironment(env);
        sh.start(QStringLiteral("sh"),
            { QStringLiteral("-euc"),
                QString::fromStdString(
                    "set -eu\n" + lines + "sh -c 'printf %s \"${NCCL_TOPO_FILE:-unset}\"'") });
        sh.waitForFinished();
        return QString::fromUtf8(sh.readAllStandardOutput());
    };
    QTemporaryDir dir;
    QCOMPARE(run(dir.path(), {}), QStringLiteral("unset"));
    QFile f(dir.filePath(QStringLiteral("railyard.nccl-topo.xml")));
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(exportText(CostEngine(s), ExportFormat::NcclTopo).c_str());
    f.close();
    QCOMPARE(run(dir.path(), {}), QStringLiteral("railyard.nccl-topo.xml"));
    QCOMPARE(run(dir.path(), QStringLiteral("/etc/mine.xml")), QStringLiteral("/etc/mine.xml"));
}

void TestNcclTopoFile::golden()
{
    // The seed after import-topology of the sample, with 112 cores per host (2 x 56): the file
    // to read (RAILYARD_UPDATE_GOLDEN=1 build/bin/export_tst_nccltopofile golden rewrites it).
    NcclTopoFileOptions o;
    o.cpusPerHost = 112;
    fixtures::compareWithGolden(QStringLiteral("nccl-topo.xml"), ncclTopoFileText(importedSpec(), o));
}

QTEST_GUILESS_MAIN(TestNcclTopoFile)
#include "tst_nccltopofile.moc"
