#include "cost/trafficplan.h"

#include "cost/nccltuning.h"
#include "workload/eprouting.h"

#include <algorithm>

namespace railyard {

namespace {

bool isExpertOp(const CommOp &op)
{
    return op.what.find("expert") != std::string::npos;
}

} // namespace

TrafficPlan planTraffic(const Scenario &scenario, const WorkloadPlan &plan)
{
    const int stages = scenario.degrees.pp;
    TrafficPlan out;
    TrafficModel::Setup &setup = out.setup;
    setup.hierarchicalDp = scenario.training.hierarchicalAllReduce;
    setup.dpShard = scenario.training.fsdpShard;
    setup.ppWrap = chunksPerRank(scenario.training) > 1;
    setup.ppTied = plan.tiedEmbeddingBytes > 0.0;
    setup.observed = scenario.ncclObserved.comms;
    setup.algorithm = scenario.collectives.algorithm;
    setup.device
        = nccltuning::deviceTuning(scenario.device, scenario.collectives, scenario.calibration);
    setup.stageDpBytes.assign(stages, 0.0);
    std::vector<double> expertBytes(stages, 0.0);
    bool anyExpert = false;

    // The first DP op of each stage is the reference size of that stage's sync; later DP ops
    // (the all-gather after a reduce-scatter) are expressed as a ratio of it.
    for (const CommOp &op : plan.ops) {
        if (op.dim != Dim::Dp || op.pass != OpPass::Iteration || op.replicaGroup)
            continue;
        std::vector<double> &ref = isExpertOp(op) ? expertBytes : setup.stageDpBytes;
        anyExpert = anyExpert || isExpertOp(op);
        if (ref[op.stage] == 0.0)
            ref[op.stage] = op.bytes;
    }
    if (anyExpert)
        setup.stageExpertDpBytes = expertBytes;
    // Skewed expert routing (workload/eprouting.h): H_j per EP member weights the all-to-all.
    if (scenario.degrees.ep > 1 && !scenario.model.routing.isUniform())
        setup.epShares = memberShares(scenario.model.routing, scenario.model.experts,
            scenario.degrees.ep, scenario.model.topK);
    const bool denseRef = std::any_of(
        setup.stageDpBytes.begin(), setup.stageDpBytes.end(), [](double b) { return b > 0.0; });
    for (const CommOp &op : plan.ops) {
        if (op.dim != Dim::Dp || op.pass != OpPass::Iteration || op.stage != 0
            || isExpertOp(op) == denseRef)
            continue;
        const double ref = denseRef ? setup.stageDpBytes[0] : expertBytes[0];
        out.dpOps.push_back(
            { op.collective, ref > 0.0 ? op.bytes / ref : 0.0, op.what, op.replicaGroup });
    }
    // The families' ops (TrafficModel chooses their algorithms): TP per stage, runs per
    // iteration; the DP sync once per iteration, its S a ratio of the stage's sync size.
    const double m = plan.microbatches;
    setup.tpOps.assign(static_cast<std::size_t>(stages), {});
    if (scenario.degrees.tp > 1)
        for (const CommOp &op : plan.ops)
            if (op.dim == Dim::Tp) {
                const double perIteration = op.pass == OpPass::Iteration ? op.count : op.count * m;
                setup.tpOps[op.stage].push_back({ op.collective, op.bytes,
                    ringPasses(op.collective) * op.bytes * perIteration });
            }
    for (const DpOp &op : out.dpOps)
        (op.replica ? setup.dpReplicaOps : setup.dpOps)
            .push_back({ op.collective, op.ratio, ringPasses(op.collective) * op.ratio });
    return out;
}

std::vector<double> patternWeights(
    const TrafficModel &traffic, const WorkloadPlan &plan, int chunks)
{
    const int stages = static_cast<int>(plan.stages.size());
    const double m = plan.microbatches;
    std::vector<double> weight(traffic.patternCount(), 0.0);
    for (const CommOp &op : plan.ops) {
        const double perIteration = op.pass == OpPass::Iteration ? op.count : op.count * m;
        const double bytes = ringPasses(op.collective) * op.bytes * perIteration;
        int pattern = -1;
        switch (op.dim) {
        case Dim::Tp:
            break; // the TP family weighs its patterns by the ops' choices (TrafficModel)
        case Dim::Cp:
            pattern = traffic.cpPattern(op.stage);
            break;
        case Dim::Ep:
            pattern = traffic.epPattern(op.stage);
            // Dispatch and combine (the op counts both) each move half of the bytes.
            if (const int combine = traffic.epCombinePattern(op.stage); combine >= 0) {
                weight[combine] += 0.5 * bytes;
                weight[pattern] += 0.5 * bytes;
                pattern = -1;
            }
            break;
        case Dim::Pp:
        case Dim::Dp:
            break; // weighted below
        }
        if (pattern >= 0)
            weight[pattern] += bytes;
    }
    // Every micro-batch crosses each boundary once per model chunk in each direction, and the
    // interleaved wrap-around once between consecutive chunks.
    for (int b = 0; b + 1 < stages; ++b) {
        const double w = plan.boundaryActivationBytes * m * chunks;
        weight[traffic.ppForwardPattern(b)] = w;
        weight[traffic.ppBackwardPattern(b)] = w;
    }
    if (traffic.ppWrapForwardPattern() >= 0) {
        // The tied embedding's all-reduce between the two ends of the pipeline: a ring of two
        // sends S/2 each way in its reduce-scatter and again in its all-gather.
        const double w = plan.boundaryActivationBytes * m * (chunks - 1) + plan.tiedEmbeddingBytes;
        weight[traffic.ppWrapForwardPattern()] = w;
        weight[traffic.ppWrapBackwardPattern()] = w;
    }
    return weight; // the DP family weighs its own patterns too
}

} // namespace railyard
