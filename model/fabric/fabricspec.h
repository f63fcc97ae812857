#pragma once

#include "fabric/ecmprouting.h"

#include <cstdint>
#include <string>
#include <vector>

namespace railyard {

/// RailOptimised and Tor are folded Clos networks (fabric.cpp); RailOnly has rail switches and no
/// spine: cross-rail traffic crosses the scale-up domain first (fabric.cpp, router.cpp).
enum class FabricKind { RailOptimised, Tor, RailOnly };

/** Bandwidth (per link, per direction, Gbit/s) and latency (µs) of one tier's links. */
struct LinkSpec
{
    double gbps = 400.0;
    double latencyUs = 1.0;
    bool operator==(const LinkSpec &) const = default;
};

/**
 * One cable of a cabling inventory (the shape of an LLDP neighbour table or a DCIM export):
 * device and port at each end, the link speed and, optionally, its latency. A server end names
 * the server (FabricSpec::serverNames) and its NIC: the RDMA device name of nicDevices, or any
 * name ending in the NIC index ("mlx5_3", "nic3", "ib3"); a switch end names any switch and port.
 */
struct Cable
{
    std::string aDevice, aPort, bDevice, bPort;
    double gbps = 0.0; ///< per direction, Gbit/s
    double latencyUs = -1.0; ///< < 0: the tier's default (nic / fabric latency of the spec)
    bool operator==(const Cable &) const = default;
};

/**
 * Servers that hold another device than the scenario's (docs/mixed-devices.md): a device name
 * (a preset of workload/presets.h, or the scenario's own device.name) and the servers holding
 * it. Servers in no pool hold the scenario's device.
 */
struct DevicePool
{
    std::string device;
    std::vector<int> servers; ///< ascending, each in one pool at most
    bool operator==(const DevicePool &) const = default;
};

/**
 * The parameters a fabric is generated from. A scenario file stores this (not every link), so
 * a 16,384-GPU fabric stays a few lines long; `Fabric::build()` turns it into the graph.
 *
 * Counts left at 0 are derived: nicsPerServer = gpusPerServer, spines from the switch radix,
 * super-spines from the spine uplinks (see fabric.cpp for the rules and their source).
 */
struct FabricSpec
{
    FabricKind kind = FabricKind::RailOptimised;
    std::string name; ///< fabric identity, e.g. "dgx-h100-1su"
    int servers = 16;
    int gpusPerServer = 8;
    int nicsPerServer = 0; ///< 0 = one NIC per GPU
    std::vector<int> gpuToNic; ///< GPU i -> NIC index; empty = GPU i <-> NIC i (mod nics)
    std::vector<std::string> serverNames; ///< empty = "node000", "node001", ...
    /// GPU i -> NUMA node (CPU socket) it hangs off; empty = the first half of the GPUs on
    /// node 0 and the second half on node 1 (8-GPU HGX/DGX H100: GPUs 0-3 socket 0, 4-7 socket 1).
    std::vector<int> gpuNuma;
    /// NIC i -> its RDMA device name (NCCL_IB_HCA); empty = the exporter's prefix + i (mlx5_i).
    std::vector<std::string> nicDevices;
    /// PCI bus IDs ("0000:18:00.0") per GPU and per NIC, from a topology import; empty = unknown.
    std::vector<std::string> gpuPciBusIds;
    std::vector<std::string> nicPciBusIds;
    /// NIC i -> the NUMA node (CPU socket) its PCIe root port hangs off, from a topology
    /// import; empty = the node of the first GPU that uses the NIC (gpuToNic).
    std::vector<int> nicNuma;
    /// The PCIe switches above GPU i / NIC i: the bus IDs of the bridges from the CPU's root
    /// port down to the device (the device's own ID excluded; an empty list = the device sits
    /// on a root port), as NCCL_TOPO_DUMP_FILE nests them. Devices that list the same bridge
    /// share that PCIe switch (what NCCL ranks as PIX/PXB). Empty = the tree is unknown.
    std::vector<std::vector<std::string>> gpuPciPaths;
    std::vector<std::vector<std::string>> nicPciPaths;

    int serversPerSu = 32; ///< rail-optimised: servers per scalable unit
    int serversPerLeaf = 0; ///< tor: servers per top-of-rack leaf; 0 = radix/2 / nics
    int switchRadix = 64; ///< ports per leaf/spine/super-spine switch
    int spines = 0; ///< spines per pod; 0 = derived from radix
    int superSpines = 0; ///< 0 = derived (only when the leaves need >1 pod)
    double leafOversubscription = 1.0; ///< leaf downlink:uplink bandwidth ratio (1 = non-blocking)
    double spineOversubscription = 1.0; ///< spine downlink:uplink ratio (3-tier only)

    /// Servers (compute trays) per scale-up (NVLink) domain: 1 = each server its own NVSwitch
    /// (HGX/DGX); 18 = a GB200/GB300 NVL72 rack, 72 GPUs on one NVLink switch fabric across
    /// 18 trays of 4. Must divide `servers`; rail-optimised SUs hold whole domains.
    int scaleUpDomainServers = 1;

    LinkSpec scaleUp { 3600.0, 0.6 }; ///< one GPU's scale-up (NVLink) port; H100 NVLink4 = 450 GB/s
    LinkSpec pcie { 512.0, 0.5 }; ///< GPU <-> NIC host path (PCIe Gen5 x16 ~ 64 GB/s)
    LinkSpec nic { 400.0, 1.0 }; ///< NIC port <-> leaf
    LinkSpec fabricPort { 400.0, 0.6 }; ///< one switch-to-switch port (leaf<->spine, spine<->super)

    bool pxn = false; ///< NCCL PXN: cross-rail traffic hops over NVLink first

    /// Network planes (Alibaba HPN dual-plane, SIGCOMM 2024; DeepSeek-V3 multi-plane fat tree,
    /// arXiv 2412.19437 section 3.4): every NIC has `planes` ports, port p cabled to a leaf of
    /// plane p, and each plane is its own copy of the switch network (leaves, spines,
    /// super-spines). 1 = one port per NIC, today's fabric.
    int planes = 1;
    /// Per-port speed in Gbit/s when planes > 1; 0 = nic.gbps / planes (the NIC's bandwidth is
    /// split over its ports, as a 400G NIC run as 2 x 200G ports in HPN).
    double planePortGbps = 0.0;

    /// How flows take equal-cost paths (fabric.routing, docs/ecmp.md); ideal by default. It
    /// changes no link of the fabric, only how the cost engine spreads flows over them.
    EcmpRouting routing;

    /// Non-empty: the network is exactly these cables (cablingbuilder.h) - leaves, spines and
    /// super-spines are found from how the switches are cabled, and the generator's counts
    /// (servers_per_su, radix, spines, oversubscription, fabric_gbps) are not used. Servers,
    /// GPUs, NICs and the scale-up and PCIe links still come from the fields above.
    std::vector<Cable> cabling;

    /// Mixed devices: which servers hold which device (DevicePool); empty = every server holds
    /// the scenario's device. NVLink and NIC speeds stay the fields above for every server.
    std::vector<DevicePool> devicePools;

    /// GPU slots (servers x GPUs per server), in 64 bits so an absurd spec cannot overflow.
    std::int64_t slotCount() const { return std::int64_t { servers } * gpusPerServer; }

    /// Equal specs build identical fabrics (Fabric::build() is deterministic).
    bool operator==(const FabricSpec &) const = default;
};

} // namespace railyard
