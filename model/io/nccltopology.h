#pragma once

#include "fabric/fabricspec.h"

#include <string>
#include <vector>

namespace railyard {

/**
 * One server as NCCL sees it: the XML NCCL writes with NCCL_TOPO_DUMP_FILE (and reads with
 * NCCL_TOPO_FILE), elements `system` > `cpu` (numaid) > nested `pci` (busid) > `gpu` (dev, sm,
 * with `nvlink` targets and counts) or `nic` > `net` (name, dev, speed in Mbit/s). Element and
 * attribute names follow NCCL's src/graph/xml.cc and topo.cc.
 *
 * Topology files that cloud providers ship for NCCL_TOPO_FILE may give devices only as `pci`
 * elements with a PCI class code (Azure's ND-series files): class 0x03... is a GPU and 0x02... a
 * NIC, as NCCL's topo.cc reads them; such devices are numbered in PCI bus order and carry no
 * NVLink, speed or RDMA name (a warning says so). They count only when the file has no `gpu`
 * (or no `net`) element at all.
 *
 * The GPU <-> NIC affinity is chosen the way NCCL ranks paths (topo.h: PIX, a single PCIe
 * switch between them; PXB, several switches; PHB, through the CPU's host bridge; SYS, across
 * the CPU interconnect): each GPU takes its closest NIC, ties going to the NIC with fewer GPUs
 * so far, then the lower device index. The NICs some GPU takes are the server's rails, in
 * device order.
 */
struct TopologyGpu
{
    int dev = 0;
    int sm = 0; ///< compute capability x 10 (90 = Hopper)
    std::string busId;
    int numa = -1;
    int nvlinks = 0; ///< NVLink lanes to NVSwitches or GPUs (sum of `count`)
    int nic = -1; ///< index into ServerTopology::rails
    std::string pathType; ///< PIX, PXB, PHB or SYS to that NIC
    std::vector<std::string> pciChain; ///< bus ids from the CPU down to the GPU
};

struct TopologyNic
{
    std::string name; ///< RDMA device, e.g. mlx5_0; "" when the file gives a PCI class only
    int dev = 0;
    double gbps = 0.0; ///< `speed` / 1000 (NCCL writes Mbit/s)
    std::string busId;
    int numa = -1;
    std::vector<std::string> pciChain;

    /// The NIC in a message: its RDMA name, else its bus id.
    std::string label() const { return name.empty() ? busId : name; }
};

struct ServerTopology
{
    std::string file;
    std::vector<TopologyGpu> gpus; ///< by dev
    std::vector<TopologyNic> nics; ///< every net, by dev
    std::vector<int> rails; ///< indexes into nics of the NICs some GPU takes, by dev
    double scaleUpGbps = 0.0; ///< per GPU and direction from its NVLink lanes; 0: none
    std::vector<std::string> warnings;

    /// GPU i -> rail index (what FabricSpec::gpuToNic holds).
    std::vector<int> gpuToRail() const;
};

/// Parses NCCL topology XML text (io/xmlelements.h: strict XML, one root, matching end tags, no
/// duplicate attributes). Throws ScenarioError naming `file:line` when it is not one: no
/// `system`, no GPU, a GPU or net without its device index, a duplicated index, a value outside
/// its range (device index 0..1023, sm 10..999, nvlink count 1..18 and 18 lanes per GPU, numaid
/// 0..1023, speed 1..10^9 Mbit/s; nccltopology.cpp gives each range's reason), nesting deeper
/// than NCCL writes.
ServerTopology parseNcclTopology(const std::string &text, const std::string &file);
/// Reads and parses a file (at most 4 MiB).
ServerTopology loadNcclTopology(const std::string &path);

/// Warnings comparing servers: the same GPU index on different rails, different rail counts.
std::vector<std::string> compareTopologies(const std::vector<ServerTopology> &servers);

/// Sets the fabric's server model from `t`: GPU -> NIC affinity, NICs per server, the NIC
/// speed (the slowest rail's), the scale-up bandwidth when the XML has NVLinks, and the
/// identity the launchers and the run record carry (RDMA device names, PCI bus ids, sockets).
/// Throws ScenarioError("fabric.gpus_per_server") when the GPU counts differ.
void applyTopology(FabricSpec &spec, const ServerTopology &t);

} // namespace railyard
