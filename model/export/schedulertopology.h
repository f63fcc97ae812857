#pragma once

#include "export/exportoptions.h"

#include <string>
#include <vector>

namespace railyard {

class CostEngine;

namespace exportdetail {

/**
 * The fabric as a scheduler's tree sees it, shared by the slurm-topology, slurm-topology-block
 * and kueue exports: servers (under the launchers' host names) grouped under the leaves their
 * NICs reach, those groups under their pod's spines, the pods under the super-spines (in a
 * four-tier fabric: under their zone's super-spines, the zones under the cores), and the blocks
 * a job should not straddle (the NVLink domains, else the leaf groups).
 *
 * A rail-optimised server reaches one leaf per rail, so its leaf-level group is the scalable
 * unit's set of rail leaves ("su0"): a scheduler's tree needs each node under one leaf switch
 * (Slurm's topology/tree warns "Multiple leaf switches contain nodes" otherwise), and every
 * server of an SU reaches the same leaves. A top-of-rack server's group is its leaf ("tor-3").
 * Network planes repeat plane 0's structure, so plane 0 stands for all.
 */
struct SchedulerTopology
{
    struct Group
    {
        std::string name; ///< a Slurm switch/block name and a Kubernetes label value
        std::string what; ///< "leaf tor-3", "rail leaves of SU 0", "NVLink domain rack2"
        std::vector<int> servers; ///< ascending
        int parent = -1; ///< leaf groups: index into pods (-1: no spine above); pods: index
                         ///< into zones (-1: three tiers or fewer)
    };
    std::vector<std::string> hosts; ///< per server
    std::vector<Group> leafGroups;
    std::vector<int> leafGroupOfServer; ///< -1: no cabled NIC
    std::vector<Group> pods; ///< one per pod whose leaves have spines; children = leaf groups
    /// Four-tier fabrics: one per zone (the pods under one set of super-spines), children =
    /// pods; empty with three tiers or fewer.
    std::vector<Group> zones;
    std::string top; ///< the tier above the pods (super-spines; with zones, the cores) when
                     ///< pods > 1 ("" otherwise)
    std::vector<Group> blocks; ///< NVLink domains when they span servers, else the leaf groups
    std::vector<int> blockOfServer;
    std::string blockKind; ///< "NVLink domain" or "leaf group"
    std::vector<int> jobServers; ///< the job's servers in node order (first rank first)
    std::vector<std::string> notes; ///< what the scheduler view leaves out, one line each

    /// Servers in `group`'s list that the job uses, counted per block (index = block).
    std::vector<int> jobServersPerBlock() const;
    /// The job's nodes per block when they are equal over the blocks it uses, else their
    /// greatest common divisor: the sbatch --segment / Kueue slice size that keeps each block's
    /// share of the job together.
    int segmentSize() const;
};

/// Builds the view; `hosts` as the launchers name them (hostNames(..., true)).
SchedulerTopology schedulerTopology(
    const CostEngine &engine, const std::vector<std::string> &hosts);

/// Caveats of the scheduler exports, one line each (also comments in the files): servers under
/// no switch, leaf groups without a spine, and for the block file a job whose share of its
/// blocks differs (the segment is then their greatest common divisor, a looser constraint).
std::vector<std::string> schedulerTopologyWarnings(const CostEngine &engine, bool block);

/// Slurm topology.conf for topology/tree (topology.conf(5)).
std::string exportSlurmTopologyTree(const CostEngine &engine, const ExportOptions &options);
/// Slurm topology.conf for topology/block (topology.conf(5), Slurm >= 24.05 for BlockSizes).
std::string exportSlurmTopologyBlock(const CostEngine &engine, const ExportOptions &options);

} // namespace exportdetail

} // namespace railyard
