#pragma once

#include "base/units.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

namespace exportdetail {

/** One cable of a packet-level topology: both directions, one rate and one delay each way. */
struct PacketLink
{
    int a = -1; ///< node id, the lower of the two
    int b = -1;
    double bitsPerSecond = 0.0; ///< one direction (a bundle of ports: their total)
    double latency = 0.0; ///< seconds, one way
    Tier tier = Tier::ScaleUp;
};

/**
 * The fabric as the node and link lists of the ns-3 based simulators (ASTRA-sim's ns-3
 * backend, SimAI) read them. Node ids: NPU r (0..N-1) is the GPU that holds global rank r;
 * then the scale-up switches (one per server that holds a rank, in the order of the lowest
 * rank each holds), then the NICs of those servers (unless folded into their GPUs), then every
 * leaf, spine and super-spine. Failed hardware (the scenario's failures) and the GPUs, NICs and
 * scale-up switches of servers without a rank are left out, with every cable that touches
 * them; everything else is one PacketLink per cable, from the Fabric's own links.
 */
struct PacketTopology
{
    int npus = 0;
    int servers = 0; ///< servers that hold a rank
    std::vector<int> scaleUp; ///< ids of the scale-up (NVSwitch) nodes
    std::vector<int> switches; ///< ids of the other forwarding nodes (NICs, leaves, spines)
    std::vector<std::string> names; ///< per node id: the fabric vertex's name
    std::vector<PacketLink> links; ///< ordered by (a, b)

    int nodeCount() const { return static_cast<int>(names.size()); }
};

/// How a NIC appears: as its own forwarding node between the GPU's PCIe link and the leaf
/// (every FabricLink kept), or folded into the GPU, which then links to the leaf itself
/// (SimAI's model: a GPU is its NIC). A folded link runs at the slower of the PCIe path and the
/// NIC port, the NIC's share when several GPUs use one NIC, with the two links' delays added.
enum class NicModel { Node, FoldedIntoGpu };

PacketTopology packetTopology(const CostEngine &engine, NicModel nics);

/// The rate as ns-3's DataRate parses it: "400Gbps" for whole Gbit/s, else "NMbps" or "Nbps"
/// (ns-3 reads k/M/G as powers of 1000). The value ns-3 turns it into is rateBits().
std::string ns3Rate(double bitsPerSecond);
long long rateBits(double bitsPerSecond);
/// A delay as ns-3's Time parses it, in milliseconds as the upstream topology files write it,
/// to the picosecond: 1 us -> "0.001ms", 0.6 us -> "0.0006ms".
std::string ns3Delay(double seconds);
/// "a b rate delay 0": the link line both simulators read (error rate 0: no loss modelled).
std::string linkLine(const PacketLink &link);

} // namespace exportdetail

} // namespace railyard
