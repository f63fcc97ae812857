#pragma once

#include "fabric/fabricspec.h"

#include <string>
#include <vector>

namespace railyard {

/**
 * A Slurm topology.conf (topology.conf(5)): `SwitchName=... Nodes=...|Switches=...
 * [LinkSpeed=...]` lines for topology/tree, or `BlockName=... Nodes=...` lines and an optional
 * `BlockSizes=` for topology/block. NVIDIA topograph's Slurm engine writes the same file and
 * names each switch or block's hardware in a comment before it ("# switch.1.1=leaf-1-1",
 * pkg/engines/slurm and tests/ci/expected.*.conf in NVIDIA/topograph); those names are kept.
 */
struct SlurmTopologyConf
{
    struct Entry
    {
        std::string name; ///< SwitchName / BlockName
        std::string hardware; ///< topograph's comment name, else ""
        int line = 0;
        std::vector<std::string> nodes; ///< expanded Nodes=
        std::vector<std::string> switches; ///< expanded Switches= (tree)
    };
    std::string file;
    bool block = false; ///< topology/block (BlockName lines) rather than topology/tree
    bool topograph = false; ///< names came with topograph's "# a=b" comments
    std::vector<Entry> entries; ///< in file order
    std::vector<int> blockSizes; ///< BlockSizes=, empty when absent
    int blockSizesLine = 0;
};

/// Whether the text is a topology.conf: a SwitchName= or BlockName= key starts a line (any case).
bool looksLikeSlurmTopologyConf(const std::string &text);

/// Parses and checks the text against topology.conf(5) (Slurm 22.05 for tree, 24.11 for block)
/// and the plugins' own checks (topology_tree.c, block_record.c). Throws ScenarioError naming
/// `file:line`: an unknown key, tree and block lines mixed, a name that is empty, repeated, over
/// 64 characters or outside [A-Za-z0-9._-], a bad hostlist, a switch with no children or with
/// both Nodes= and Switches=, a node name outside [A-Za-z0-9._-], an unknown or twice-parented
/// child switch, a cycle, a node under
/// two leaves or in two blocks, a node that is also a switch, a BlockSizes value that is not a
/// power-of-two multiple of the first, a block smaller than the base block size.
SlurmTopologyConf parseSlurmTopologyConf(const std::string &text, const std::string &file);

/// What importing a scheduler topology changed, one line each (for stderr).
struct SchedulerImportNotes
{
    std::vector<std::string> notes;
};

/// topology/tree: the fabric's network becomes the tree (FabricSpec::cabling): every NIC of a
/// leaf switch's nodes cabled to that leaf, each switch cabled to its parent with as many
/// fabric ports as its downlinks carry (topology.conf gives no link counts: non-blocking is
/// assumed). Servers are the nodes. At most three switch levels (leaf, spine, super-spine).
/// topology/block: the blocks become the NVLink domains (applyNvlinkDomains()).
SchedulerImportNotes applySlurmTopology(FabricSpec &spec, const SlurmTopologyConf &conf);

/// Makes `domains` (host names per NVLink domain, each with the FILE:LINE naming it) the
/// fabric's scale-up domains: every domain must hold the same number of servers. With a cabled
/// network (or explicit server names) the hosts must be exactly its servers, which are reordered
/// so that each domain is a consecutive block; otherwise the servers become these hosts.
SchedulerImportNotes applyNvlinkDomains(FabricSpec &spec, const std::string &file,
    const std::vector<std::vector<std::string>> &domains, const std::vector<std::string> &where);

} // namespace railyard
