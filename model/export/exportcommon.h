#pragma once

#include "cost/costengine.h"
#include "export/exportoptions.h"
#include "export/quoting.h"

#include <string>
#include <utility>
#include <vector>

/**
 * What the export formats share (each format is its own file: runrecord, launcherexport,
 * megatronexport, chrometrace, ncclplan): host names, the per-rank placement table, the
 * node-major check of launchers and the text helpers (the quoting rules of each output
 * language are in quoting.h). Not part of the public API.
 */
namespace railyard::exportdetail {

/** One row of the run record: a logical rank and the hardware it lands on. */
struct RankPlacement
{
    int rank = 0;
    RankCoord coord;
    int server = 0;
    std::string host;
    int slot = 0;
    int gpu = 0; ///< local GPU index on its server
    int nic = 0; ///< local NIC index (GPU -> NIC affinity)
    int rail = -1; ///< -1 on ToR fabrics
    int leaf = 0;
    std::string leafName;
    int leafPort = 0;
    int numa = 0; ///< the GPU's NUMA node (socket)
    std::string hca; ///< the NIC's RDMA device (NCCL_IB_HCA)
    std::string gpuBusId, nicBusId; ///< PCI bus IDs, "" when the fabric does not know them
};

/// GPU g's NUMA node: the fabric's gpu_numa, else the first half of the GPUs on node 0 and the
/// second half on node 1.
int numaOfGpu(const FabricSpec &spec, int gpu);
/// NUMA nodes of a server (the highest node used + 1).
int numaNodes(const FabricSpec &spec);
/// NIC i's RDMA device: the fabric's nic_devices, else <prefix><i>.
std::string rdmaDevice(const FabricSpec &spec, const std::string &prefix, int nic);
/// Logical cores [first, last] for GPU g when a host has `cpus` cores: each NUMA node holds an
/// equal consecutive block of cores (node k: [k*C/N, (k+1)*C/N)), shared out over the GPUs of
/// that node in index order. With the default NUMA split this is [g*C/G, (g+1)*C/G). Throws
/// ScenarioError("--cpus-per-host", ...) when there are fewer cores than GPUs.
std::pair<int, int> coresOfGpu(const FabricSpec &spec, int gpu, int cpus);

/// A name a launcher file and a shell script can embed: 1..253 letters, digits, '.', '-', '_',
/// not starting with '-' or '.'.
bool plainHostName(const std::string &name);
/// The host name before its first '.' ("node001" for "node001.cluster.example").
std::string shortHostName(const std::string &name);
/// Host names per server: options.hosts or the fabric's names. With `forLaunchers` every name
/// must be a plain host name (letters, digits, '.', '-', '_'), since launcher files and shell
/// scripts embed it; throws ScenarioError naming the source otherwise.
std::vector<std::string> hostNames(
    const CostEngine &engine, const ExportOptions &options, bool forLaunchers);
/// Every rank in global-rank order.
std::vector<RankPlacement> placements(const CostEngine &engine,
    const std::vector<std::string> &hosts, const std::string &hcaPrefix = "mlx5_");

/**
 * Whether the mapping is what a node-major launcher (torchrun, DeepSpeed, a hostfile) produces
 * up to a per-node GPU permutation: node k holds exactly ranks [k*nproc, (k+1)*nproc).
 */
struct NodeMajor
{
    bool expressible = true;
    int nproc = 0; ///< ranks per node
    std::vector<int> nodeServer; ///< node rank -> server (when expressible)
    std::vector<std::string> problems; ///< one line each, at most a few
};
NodeMajor nodeMajor(const CostEngine &engine, const std::vector<std::string> &hosts);

/// "0-6, 9, 12-13" for a sorted list.
std::string rangesText(const std::vector<int> &sorted);
/// printf into a std::string.
std::string strf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/// Throws ScenarioError(field, ...) when `text` holds a control character (a newline would end
/// a shell command or a comment line); `what` names the value in the message.
void refuseControlCharacters(const std::string &field, const std::string &text);
/// A command line as its words, split at blanks (the --program option: a program and its fixed
/// arguments); each word is later passed literally (shellQuote), never expanded by a shell.
/// Throws ScenarioError(field, ...) for an empty command or a control character.
std::vector<std::string> commandWords(const std::string &field, const std::string &command);
/// The RDMA device prefix (NIC i is <prefix><i>, NCCL_IB_HCA): 1..32 letters, digits, '_', '-',
/// '.'; throws ScenarioError("--hca-prefix", ...) otherwise (an empty one would give "=0").
std::string checkedHcaPrefix(const std::string &prefix);
/// The words, each shellQuote()d, joined by spaces.
std::string quotedWords(const std::vector<std::string> &words);
/// "tp 8 x pp 4 x dp 4 x cp 1 x ep 1, order tp-cp-ep-dp-pp".
std::string layoutText(const CostEngine &engine);
/// `export NCCL_MNNVL_ENABLE=1` with its reason, for fabrics whose scale-up domains span
/// `domainServers` > 1 servers (NCCL "Environment Variables": NCCL_MNNVL_ENABLE, since 2.21;
/// 0 off, 1 on, 2 = auto, the default; NVIDIA's Multi-Node NVLink tuning guide: GB200 MNNVL
/// needs NCCL >= 2.25.2). Set to 1 so that a run without MNNVL fails instead of silently sending
/// tray-to-tray traffic over the NICs, which the engine's numbers do not assume.
std::string mnnvlEnvironment(int domainServers);
/// The comment block every shell-like export starts with (each line "# ...").
std::string headerComment(const CostEngine &engine, const std::string &what);

} // namespace railyard::exportdetail
