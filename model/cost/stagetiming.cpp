#include "cost/stagetiming.h"

#include <algorithm>

namespace railyard {

std::vector<StagePass> stagePasses(
    const WorkloadPlan &plan, const PhaseTimes &times, OpPass pass, std::optional<Dim> off)
{
    const std::size_t stages = plan.stages.size();
    std::vector<StagePass> t(stages);
    std::vector<double> cp(stages, 0.0);
    for (std::size_t s = 0; s < stages; ++s) {
        const StageCompute &c = plan.stages[s];
        t[s].compute = pass == OpPass::Forward ? c.forwardTime : c.backwardTime;
    }
    for (std::size_t i = 0; i < plan.ops.size(); ++i) {
        const CommOp &op = plan.ops[i];
        if (op.pass != pass || off == op.dim)
            continue;
        const auto s = static_cast<std::size_t>(op.stage);
        const double run = i < times.op.size() ? times.op[i] : 0.0;
        switch (op.dim) {
        case Dim::Tp:
            // TP collectives sit between dependent ops of a layer: on the critical path, but for
            // what runs beside a GEMM (compute-only overlap costs nothing).
            t[s].comm += op.count * std::max(0.0, run - op.overlapTime);
            break;
        case Dim::Ep:
            t[s].comm += op.count * run;
            break;
        case Dim::Cp:
            // PyTorch's ring: each exchange hides behind its own SDPA step only.
            if (op.stepwise)
                t[s].comm += op.count * std::max(0.0, run - op.overlapTime);
            else
                cp[s] += op.count * run;
            break;
        case Dim::Pp:
        case Dim::Dp:
            break;
        }
    }
    // ZeRO-3 / FSDP with prefetch: the iteration's parameter all-gather (PhaseTimes, all runs
    // together) is 2 m runs per layer, one before the layer's forward and one before its
    // backward of every micro-batch; each run pays the collective's latency.
    const bool gathers = times.gatherPrefetch && times.dpPresent && off != Dim::Dp
        && pass != OpPass::Iteration && times.gatherBeta > 0.0;
    for (std::size_t s = 0; gathers && s < stages; ++s) {
        const int layers = plan.stages[s].layers;
        if (layers <= 0)
            continue;
        const double runs = 2.0 * plan.microbatches * layers;
        const double gather = times.gatherAlpha + times.gatherBeta / runs;
        t[s].comm += fsdpGatherExposed(layers, gather, t[s].compute, *times.gatherPrefetch);
    }
    for (std::size_t s = 0; s < stages; ++s) {
        // Ring attention overlaps the K/V exchange with the attention core (Liu et al. 2023,
        // Megatron-LM context parallelism): only what the core cannot hide is exposed.
        const StageCompute &c = plan.stages[s];
        const double core
            = pass == OpPass::Forward ? c.attentionCoreForwardTime : c.attentionCoreBackwardTime;
        t[s].comm += std::max(0.0, cp[s] - core);
    }
    return t;
}

double fsdpGatherExposed(int layers, double gather, double compute, double prefetch)
{
    if (layers <= 0 || gather <= 0.0)
        return 0.0;
    const double f = std::clamp(prefetch, 0.0, 1.0);
    const double c = compute / layers;
    const double later = (1.0 - f) * gather + f * std::max(0.0, gather - c);
    return gather + (layers - 1) * later;
}

SyncPlan syncPlanFor(const Scenario &scenario, const WorkloadPlan &plan, const PhaseTimes &times,
    const OverlapChannels &channels, std::optional<Dim> off)
{
    const TrainingSpec &tr = scenario.training;
    SyncPlan p;
    p.present = times.dpPresent && off != Dim::Dp;
    p.overlapReduce = tr.dpOverlap;
    p.overlapGather = tr.overlapParamGather && tr.distributedOptimizer;
    // Overlapped, the sync shares its links with the traffic of the pass it hides behind: on
    // each shared link its time is (its bytes + theirs) / bandwidth (OverlapChannels).
    p.reduceAlpha = times.reduceAlpha;
    p.reduceBeta = p.overlapReduce ? std::max(times.reduceBeta, channels.reduceContention(off))
                                   : times.reduceBeta;
    p.gatherAlpha = times.gatherAlpha;
    p.gatherBeta = p.overlapGather ? std::max(times.gatherBeta, channels.gatherContention(off))
                                   : times.gatherBeta;
    if (times.gatherPrefetch) {
        // The gathers run in the passes (stagePasses()), not after the last backward.
        p.overlapGather = false;
        p.gatherAlpha = p.gatherBeta = 0.0;
    }
    // Each chunk's gradients (and parameters) are its layers' share of the stage's, cut into one
    // bucket per layer.
    for (const StageCompute &c : plan.stages) {
        std::vector<double> share;
        for (int layers : c.chunkLayers)
            share.push_back(c.layers > 0 ? static_cast<double>(layers) / c.layers : 0.0);
        p.share.push_back(std::move(share));
        p.buckets.push_back(c.chunkLayers);
        // The optimizer step runs after the gradient sync on every stage; the slowest stage's
        // (workloadplan.cpp: a memory-bound Adam update) ends the iteration.
        p.optimizer = std::max(p.optimizer, c.optimizerTime);
    }
    // The tied embedding's all-reduce is pipeline traffic: the variant without PP drops it.
    p.tiedEmbedding = off == Dim::Pp ? 0.0 : times.tiedEmbedding;
    p.linkBound = channels.bound(off);
    return p;
}

Timing timeVariant(const Scenario &scenario, const WorkloadPlan &plan, const PhaseTimes &times,
    const OverlapChannels &channels, std::optional<Dim> off, EventOrder order)
{
    Timing t;
    timeVariant(scenario, plan, times, channels, off, order, t);
    return t;
}

void timeVariant(const Scenario &scenario, const WorkloadPlan &plan, const PhaseTimes &times,
    const OverlapChannels &channels, std::optional<Dim> off, EventOrder order, Timing &t)
{
    const int stages = scenario.degrees.pp;
    const int v = chunksPerRank(scenario.training);
    const bool pp = off != Dim::Pp;
    t.forward = stagePasses(plan, times, OpPass::Forward, off);
    t.backward = stagePasses(plan, times, OpPass::Backward, off);
    t.sync = syncPlanFor(scenario, plan, times, channels, off);
    PipelineInput &in = t.input;
    // Every field as a new PipelineInput has it, the vectors' capacity kept.
    for (std::vector<double> *list : { &in.forward, &in.backward, &in.sendForward, &in.sendBackward,
             &in.chunkForward, &in.chunkBackward, &in.forwardReady, &in.weightGrad, &in.forwardComm,
             &in.backwardComm })
        list->clear();
    in.wrapForward.reset();
    in.wrapBackward.reset();
    in.kind = scenario.training.schedule;
    in.stages = stages;
    in.microbatches = plan.microbatches;
    in.chunks = v;
    for (int s = 0; s < stages; ++s) {
        in.forward.push_back(t.forward[s].total());
        in.backward.push_back(t.backward[s].total());
    }
    if (splitsWeightGrad(in.kind)) {
        // W: the weight-gradient GEMMs (workloadplan.h, StageCompute::weightGradTime); the
        // backward's communication stays with B, whose gradient the upstream stage waits for.
        // DualPipe's overlapped pairs hide each chunk's exposed communication behind the other
        // chunk's compute (PipelineInput::forwardComm).
        for (int s = 0; s < stages; ++s) {
            in.weightGrad.push_back(std::min(plan.stages[s].weightGradTime, in.backward[s]));
            in.forwardComm.push_back(t.forward[s].comm);
            in.backwardComm.push_back(t.backward[s].comm);
        }
    }
    // Unequal chunks (uneven layers, the embedding, the LM head) keep their own compute; the
    // stage's exposed communication is spread over its chunks like the compute.
    const auto part = [v](const StagePass &p, const std::vector<double> &chunk, int c) {
        const double own = static_cast<std::size_t>(c) < chunk.size() ? chunk[c] : p.compute / v;
        return own + p.comm * (p.compute > 0.0 ? own / p.compute : 1.0 / v);
    };
    std::vector<double> chunkForward;
    for (int c = 0; c < v; ++c) {
        for (int s = 0; s < stages; ++s) {
            const StageCompute &sc = plan.stages[s];
            chunkForward.push_back(part(t.forward[s], sc.chunkForwardTime, c));
            if (v > 1) {
                in.chunkForward.push_back(chunkForward.back());
                in.chunkBackward.push_back(part(t.backward[s], sc.chunkBackwardTime, c));
            }
        }
    }
    if (pp) {
        in.sendForward = times.sendForward;
        in.sendBackward = times.sendBackward;
    }
    if (v > 1) {
        in.wrapForward = pp ? times.wrapForward : 0.0;
        in.wrapBackward = pp ? times.wrapBackward : 0.0;
    }
    in.forwardReady = gatherReadyTimes(t.sync, stages, v, chunkForward);
    schedulePipeline(in, order, t.timeline);
    t.iteration = timeIteration(t.timeline, stages, v, t.sync);
}

} // namespace railyard
