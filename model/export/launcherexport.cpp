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

#include "base/scenarioerror.h"
#include "export/exportcommon.h"
#include "export/nccltopofile.h"

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

/// The NCCL settings the engine's numbers assume, as `export` lines (NCCL "Environment
/// Variables" documentation): NCCL_PXN_DISABLE (PXN is on by default in NCCL >= 2.12) from the
/// fabric's pxn, NCCL_ALGO when the scenario fixes an algorithm NCCL has, NCCL_NVLS_ENABLE
/// when the scenario sets NVLS, and NCCL_MNNVL_ENABLE=1 for rack-scale NVLink domains.
std::string ncclEnvironment(const CostEngine &engine)
{
    const Scenario &s = engine.scenario();
    std::string out = "# NCCL as the engine modelled it (PXN "
        + std::string(engine.fabric().spec().pxn ? "on" : "off") + ", algorithm "
        + std::string(collectiveAlgorithmName(s.collectives.algorithm)) + ").\n";
    out += std::string("export NCCL_PXN_DISABLE=") + (engine.fabric().spec().pxn ? "0" : "1")
        + "\n";
    if (engine.fabric().scaleUpDomainServers() > 1)
        out += mnnvlEnvironment(engine.fabric().scaleUpDomainServers());
    const char *algo = nullptr;
    switch (s.collectives.algorithm) {
    case CollectiveAlgorithm::Ring:
        algo = "Ring";
        break;
    case CollectiveAlgorithm::Tree:
        algo = "Tree";
        break;
    case CollectiveAlgorithm::Nvls:
        algo = "NVLS,NVLSTree";
        break;
    case CollectiveAlgorithm::Pat:
        algo = "PAT";
        break;
    case CollectiveAlgorithm::Auto:
    case CollectiveAlgorithm::MemberOrder:
    case CollectiveAlgorithm::Hierarchical:
        break; // auto is NCCL's own tuner; the others are not NCCL algorithms
    }
    if (algo)
        out += std::string("export NCCL_ALGO=") + algo + "\n";
    if (s.collectives.nvls)
        out += std::string("export NCCL_NVLS_ENABLE=") + (*s.collectives.nvls ? "1" : "0") + "\n";
    return out;
}

/// Whether the fabric can give the nccl-topo export (it has every GPU's and NIC's bus id).
bool topoFileAvailable(const CostEngine &engine)
{
    return ncclTopoMissingFields(engine.fabric().spec()).empty();
}

std::string checkedTopoFile(const ExportOptions &options)
{
    refuseControlCharacters("--nccl-topo", options.ncclTopoFile);
    if (options.ncclTopoFile.empty())
        throw ScenarioError("--nccl-topo", "is empty: name the nccl-topo export's file");
    return options.ncclTopoFile;
}

/// NCCL_TOPO_FILE (NCCL "Environment Variables": the XML topology NCCL loads before it detects
/// the machine's) set to the nccl-topo export when that file exists where the ranks start and
/// NCCL_TOPO_FILE is not set already; without bus ids in the fabric, a comment says why not.
std::string topoFileEnvironment(const CostEngine &engine, const ExportOptions &options)
{
    if (!topoFileAvailable(engine))
        return "# No NCCL_TOPO_FILE: the fabric has no PCI bus ids for it (railyard-cli "
               "import-topology\n# records them from a server's NCCL_TOPO_DUMP_FILE).\n";
    const std::string file = shellQuote(checkedTopoFile(options));
    return "# NCCL_TOPO_FILE: the server's CPUs, PCIe switches, GPUs and NICs as Railyard "
           "modelled\n# them (railyard-cli export --format nccl-topo -o "
        + oneLine(options.ncclTopoFile)
        + "), used when that file\n# exists where the ranks start and NCCL_TOPO_FILE is not "
          "set already.\n"
          "if [ -z \"${NCCL_TOPO_FILE:-}\" ] && [ -f "
        + file + " ]; then NCCL_TOPO_FILE=" + file
        + "; fi\n"
          "if [ -n \"${NCCL_TOPO_FILE:-}\" ]; then export NCCL_TOPO_FILE; fi\n";
}

/// `NAME=value` unless NAME is already set and not empty; the value is a literal (quoted
/// outside any other quotes, where POSIX sh removes the quotes).
std::string defaultTo(const std::string &name, const std::string &value, bool exported)
{
    return "if [ -z \"${" + name + ":-}\" ]; then " + name + "=" + shellQuote(value) + "; fi\n"
        + (exported ? "export " + name + "\n" : "");
}

/// The preflight command line (empty when switched off); RAILYARD_CLI and RAILYARD_RECORD are
/// the script's variables.
std::string preflightCall(const CostEngine &engine, const ExportOptions &options)
{
    if (!options.preflight)
        return {};
    return "\"$RAILYARD_CLI\" preflight \"$RAILYARD_RECORD\" --mapping-version "
        + std::to_string(engine.scenario().mappingVersion);
}

std::string preflightVariables(const ExportOptions &options)
{
    if (!options.preflight)
        return {};
    refuseControlCharacters("--record", options.record);
    if (options.record.empty())
        throw ScenarioError("--record", "is empty: name the run record (mapping-json export)");
    return "# Every rank first runs the preflight: it exits non-zero, naming the rank, when the\n"
           "# rank is not on the host, GPU and NIC the run record gives it.\n"
        + defaultTo("RAILYARD_CLI", "railyard-cli", true)
        + defaultTo("RAILYARD_RECORD", options.record, true);
}

/// The program and its fixed arguments as quoted words; a Python script runs under
/// ${PYTHON:-python3} -u, as torchrun itself would run it.
std::string programWords(const ExportOptions &options)
{
    const std::vector<std::string> words = commandWords("--program", options.program);
    const std::string &first = words.front();
    const bool python = first.size() > 3 && first.compare(first.size() - 3, 3, ".py") == 0;
    return (python ? "\"${PYTHON:-python3}\" -u " : "") + quotedWords(words);
}

} // namespace

std::string exportRankfile(const CostEngine &engine, const ExportOptions &options)
{
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const std::vector<RankPlacement> rows = placements(engine, hosts);
    const int cpus = options.cpusPerHost;
    if (cpus < 0)
        throw ScenarioError("--cpus-per-host", "must be 0 (one core per GPU) or a core count");
    if (cpus > 0)
        coresOfGpu(engine.fabric().spec(), 0, cpus); // refuses fewer cores than GPUs

    std::string out = headerComment(engine,
        "Open MPI rankfile: mpirun --rankfile FILE -np " + std::to_string(rows.size()) + " ...");
    out += "# Each line is 'rank N=host slot=cores' (Open MPI 4.1 mpirun(1), \"Rankfiles\"): "
           "slot\n";
    if (cpus == 0)
        out += "# lists logical cores; GPU g is given core g. --cpus-per-host C shares C cores "
               "out\n"
               "# over the GPUs instead (GPU g of G gets cores g*C/G .. (g+1)*C/G-1).\n";
    else
        out += strf("# lists logical cores: %d cores per host, an equal block per NUMA node (%d "
                    "nodes),\n# shared over the GPUs of that node (GPU g's NUMA node from the "
                    "fabric).\n",
            cpus, numaNodes(engine.fabric().spec()));
    out += "# A rankfile binds CPUs only: the program must use GPU CUDA_VISIBLE_DEVICES[local "
           "rank]\n"
           "# (OMPI_COMM_WORLD_LOCAL_RANK counts a host's ranks in rank order) and should run\n"
           "# 'railyard-cli preflight RECORD' first (it checks rank, host and GPU), with, per "
           "host:\n";
    const auto byServer = ranksByServer(rows, engine.fabric().servers());
    for (std::size_t s = 0; s < byServer.size(); ++s)
        if (!byServer[s].empty())
            out += "#   " + hosts[s] + ": CUDA_VISIBLE_DEVICES=" + gpuList(byServer[s]) + "\n";
    if (topoFileAvailable(engine))
        out += "# NCCL_TOPO_FILE: write the server's topology with railyard-cli export --format\n"
               "# nccl-topo -o "
            + oneLine(checkedTopoFile(options))
            + " and pass it with mpirun -x NCCL_TOPO_FILE=" + oneLine(options.ncclTopoFile) + "\n";
    else
        out += "# No NCCL_TOPO_FILE: the fabric has no PCI bus ids for it (railyard-cli "
               "import-topology).\n";
    for (const RankPlacement &p : rows) {
        std::string slot;
        if (cpus == 0) {
            slot = std::to_string(p.gpu);
        } else {
            const auto [lo, hi] = coresOfGpu(engine.fabric().spec(), p.gpu, cpus);
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
    const std::vector<RankPlacement> rows
        = placements(engine, hosts, checkedHcaPrefix(options.hcaPrefix));
    const NodeMajor nm = nodeMajor(engine, hosts);
    const auto byServer = ranksByServer(rows, engine.fabric().servers());
    const std::string program = programWords(options);

    std::string out = "#!/bin/sh\n";
    out += headerComment(engine, "torchrun launch: run this script on every node");
    out += "# torchrun numbers ranks node-major (RANK = node_rank * nproc_per_node + LOCAL_RANK)\n"
           "# and the program uses cuda:LOCAL_RANK, so each node lists its GPUs in local-rank "
           "order\n"
           "# in CUDA_VISIBLE_DEVICES, and each rank gets its NIC in NCCL_IB_HCA. The host is\n"
           "# matched by its short name (an FQDN matches too); RAILYARD_HOST overrides it.\n";
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
    // Short names must tell the nodes apart, since the script matches them.
    for (std::size_t a = 0; a < nm.nodeServer.size(); ++a)
        for (std::size_t b = 0; b < a; ++b)
            if (shortHostName(hosts[static_cast<std::size_t>(nm.nodeServer[a])])
                == shortHostName(hosts[static_cast<std::size_t>(nm.nodeServer[b])]))
                throw ScenarioError("--hosts",
                    "'" + hosts[static_cast<std::size_t>(nm.nodeServer[a])] + "' and '"
                        + hosts[static_cast<std::size_t>(nm.nodeServer[b])]
                        + "' have the same short name, which torchrun's script matches");
    const std::string master = hosts[static_cast<std::size_t>(nm.nodeServer.front())];
    out += "set -eu\n";
    out += defaultTo("MASTER_ADDR", master, false);
    out += "MASTER_PORT=\"${MASTER_PORT:-" + std::to_string(options.masterPort) + "}\"\n";
    out += preflightVariables(options);
    out += "host=\"${RAILYARD_HOST:-$(hostname)}\"\n";
    out += "case \"${host%%.*}\" in\n";
    for (std::size_t k = 0; k < nm.nodeServer.size(); ++k) {
        const auto s = static_cast<std::size_t>(nm.nodeServer[k]);
        std::string hcas;
        for (const RankPlacement *p : byServer[s])
            hcas += (hcas.empty() ? "" : " ") + p->hca;
        out += strf("  %s) NODE_RANK=%zu; CUDA_VISIBLE_DEVICES=%s; RY_HCAS=%s ;;  # ranks %d-%d\n",
            shellQuote(shortHostName(hosts[s])).c_str(), k, gpuList(byServer[s]).c_str(),
            shellQuote(hcas).c_str(), byServer[s].front()->rank, byServer[s].back()->rank);
    }
    out += "  *) echo \"$0: host $host is not in this mapping\" >&2; exit 1 ;;\n";
    out += "esac\nexport CUDA_VISIBLE_DEVICES RY_HCAS\n";
    out += ncclEnvironment(engine);
    out += topoFileEnvironment(engine, options);
    // torchrun starts one process per local rank with RANK / LOCAL_RANK set; --no-python runs
    // this per-rank shell, which picks the rank's NIC and runs the preflight first.
    const std::string check = preflightCall(engine, options);
    out += strf("exec torchrun --nnodes=%zu --node-rank=\"$NODE_RANK\" --nproc-per-node=%d \\\n"
                "  --master-addr=\"$MASTER_ADDR\" --master-port=\"$MASTER_PORT\" --no-python \\\n",
        nm.nodeServer.size(), nm.nproc);
    out += "  sh -c 'set -eu\n"
           "n=$((LOCAL_RANK + 1)); NCCL_IB_HCA=\"=$(echo \"$RY_HCAS\" | cut -d\" \" -f$n)\"\n"
           "export NCCL_IB_HCA\n"
        + (check.empty() ? std::string() : check + "\n") + "exec \"$@\"' railyard-rank \\\n  "
        + program + " \"$@\"\n";
    return out;
}

std::string exportSlurm(const CostEngine &engine, const ExportOptions &options)
{
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const std::vector<RankPlacement> rows
        = placements(engine, hosts, checkedHcaPrefix(options.hcaPrefix));
    const auto byServer = ranksByServer(rows, engine.fabric().servers());
    const std::string program = programWords(options);
    const int cpus = options.cpusPerHost;
    if (cpus < 0)
        throw ScenarioError("--cpus-per-host", "must be 0 (no CPU binding) or a core count");
    const FabricSpec &spec = engine.fabric().spec();
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
    int perTask = 0;
    if (cpus > 0) {
        const auto [lo, hi] = coresOfGpu(spec, 0, cpus);
        perTask = hi - lo + 1;
        for (int g = 1; g < spec.gpusPerServer; ++g) {
            const auto [l, h] = coresOfGpu(spec, g, cpus);
            perTask = std::min(perTask, h - l + 1);
        }
        out += strf("#SBATCH --cpus-per-task=%d\n", perTask);
    }
    out += "#\n# Task i is global rank i: srun --distribution=arbitrary places task i on line i "
           "of\n"
           "# SLURM_HOSTFILE (srun(1)). The job holds whole nodes; each task then sees its node's\n"
           "# GPUs in local-rank order in CUDA_VISIBLE_DEVICES and uses cuda:LOCAL_RANK, which is\n"
           "# the GPU slot the mapping chose (a wrapper, since --gpu-bind=map_gpu applies one "
           "list\n"
           "# to every node), and its NIC in NCCL_IB_HCA. RANK, LOCAL_RANK, WORLD_SIZE, "
           "MASTER_ADDR\n"
           "# and MASTER_PORT are set for torch.distributed's env:// initialisation.\n";
    if (cpus > 0)
        out += "# CPU binding: the task's cores follow its GPU's NUMA node (taskset -c; srun's\n"
               "# --cpu-bind=map_cpu would apply one list to every node, so it is off).\n";
    out += "set -euo pipefail\n";
    out += "export SLURM_HOSTFILE=\"${SLURM_HOSTFILE:-railyard-hosts.${SLURM_JOB_ID:-local}}\"\n";
    out += "cat > \"$SLURM_HOSTFILE\" <<'EOF'\n";
    for (const RankPlacement &p : rows)
        out += p.host + "\n";
    out += "EOF\n";
    // Per rank: its node's GPU list (by node index) and its position in that list.
    std::string nodeGpus, nodeOfRank, localOfRank, hcas, cores;
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
        hcas += (hcas.empty() ? "" : " ") + p.hca;
        if (cpus > 0) {
            const auto [lo, hi] = coresOfGpu(spec, p.gpu, cpus);
            cores += (cores.empty() ? "" : " ") + std::to_string(lo)
                + (hi > lo ? "-" + std::to_string(hi) : "");
        }
    }
    out += "# Node n's GPUs in local-rank order; per rank: its node n, its local rank, its NIC.\n";
    out += "export RAILYARD_NODE_GPUS=\"" + nodeGpus + "\"\n";
    out += "export RAILYARD_NODE=\"" + nodeOfRank + "\"\n";
    out += "export RAILYARD_LOCAL=\"" + localOfRank + "\"\n";
    out += "export RAILYARD_HCAS=" + shellQuote(hcas) + "\n";
    if (cpus > 0)
        out += "export RAILYARD_CPUS=\"" + cores + "\"\n";
    out += preflightVariables(options);
    out += defaultTo("MASTER_ADDR", rows.front().host, true);
    out += "export MASTER_PORT=\"${MASTER_PORT:-" + std::to_string(options.masterPort) + "}\"\n";
    out += ncclEnvironment(engine);
    out += topoFileEnvironment(engine, options);
    const std::string check = preflightCall(engine, options);
    out += strf("srun --ntasks=%zu --distribution=arbitrary%s bash -c '\n", rows.size(),
        cpus > 0 ? strf(" --cpus-per-task=%d --cpu-bind=none", perTask).c_str() : "");
    out += "  set -euo pipefail\n"
           "  gpus=($RAILYARD_NODE_GPUS); node=($RAILYARD_NODE); lrank=($RAILYARD_LOCAL); "
           "hcas=($RAILYARD_HCAS)\n"
           "  export CUDA_VISIBLE_DEVICES=${gpus[${node[$SLURM_PROCID]}]}\n"
           "  export LOCAL_RANK=${lrank[$SLURM_PROCID]} RANK=$SLURM_PROCID "
           "WORLD_SIZE=$SLURM_NTASKS\n"
           "  export NCCL_IB_HCA=\"=${hcas[$SLURM_PROCID]}\"\n"
        + (check.empty() ? std::string() : "  " + check + "\n")
        + (cpus > 0 ? "  cpus=($RAILYARD_CPUS)\n  exec taskset -c \"${cpus[$SLURM_PROCID]}\" "
                      "\"$@\"' railyard-task "
                    : "  exec \"$@\"' railyard-task ")
        + program + " \"$@\"\n";
    return out;
}

} // namespace railyard::exportdetail
