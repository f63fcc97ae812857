/**
 * A measurement plan as nccl-tests runs, in the order that isolates each dimension: the
 * fixed-(d,p) TP group, then adjacent-p pipeline boundaries, then the fixed-(p,t) DP reduction,
 * each with the real tensor sizes, concurrency and NIC binding, then EP and CP groups when the
 * layout has them; what the full step then hides behind compute is the engine's exposed time.
 *
 * Per distinct (group kind, collective, message size) of the workload plan: one run on a
 * representative group, predicted by CostEngine::collective() (that group alone), and one run
 * with every group of the kind at that stage at once, predicted by the engine's phase of the
 * same op (all groups concurrently, as in the iteration). Sizes follow the nccl-tests
 * convention the engine uses (all-gather: output, reduce-scatter: input, all-to-all: the send
 * buffer per rank); busbw = algbw x bus factor (nccl-tests doc/PERFORMANCE.md).
 *
 * Mechanics (NVIDIA/nccl-tests README and src/common.cu): binaries built with MPI=1, one GPU
 * per process (-g 1); NCCL_TESTS_SPLIT="DIV n" splits MPI_COMM_WORLD into communicators by
 * world rank / n, so ranks are laid out group after group; NCCL_TESTS_DEVICE=0 with a
 * one-GPU CUDA_VISIBLE_DEVICES pins each process to its GPU. Open MPI's sequential mapper
 * (--map-by seq with a hostfile, one line per process) places world rank i on line i's host;
 * NCCL_IB_HCA="=<dev>" (NCCL environment variables, exact match) pins the NIC the mapping
 * gives the GPU; NCCL_MNNVL_ENABLE=1 where the fabric has rack-scale NVLink domains (NCCL's
 * multi-node NVLink, see exportcommon.h); NCCL_PXN_DISABLE follows the fabric's PXN setting (NCCL enables PXN by
 * default); NCCL_ALGO pins the algorithm the engine predicted with where NCCL has it (Ring, Tree,
 * NVLS, NVLSTree, PAT: NCCL's "Environment Variables" page). -d names the element type the
 * engine sized the message with (nccl-tests' default is float): activations in the training
 * precision, gradients as Megatron-LM reduces them (fp32 for bf16 unless --grad-reduce-in-bf16).
 *
 * Failures stop the script: each run's exit status is kept (POSIX sh has no pipefail, so the
 * status goes through a file, not the pipe to tee), and the log's "#wrong" columns and "Out of
 * bounds values" line (nccl-tests src/util.cu, writeResultHeader / writeResultFooter) must be 0.
 */
#include "export/ncclplan.h"

#include "base/quantityformat.h"
#include "cost/nccltestsnames.h"
#include "export/exportcommon.h"
#include "export/runrecord.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>

namespace railyard::exportdetail {

namespace {

bool isExpert(const CommOp &op)
{
    return op.what.find("expert") != std::string::npos;
}

/// NCCL_ALGO's name for the engine's algorithm, or "" where NCCL has none (the member-order
/// ring and the hierarchical all-reduce are Railyard's, all-to-all and send-recv have no choice).
std::string ncclAlgo(std::string_view engineName)
{
    if (engineName == "ring")
        return "Ring";
    if (engineName == "tree")
        return "Tree";
    if (engineName == "nvls")
        return "NVLS";
    if (engineName == "nvls-tree")
        return "NVLSTree";
    if (engineName == "pat")
        return "PAT";
    return "";
}

/// nccl-tests' -d name for the element type the workload plan sized `op` with.
std::string dtypeOf(const CommOp &op, const TrainingSpec &t)
{
    const std::string activation = t.precision == Precision::Fp16 ? "half" : "bfloat16";
    if (op.what.find("cross-entropy") != std::string::npos)
        return "float"; // three fp32 values per token (max, target logit, sum of exps)
    if (op.what.find("parameter all-gather") != std::string::npos)
        return t.fp8ParamGather && t.precision == Precision::Fp8 ? "uint8" : activation;
    // Weight gradients (the DP sync, the tied embedding's all-reduce); a TP op named "embedding
    // gradient" moves activation gradients, which stay in the activation type.
    if (op.dim == Dim::Dp || op.what.find("weight gradient") != std::string::npos
        || op.what.find("tied embedding gradient") != std::string::npos) {
        if (t.precision == Precision::Fp16)
            return "half";
        return t.gradReduceBf16 ? "bfloat16" : "float";
    }
    return activation;
}

/** One nccl-tests run of the plan. */
struct PlanTest
{
    std::string section; ///< "tp", "pp", "dp", "edp", "ep", "cp"
    std::string name; ///< file-name safe, unique
    std::string what; ///< the workload ops it stands for
    std::string groupText;
    Collective op = Collective::AllReduce;
    long long bytes = 0;
    std::string dtype = "float"; ///< nccl-tests -d
    std::string algo; ///< NCCL_ALGO ("" = NCCL's choice)
    std::vector<std::vector<int>> groups;
    double time = 0.0, busFactor = 0.0;
    std::string bottleneck;
    std::string phase; ///< the engine phase it is compared with ("" for none)
    bool concurrent = false; ///< every group of its kind at once
};

struct Distinct
{
    Dim dim;
    bool expert;
    bool replica; ///< hybrid sharding's replica-group op (CommOp::replicaGroup)
    Collective op;
    long long bytes;
    int stage;
    std::string dtype;
    std::string firstWhat;
    std::string whats;
};

GroupKind kindOf(const Distinct &d)
{
    switch (d.dim) {
    case Dim::Tp:
        return GroupKind::Tp;
    case Dim::Cp:
        return GroupKind::Cp;
    case Dim::Ep:
        return GroupKind::Ep;
    case Dim::Dp:
    case Dim::Pp:
        break;
    }
    return d.expert ? GroupKind::ExpertDp : GroupKind::DpCp;
}

std::string sectionOf(const Distinct &d)
{
    return d.dim == Dim::Dp && d.expert ? "edp" : std::string(dimName(d.dim));
}

std::string describeGroup(
    const CostEngine &engine, std::span<const int> g, const std::vector<RankPlacement> &rows)
{
    std::vector<int> sorted = toVector(g);
    std::sort(sorted.begin(), sorted.end());
    std::string on;
    for (int r : g) {
        const RankPlacement &p = rows[static_cast<std::size_t>(r)];
        on += (on.empty() ? "" : " ") + p.host + ":" + std::to_string(p.gpu);
    }
    const RankCoord c = engine.layout().coord(g.front());
    return "ranks " + rangesText(sorted)
        + strf(" (first d%d p%d t%d c%d e%d)", c.d, c.p, c.t, c.c, c.e) + " on " + on
        + " (host:GPU)";
}

std::string predictionText(const PlanTest &t)
{
    if (t.time <= 0.0)
        return "none (the engine has no phase of its own for this run)";
    const double algbw = t.time > 0.0 ? static_cast<double>(t.bytes) / t.time / 1e9 : 0.0;
    return strf("%.1f us, algbw %.2f GB/s, busbw %.2f GB/s", t.time * 1e6, algbw,
               algbw * t.busFactor)
        + (t.bottleneck.empty() ? "" : " (bottleneck " + t.bottleneck + ")");
}

} // namespace

std::string exportNcclPlan(const CostEngine &engine, const ExportOptions &options)
{
    // CostEngine::collective() is non-const only because the router caches routes; the
    // engine's mapping and report are not changed by it.
    CostEngine &eng = const_cast<CostEngine &>(engine);
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const std::vector<RankPlacement> rows = placements(engine, hosts);
    const ParallelLayout &layout = engine.layout();
    const CostReport &report = engine.report();
    const Fabric &fabric = engine.fabric();
    const std::string hcaPrefix = checkedHcaPrefix(options.hcaPrefix);

    std::vector<Distinct> distinct;
    for (const CommOp &op : engine.plan().ops) {
        if (op.dim == Dim::Pp || op.bytes <= 0.0)
            continue; // boundaries are planned below; the tied embedding's two-rank all-reduce
                      // between the pipeline's ends is not a group of this plan
        const long long bytes = std::llround(op.bytes);
        const auto it = std::find_if(distinct.begin(), distinct.end(), [&](const Distinct &d) {
            return d.dim == op.dim && d.expert == isExpert(op) && d.replica == op.replicaGroup
                && d.op == op.collective && d.bytes == bytes
                && d.dtype == dtypeOf(op, engine.scenario().training);
        });
        const std::string what = op.what
            + strf(op.pass == OpPass::Iteration ? " (%g per iteration)" : " (%g per micro-batch)",
                op.count);
        const std::string dtype = dtypeOf(op, engine.scenario().training);
        if (it == distinct.end())
            distinct.push_back({ op.dim, isExpert(op), op.replicaGroup, op.collective, bytes,
                op.stage, dtype, op.what, what });
        else if (it->dtype != dtype)
            it->dtype = "uint8"; // one size, two element types: bytes are what the run measures
        else if (it->whats.find(op.what) == std::string::npos)
            it->whats += ", " + what;
    }

    std::vector<PlanTest> tests;
    const auto rankStage = [&layout](int r) { return layout.coord(r).p; };
    const auto finishOne = [&](PlanTest t, std::span<const int> group) {
        std::vector<int> members = toVector(group);
        const CollectiveResult res = eng.collective(t.op, members, static_cast<double>(t.bytes));
        t.groups = { std::move(members) };
        t.time = res.time;
        t.busFactor = res.busFactor;
        t.bottleneck = res.bottleneckLink >= 0 ? fabric.linkName(res.bottleneckLink) : "";
        t.algo = ncclAlgo(planAlgorithmName(res.algorithm));
        t.groupText = describeGroup(engine, group, rows);
        tests.push_back(t);
        return res.busFactor;
    };
    const auto addPhase = [&](PlanTest t, std::vector<std::vector<int>> groups,
                              const PhaseResult *phase, double busFactor) {
        if (groups.size() < 2)
            return;
        t.name += "-all";
        t.concurrent = true;
        t.groups = std::move(groups);
        t.busFactor = busFactor;
        // Without a phase of its own (the engine times expert-DP sync inside the dense DP
        // phase), the run is still worth measuring; it just has no prediction.
        t.time = phase ? phase->time : 0.0;
        t.bottleneck
            = phase && phase->bottleneckLink >= 0 ? fabric.linkName(phase->bottleneckLink) : "";
        t.phase = phase ? phase->name : "";
        if (phase && !phase->algorithm.empty())
            t.algo = ncclAlgo(phase->algorithm);
        t.groupText = std::to_string(t.groups.size()) + " groups at once, "
            + std::to_string(t.groups.size() * t.groups.front().size()) + " ranks";
        tests.push_back(std::move(t));
    };
    const auto findPhase = [&report](Dim dim, Collective c, int stage, const std::string &what) {
        for (const PhaseResult &p : report.phases)
            if (p.dim == dim && p.collective == c && (p.stage == stage || p.stage == -1)
                && (what.empty() || p.name.find(what) != std::string::npos))
                return &p;
        return static_cast<const PhaseResult *>(nullptr);
    };

    // Hybrid sharding (training.fsdp "hybrid:R"): the dense DP ops run in the shard groups (R
    // consecutive members of each dp-cp group) or, for the shard's all-reduce, in the replica
    // groups (members i, i + R, ...), as the engine routes them (TrafficModel::emitGroup).
    const int shard = engine.scenario().training.fsdpShard;
    const auto groupsOf = [&](const Distinct &d) {
        const auto &whole = layout.groups(kindOf(d));
        const int n = whole.empty() ? 0 : static_cast<int>(whole.front().size());
        if (d.dim != Dim::Dp || d.expert || shard <= 0 || shard >= n)
            return whole.copies();
        std::vector<std::vector<int>> out;
        for (const auto &g : whole) {
            const int groups = d.replica ? shard : n / shard;
            for (int k = 0; k < groups; ++k) {
                std::vector<int> sub;
                for (int i = 0; i < n; ++i)
                    if (d.replica ? i % shard == k : i / shard == k)
                        sub.push_back(g[static_cast<std::size_t>(i)]);
                out.push_back(std::move(sub));
            }
        }
        return out;
    };

    // The plan's order: TP, then PP boundaries, then DP; then expert DP, EP, CP.
    const auto planKind = [&](const std::string &section) {
        for (const Distinct &d : distinct) {
            if (sectionOf(d) != section)
                continue;
            const std::vector<std::vector<int>> all = groupsOf(d);
            if (all.empty() || all.front().size() < 2)
                continue;
            // DP phases span every stage (the engine's "dp sync" phase); the others are per stage.
            const bool perStage = d.dim != Dim::Dp;
            std::vector<std::vector<int>> atStage;
            for (const auto &g : all)
                if (rankStage(g.front()) == d.stage)
                    atStage.push_back(g);
            if (atStage.empty())
                continue;
            PlanTest t;
            t.section = section;
            t.op = d.op;
            t.bytes = d.bytes;
            t.dtype = d.dtype;
            t.what = d.whats;
            t.name
                = section + "-" + std::string(collectiveName(d.op)) + "-" + std::to_string(d.bytes);
            const double bf = finishOne(t, atStage.front());
            // DP phases span every stage at the first stage's size: plan that once.
            const bool firstOfItsKind
                = perStage || std::none_of(tests.begin(), tests.end(), [&](const PlanTest &o) {
                      return o.section == section && o.op == d.op && o.concurrent
                          && o.groups.front().size() == all.front().size();
                  });
            if (firstOfItsKind)
                addPhase(
                    t, perStage ? atStage : all, findPhase(d.dim, d.op, d.stage, d.firstWhat), bf);
        }
    };
    planKind("tp");
    const auto &ppGroups = layout.groups(GroupKind::Pp);
    const long long boundaryBytes = std::llround(engine.plan().boundaryActivationBytes);
    for (int b = 0; b + 1 < layout.degrees().pp && boundaryBytes > 0; ++b) {
        std::vector<std::vector<int>> pairs;
        for (const auto &g : ppGroups)
            pairs.push_back({ g[static_cast<std::size_t>(b)], g[static_cast<std::size_t>(b + 1)] });
        PlanTest t;
        t.section = "pp";
        t.op = Collective::SendRecv;
        t.bytes = boundaryBytes;
        t.dtype = engine.scenario().training.precision == Precision::Fp16 ? "half" : "bfloat16";
        t.what = strf("boundary %d->%d activation (and its gradient back)", b, b + 1);
        t.name = strf("pp-boundary-%d-%d", b, b + 1);
        const double bf = finishOne(t, pairs.front());
        addPhase(t, pairs, findPhase(Dim::Pp, Collective::SendRecv, b, "fwd boundary"), bf);
    }
    for (const char *section : { "dp", "edp", "ep", "cp" })
        planKind(section);

    // Runs of one kind, op and size that differ in element type get the type in their names.
    std::map<std::string, int> uses;
    for (const PlanTest &t : tests)
        ++uses[t.name];
    for (PlanTest &t : tests)
        if (uses[t.name] > 1) {
            const bool all = t.concurrent;
            t.name = t.name.substr(0, t.name.size() - (all ? 4 : 0)) + "-" + t.dtype + (all ? "-all" : "");
        }
    if (options.jsonPlan) {
        using ojson = nlohmann::ordered_json;
        std::string out = "{\n  \"format\": \"railyard-nccl-plan\",\n  \"scenario\": "
            + jsonString(engine.scenario().name)
            + ",\n  \"mapping_version\": " + std::to_string(engine.scenario().mappingVersion)
            + ",\n  \"fabric_hash\": \"" + fabricHash(fabric.spec())
            + "\",\n  \"nccl_env\": {\"NCCL_PXN_DISABLE\": \"" + (fabric.spec().pxn ? "0" : "1")
            + (fabric.scaleUpDomainServers() > 1 ? "\", \"NCCL_MNNVL_ENABLE\": \"1" : "")
            + "\"},\n  \"tests\": [\n";
        for (std::size_t i = 0; i < tests.size(); ++i) {
            const PlanTest &t = tests[i];
            ojson j;
            j["name"] = t.name;
            j["kind"] = t.section;
            j["binary"] = ncclTestsBinary(t.op);
            j["collective"] = std::string(collectiveName(t.op));
            j["bytes"] = t.bytes;
            j["dtype"] = t.dtype;
            j["nccl_algo"] = t.algo.empty() ? ojson(nullptr) : ojson(t.algo);
            j["ops"] = t.what;
            j["split"] = "DIV " + std::to_string(t.groups.front().size());
            std::vector<int> ranks;
            std::vector<std::string> hs;
            std::vector<int> gpus, nics;
            std::vector<std::string> hcas;
            for (const auto &g : t.groups)
                for (int r : g) {
                    const RankPlacement &p = rows[static_cast<std::size_t>(r)];
                    ranks.push_back(r);
                    hs.push_back(p.host);
                    gpus.push_back(p.gpu);
                    nics.push_back(p.nic);
                    hcas.push_back(hcaPrefix + std::to_string(p.nic));
                }
            j["groups"] = t.groups.size();
            j["ranks"] = ranks;
            j["hosts"] = hs;
            j["gpus"] = gpus;
            j["nics"] = nics;
            j["hcas"] = hcas;
            // A run without a prediction says so (null), never a time of 0.
            const auto num = [](double v) { return std::strtod(strf("%.6g", v).c_str(), nullptr); };
            const auto orNull = [](const std::string &v) { return v.empty() ? ojson(nullptr) : ojson(v); };
            const double algbw = t.time > 0.0 ? static_cast<double>(t.bytes) / t.time : 0.0;
            j["predicted"] = t.time > 0.0
                ? ojson { { "time_s", num(t.time) }, { "algbw_gbytes_per_s", num(algbw / 1e9) },
                      { "busbw_gbytes_per_s", num(algbw * t.busFactor / 1e9) },
                      { "bottleneck", orNull(t.bottleneck) }, { "engine_phase", orNull(t.phase) } }
                : ojson { { "time_s", nullptr }, { "algbw_gbytes_per_s", nullptr },
                      { "busbw_gbytes_per_s", nullptr }, { "bottleneck", nullptr },
                      { "engine_phase", orNull(t.phase) } };
            out += "    " + jsonDump(j) + (i + 1 < tests.size() ? ",\n" : "\n");
        }
        return out + "  ]\n}\n";
    }

    const std::string pxnDisable = fabric.spec().pxn ? "0" : "1";
    std::string out = "#!/bin/sh\n";
    out += headerComment(engine, "nccl-tests measurement plan: sh FILE");
    out += "#\n"
           "# The seed's order: the fixed-(d,p) TP group, then adjacent-p boundaries, then the\n"
           "# fixed-(p,t) DP reduction (then EP / CP groups), each with the workload's real "
           "message\n"
           "# size, first one group alone, then every group of its kind at once (\"-all\"), each\n"
           "# process pinned to the GPU and NIC of this mapping. Compare nccl-tests' busbw column\n"
           "# (GB/s = 1e9 bytes/s) with the engine's prediction above each run.\n"
           "# sendrecv_perf with 2 ranks sends both ways at once; links are full duplex, so its\n"
           "# time compares with one direction's prediction.\n"
           "# Every run pins NCCL_ALGO to the algorithm of the prediction where NCCL has it and\n"
           "# sets NCCL_PXN_DISABLE="
        + pxnDisable
        + (fabric.spec().pxn ? " (the fabric model uses PXN, NCCL's default)"
                             : " (the fabric model has no PXN; NCCL enables it by default)")
        + ".\n"
          "# The script stops at the first run whose mpirun fails or whose log reports wrong\n"
          "# values (nccl-tests' #wrong columns, \"Out of bounds values\"), naming the run.\n"
          "#\n"
          "# Needs: nccl-tests built with MPI=1 (github.com/NVIDIA/nccl-tests), Open MPI's "
          "mpirun,\n"
          "# ssh to every host and $RESULTS on a file system every host sees.\n"
          "# Environment: NCCL_TESTS_DIR (./build), HCA_PREFIX (NIC i is ${HCA_PREFIX}i, default\n"
          "# "
        + hcaPrefix
        + "), MPIRUN (mpirun), MPIRUN_ARGS (extra options), "
          "RESULTS (./nccl-results).\n";
    out += "set -eu\n"
           "NCCL_TESTS_DIR=${NCCL_TESTS_DIR:-./build}\n"
           "HCA_PREFIX=${HCA_PREFIX:-"
        + hcaPrefix
        + "}\n"
          "MPIRUN=${MPIRUN:-mpirun}\n"
          "MPIRUN_ARGS=${MPIRUN_ARGS:-}\n"
          "RESULTS=${RESULTS:-./nccl-results}\n"
          "mkdir -p \"$RESULTS\"\n"
          "# Run by mpirun for every process: world rank r takes the r-th word of RY_GPUS / "
          "RY_NICS.\n"
          "cat > \"$RESULTS/ry-bind.sh\" <<'EOF'\n"
          "#!/bin/sh\n"
          "r=${OMPI_COMM_WORLD_RANK:?ry-bind.sh runs under Open MPI mpirun}\n"
          "g=$(echo \"$RY_GPUS\" | cut -d' ' -f$((r + 1)))\n"
          "n=$(echo \"$RY_NICS\" | cut -d' ' -f$((r + 1)))\n"
          "export CUDA_VISIBLE_DEVICES=\"$g\" NCCL_TESTS_DEVICE=0 "
          "NCCL_IB_HCA=\"=${RY_HCA_PREFIX}${n}\"\n"
          "exec \"$@\"\n"
          "EOF\n"
          "# Prints the number of wrong values a nccl-tests log reports (nothing when 0): the\n"
          "# data rows' #wrong columns (found from the header) and the \"Out of bounds values\" "
          "line.\n"
          "ry_wrong() {\n"
          "  awk '/^#/ && /#wrong/ { n = 0; for (i = 2; i <= NF; i++) if ($i == \"#wrong\") "
          "col[++n] = i - 1; next }\n"
          "    /Out of bounds values/ { split($0, a, \":\"); v = a[2] + 0; if (v > oob) oob = v; "
          "next }\n"
          "    /^#/ { next }\n"
          "    $1 ~ /^[0-9]+$/ { for (k = 1; k <= n; k++) { v = $(col[k]); if (v ~ /^[0-9]+$/) "
          "rows += v } }\n"
          "    END { w = rows > oob ? rows : oob; if (w > 0) print w }' \"$1\"\n"
          "}\n"
          "# ry_test NAME SPLIT HOSTS GPUS NICS ALGO BINARY ARGS...: one run, output in "
          "$RESULTS/NAME.log\n"
          "ry_test() {\n"
          "  name=$1 split=$2 hosts=$3 gpus=$4 nics=$5 algo=$6 bin=$7\n"
          "  shift 7\n"
          "  log=\"$RESULTS/$name.log\"\n"
          "  printf '%s\\n' $hosts > \"$RESULTS/$name.hosts\"\n"
          "  rm -f \"$RESULTS/$name.status\"\n"
          "  echo \"== $name\"\n"
          "  { st=0\n"
          "    $MPIRUN $MPIRUN_ARGS -np \"$(wc -l < \"$RESULTS/$name.hosts\")\" \\\n"
          "      --hostfile \"$RESULTS/$name.hosts\" --map-by seq --bind-to none \\\n"
          "      -x RY_GPUS=\"$gpus\" -x RY_NICS=\"$nics\" -x RY_HCA_PREFIX=\"$HCA_PREFIX\" \\\n"
          "      -x NCCL_TESTS_SPLIT=\"$split\" -x NCCL_PXN_DISABLE="
        + pxnDisable + (fabric.scaleUpDomainServers() > 1 ? " -x NCCL_MNNVL_ENABLE=1" : "")
        + " ${algo:+-x NCCL_ALGO=$algo} \\\n"
          "      sh \"$RESULTS/ry-bind.sh\" \"$NCCL_TESTS_DIR/$bin\" -g 1 \"$@\" 2>&1 || st=$?\n"
          "    echo \"$st\" > \"$RESULTS/$name.status\"\n"
          "  } | tee \"$log\"\n"
          "  st=$(cat \"$RESULTS/$name.status\" 2>/dev/null || echo 1)\n"
          "  if [ \"$st\" != 0 ]; then\n"
          "    echo \"$0: run $name failed: mpirun exited with status $st (log: $log)\" >&2\n"
          "    exit 1\n"
          "  fi\n"
          "  wrong=$(ry_wrong \"$log\")\n"
          "  if [ -n \"$wrong\" ]; then\n"
          "    echo \"$0: run $name failed: nccl-tests reports $wrong wrong values (log: $log)\" "
          ">&2\n"
          "    exit 1\n"
          "  fi\n"
          "}\n";
    std::string section;
    for (const PlanTest &t : tests) {
        if (t.section != section) {
            section = t.section;
            out += "\n# ==== " + section + " groups ("
                + (section == "tp"        ? std::string("fixed (d, p): tensor parallel")
                        : section == "pp" ? std::string("adjacent stages: pipeline boundaries")
                        : section == "dp" ? std::string("fixed (p, t): data-parallel gradient sync")
                        : section == "edp" ? std::string("expert data parallel")
                        : section == "ep"  ? std::string("expert parallel token dispatch")
                                           : std::string("context parallel ring"))
                + ") ====\n";
        }
        std::string hs, gpus, nics;
        for (const auto &g : t.groups)
            for (int r : g) {
                const RankPlacement &p = rows[static_cast<std::size_t>(r)];
                hs += (hs.empty() ? "" : " ") + p.host;
                gpus += (gpus.empty() ? "" : " ") + std::to_string(p.gpu);
                nics += (nics.empty() ? "" : " ") + std::to_string(p.nic);
            }
        out += "\n# " + t.name + ": " + std::string(collectiveName(t.op)) + " of "
            + std::to_string(t.bytes) + " B (" + formatBytes(static_cast<double>(t.bytes))
            + "): " + oneLine(t.what) + "\n";
        // Comment text goes through oneLine: a link name embeds server names, which may hold
        // anything a file or --hosts gave (a newline would end the comment and start a command).
        out += "# "
            + oneLine(t.groupText + (t.phase.empty() ? "" : " (engine phase \"" + t.phase + "\")"))
            + "\n";
        out += "# predicted: " + oneLine(predictionText(t)) + "\n";
        out += "# NCCL_ALGO: " + (t.algo.empty() ? std::string("NCCL's choice") : t.algo) + "\n";
        out += "ry_test " + t.name + " \"DIV " + std::to_string(t.groups.front().size()) + "\" \""
            + hs + "\" \"" + gpus + "\" \"" + nics + "\" \"" + t.algo + "\" " + ncclTestsBinary(t.op)
            + " -b " + std::to_string(t.bytes) + " -e " + std::to_string(t.bytes) + " -d " + t.dtype
            + "\n";
    }
    return out;
}

} // namespace railyard::exportdetail
