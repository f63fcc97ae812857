/**
 * The NCCL_TOPO_FILE writer (nccltopofile.h). The element and attribute names are the ones
 * NCCL's topology code reads (NVIDIA/nccl src/graph/xml.cc, the ncclTopoXmlLoad* handlers, and
 * topo.cc, ncclTopoAddCpu / ncclTopoAddPci / ncclTopoAddNic / ncclTopoAddNet):
 *   system  version (NCCL_TOPO_XML_VERSION, 1)
 *   cpu     numaid, affinity (the /sys cpumap form: 32-bit hex words, highest first, as
 *           cpuset.h's ncclStrToCpuset reads it)
 *   pci     busid, class (0x060400 a PCI bridge, i.e. a PCIe switch port; NCCL's own
 *           ncclTopoFillGpu / ncclTopoFillNet mark devices "0x03" and "0x02"), link_speed
 *           ("32.0 GT/s PCIe", a key of topo.cc's kvDictPciGen), link_width
 *   gpu     dev
 *   nic > net  name, dev, speed (Mbit/s)
 * Every pci element carries class, link_speed and link_width: topo.cc's ncclTopoAddPci
 * requires the link on each, and NCCL reads sysfs only for GPU nodes and for parents it has to
 * create (ncclTopoGetXmlFromSys) - a bridge in the file, and a NIC whose net it finds by name
 * (ncclTopoFillNet returns early), keep what the file says. The link is the fabric's PCIe
 * link (pcie_gbps, the GPU <-> NIC host path the engine costs) at x16.
 */
#include "export/nccltopofile.h"

#include "base/scenarioerror.h"
#include "export/exportcommon.h"
#include "export/runrecord.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

namespace railyard {

namespace {

/** One element under a cpu: a PCIe switch (bridge) or a device. */
struct NcclTopoNode
{
    std::string busId;
    int gpu = -1; ///< >= 0: this pci element is GPU `gpu`
    int nic = -1; ///< >= 0: this pci element is NIC `nic`
    std::vector<std::unique_ptr<NcclTopoNode>> children;
};

int topoNicCount(const FabricSpec &spec)
{
    return spec.nicsPerServer > 0 ? spec.nicsPerServer : spec.gpusPerServer;
}

int topoNicOfGpu(const FabricSpec &spec, int gpu, int nics)
{
    if (static_cast<std::size_t>(gpu) < spec.gpuToNic.size())
        return spec.gpuToNic[static_cast<std::size_t>(gpu)];
    return gpu % nics;
}

/// NIC i's NUMA node: nic_numa, else that of the first GPU using it, else node 0.
int topoNumaOfNic(const FabricSpec &spec, int nic, int nics)
{
    if (static_cast<std::size_t>(nic) < spec.nicNuma.size())
        return spec.nicNuma[static_cast<std::size_t>(nic)];
    for (int g = 0; g < spec.gpusPerServer; ++g)
        if (topoNicOfGpu(spec, g, nics) == nic)
            return exportdetail::numaOfGpu(spec, g);
    return 0;
}

/// A value NCCL's parser takes between double quotes (it has no escapes): no quote, no
/// markup, no control character, at most 255 bytes (xml.h, MAX_STR_LEN).
const std::string &topoAttribute(const std::string &field, const std::string &value)
{
    const bool plain = value.size() <= 255 && std::none_of(value.begin(), value.end(), [](char ch) {
        return ch == '"' || ch == '<' || ch == '>' || ch == '&'
            || static_cast<unsigned char>(ch) < 0x20;
    });
    if (!plain)
        throw ScenarioError(field,
            "'" + exportdetail::oneLine(value.substr(0, 60))
                + "' cannot be an NCCL topology attribute (quotes, markup or control "
                  "characters)");
    return value;
}

/// The PCIe generation NCCL knows whose x16 link carries at most the fabric's pcie_gbps
/// (PCI-SIG line rates: 2.5, 5, 8, 16, 32, 64 GT/s per lane; NCCL takes bandwidth = width x
/// rate / 8 and ignores the 128b/130b encoding), the slowest for less.
std::string topoLinkSpeed(double pcieGbps)
{
    static const std::pair<double, const char *> kGenerations[] = {
        { 2.5, "2.5 GT/s PCIe" },
        { 5.0, "5.0 GT/s PCIe" },
        { 8.0, "8.0 GT/s PCIe" },
        { 16.0, "16.0 GT/s PCIe" },
        { 32.0, "32.0 GT/s PCIe" },
        { 64.0, "64.0 GT/s PCIe" },
    };
    const char *best = kGenerations[0].second;
    for (const auto &[gts, name] : kGenerations)
        if (16.0 * gts <= pcieGbps * (1.0 + 1e-9))
            best = name;
    return best;
}

/// The /sys cpumap text of cores [lo, hi] ranges: comma-separated 32-bit hex words, the
/// highest first (Linux Documentation/ABI, cpumap; NCCL's ncclStrToCpuset).
std::string topoCpuMask(const std::vector<std::pair<int, int>> &ranges, int cpus)
{
    const int words = (cpus + 31) / 32;
    std::vector<unsigned> mask(static_cast<std::size_t>(words), 0u);
    for (const auto &[lo, hi] : ranges)
        for (int c = lo; c <= hi; ++c)
            mask[static_cast<std::size_t>(c / 32)] |= 1u << (c % 32);
    std::string out;
    for (int w = words - 1; w >= 0; --w)
        out += exportdetail::strf(
            "%s%08x", out.empty() ? "" : ",", mask[static_cast<std::size_t>(w)]);
    return out;
}

class NcclTopoTree
{
public:
    /// Places a device under its bridges below CPU `numa`.
    void add(int numa, const std::vector<std::string> &bridges, const std::string &busId, int gpu,
        int nic, const std::string &who)
    {
        const std::string cpu = "cpu " + std::to_string(numa);
        if (!m_devices.insert(busId).second)
            throw ScenarioError(
                "fabric", who + ": PCI bus id " + busId + " is used by two devices");
        NcclTopoNode *at = &m_cpus[numa];
        std::string parent = cpu;
        for (const std::string &bridge : bridges) {
            if (m_devices.count(bridge))
                throw ScenarioError(
                    "fabric", who + ": PCIe bridge " + bridge + " is also a GPU's or NIC's bus id");
            const auto [seen, fresh] = m_parentOf.emplace(bridge, parent);
            if (!fresh && seen->second != parent)
                throw ScenarioError("fabric",
                    who + ": PCIe bridge " + bridge + " sits under " + parent + " here but under "
                        + seen->second + " for another device");
            at = child(*at, bridge);
            parent = bridge;
        }
        if (m_parentOf.count(busId))
            throw ScenarioError("fabric",
                who + ": bus id " + busId + " is also a PCIe bridge above another device");
        auto device = std::make_unique<NcclTopoNode>();
        device->busId = busId;
        device->gpu = gpu;
        device->nic = nic;
        at->children.push_back(std::move(device));
    }

    const std::map<int, NcclTopoNode> &cpus() const { return m_cpus; }

private:
    static NcclTopoNode *child(NcclTopoNode &node, const std::string &busId)
    {
        for (auto &c : node.children)
            if (c->busId == busId && c->gpu < 0 && c->nic < 0)
                return c.get();
        node.children.push_back(std::make_unique<NcclTopoNode>());
        node.children.back()->busId = busId;
        return node.children.back().get();
    }

    std::map<int, NcclTopoNode> m_cpus;
    std::set<std::string> m_devices;
    std::map<std::string, std::string> m_parentOf;
};

struct NcclTopoWriter
{
    const FabricSpec &spec;
    const NcclTopoFileOptions &options;
    std::string pciLink;
    std::string out;

    void node(const NcclTopoNode &n, int depth)
    {
        const std::string pad(static_cast<std::size_t>(2 * depth), ' ');
        if (n.gpu >= 0) {
            out += pad + "<pci busid=\"" + n.busId + "\" class=\"0x03\" " + pciLink + ">\n";
            out += pad + "  <gpu dev=\"" + std::to_string(n.gpu) + "\"/>\n";
            out += pad + "</pci>\n";
            return;
        }
        if (n.nic >= 0) {
            const std::string name = topoAttribute(
                "fabric.nic_devices", exportdetail::rdmaDevice(spec, options.hcaPrefix, n.nic));
            const long long mbps = std::llround(spec.nic.gbps * 1000.0);
            out += pad + "<pci busid=\"" + n.busId + "\" class=\"0x02\" " + pciLink + ">\n";
            out += pad + "  <nic>\n";
            out += pad + "    <net name=\"" + name + "\" dev=\"" + std::to_string(n.nic)
                + "\" speed=\"" + std::to_string(mbps) + "\"/>\n";
            out += pad + "  </nic>\n";
            out += pad + "</pci>\n";
            return;
        }
        out += pad + "<pci busid=\"" + n.busId + "\" class=\"0x060400\" " + pciLink + ">\n";
        for (const auto &c : n.children)
            node(*c, depth + 1);
        out += pad + "</pci>\n";
    }
};

} // namespace

std::vector<std::string> ncclTopoMissingFields(const FabricSpec &spec)
{
    std::vector<std::string> missing;
    const auto incomplete = [](const std::vector<std::string> &ids, int count) {
        return ids.size() != static_cast<std::size_t>(count)
            || std::any_of(
                ids.begin(), ids.end(), [](const std::string &id) { return id.empty(); });
    };
    if (incomplete(spec.gpuPciBusIds, spec.gpusPerServer))
        missing.emplace_back("fabric.gpu_pci_bus_ids");
    if (incomplete(spec.nicPciBusIds, topoNicCount(spec)))
        missing.emplace_back("fabric.nic_pci_bus_ids");
    return missing;
}

std::string ncclTopoMissingMessage(const std::vector<std::string> &missing)
{
    std::string fields;
    for (const std::string &m : missing)
        fields += (fields.empty() ? "" : " and ") + m;
    return "an NCCL_TOPO_FILE needs the real PCI bus id of every GPU and NIC (NCCL matches the "
           "file's devices to the machine's by bus id); the fabric has no "
        + fields
        + ". `railyard-cli import-topology` records them from a server's NCCL_TOPO_DUMP_FILE";
}

std::string ncclTopoFileText(const FabricSpec &spec, const NcclTopoFileOptions &options)
{
    const std::vector<std::string> missing = ncclTopoMissingFields(spec);
    if (!missing.empty())
        throw ScenarioError("fabric", ncclTopoMissingMessage(missing));
    const int gpus = spec.gpusPerServer;
    const int nics = topoNicCount(spec);
    const auto checkPaths = [](const std::vector<std::vector<std::string>> &paths, int count,
                                const char *key, const char *per) {
        if (!paths.empty() && paths.size() != static_cast<std::size_t>(count))
            throw ScenarioError(std::string("fabric.") + key,
                "has " + std::to_string(paths.size()) + " entries but the server has "
                    + std::to_string(count) + " " + per);
    };
    checkPaths(spec.gpuPciPaths, gpus, "gpu_pci_paths", "GPUs");
    checkPaths(spec.nicPciPaths, nics, "nic_pci_paths", "NICs");
    if (options.cpusPerHost > 28 * 32)
        throw ScenarioError("--cpus-per-host",
            std::to_string(options.cpusPerHost)
                + " cores make a CPU affinity mask longer than the 255 characters NCCL reads");

    static const std::vector<std::string> kNoBridges;
    const auto bridgesOf = [](const std::vector<std::vector<std::string>> &paths,
                               int i) -> const std::vector<std::string> & {
        return static_cast<std::size_t>(i) < paths.size() ? paths[static_cast<std::size_t>(i)]
                                                          : kNoBridges;
    };
    NcclTopoTree tree;
    for (int g = 0; g < gpus; ++g) {
        const std::string &id = topoAttribute(
            "fabric.gpu_pci_bus_ids", spec.gpuPciBusIds[static_cast<std::size_t>(g)]);
        for (const std::string &b : bridgesOf(spec.gpuPciPaths, g))
            topoAttribute("fabric.gpu_pci_paths", b);
        tree.add(exportdetail::numaOfGpu(spec, g), bridgesOf(spec.gpuPciPaths, g), id, g, -1,
            "GPU " + std::to_string(g));
    }
    for (int n = 0; n < nics; ++n) {
        const std::string &id = topoAttribute(
            "fabric.nic_pci_bus_ids", spec.nicPciBusIds[static_cast<std::size_t>(n)]);
        for (const std::string &b : bridgesOf(spec.nicPciPaths, n))
            topoAttribute("fabric.nic_pci_paths", b);
        tree.add(topoNumaOfNic(spec, n, nics), bridgesOf(spec.nicPciPaths, n), id, -1, n,
            "NIC " + std::to_string(n));
    }

    NcclTopoWriter w { spec, options,
        "link_speed=\"" + topoLinkSpeed(spec.pcie.gbps) + "\" link_width=\"16\"", {} };
    w.out = "<!-- NCCL_TOPO_FILE for one server of fabric \"" + exportdetail::xmlComment(spec.name)
        + "\" (" + fabricHash(spec) + "), written by Railyard from its fabric model: GPUs, NICs,\n"
        + "     NUMA nodes, PCI bus ids and PCIe switches as imported (railyard-cli "
          "import-topology).\n"
        + "     NCCL fills what is not here (sm, gdr, NVLinks, vendor ids, the CPU's arch)\n"
        + "     from the machine. PCIe links: x16 at the fabric's pcie_gbps ("
        + exportdetail::strf("%g", spec.pcie.gbps) + " Gb/s). -->\n";
    w.out += "<system version=\"1\">\n";
    for (const auto &[numa, root] : tree.cpus()) {
        w.out += "  <cpu numaid=\"" + std::to_string(numa) + "\"";
        if (options.cpusPerHost > 0) {
            std::vector<std::pair<int, int>> cores;
            for (int g = 0; g < gpus; ++g)
                if (exportdetail::numaOfGpu(spec, g) == numa)
                    cores.push_back(exportdetail::coresOfGpu(spec, g, options.cpusPerHost));
            if (!cores.empty())
                w.out += " affinity=\"" + topoCpuMask(cores, options.cpusPerHost) + "\"";
        }
        w.out += ">\n";
        for (const auto &c : root.children)
            w.node(*c, 2);
        w.out += "  </cpu>\n";
    }
    w.out += "</system>\n";
    return w.out;
}

} // namespace railyard
