#include "io/nccltopology.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"

#include "base/physicalranges.h"
#include "base/sizelimits.h"
#include "io/xmlelements.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <tuple>

namespace railyard {

namespace {

constexpr long long kMaxTopologyBytes = 4ll << 20;
/// NCCL nests system > cpu > a few PCIe switch levels > pci > gpu|nic > nvlink|net: far below.
constexpr int kMaxDepth = 64;

/**
 * The ranges of the values read, each with its reason:
 * - GPU and net `dev`: a device index within one server, 0 to the engine's limit of GPUs (and
 *   NICs) per server less one (base/sizelimits.h: 1024).
 * - `sm`: compute capability x 10, 10 (1.0) to 999; NCCL writes 70 (V100) to 100 (B200).
 * - `nvlink count`: lanes to one target, 1 to 18, and 1 to 18 per GPU in all: no NVIDIA GPU has
 *   more than 18 NVLink links (H100 and B200: 18, A100: 12).
 * - `numaid`: a Linux NUMA node, 0 to 1023 (the kernel's largest MAX_NUMNODES, NODES_SHIFT 10).
 * - net `speed`, Mbit/s: 1 Mbit/s to 1 Pbit/s, the link range of base/physicalranges.h.
 */
constexpr long long kMaxDeviceIndex = limits::kMaxGpusPerServer - 1;
constexpr long long kMinSm = 10, kMaxSm = 999;
constexpr long long kMaxNvlinkLanes = 18;
constexpr long long kMaxNumaNode = 1023;
constexpr long long kMinSpeedMbps = static_cast<long long>(ranges::kMinLinkGbps * 1000.0);
constexpr long long kMaxSpeedMbps = static_cast<long long>(ranges::kMaxLinkGbps * 1000.0);

/**
 * NVLink line rate per lane and direction, GB/s, by compute capability: A100 (sm 80) 600 GB/s
 * over 12 lanes, H100 (sm 90) 900 GB/s over 18, B200 (sm 100) 1.8 TB/s over 18, both directions
 * together (NVIDIA's A100, H100 and B200 datasheets): 25, 25 and 50 GB/s each way.
 */
double nvlinkLaneGBps(int sm)
{
    if (sm >= 100)
        return 50.0;
    if (sm >= 80)
        return 25.0;
    return 0.0; // older parts: no scale-up figure taken from the file
}

/// "file:line: system/cpu/pci[...]/gpu" for a message about an element.
std::string place(const std::string &file, const XmlElement &e, const std::string &path)
{
    return file + ":" + std::to_string(e.line) + ": " + path;
}

/// A decimal integer attribute in [low, high]; `fallback` when absent.
long long integerAttribute(const XmlElement &node, const char *name, const std::string &where,
    long long fallback, bool required, long long low, long long high, const char *why)
{
    const std::string *text = node.attribute(name);
    if (text == nullptr) {
        if (required)
            throw ScenarioError(where, std::string("missing attribute '") + name + "'");
        return fallback;
    }
    long long v = 0;
    const auto [ptr, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
    if (ec == std::errc::result_out_of_range
        || (ec == std::errc() && ptr == text->data() + text->size() && (v < low || v > high)))
        throw ScenarioError(where,
            std::string("attribute '") + name + "' is " + *text + ", outside " + std::to_string(low)
                + ".." + std::to_string(high) + " (" + why + ")");
    if (ec != std::errc() || ptr != text->data() + text->size())
        throw ScenarioError(where,
            std::string("attribute '") + name + "': expected an integer, got '" + *text + "'");
    return v;
}

std::string attribute(const XmlElement &node, const char *name)
{
    const std::string *v = node.attribute(name);
    return v ? *v : std::string();
}

/// NCCL's device kind of a PCI class code (src/graph/topo.cc, kvDictPciClass, matched as a
/// prefix): "0x03..." display controllers are GPUs, "0x02..." network controllers NICs.
bool gpuClass(const std::string &code)
{
    return code.rfind("0x03", 0) == 0;
}
bool nicClass(const std::string &code)
{
    return code.rfind("0x02", 0) == 0;
}

struct Walker
{
    ServerTopology &out;
    std::string file;
    /// Devices a provider's file gives only as `<pci class=...>`, with no `<gpu>` or `<net>`
    /// under them (NCCL fills those in from the devices it finds at the bus ids).
    std::vector<TopologyGpu> classGpus;
    std::vector<TopologyNic> classNics;

    void walk(
        const XmlElement &node, const std::string &path, int numa, std::vector<std::string> &chain)
    {
        for (const XmlElement &child : node.children) {
            const std::string &tag = child.name;
            const std::string where = path + "/" + tag;
            const std::string at = place(file, child, where);
            if (tag == "cpu") {
                const int id = static_cast<int>(integerAttribute(
                    child, "numaid", at, -1, false, 0, kMaxNumaNode, "a Linux NUMA node"));
                std::vector<std::string> fresh;
                walk(child, where, id, fresh);
            } else if (tag == "pci") {
                chain.push_back(attribute(child, "busid"));
                const std::size_t gpusBefore = out.gpus.size(), nicsBefore = out.nics.size();
                walk(child, where + "[" + chain.back() + "]", numa, chain);
                const std::string code = attribute(child, "class");
                if (gpuClass(code) && out.gpus.size() == gpusBefore) {
                    TopologyGpu g;
                    g.busId = chain.back();
                    g.numa = numa;
                    g.pciChain = chain;
                    classGpus.push_back(std::move(g));
                } else if (nicClass(code) && out.nics.size() == nicsBefore) {
                    TopologyNic n;
                    n.busId = chain.back();
                    n.numa = numa;
                    n.pciChain = chain;
                    classNics.push_back(std::move(n));
                }
                chain.pop_back();
            } else if (tag == "gpu") {
                TopologyGpu g;
                g.dev = static_cast<int>(integerAttribute(child, "dev", at, 0, true, 0,
                    kMaxDeviceIndex, "a GPU index within one server"));
                g.sm = static_cast<int>(integerAttribute(
                    child, "sm", at, 0, false, kMinSm, kMaxSm, "compute capability x 10"));
                g.busId = chain.empty() ? std::string() : chain.back();
                g.numa = numa;
                g.pciChain = chain;
                for (const XmlElement &link : child.children)
                    if (link.name == "nvlink")
                        g.nvlinks += static_cast<int>(integerAttribute(link, "count",
                            place(file, link, where + "/nvlink"), 1, false, 1, kMaxNvlinkLanes,
                            "NVLink lanes to one target; no GPU has more than 18"));
                if (g.nvlinks > kMaxNvlinkLanes)
                    throw ScenarioError(at,
                        "the GPU's nvlink counts add up to " + std::to_string(g.nvlinks)
                            + " lanes; no NVIDIA GPU has more than 18 (H100, B200)");
                out.gpus.push_back(std::move(g));
            } else if (tag == "net") {
                TopologyNic n;
                n.name = attribute(child, "name");
                n.dev = static_cast<int>(integerAttribute(child, "dev", at, 0, true, 0,
                    kMaxDeviceIndex, "a NIC index within one server"));
                const long long mbps = integerAttribute(child, "speed", at, 0, false, kMinSpeedMbps,
                    kMaxSpeedMbps, "Mbit/s: 1 Mbit/s to 1 Pbit/s");
                n.gbps = static_cast<double>(mbps) / 1000.0;
                n.busId = chain.empty() ? std::string() : chain.back();
                n.numa = numa;
                n.pciChain = chain;
                out.nics.push_back(std::move(n));
            } else {
                walk(child, where, numa, chain); // system, nic and anything NCCL adds later
            }
        }
    }
};

/// NCCL's path kinds, best first, with the switches between the two devices.
std::pair<int, int> pathRank(const TopologyGpu &g, const TopologyNic &n)
{
    if (g.numa != n.numa)
        return { 4, 0 }; // SYS: across the CPU interconnect
    std::size_t common = 0;
    while (common < g.pciChain.size() && common < n.pciChain.size()
        && g.pciChain[common] == n.pciChain[common])
        ++common;
    if (common == 0)
        return { 3, 0 }; // PHB: through the host bridge
    const int hops = static_cast<int>((g.pciChain.size() - common) + (n.pciChain.size() - common));
    return { hops <= 2 ? 1 : 2, hops }; // PIX: one switch between them; PXB: more
}

std::string gbpsText(double gbps)
{
    std::ostringstream out;
    out << gbps;
    return out.str();
}

const char *pathName(int rank)
{
    switch (rank) {
    case 1:
        return "PIX";
    case 2:
        return "PXB";
    case 3:
        return "PHB";
    default:
        return "SYS";
    }
}

/// PCI bus ids in the order `lspci -D` lists them: by domain, bus, device, function (fixed-width
/// hexadecimal, compared case-blind).
bool busOrder(const std::string &a, const std::string &b)
{
    return std::lexicographical_compare(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
        return std::tolower(static_cast<unsigned char>(x))
            < std::tolower(static_cast<unsigned char>(y));
    });
}

/// A provider's topology file (Azure's ND-series NCCL_TOPO_FILE) names GPUs and NICs only by PCI
/// class. Their device indexes are then their PCI bus order: CUDA's with
/// CUDA_DEVICE_ORDER=PCI_BUS_ID (and nvidia-smi's), and the order the mlx5 driver probes and
/// names the NICs on these machines. Used only when the file has no <gpu> (or no <net>) at all.
void adoptClassDevices(
    ServerTopology &t, std::vector<TopologyGpu> &gpus, std::vector<TopologyNic> &nics)
{
    const auto byBus = [](const auto &a, const auto &b) { return busOrder(a.busId, b.busId); };
    if (t.gpus.empty() && !gpus.empty()) {
        std::sort(gpus.begin(), gpus.end(), byBus);
        for (std::size_t i = 0; i < gpus.size(); ++i)
            gpus[i].dev = static_cast<int>(i);
        t.gpus = std::move(gpus);
        t.warnings.push_back(std::to_string(t.gpus.size())
            + " GPUs are given only by PCI class (0x03...): numbered in PCI bus order, as CUDA "
              "does with CUDA_DEVICE_ORDER=PCI_BUS_ID; NVLink is not in the file, the "
              "scenario's scale-up stays");
    }
    if (t.nics.empty() && !nics.empty()) {
        std::sort(nics.begin(), nics.end(), byBus);
        for (std::size_t i = 0; i < nics.size(); ++i)
            nics[i].dev = static_cast<int>(i);
        t.nics = std::move(nics);
        t.warnings.push_back(std::to_string(t.nics.size())
            + " NICs are given only by PCI class (0x02...): numbered in PCI bus order; their "
              "RDMA names and speeds are not in the file, the scenario's stay");
    }
}

} // namespace

std::vector<int> ServerTopology::gpuToRail() const
{
    std::vector<int> map;
    for (const TopologyGpu &g : gpus)
        map.push_back(g.nic);
    return map;
}

ServerTopology parseNcclTopology(const std::string &text, const std::string &file)
{
    const XmlElement root = parseXmlElements(text, file, kMaxDepth);
    if (root.name != "system")
        throw ScenarioError(file,
            "no <system> element: not an NCCL topology file "
            "(NCCL_TOPO_DUMP_FILE writes one)");
    ServerTopology t;
    t.file = file;
    Walker walker { t, file, {}, {} };
    std::vector<std::string> chain;
    walker.walk(root, "system", -1, chain);
    adoptClassDevices(t, walker.classGpus, walker.classNics);
    if (t.gpus.empty())
        throw ScenarioError(
            file, "no <gpu> element under <system>, and no <pci> of a GPU's class (0x03...)");
    if (t.nics.empty())
        throw ScenarioError(file,
            "no <net> element under <system>, and no <pci> of a NIC's class (0x02...): the server "
            "has no NIC to map");
    const auto byDev = [](const auto &a, const auto &b) { return a.dev < b.dev; };
    std::sort(t.gpus.begin(), t.gpus.end(), byDev);
    std::sort(t.nics.begin(), t.nics.end(), byDev);
    for (std::size_t i = 1; i < t.gpus.size(); ++i)
        if (t.gpus[i].dev == t.gpus[i - 1].dev)
            throw ScenarioError(
                file, "two GPUs with dev=\"" + std::to_string(t.gpus[i].dev) + "\"");
    for (std::size_t i = 1; i < t.nics.size(); ++i)
        if (t.nics[i].dev == t.nics[i - 1].dev)
            throw ScenarioError(
                file, "two nets with dev=\"" + std::to_string(t.nics[i].dev) + "\"");

    // Each GPU's closest NIC; ties to the NIC with fewer GPUs so far, then the lower index.
    std::vector<int> load(t.nics.size(), 0);
    std::vector<int> chosen(t.gpus.size(), 0);
    for (std::size_t g = 0; g < t.gpus.size(); ++g) {
        std::tuple<int, int, int, std::size_t> best { 99, 0, 0, 0 };
        for (std::size_t n = 0; n < t.nics.size(); ++n) {
            const auto [rank, hops] = pathRank(t.gpus[g], t.nics[n]);
            best = std::min(best, std::make_tuple(rank, hops, load[n], n));
        }
        chosen[g] = static_cast<int>(std::get<3>(best));
        ++load[std::get<3>(best)];
        t.gpus[g].pathType = pathName(std::get<0>(best));
    }
    for (std::size_t n = 0; n < t.nics.size(); ++n)
        if (load[n] > 0)
            t.rails.push_back(static_cast<int>(n));
    for (std::size_t g = 0; g < t.gpus.size(); ++g) {
        TopologyGpu &gpu = t.gpus[g];
        gpu.nic = static_cast<int>(
            std::find(t.rails.begin(), t.rails.end(), chosen[g]) - t.rails.begin());
        const TopologyNic &nic = t.nics[static_cast<std::size_t>(chosen[g])];
        const std::string who = "GPU " + std::to_string(gpu.dev) + " (" + gpu.busId + ")";
        if (t.rails.size() == t.gpus.size() && gpu.nic != static_cast<int>(g))
            t.warnings.push_back(who + " sits closest to NIC " + nic.label() + " (rail "
                + std::to_string(gpu.nic) + "), not rail " + std::to_string(g)
                + ": GPU i and NIC i are not paired");
        if (gpu.pathType == "PHB" || gpu.pathType == "SYS")
            t.warnings.push_back(who + " reaches its nearest NIC " + nic.label() + " only through "
                + (gpu.pathType == "SYS" ? "the other CPU (SYS)" : "the CPU (PHB)")
                + ": no GPUDirect RDMA path through a PCIe switch");
    }
    // The slowest rail sets the fabric's NIC speed; say so when they differ.
    double slow = 0.0, fast = 0.0;
    for (int r : t.rails) {
        const double gbps = t.nics[static_cast<std::size_t>(r)].gbps;
        slow = slow == 0.0 ? gbps : std::min(slow, gbps);
        fast = std::max(fast, gbps);
    }
    if (fast > slow)
        t.warnings.push_back("the rail NICs run at different speeds (" + gbpsText(slow) + " to "
            + gbpsText(fast) + " Gb/s); the fabric takes the slowest");
    // Scale-up: the lanes the GPUs have in common, at the generation's lane rate.
    int lanes = t.gpus.front().nvlinks;
    for (const TopologyGpu &g : t.gpus)
        lanes = std::min(lanes, g.nvlinks);
    t.scaleUpGbps = 8.0 * lanes * nvlinkLaneGBps(t.gpus.front().sm);
    return t;
}

ServerTopology loadNcclTopology(const std::string &path)
{
    return parseNcclTopology(
        readFileLimited(path, kMaxTopologyBytes, "an NCCL topology file", " (4 MiB)"), path);
}

std::vector<std::string> compareTopologies(const std::vector<ServerTopology> &servers)
{
    std::vector<std::string> warnings;
    if (servers.size() < 2)
        return warnings;
    const ServerTopology &first = servers.front();
    for (std::size_t s = 1; s < servers.size(); ++s) {
        const ServerTopology &other = servers[s];
        if (other.gpus.size() != first.gpus.size() || other.rails.size() != first.rails.size()) {
            warnings.push_back(other.file + " has " + std::to_string(other.gpus.size())
                + " GPUs on " + std::to_string(other.rails.size()) + " rails, " + first.file + " "
                + std::to_string(first.gpus.size()) + " on " + std::to_string(first.rails.size()));
            continue;
        }
        for (std::size_t g = 0; g < first.gpus.size(); ++g)
            if (other.gpus[g].nic != first.gpus[g].nic)
                warnings.push_back("GPU " + std::to_string(first.gpus[g].dev) + " is on rail "
                    + std::to_string(other.gpus[g].nic) + " in " + other.file + " but on rail "
                    + std::to_string(first.gpus[g].nic) + " in " + first.file
                    + ": the same GPU index lands on different rails across servers");
    }
    return warnings;
}

void applyTopology(FabricSpec &spec, const ServerTopology &t)
{
    if (static_cast<int>(t.gpus.size()) != spec.gpusPerServer)
        throw ScenarioError("fabric.gpus_per_server",
            t.file + " has " + std::to_string(t.gpus.size()) + " GPUs; the scenario's servers have "
                + std::to_string(spec.gpusPerServer));
    spec.nicsPerServer = static_cast<int>(t.rails.size());
    spec.gpuToNic = t.gpuToRail();
    double slow = 0.0;
    for (int r : t.rails) {
        const double gbps = t.nics[static_cast<std::size_t>(r)].gbps;
        if (gbps > 0.0)
            slow = slow == 0.0 ? gbps : std::min(slow, gbps);
    }
    if (slow > 0.0)
        spec.nic.gbps = slow;
    if (t.scaleUpGbps > 0.0)
        spec.scaleUp.gbps = t.scaleUpGbps;
    // Identity for the launchers and the run record: RDMA device names, PCI bus ids, sockets.
    // The PCIe tree as the bridges above each device (its chain without its own bus id), so
    // the nccl-topo export can nest them again.
    const auto bridges = [](const std::vector<std::string> &chain) {
        return chain.empty() ? chain : std::vector<std::string>(chain.begin(), chain.end() - 1);
    };
    spec.nicDevices.clear();
    spec.nicPciBusIds.clear();
    spec.nicNuma.clear();
    spec.nicPciPaths.clear();
    bool nicNumaKnown = true;
    bool namesKnown = true;
    for (int r : t.rails) {
        const TopologyNic &nic = t.nics[static_cast<std::size_t>(r)];
        namesKnown = namesKnown && !nic.name.empty();
        spec.nicDevices.push_back(nic.name);
        spec.nicPciBusIds.push_back(nic.busId);
        nicNumaKnown = nicNumaKnown && nic.numa >= 0;
        spec.nicNuma.push_back(nic.numa);
        spec.nicPciPaths.push_back(bridges(nic.pciChain));
    }
    spec.gpuPciBusIds.clear();
    spec.gpuNuma.clear();
    spec.gpuPciPaths.clear();
    bool numaKnown = true;
    for (const TopologyGpu &g : t.gpus) {
        spec.gpuPciBusIds.push_back(g.busId);
        numaKnown = numaKnown && g.numa >= 0;
        spec.gpuNuma.push_back(g.numa);
        spec.gpuPciPaths.push_back(bridges(g.pciChain));
    }
    if (!numaKnown)
        spec.gpuNuma.clear(); // a cpu without numaid: keep the default split
    if (!nicNumaKnown)
        spec.nicNuma.clear();
    if (!namesKnown)
        spec.nicDevices.clear(); // a class-only file: the exports name mlx5_<rail>
}

} // namespace railyard
