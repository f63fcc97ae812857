#pragma once

#include "fabric/fabricspec.h"

#include <string>
#include <vector>

namespace railyard {

/** What the NCCL_TOPO_FILE writer needs besides the fabric. */
struct NcclTopoFileOptions
{
    /// NIC i's RDMA device when the fabric names none (nic_devices): <prefix><i>, as NCCL_IB_HCA.
    std::string hcaPrefix = "mlx5_";
    /// > 0: each CPU's `affinity` is the cores Railyard gives that NUMA node's GPUs out of this
    /// many per host (exportcommon.h, coresOfGpu); 0: no affinity, NCCL reads the node's own.
    int cpusPerHost = 0;
};

/**
 * The XML NCCL reads from NCCL_TOPO_FILE (NCCL's "Environment Variables" documentation:
 * NCCL_TOPO_FILE names an XML topology NCCL loads before it detects the machine's own, by
 * default /var/run/nvidia-topologyd/virtualTopology.xml when present; NCCL_TOPO_DUMP_FILE
 * writes the detected one in the same format; topo.cc, ncclTopoGetSystem), for one server of
 * `spec`: `system version="1"` > `cpu numaid` per NUMA node > `pci` (class 0x060400) per PCIe
 * switch the fabric records (gpu_pci_paths / nic_pci_paths), nested as imported > `pci busid` per
 * GPU with its `gpu dev`, and per NIC with `nic` > `net name dev speed`; every pci with link_speed
 * and link_width from pcie_gbps.
 *
 * NCCL matches the file's devices with the machine's by PCI bus id (xml.cc, ncclTopoGetPciNode)
 * and its nets by name (ncclTopoFillNet), so the writer refuses a fabric without
 * gpu_pci_bus_ids and nic_pci_bus_ids instead of inventing ids. Attributes the fabric does not
 * know (sm, gdr, NVLinks, vendor/device ids, port, maxconn, the CPU's arch and vendor) are left
 * out: NCCL fills the ones a GPU or CPU node lacks from sysfs and NVML (xml.cc:
 * ncclTopoGetXmlFromSys, ncclTopoGetXmlFromGpu, ncclTopoGetXmlFromCpu) and a net's speed,
 * port, gdr and maxconn from the network plugin (topo.cc, xmlInitAttrInt sets only unset ones).
 * A `speed` written here wins over the plugin's: it is the fabric's nic_gbps.
 *
 * No `<?xml?>` declaration and spaces only: NCCL's own parser (xml.cc, xmlGetNode) reads
 * `<name attr="v" ...>` with single spaces between attributes, and comments, nothing else.
 *
 * Throws ScenarioError("fabric", ...) naming every missing field when the bus ids are missing
 * (ncclTopoMissingFields()), and for an inconsistent PCIe tree (a bridge under two parents or
 * two sockets, a bus id used twice).
 */
std::string ncclTopoFileText(const FabricSpec &spec, const NcclTopoFileOptions &options = {});

/// The fabric fields an NCCL_TOPO_FILE needs that `spec` lacks ("fabric.gpu_pci_bus_ids",
/// "fabric.nic_pci_bus_ids"); empty when the file can be written.
std::vector<std::string> ncclTopoMissingFields(const FabricSpec &spec);

/// The message the writer refuses with when ncclTopoMissingFields() is not empty.
std::string ncclTopoMissingMessage(const std::vector<std::string> &missing);

} // namespace railyard
