/**
 * Launcher inputs: Open MPI rankfile, Slurm batch script, torchrun per node, hostfile.
 *
 * Sources for the syntax and semantics used here:
 *  - Open MPI 4.1 mpirun(1), section "Rankfiles": `rank <N>=<hostname> slot=<slot list>`, where
 *    a slot list of bare numbers/ranges ("0", "0-13") names logical cores and "1:0-2" names a
 *    logical socket and its cores; ranks are MPI_COMM_WORLD ranks. A rankfile binds CPUs, it
 *    does not choose GPUs. OMPI_COMM_WORLD_LOCAL_RANK numbers a host's processes in rank order.
 *  - Slurm srun(1), --distribution=arbitrary: "allocate processes in-order as listed in file
 *    designated by the environment variable SLURM_HOSTFILE", one host per task line.
 *    SLURM_PROCID is the task's global rank.
 *  - torchrun (torch.distributed.run) with static rendezvous (--node-rank, --master-addr):
 *    RANK = node_rank * nproc_per_node + LOCAL_RANK, the same nproc on every node; the training
 *    script uses cuda:LOCAL_RANK, so CUDA_VISIBLE_DEVICES listed in local-rank order puts local
 *    rank i on the i-th listed GPU.
 *  - DeepSpeed / Open MPI hostfiles: `hostname slots=N`; launchers number ranks node by node in
 *    file order.
 */
#include "export/launcherexport.h"

#include "export/exportcommon.h"
#include "base/scenarioerror.h"

#include <algorithm>

namespace railyard::exportdetail {

namespace {

/// Per server, its ranks in ascending order (servers without ranks stay empty).
std::vector<std::vector<const RankPlacement *>> ranksByServer(
    const std::vector<RankPlacement> &rows, int servers)
{
    std::vector<std::vector<const RankPlacement *>> out(static_cast<std::size_t>(servers));
    for (const RankPlacement &p : rows)
        out[static_cast<std::size_t>(p.server)].push_back(&p);
    return out;
}

/// "3,0,1,2": the GPUs of one server's ranks in local-rank (= ascending global rank) order.
std::string gpuList(const std::vector<const RankPlacement *> &ranks)
{
    std::string out;
    for (const RankPlacement *p : ranks)
        out += (out.empty() ? "" : ",") + std::to_string(p->gpu);
    return out;
}

std::string commentLines(const std::vector<std::string> &lines, const std::string &prefix)
{
    std::string out;
    for (const std::string &l : lines)
        out += "# " + prefix + oneLine(l) + "\n";
    return out;
}

} // namespace

std::string exportRankfile(const CostEngine &engine, const ExportOptions &options)
{
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const std::vector<RankPlacement> rows = placements(engine, hosts);
    const int gpus = engine.fabric().gpusPerServer();
    const int cpus = options.cpusPerHost;
    if (cpus < 0)
        throw ScenarioError("--cpus-per-host", "must be 0 (one core per GPU) or a core count");

    std::string out = headerComment(engine,
        "Open MPI rankfile: mpirun --rankfile FILE -np " + std::to_string(rows.size()) + " ...");
    out += "# Each line is 'rank N=host slot=cores' (Open MPI 4.1 mpirun(1), \"Rankfiles\"): "
           "slot\n";
    if (cpus == 0)
        out += "# lists logical cores; GPU g is given core g. --cpus-per-host C shares C cores "
               "out\n"
               "# over the GPUs instead (GPU g of G gets cores g*C/G .. (g+1)*C/G-1).\n";
    else
        out += strf(
            "# lists logical cores: %d cores per host shared over %d GPUs (GPU g gets cores\n"
            "# g*%d/%d .. (g+1)*%d/%d-1; fewer cores than GPUs share one: add --oversubscribe).\n",
            cpus, gpus, cpus, gpus, cpus, gpus);
    out += "# A rankfile binds CPUs only: the program must use GPU CUDA_VISIBLE_DEVICES[local "
           "rank]\n"
           "# (OMPI_COMM_WORLD_LOCAL_RANK counts a host's ranks in rank order) with, per host:\n";
    const auto byServer = ranksByServer(rows, engine.fabric().servers());
    for (std::size_t s = 0; s < byServer.size(); ++s)
        if (!byServer[s].empty())
            out += "#   " + hosts[s] + ": CUDA_VISIBLE_DEVICES=" + gpuList(byServer[s]) + "\n";
    for (const RankPlacement &p : rows) {
        std::string slot;
        if (cpus == 0) {
            slot = std::to_string(p.gpu);
        } else {
            const long long lo = static_cast<long long>(p.gpu) * cpus / gpus;
            const long long hi = std::max(lo, static_cast<long long>(p.gpu + 1) * cpus / gpus - 1);
            slot = std::to_string(lo) + (hi > lo ? "-" + std::to_string(hi) : "");
        }
        out += "rank " + std::to_string(p.rank) + "=" + p.host + " slot=" + slot + "\n";
    }
    return out;
}

std::string exportHostfile(const CostEngine &engine, const ExportOptions &options)
{
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const std::vector<RankPlacement> rows = placements(engine, hosts);
    const NodeMajor nm = nodeMajor(engine, hosts);
    std::string out = headerComment(engine, "hostfile (DeepSpeed, Open MPI): host slots=N");
    out += "# Hosts in the order of their lowest rank; launchers number ranks host by host.\n";
    if (!nm.expressible) {
        out += "# WARNING: this mapping is not host-by-host (node-major), so a launcher reading\n"
               "# this file alone will not reproduce it; use the rankfile or slurm export:\n";
        out += commentLines(nm.problems, "  ");
    }
    std::vector<int> count(static_cast<std::size_t>(engine.fabric().servers()), 0);
    std::vector<int> order;
    for (const RankPlacement &p : rows)
        if (count[static_cast<std::size_t>(p.server)]++ == 0)
            order.push_back(p.server);
    for (int s : order)
        out += hosts[static_cast<std::size_t>(s)]
            + " slots=" + std::to_string(count[static_cast<std::size_t>(s)]) + "\n";
    return out;
}

std::string exportTorchrun(const CostEngine &engine, const ExportOptions &options)
{
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const std::vector<RankPlacement> rows = placements(engine, hosts);
    const NodeMajor nm = nodeMajor(engine, hosts);
    const auto byServer = ranksByServer(rows, engine.fabric().servers());

    std::string out = "#!/bin/sh\n";
    out += headerComment(engine, "torchrun launch: run this script on every node");
    out += "# torchrun numbers ranks node-major (RANK = node_rank * nproc_per_node + LOCAL_RANK)\n"
           "# and the program uses cuda:LOCAL_RANK, so each node lists its GPUs in local-rank "
           "order\n"
           "# in CUDA_VISIBLE_DEVICES. RAILYARD_HOST overrides the host name matched below.\n";
    if (!nm.expressible) {
        out += "#\n# WARNING: torchrun cannot express this mapping: a node's ranks must be one "
               "block\n"
               "# of consecutive ranks (node-major), and a non-packed mapping needs a reorder:\n";
        out += commentLines(nm.problems, "  ");
        out += "# Launch with the rankfile or slurm export instead. Rank -> host, GPU:\n";
        for (const RankPlacement &p : rows)
            out += strf("#   rank %d: %s GPU %d (NIC %d)\n", p.rank, p.host.c_str(), p.gpu, p.nic);
        out += "echo \"torchrun cannot express this mapping (see the comments in $0)\" >&2\n"
               "exit 1\n";
        return out;
    }
    const std::string master = hosts[static_cast<std::size_t>(nm.nodeServer.front())];
    out += "set -eu\n";
    out += "MASTER_ADDR=${MASTER_ADDR:-" + master + "}\n";
    out += "MASTER_PORT=${MASTER_PORT:-" + std::to_string(options.masterPort) + "}\n";
    out += "case \"${RAILYARD_HOST:-$(hostname -s)}\" in\n";
    for (std::size_t k = 0; k < nm.nodeServer.size(); ++k) {
        const auto s = static_cast<std::size_t>(nm.nodeServer[k]);
        out += strf("  %s) NODE_RANK=%zu; CUDA_VISIBLE_DEVICES=%s ;;  # ranks %d-%d\n",
            hosts[s].c_str(), k, gpuList(byServer[s]).c_str(), byServer[s].front()->rank,
            byServer[s].back()->rank);
    }
    out += "  *) echo \"$0: host ${RAILYARD_HOST:-$(hostname -s)} is not in this mapping\" >&2; "
           "exit 1 ;;\n";
    out += "esac\nexport CUDA_VISIBLE_DEVICES\n";
    out += strf("exec torchrun --nnodes=%zu --node-rank=\"$NODE_RANK\" --nproc-per-node=%d \\\n"
                "  --master-addr=\"$MASTER_ADDR\" --master-port=\"$MASTER_PORT\" \\\n"
                "  %s \"$@\"\n",
        nm.nodeServer.size(), nm.nproc, oneLine(options.program).c_str());
    return out;
}

std::string exportSlurm(const CostEngine &engine, const ExportOptions &options)
{
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const std::vector<RankPlacement> rows = placements(engine, hosts);
    const auto byServer = ranksByServer(rows, engine.fabric().servers());
    std::vector<std::string> used;
    std::vector<int> nodeOf(static_cast<std::size_t>(engine.fabric().servers()), -1);
    for (const RankPlacement &p : rows)
        if (nodeOf[static_cast<std::size_t>(p.server)] < 0) {
            nodeOf[static_cast<std::size_t>(p.server)] = static_cast<int>(used.size());
            used.push_back(p.host);
        }

    std::string out = "#!/bin/bash\n";
    out += headerComment(engine, "Slurm batch script: sbatch FILE [program arguments]");
    std::string nodelist;
    for (const std::string &h : used)
        nodelist += (nodelist.empty() ? "" : ",") + h;
    out += strf("#SBATCH --nodes=%zu\n#SBATCH --ntasks=%zu\n#SBATCH --nodelist=%s\n"
                "#SBATCH --gpus-per-node=%d\n#SBATCH --exclusive\n",
        used.size(), rows.size(), nodelist.c_str(), engine.fabric().gpusPerServer());
    out += "#\n# Task i is global rank i: srun --distribution=arbitrary places task i on line i "
           "of\n"
           "# SLURM_HOSTFILE (srun(1)). The job holds whole nodes; each task then sees its node's\n"
           "# GPUs in local-rank order in CUDA_VISIBLE_DEVICES and uses cuda:LOCAL_RANK, which is\n"
           "# the GPU slot the mapping chose (a wrapper, since --gpu-bind=map_gpu applies one "
           "list\n"
           "# to every node). RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR and MASTER_PORT are set "
           "for\n"
           "# torch.distributed's env:// initialisation.\n";
    out += "set -euo pipefail\n";
    out += "export SLURM_HOSTFILE=${SLURM_HOSTFILE:-railyard-hosts.${SLURM_JOB_ID:-local}}\n";
    out += "cat > \"$SLURM_HOSTFILE\" <<'EOF'\n";
    for (const RankPlacement &p : rows)
        out += p.host + "\n";
    out += "EOF\n";
    // Per rank: its node's GPU list (by node index) and its position in that list.
    std::string nodeGpus, nodeOfRank, localOfRank;
    for (const std::string &h : used) {
        const auto s
            = static_cast<std::size_t>(std::find(hosts.begin(), hosts.end(), h) - hosts.begin());
        nodeGpus += (nodeGpus.empty() ? "" : " ") + gpuList(byServer[s]);
    }
    std::vector<int> seen(static_cast<std::size_t>(engine.fabric().servers()), 0);
    for (const RankPlacement &p : rows) {
        nodeOfRank += (nodeOfRank.empty() ? "" : " ")
            + std::to_string(nodeOf[static_cast<std::size_t>(p.server)]);
        localOfRank += (localOfRank.empty() ? "" : " ")
            + std::to_string(seen[static_cast<std::size_t>(p.server)]++);
    }
    out += "# Node n's GPUs in local-rank order; per rank: its node n and its local rank.\n";
    out += "export RAILYARD_NODE_GPUS=\"" + nodeGpus + "\"\n";
    out += "export RAILYARD_NODE=\"" + nodeOfRank + "\"\n";
    out += "export RAILYARD_LOCAL=\"" + localOfRank + "\"\n";
    out += "export MASTER_ADDR=${MASTER_ADDR:-" + rows.front().host + "}\n";
    out += "export MASTER_PORT=${MASTER_PORT:-" + std::to_string(options.masterPort) + "}\n";
    out += strf("srun --ntasks=%zu --distribution=arbitrary bash -c '\n", rows.size());
    out += "  gpus=($RAILYARD_NODE_GPUS); node=($RAILYARD_NODE); lrank=($RAILYARD_LOCAL)\n"
           "  export CUDA_VISIBLE_DEVICES=${gpus[${node[$SLURM_PROCID]}]}\n"
           "  export LOCAL_RANK=${lrank[$SLURM_PROCID]} RANK=$SLURM_PROCID "
           "WORLD_SIZE=$SLURM_NTASKS\n"
           "  exec \"$@\"' railyard-task "
        + oneLine(options.program) + " \"$@\"\n";
    return out;
}

} // namespace railyard::exportdetail
