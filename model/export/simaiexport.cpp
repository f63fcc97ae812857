/**
 * SimAI's topology file, as aliyun/SimAI cef83f9d reads and writes it:
 * astra-sim-alibabacloud/astra-sim/network_frontend/ns3/common.h (SetupNetwork) reads the
 * header "nodes gpus_per_server nvswitches switches links gpu_type", the NVSwitch ids, then the
 * other switch ids, then one "src dst rate delay error_rate" line per full-duplex link;
 * astra-sim-alibabacloud/inputs/topo/gen_Topo_Template.py writes it that way (all switch ids on
 * the second line, NVSwitches first, each GPU's NVSwitch line before its leaf line). SimAI's
 * main (network_frontend/ns3/AstraSimNetwork.cc) takes the first nodes - nvswitches - switches
 * ids as GPUs and pairs GPU i with NVSwitch gpus + i / gpus_per_server, and NPU i is rank i.
 * A GPU is its own NIC in SimAI, so each GPU links to its NIC's leaf directly.
 */
#include "export/simaiexport.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exportcommon.h"
#include "export/packettopology.h"

#include <algorithm>
#include <cctype>

namespace railyard::exportdetail {

namespace {

/// The device name's first word in capitals ("h100-sxm" -> "H100"): SimAI knows A100, A800,
/// H100 and H800 (common.h, GPUType) and takes any other name as NONE.
std::string gpuType(const DeviceSpec &device)
{
    std::string family;
    for (char ch : device.name) {
        if (!std::isalnum(static_cast<unsigned char>(ch)))
            break;
        family += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    }
    return family.empty() ? "NONE" : family;
}

} // namespace

std::vector<std::string> simAiWarnings(const CostEngine &engine)
{
    const Fabric &fabric = engine.fabric();
    if (fabric.nicsPerServer() >= fabric.gpusPerServer())
        return {};
    return { std::to_string(fabric.gpusPerServer()) + " GPUs share "
        + std::to_string(fabric.nicsPerServer())
        + " NICs per server; SimAI gives every GPU its own leaf link, so each gets its NIC's "
          "share of the port" };
}

std::string exportSimAiTopology(const CostEngine &engine, const ExportOptions &)
{
    const Fabric &fabric = engine.fabric();
    const NodeMajor nm = nodeMajor(engine, hostNames(engine, {}, false));
    if (!nm.expressible)
        throw ScenarioError("mapping",
            "SimAI pairs GPU i with the NVSwitch of server i / gpus_per_server, so every server "
            "must hold one block of consecutive ranks; "
                + nm.problems.front());
    if (nm.nproc != fabric.gpusPerServer())
        throw ScenarioError("mapping",
            "SimAI's servers are full: each holds gpus_per_server = "
                + std::to_string(fabric.gpusPerServer()) + " GPUs, but the mapping puts "
                + std::to_string(nm.nproc) + " ranks on each server it uses");
    if (fabric.scaleUpDomainServers() > 1) {
        const int per = fabric.scaleUpDomainGpus();
        const Mapping &m = engine.mapping();
        for (int r = 0; r < m.rankCount(); ++r)
            if (!fabric.sameScaleUpDomain(m.slotOf(r), m.slotOf(r - r % per)))
                throw ScenarioError("mapping",
                    "SimAI pairs GPU i with NVSwitch i / " + std::to_string(per)
                        + ", so with rack-scale NVLink domains every domain must hold one block "
                          "of consecutive ranks; rank "
                        + std::to_string(r) + " is not in the domain of rank "
                        + std::to_string(r - r % per));
    }
    const PacketTopology t = packetTopology(engine, NicModel::FoldedIntoGpu);

    // SimAI pairs GPU i with NVSwitch i / gpus_per_server: with rack-scale NVLink domains the
    // unit behind one NVSwitch is the domain (a packed mapping fills trays, hence domains, in
    // rank order; the node-major check above holds per tray).
    std::string out = std::to_string(t.nodeCount()) + " " + std::to_string(fabric.scaleUpDomainGpus())
        + " " + std::to_string(t.scaleUp.size()) + " " + std::to_string(t.switches.size()) + " "
        + std::to_string(t.links.size()) + " " + gpuType(engine.scenario().device) + "\n";
    std::string ids;
    for (int id : t.scaleUp)
        ids += (ids.empty() ? "" : " ") + std::to_string(id);
    for (int id : t.switches)
        ids += (ids.empty() ? "" : " ") + std::to_string(id);
    out += ids + "\n";
    for (const PacketLink &l : t.links)
        out += linkLine(l) + "\n";
    return out;
}

} // namespace railyard::exportdetail
