#include "cost/bytessent.h"

namespace railyard {

double busFactor(Collective c, int n)
{
    if (n < 2)
        return 0.0;
    const double share = static_cast<double>(n - 1) / static_cast<double>(n);
    switch (c) {
    case Collective::AllReduce:
        return 2.0 * share;
    case Collective::AllGather:
    case Collective::ReduceScatter:
    case Collective::AllToAll:
        return share;
    case Collective::SendRecv:
        break;
    }
    return 1.0;
}

DimArray bytesSent(const WorkloadPlan &plan, const ParallelDegrees &d, int chunks, int dpShard)
{
    DimArray out{};
    const double m = plan.microbatches;
    // Every stage holds world / pp ranks, each in one group of every kind.
    const double ranksPerStage = static_cast<double>(d.tp) * d.dp * d.cp;
    const int dpGroup = d.dp * d.cp;
    for (const CommOp &op : plan.ops) {
        int n = 0;
        switch (op.dim) {
        case Dim::Tp:
            n = d.tp;
            break;
        case Dim::Cp:
            n = d.cp;
            break;
        case Dim::Ep:
            n = d.ep;
            break;
        case Dim::Dp:
            // Dense gradients over dp x cp, expert gradients over dp x cp / ep.
            n = op.what.find("expert") != std::string::npos ? dpGroup / d.ep : dpGroup;
            // Hybrid sharding: the shard groups' ops over R, the replicas' over dp x cp / R.
            if (dpShard > 0 && dpShard < dpGroup && n == dpGroup)
                n = op.replicaGroup ? dpGroup / dpShard : dpShard;
            break;
        case Dim::Pp:
            continue; // boundaries and the tied embedding's all-reduce below
        }
        const double runs = op.pass == OpPass::Iteration ? op.count : op.count * m;
        out[index(op.dim)] += ranksPerStage * busFactor(op.collective, n) * op.bytes * runs;
    }
    if (d.pp > 1) {
        const double sends = 2.0 * ((d.pp - 1.0) * chunks + (chunks - 1.0)) * m;
        out[index(Dim::Pp)] = ranksPerStage * sends * plan.boundaryActivationBytes;
        // The tied embedding's all-reduce: each of the two ends of every pipeline group sends
        // S (a ring of two: S/2 in the reduce-scatter, S/2 in the all-gather).
        out[index(Dim::Pp)] += 2.0 * ranksPerStage * plan.tiedEmbeddingBytes;
    }
    return out;
}

} // namespace railyard
