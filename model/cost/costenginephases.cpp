#include "cost/costengineimpl.h"
#include "cost/stagetiming.h"
#include "cost/trafficmodel.h"

#include <algorithm>
#include <string>

/**
 * The cost engine's phase times: each communication op's time on its traffic pattern (TP and
 * DP ops as their collective family chooses, EP, CP), the pipeline sends and the wrap-around,
 * the tied embedding's all-reduce, and the report's list of phases.
 */

namespace railyard {

double CostEngine::Impl::opTime(int pattern, Collective c, double bytes) const
{
    if (pattern < 0)
        return 0.0;
    // Phase time = its alpha terms + its most loaded link's bytes over that link's bandwidth:
    // passes * steps * alpha + passes * S * max_l(load_l / B_l). For a ring all-reduce on p ranks
    // of one bandwidth B this is T = 2(p-1)a + 2(p-1)/p S/B (Thakur, Rabenseifner, Gropp,
    // "Optimization of Collective Communication Operations in MPICH", IJHPCA 2005).
    const TrafficPattern &p = traffic->pattern(pattern);
    const int passes = ringPasses(c);
    return passes * p.stepCount() * p.maxLatency() + passes * bytes * p.maxRatio;
}

double CostEngine::Impl::epOpTime(int stage, Collective c, double bytes) const
{
    const int dispatch = traffic->epPattern(stage);
    const int combine = traffic->epCombinePattern(stage);
    // A run of the EP op is a dispatch or a combine, as many of each: with skewed routing the
    // two directions load different links, so a run takes the mean of their phase times.
    if (combine < 0)
        return opTime(dispatch, c, bytes);
    return 0.5 * (opTime(dispatch, c, bytes) + opTime(combine, c, bytes));
}

double CostEngine::Impl::tpOpTime(std::size_t i) const
{
    const CommOp &op = plan.ops[i];
    if (!traffic->settled()) // loads in flux: choose from them as they are, keep nothing
        return traffic->tpChoice(op.stage, op.collective, op.bytes).time;
    const std::uint64_t version = traffic->tpVersion(op.stage);
    if (tpRunVersion[i] != version) {
        tpRun[i] = traffic->tpChoice(op.stage, op.collective, op.bytes).time;
        tpRunVersion[i] = version;
    }
    return tpRun[i];
}

PhaseTimes CostEngine::Impl::phaseTimes() const
{
    PhaseTimes t;
    t.op.reserve(plan.ops.size());
    for (std::size_t i = 0; i < plan.ops.size(); ++i) {
        const CommOp &op = plan.ops[i];
        double run = 0.0;
        switch (op.dim) {
        case Dim::Tp:
            // Each TP op runs the algorithm and protocol its family chooses (tpChoice).
            run = tpOpTime(i);
            break;
        case Dim::Ep:
            run = epOpTime(op.stage, op.collective, op.bytes);
            break;
        case Dim::Cp:
            run = opTime(traffic->cpPattern(op.stage), op.collective, op.bytes);
            break;
        case Dim::Pp:
        case Dim::Dp:
            break;
        }
        t.op.push_back(run);
    }
    t.sendForward = boundaryTimes(true);
    t.sendBackward = boundaryTimes(false);
    t.wrapForward = wrapTime(true);
    t.wrapBackward = wrapTime(false);
    t.tiedEmbedding = tiedEmbeddingTime();
    t.dpPresent = present[index(Dim::Dp)];
    t.gatherPrefetch = scenario.training.fsdpPrefetch;
    for (const DpOp &op : dpOps) {
        // The DP loads are already in bytes (scaled by each stage's S): an op's S is its ratio.
        // Each op runs the algorithm its family chooses; its latency and bandwidth parts split
        // into the gradient reduction and the parameter all-gather.
        const CollectiveChoice c = traffic->dpChoice(op.collective, op.ratio, op.replica);
        const bool gather = op.collective == Collective::AllGather;
        (gather ? t.gatherAlpha : t.reduceAlpha) += c.alpha;
        (gather ? t.gatherBeta : t.reduceBeta) += std::max(0.0, c.time - c.alpha);
    }
    return t;
}

std::vector<double> CostEngine::Impl::boundaryTimes(bool forward) const
{
    std::vector<double> t;
    for (int b = 0; b + 1 < scenario.degrees.pp; ++b) {
        const int pattern = forward ? traffic->ppForwardPattern(b) : traffic->ppBackwardPattern(b);
        t.push_back(opTime(pattern, Collective::SendRecv, plan.boundaryActivationBytes));
    }
    return t;
}

double CostEngine::Impl::wrapTime(bool forward) const
{
    const int pattern
        = forward ? traffic->ppWrapForwardPattern() : traffic->ppWrapBackwardPattern();
    return pattern < 0 ? 0.0 : opTime(pattern, Collective::SendRecv, plan.boundaryActivationBytes);
}

int CostEngine::Impl::tiedEmbeddingPattern() const
{
    // A ring all-reduce of two ranks: a reduce-scatter and an all-gather, each one step of S/2
    // each way, 2 alpha + S / B (Thakur, Rabenseifner and Gropp, IJHPCA 2005, at p = 2); both
    // directions run at once, so the slower one's route decides.
    const int forward = traffic->ppWrapForwardPattern();
    const int backward = traffic->ppWrapBackwardPattern();
    const double half = 0.5 * plan.tiedEmbeddingBytes;
    return opTime(backward, Collective::AllReduce, half)
            > opTime(forward, Collective::AllReduce, half)
        ? backward
        : forward;
}

double CostEngine::Impl::tiedEmbeddingTime() const
{
    if (plan.tiedEmbeddingBytes <= 0.0)
        return 0.0;
    return opTime(tiedEmbeddingPattern(), Collective::AllReduce, 0.5 * plan.tiedEmbeddingBytes);
}

double CostEngine::Impl::linkBoundAt(int microbatches) const
{
    if (microbatches == plan.microbatches)
        return main.sync.linkBound;
    // Another micro-batch count (a bubble sweep): everything but the DP sync scales with it.
    const double scale = static_cast<double>(microbatches) / plan.microbatches;
    double worst = 0.0;
    for (int i = 0; i < fabric.linkCount(); ++i) {
        const LinkLoad &l = report.links[i];
        const double dp = l.dimBytes[index(Dim::Dp)];
        worst = std::max(worst, ((l.bytes - dp) * scale + dp) / fabric.linkBandwidth(i));
    }
    return worst;
}

void CostEngine::Impl::fillPhases()
{
    report.phases.clear();
    auto add = [&](std::string name, Dim dim, Collective c, OpPass pass, int stage, double bytes,
                   double count, int pattern) {
        PhaseResult ph;
        ph.name = std::move(name);
        ph.dim = dim;
        ph.collective = c;
        ph.pass = pass;
        ph.stage = stage;
        ph.bytes = bytes;
        ph.count = count;
        if (pattern >= 0) {
            const TrafficPattern &p = traffic->pattern(pattern);
            ph.alphaTime = ringPasses(c) * p.stepCount() * p.maxLatency();
            ph.time = opTime(pattern, c, bytes);
            ph.bottleneckLink = p.argmax;
        }
        report.phases.push_back(std::move(ph));
    };
    // A collective family's op: the algorithm and protocol it runs, its time and busiest link.
    const auto chosen = [&](const CollectiveChoice &c) {
        PhaseResult &ph = report.phases.back();
        ph.alphaTime = c.alpha;
        ph.time = c.time;
        ph.bottleneckLink = c.pattern >= 0 ? traffic->pattern(c.pattern).argmax : -1;
        ph.algorithm = std::string(planAlgorithmName(c.algorithm));
        ph.protocol = std::string(protocolName(c.protocol));
    };
    for (const CommOp &op : plan.ops) {
        int pattern = -1;
        if (op.dim == Dim::Tp)
            pattern = traffic->tpPattern(op.stage);
        else if (op.dim == Dim::Ep)
            pattern = traffic->epPattern(op.stage);
        else if (op.dim == Dim::Cp)
            pattern = traffic->cpPattern(op.stage);
        else
            continue;
        const char *pass = op.pass == OpPass::Forward ? "fwd" : "bwd";
        add(std::string(dimName(op.dim)) + " " + pass + " stage " + std::to_string(op.stage) + ": "
                + op.what,
            op.dim, op.collective, op.pass, op.stage, op.bytes, op.count, pattern);
        if (op.dim == Dim::Tp) {
            chosen(traffic->tpChoice(op.stage, op.collective, op.bytes));
            // The part a GEMM beside it hides (stagePasses()).
            report.phases.back().hidden = std::min(op.overlapTime, report.phases.back().time);
        }
        if (op.stepwise) // PyTorch's ring: the SDPA step beside it hides this much
            report.phases.back().hidden = std::min(op.overlapTime, report.phases.back().time);
        if (const int combine = op.dim == Dim::Ep ? traffic->epCombinePattern(op.stage) : -1;
            combine >= 0) {
            // Skewed routing: dispatch and combine load different links (epOpTime()).
            PhaseResult &ph = report.phases.back();
            ph.time = epOpTime(op.stage, op.collective, op.bytes);
            const TrafficPattern &c = traffic->pattern(combine);
            if (c.maxRatio > traffic->pattern(pattern).maxRatio)
                ph.bottleneckLink = c.argmax;
        }
    }
    for (int b = 0; b + 1 < scenario.degrees.pp; ++b) {
        add("pp fwd boundary " + std::to_string(b) + "->" + std::to_string(b + 1), Dim::Pp,
            Collective::SendRecv, OpPass::Forward, b, plan.boundaryActivationBytes, chunks(),
            traffic->ppForwardPattern(b));
        add("pp bwd boundary " + std::to_string(b + 1) + "->" + std::to_string(b), Dim::Pp,
            Collective::SendRecv, OpPass::Backward, b + 1, plan.boundaryActivationBytes, chunks(),
            traffic->ppBackwardPattern(b));
    }
    if (const int wrap = traffic->ppWrapForwardPattern(); wrap >= 0 && chunks() > 1) {
        const int last = scenario.degrees.pp - 1;
        add("pp fwd wrap " + std::to_string(last) + "->0", Dim::Pp, Collective::SendRecv,
            OpPass::Forward, last, plan.boundaryActivationBytes, chunks() - 1, wrap);
        add("pp bwd wrap 0->" + std::to_string(last), Dim::Pp, Collective::SendRecv,
            OpPass::Backward, 0, plan.boundaryActivationBytes, chunks() - 1,
            traffic->ppWrapBackwardPattern());
    }
    if (plan.tiedEmbeddingBytes > 0.0) {
        // S in the list; each of the two passes moves S/2 on the slower direction's route.
        const int last = scenario.degrees.pp - 1;
        add("pp tied embedding gradient all-reduce 0<->" + std::to_string(last), Dim::Pp,
            Collective::AllReduce, OpPass::Iteration, -1, plan.tiedEmbeddingBytes, 1, -1);
        PhaseResult &ph = report.phases.back();
        const TrafficPattern &p = traffic->pattern(tiedEmbeddingPattern());
        ph.alphaTime = ringPasses(Collective::AllReduce) * p.stepCount() * p.maxLatency();
        ph.time = tiedEmbeddingTime();
        ph.bottleneckLink = p.argmax;
    }
    for (const DpOp &op : dpOps) {
        PhaseResult ph;
        ph.name = "dp sync: " + op.what;
        ph.dim = Dim::Dp;
        ph.collective = op.collective;
        ph.pass = OpPass::Iteration;
        ph.stage = -1;
        ph.bytes = stageDpBytes.empty() ? 0.0 : op.ratio * stageDpBytes[0];
        ph.count = 1;
        report.phases.push_back(std::move(ph));
        chosen(traffic->dpChoice(op.collective, op.ratio, op.replica));
    }
}

} // namespace railyard
