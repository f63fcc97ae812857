#include "fixtures.h"

#include "cost/costengine.h"
#include "scenario/scenariofile.h"

namespace railyard::fixtures {

Scenario seed128()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

ParallelDegrees degrees(int tp, int pp, int dp, int cp, int ep)
{
    ParallelDegrees d;
    d.tp = tp;
    d.pp = pp;
    d.dp = dp;
    d.cp = cp;
    d.ep = ep;
    return d;
}

FabricSpec railFabric(int servers, int gpus, int serversPerSu, int radix)
{
    FabricSpec s;
    s.kind = FabricKind::RailOptimised;
    s.servers = servers;
    s.gpusPerServer = gpus;
    s.serversPerSu = serversPerSu;
    s.switchRadix = radix;
    return s;
}

FabricSpec torFabric(int servers, int gpus, int serversPerLeaf, int radix)
{
    FabricSpec s;
    s.kind = FabricKind::Tor;
    s.servers = servers;
    s.gpusPerServer = gpus;
    s.serversPerLeaf = serversPerLeaf;
    s.switchRadix = radix;
    return s;
}

namespace {

/// What the small jobs share: 8 layers of hidden 1024 with 16 full heads, sequence 2048.
Scenario smallJob(int servers, int gpus, ParallelDegrees deg, FabricKind kind)
{
    Scenario s;
    s.fabric.kind = kind;
    s.fabric.servers = servers;
    s.fabric.gpusPerServer = gpus;
    s.degrees = deg;
    s.model.layers = 8;
    s.model.hidden = 1024;
    s.model.heads = 16;
    s.model.kvHeads = 16;
    s.model.seq = 2048;
    s.model.vocab = 32000;
    s.training.microBatch = 1;
    s.training.globalBatch = 8 * deg.dp;
    return s;
}

} // namespace

Scenario smallDense(int servers, int gpus, ParallelDegrees deg, FabricKind kind)
{
    Scenario s = smallJob(servers, gpus, deg, kind);
    s.name = "test";
    s.model.name = "small";
    s.model.ffn = 4096;
    s.model.gatedMlp = false;
    return s;
}

Scenario smallMoe(int servers, int gpus, ParallelDegrees deg, int experts, int topK)
{
    Scenario s = smallJob(servers, gpus, deg, FabricKind::RailOptimised);
    s.name = "moe";
    s.model.name = "small-moe";
    s.model.ffn = 2048;
    s.model.experts = experts;
    s.model.topK = topK;
    return s;
}

double tierDimBytes(const CostEngine &engine, Tier tier, Dim dim)
{
    double sum = 0.0;
    const Fabric &f = engine.fabric();
    for (int id = 0; id < f.linkCount(); ++id)
        if (f.link(id).tier == tier)
            sum += engine.report().links[static_cast<std::size_t>(id)].dimBytes[index(dim)];
    return sum;
}

PipelineEvent pipeEvent(PipelineEventKind kind, int stage, int chunk, double start, double end)
{
    PipelineEvent e;
    e.kind = kind;
    e.stage = stage;
    e.chunk = chunk;
    e.start = start;
    e.end = end;
    return e;
}

int findEvent(const PipelineTimeline &t, PipelineEventKind kind, int stage, int mb)
{
    for (std::size_t i = 0; i < t.events.size(); ++i)
        if (t.events[i].kind == kind && t.events[i].stage == stage && t.events[i].microbatch == mb)
            return static_cast<int>(i);
    return -1;
}

} // namespace railyard::fixtures
