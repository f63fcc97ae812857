// The checks of a FabricSpec before anything is sized or allocated (fabric.cpp explains the
// generators): counts against the limits, the server model, the scale-up domain, the planes.
#include "fabric/fabricbuilder.h"

#include "base/sizelimits.h"

#include <string_view>
#include <unordered_set>

namespace railyard {

void FabricBuilder::validate()
{
    const FabricSpec &s = m_spec;
    // Counts first, against the limits, so that nothing below can overflow or allocate much.
    if (s.servers <= 0)
        throw ScenarioError("fabric.servers", "must be at least 1, got " + str(s.servers));
    if (s.servers > limits::kMaxServers)
        throw ScenarioError("fabric.servers",
            str(s.servers) + " servers exceed the limit of " + str(limits::kMaxServers));
    if (s.gpusPerServer <= 0)
        throw ScenarioError(
            "fabric.gpus_per_server", "must be at least 1, got " + str(s.gpusPerServer));
    if (s.gpusPerServer > limits::kMaxGpusPerServer)
        throw ScenarioError("fabric.gpus_per_server",
            str(s.gpusPerServer) + " GPUs per server exceed the limit of "
                + str(limits::kMaxGpusPerServer));
    if (i64 { s.servers } * s.gpusPerServer > limits::kMaxGpus)
        throw ScenarioError("fabric.servers",
            str(s.servers) + " servers x " + str(s.gpusPerServer)
                + " GPUs = " + str(i64 { s.servers } * s.gpusPerServer)
                + " GPU slots exceed the limit of " + str(limits::kMaxGpus));
    if (s.nicsPerServer < 0)
        throw ScenarioError("fabric.nics_per_server",
            "must be 0 (one per GPU) or positive, got " + str(s.nicsPerServer));
    if (s.nicsPerServer > limits::kMaxGpusPerServer)
        throw ScenarioError("fabric.nics_per_server",
            str(s.nicsPerServer) + " NICs per server exceed the limit of "
                + str(limits::kMaxGpusPerServer));
    m_rail = s.kind == FabricKind::RailOptimised || s.kind == FabricKind::RailOnly;
    m_railOnly = s.kind == FabricKind::RailOnly;
    m_servers = s.servers;
    m_gpus = s.gpusPerServer;
    m_nics = s.nicsPerServer > 0 ? s.nicsPerServer : s.gpusPerServer;

    if (!s.gpuToNic.empty()) {
        if (static_cast<i64>(s.gpuToNic.size()) != m_gpus)
            throw ScenarioError("fabric.gpu_to_nic",
                "has " + str(static_cast<i64>(s.gpuToNic.size()))
                    + " entries, expected one per GPU (" + str(m_gpus) + ")");
        for (std::size_t i = 0; i < s.gpuToNic.size(); ++i) {
            if (s.gpuToNic[i] < 0 || s.gpuToNic[i] >= m_nics)
                throw ScenarioError("fabric.gpu_to_nic[" + std::to_string(i) + "]",
                    "NIC " + str(s.gpuToNic[i]) + " does not exist (NICs are 0.." + str(m_nics - 1)
                        + ")");
        }
    }
    if (!s.serverNames.empty()) {
        if (static_cast<i64>(s.serverNames.size()) != m_servers)
            throw ScenarioError("fabric.server_names",
                "has " + str(static_cast<i64>(s.serverNames.size()))
                    + " names, expected one per server (" + str(m_servers) + ")");
        std::unordered_set<std::string_view> seen;
        seen.reserve(s.serverNames.size());
        for (std::size_t i = 0; i < s.serverNames.size(); ++i) {
            const std::string &name = s.serverNames[i];
            const std::string field = "fabric.server_names[" + std::to_string(i) + "]";
            if (name.empty())
                throw ScenarioError(field, "a server name must not be empty");
            if (!seen.insert(name).second)
                throw ScenarioError(field, "duplicate server name \"" + name + "\"");
        }
    }

    if (m_rail && s.serversPerSu <= 0)
        throw ScenarioError(
            "fabric.servers_per_su", "must be at least 1, got " + str(s.serversPerSu));
    if (!m_rail && s.serversPerLeaf < 0)
        throw ScenarioError("fabric.servers_per_leaf",
            "must be 0 (derived) or positive, got " + str(s.serversPerLeaf));
    if (s.switchRadix < 2)
        throw ScenarioError(
            "fabric.switch_radix", "a switch needs at least 2 ports, got " + str(s.switchRadix));
    if (s.spines < 0)
        throw ScenarioError(
            "fabric.spines", "must be 0 (derived) or positive, got " + str(s.spines));
    if (s.superSpines < 0)
        throw ScenarioError(
            "fabric.super_spines", "must be 0 (derived) or positive, got " + str(s.superSpines));
    if (!std::isfinite(s.leafOversubscription) || s.leafOversubscription <= 0.0)
        throw ScenarioError("fabric.leaf_oversubscription",
            "must be a positive ratio, got " + std::to_string(s.leafOversubscription));
    if (!std::isfinite(s.spineOversubscription) || s.spineOversubscription <= 0.0)
        throw ScenarioError("fabric.spine_oversubscription",
            "must be a positive ratio, got " + std::to_string(s.spineOversubscription));
    checkLink(s.scaleUp, "fabric.scaleup_gbps", "fabric.scaleup_latency_us");
    validateScaleUpDomain();
    validatePlanes();
    checkLink(s.pcie, "fabric.pcie_gbps", "fabric.pcie_latency_us");
    checkLink(s.nic, "fabric.nic_gbps", "fabric.nic_latency_us");
    checkLink(s.fabricPort, "fabric.fabric_gbps", "fabric.fabric_latency_us");
}

void FabricBuilder::validatePlanes()
{
    const FabricSpec &s = m_spec;
    if (s.planes < 1 || s.planes > kMaxPlanes)
        throw ScenarioError("fabric.planes",
            "must be 1.." + str(kMaxPlanes) + " network planes, got " + str(s.planes));
    m_planes = s.planes;
    if (!(s.planePortGbps == 0.0
            || (s.planePortGbps >= ranges::kMinLinkGbps
                && s.planePortGbps <= ranges::kMaxLinkGbps)))
        throw ScenarioError("fabric.plane_port_gbps",
            "must be 0 (nic_gbps / planes) or "
                + rangeText(ranges::kMinLinkGbps, ranges::kMaxLinkGbps) + " Gbit/s, got "
                + numText(s.planePortGbps));
    if (!s.cabling.empty() && (s.planes > 1 || m_railOnly))
        throw ScenarioError(s.planes > 1 ? "fabric.planes" : "fabric.kind",
            "a cabling inventory describes its own switches: multi-plane and rail-only fabrics "
            "are generated, not read from cables");
    if (m_railOnly) {
        // Cross-rail traffic is forwarded by the GPU of the source server whose NIC is on the
        // destination rail (router.cpp), so every NIC needs a GPU with affinity to it.
        std::vector<char> served(static_cast<std::size_t>(m_nics), 0);
        for (i64 g = 0; g < m_gpus; ++g)
            served[static_cast<std::size_t>(
                s.gpuToNic.empty() ? g % m_nics : s.gpuToNic[static_cast<std::size_t>(g)])]
                = 1;
        for (i64 i = 0; i < m_nics; ++i)
            if (!served[static_cast<std::size_t>(i)])
                throw ScenarioError("fabric.gpu_to_nic",
                    "rail-only: NIC " + str(i)
                        + " has no GPU with affinity to it, so no GPU "
                          "could forward traffic onto rail "
                        + str(i));
    }
}

void FabricBuilder::validateScaleUpDomain()
{
    // A rack-scale NVLink domain (GB200 NVL72: 18 compute trays of 4 GPUs on one NVLink switch
    // system) is a block of consecutive servers; the fabric must consist of whole domains, and
    // a rail-optimised SU of whole domains, so that every rack's NICs land on one SU's rail
    // leaves (NVIDIA's DGX SuperPOD with GB200 RA groups 8 NVL72 racks per SU).
    const FabricSpec &s = m_spec;
    const char *field = "fabric.scaleup_domain_servers";
    if (s.scaleUpDomainServers < 1)
        throw ScenarioError(field, "must be at least 1, got " + str(s.scaleUpDomainServers));
    m_domainServers = s.scaleUpDomainServers;
    if (m_domainServers == 1)
        return;
    if (s.servers % s.scaleUpDomainServers != 0)
        throw ScenarioError(field,
            str(s.scaleUpDomainServers) + " servers per scale-up domain do not divide the "
                + str(s.servers) + " servers of the fabric");
    if (i64 { s.scaleUpDomainServers } * s.gpusPerServer > limits::kMaxGpusPerServer)
        throw ScenarioError(field,
            str(i64 { s.scaleUpDomainServers } * s.gpusPerServer)
                + " GPUs per scale-up domain exceed the limit of "
                + str(limits::kMaxGpusPerServer));
    if (s.cabling.empty() && m_rail && !m_railOnly) {
        const i64 su = std::min<i64>(s.serversPerSu, s.servers);
        if (su % s.scaleUpDomainServers != 0)
            throw ScenarioError(field,
                str(s.scaleUpDomainServers) + " servers per scale-up domain do not fit whole into "
                    + "a scalable unit of " + str(su)
                    + " servers (fabric.servers_per_su); a domain would straddle two SUs");
    }
}

} // namespace railyard
