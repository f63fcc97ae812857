#pragma once

#include "cost/costengine.h"
#include "export/exportoptions.h"

#include <string>
#include <vector>

/**
 * What the export formats share (each format is its own file: runrecord, launcherexport,
 * megatronexport, chrometrace, ncclplan): host names, the per-rank placement table, the
 * node-major check of launchers and the text helpers. Not part of the public API.
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
};

/// A name a launcher file and a shell script can embed: 1..253 letters, digits, '.', '-', '_',
/// not starting with '-' or '.'.
bool plainHostName(const std::string &name);
/// Host names per server: options.hosts or the fabric's names. With `forLaunchers` every name
/// must be a plain host name (letters, digits, '.', '-', '_'), since launcher files and shell
/// scripts embed it; throws ScenarioError naming the source otherwise.
std::vector<std::string> hostNames(
    const CostEngine &engine, const ExportOptions &options, bool forLaunchers);
/// Every rank in global-rank order.
std::vector<RankPlacement> placements(
    const CostEngine &engine, const std::vector<std::string> &hosts);

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
/// `text` with control characters (newlines above all) turned into spaces, for comments.
std::string oneLine(std::string text);
/// "tp 8 x pp 4 x dp 4 x cp 1 x ep 1, order tp-cp-ep-dp-pp".
std::string layoutText(const CostEngine &engine);
/// The comment block every shell-like export starts with (each line "# ...").
std::string headerComment(const CostEngine &engine, const std::string &what);

} // namespace railyard::exportdetail
