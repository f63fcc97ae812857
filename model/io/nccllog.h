#pragma once

#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

namespace railyard {

/**
 * NCCL's own account of a job, read from its `NCCL_DEBUG=INFO` output: every line NCCL writes
 * carries `HOST:PID:TID [DEV] NCCL INFO` (src/debug.cc), whatever a launcher or log collector
 * put before it. From those lines (formats of NCCL 2.18 to 2.27: src/init.cc, graph/rings.cc,
 * transport/net.cc, p2p.cc, shm.cc, net_ib/init.cc) the reader rebuilds every communicator:
 *
 * - its ranks: `comm 0x.. rank R nRanks N nNodes .. localRanks .. localRank ..` at init and
 *   `.. comm 0x.. rank R nranks N cudaDev D nvmlDev D busId B commId 0x.. - Init COMPLETE`,
 *   which gives the id shared by all ranks of one communicator;
 * - its rings: `Channel CC/NN : r0 r1 r2 ...` (printed by rank 0 only);
 * - its trees: `Trees [c] d0/d1/d2->r->up ...` (every rank);
 * - every connection: `Channel CC/I : src[dev] -> dst[dev] via P2P/..|SHM/..` and
 *   `.. [send] via NET/IB/NIC(/GDRDMA)` (`NET/IB/NIC(PROXY)` when PXN sends through another
 *   rank's NIC), `.. [receive] via NET/IB/NIC..`;
 * - the NICs each process found: `NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB ...`;
 * - with NCCL_DEBUG_SUBSYS=GRAPH the searched graphs (graph/search.cc ncclTopoPrintGraph):
 *   `Pattern P, crossNic X, nChannels N, bw I/E, type TI/TE, sameChannels S` and one
 *   ` C : NET/.. GPU/.. .. NET/..` line per channel; `NVLS Trees : ..` (graph/connect.cc);
 * - with TUNING the algorithm and protocol picked per call (enqueue.cc, rank 0 only):
 *   `BYTES Bytes -> Algo A proto P time T` (2.20 to 2.22; A and P as numbers), `FUNC: BYTES
 *   Bytes -> Algo A proto P time T` (2.23) or `FUNC: BYTES Bytes -> Algo NAME proto NAME
 *   channel{Lo..Hi}={L..H}` (2.24 on; 2.18 and 2.19 print none);
 * - NVLS and CollNet use: `NVLS multicast support is [not ]available on dev D`,
 *   `Connected NVLS tree`, `[Connected ]Collnet Chains ..`, `rank R Connected CollNet`.
 *
 * Lines of one process that carry no communicator (rings, connections) belong to the
 * communicator that process (HOST:PID:TID) last began to initialise, as NCCL prints them during
 * that initialisation. Lines of other subsystems and non-NCCL text are skipped.
 */
struct NcclLogRank
{
    int rank = -1;
    std::string host;
    int pid = 0;
    int cudaDev = -1;
    std::string busId; ///< as NCCL prints it (hexadecimal, e.g. "4e000")
    int line = 0; ///< where the rank was first seen (1-based)
};

struct NcclLogConnection
{
    int channel = -1;
    int src = -1;
    int dst = -1;
    std::string transport; ///< "P2P", "SHM" or "NET"
    std::string via; ///< the rest as printed: "P2P/CUMEM/read", "NET/IB/3/GDRDMA"
    bool send = true; ///< NET: [send] (false: [receive]); P2P/SHM are sends
    int nic = -1; ///< NET: NCCL's net device index
    int proxyRank = -1; ///< NET send through another rank's NIC (PXN), else -1
    bool gdr = false; ///< GPUDirect RDMA
    std::string file;
    int line = 0;
};

/** One graph NCCL searched on one host (NCCL_DEBUG_SUBSYS=GRAPH). */
struct NcclLogGraph
{
    std::string host;
    int pattern = 0; ///< graph.h NCCL_TOPO_PATTERN_*: 1..3 trees, 4 ring, 5 NVLS, 6 CollNet
    int crossNic = 0; ///< 0 no, 1 yes, 2 allowed where it helps (NCCL_CROSS_NIC)
    int nChannels = 0;
    double bwIntra = 0.0; ///< GB/s per channel, as NCCL prints them
    double bwInter = 0.0;
    std::string typeIntra; ///< path types: "NVL", "PIX", "PXN", "SYS", ...
    std::string typeInter;
    int sameChannels = 0;
    std::vector<std::string> channels; ///< each channel's path: "NET/0 GPU/0 ... GPU/7 NET/7"
    std::string place; ///< FILE:LINE of the Pattern line
};

/** The algorithm and protocol NCCL picked for one call size (NCCL_DEBUG_SUBSYS=TUNING). */
struct NcclLogPick
{
    std::string function; ///< "AllReduce", ...; empty where NCCL did not print it (2.20-2.22)
    long long bytes = 0;
    std::string algorithm; ///< "Ring", "Tree", "NVLS", "NVLSTree", "CollNetDirect", ...
    std::string protocol; ///< "LL", "LL128", "Simple"
    int channelLo = -1; ///< channels used (2.25 on), else -1
    int channelHi = -1;
    int calls = 0; ///< lines with this function, size and pick
    std::string place; ///< FILE:LINE of the first
    bool operator<(const NcclLogPick &o) const
    {
        return std::tie(function, bytes, algorithm, protocol, channelLo, channelHi)
            < std::tie(o.function, o.bytes, o.algorithm, o.protocol, o.channelLo, o.channelHi);
    }
};

struct NcclLogComm
{
    std::string id; ///< commId (shared by its ranks), or "0xPTR@HOST:PID" without one
    int nranks = 0;
    std::map<int, NcclLogRank> ranks;
    std::vector<std::vector<int>> rings; ///< by channel, as rank 0 printed them
    std::vector<std::string> ringPlaces; ///< by channel, "FILE:LINE" of the ring's line
    std::map<int, std::string> trees; ///< rank -> its "Trees" line's tree list
    std::vector<NcclLogConnection> connections;
    std::vector<NcclLogGraph> graphs; ///< GRAPH: the first process per host that printed them
    std::vector<NcclLogPick> picks; ///< TUNING: by function and size
    int nvlsSupport = -1; ///< -1 not logged, 0 no rank has NVLS multicast, else ranks that have
    bool nvlsTree = false; ///< "NVLS Trees" / "Connected NVLS tree": NVLS across nodes
    bool collNet = false; ///< CollNet chains connected
};

struct NcclLog
{
    std::vector<NcclLogComm> comms;
    /// host -> the RDMA devices NCCL found, by net device index ("mlx5_0", ...)
    std::map<std::string, std::vector<std::string>> nics;
    std::vector<std::string> files;
    int ncclLines = 0; ///< NCCL INFO lines read
};

/// Adds the NCCL lines of `text` (named `file` in messages) to `log`. Throws ScenarioError
/// naming FILE:LINE for an NCCL line it cannot read (a ring that is no permutation of its
/// communicator's ranks, a rank outside its communicator, numbers out of range); text
/// without a single NCCL INFO line is refused.
void parseNcclLog(std::string_view text, const std::string &file, NcclLog &log);

/// Reads each file (regular files, at most 256 MiB each) into one log.
NcclLog readNcclLogs(const std::vector<std::string> &paths);

} // namespace railyard
