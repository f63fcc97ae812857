/**
 * `railyard-cli evaluate` predicts a scenario (link loads, phase times, pipeline, memory, and
 * the inference pools when the file has them); `railyard-cli collective` predicts one
 * collective alone on a scenario's fabric and mapping, by the nccl-tests definitions.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/epsummary.h"
#include "io/reportjson.h"
#include "scenario/scenariofile.h"
#include "studies/inference.h"
#include "studies/inferencereport.h"
#include "workload/eprouting.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <memory>
#include <optional>

namespace railyard::cli {

namespace {

struct EvaluateOptions
{
    std::string file;
    std::vector<std::pair<int, int>> swaps;
    bool json = false;
    bool links = false;
    std::string routing;
    const CLI::Option *routingOption = nullptr;
    std::string output;
};

int runEvaluate(const EvaluateOptions &o)
{
    std::optional<ExpertRouting> routing;
    if (o.routingOption->count() > 0)
        routing = parseRoutingOption(o.routing);

    Scenario scenario = loadScenarioFile(o.file);
    if (routing) {
        if (scenario.model.experts == 0 && !routing->isUniform())
            throw ScenarioError("--routing",
                "the model is dense (model.experts = 0): there are "
                "no experts to route to");
        scenario.model.routing = *routing;
    }
    CostEngine engine(scenario);
    for (const auto &[a, b] : o.swaps)
        engine.swapRanks(a, b);

    std::string text;
    if (o.json) {
        nlohmann::json j = reportToJson(engine, o.links);
        if (scenario.inference) // the serving pools on the same fabric
            j["inference"] = inferenceReportToJson(
                evaluateInference(scenario, engine.fabric()), engine.fabric());
        text = jsonText(std::move(j));
    } else {
        text = reportToText(engine);
        if (scenario.inference)
            text += "\n"
                + inferenceReportToText(
                    evaluateInference(scenario, engine.fabric()), engine.fabric());
    }
    writeOutput(o.output, text);
    return kExitOk;
}

struct CollectiveOptions
{
    std::string file;
    std::string op;
    std::string ranks;
    double bytes = 0.0;
    std::vector<std::pair<int, int>> swaps;
    bool json = false;
};

int runCollective(const CollectiveOptions &o)
{
    Collective op;
    if (!parseCollective(o.op, op))
        throw ScenarioError("--op",
            "unknown collective '" + o.op
                + "' (all-reduce, all-gather, reduce-scatter, all-to-all, send-recv)");
    std::vector<int> ranks;
    std::size_t start = 0;
    while (start <= o.ranks.size()) {
        const std::size_t comma = std::min(o.ranks.find(',', start), o.ranks.size());
        std::string r = o.ranks.substr(start, comma - start);
        const std::size_t first = r.find_first_not_of(" \t");
        const std::size_t last = r.find_last_not_of(" \t");
        const std::string trimmed
            = first == std::string::npos ? std::string() : r.substr(first, last - first + 1);
        try {
            ranks.push_back(toInt("--ranks", parseInteger("--ranks", trimmed)));
        } catch (const ScenarioError &) {
            throw ScenarioError("--ranks", "'" + r + "' is not a rank number");
        }
        start = comma + 1;
    }

    const Scenario scenario = loadScenarioFile(o.file);
    CostEngine engine(scenario);
    for (const auto &[a, b] : o.swaps)
        engine.swapRanks(a, b);
    const CollectiveResult r = engine.collective(op, ranks, o.bytes);
    const std::string link
        = r.bottleneckLink >= 0 ? engine.fabric().linkName(r.bottleneckLink) : "";
    if (o.json) {
        nlohmann::json j
            = { { "op", o.op }, { "ranks", ranks }, { "bytes", o.bytes }, { "time_s", r.time },
                  { "alpha_s", r.alphaTime }, { "algbw_gbps", r.algBandwidth * 8.0 / 1e9 },
                  { "busbw_gbps", r.busBandwidth * 8.0 / 1e9 },
                  { "algbw_bytes_per_s", r.algBandwidth }, { "busbw_bytes_per_s", r.busBandwidth },
                  { "bus_factor", r.busFactor }, { "bytes_sent_per_rank", r.bytesSentPerRank },
                  { "bottleneck_link", r.bottleneckLink }, { "bottleneck_name", link } };
        writeOutput({}, jsonText(std::move(j)));
    } else {
        std::string text = o.op + " of " + formatBytes(o.bytes) + " over "
            + std::to_string(ranks.size()) + " ranks: " + formatSeconds(r.time) + " (latency "
            + formatSeconds(r.alphaTime) + ")\n";
        char line[160];
        std::snprintf(line, sizeof line, "algbw %.2f GB/s, busbw %.2f GB/s (bus factor %.4f)\n",
            r.algBandwidth / 1e9, r.busBandwidth / 1e9, r.busFactor);
        text += line;
        if (!link.empty())
            text += "bottleneck link: " + link + "\n";
        writeOutput({}, text);
    }
    return kExitOk;
}

std::vector<std::string> collectiveNames()
{
    std::vector<std::string> names;
    for (Collective c : { Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
             Collective::AllToAll, Collective::SendRecv })
        names.emplace_back(collectiveName(c));
    return names;
}

} // namespace

void addEvaluate(CommandLine &line)
{
    auto o = std::make_shared<EvaluateOptions>();
    Command c(line,
        line.addCommand("evaluate",
            "Predict per-link load, per-dimension cost, the pipeline "
            "timeline and memory per rank.",
            [o] { return runEvaluate(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.swaps(o->swaps, "Exchange the slots of global ranks A and B first (repeatable, in order).");
    CLI::Option *json = c.json(o->json);
    c.flag("--links", o->links, "Add every loaded link (link_loads) to the JSON.")->needs(json);
    o->routingOption = c.text("--routing", o->routing, "MODEL",
        "MoE router model, overriding the file's model.routing: uniform, "
        "zipf:S or hotness:FILE.");
    c.output(o->output);
}

void addCollective(CommandLine &line)
{
    auto o = std::make_shared<CollectiveOptions>();
    Command c(line,
        line.addCommand("collective",
            "Predict one collective alone on a scenario's fabric and "
            "mapping (nccl-tests algbw/busbw).",
            [o] { return runCollective(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.choice("--op", o->op, "OP", "The collective to predict.", collectiveNames())->required();
    c.text("--ranks", o->ranks, "R0,R1,...", "Comma-separated global ranks, in ring order.")
        ->required();
    c.number("--bytes", o->bytes, "S", "Message size S (nccl-tests convention).")->required();
    c.swaps(o->swaps, "Exchange the slots of global ranks A and B first (repeatable, in order).");
    c.json(o->json);
}

} // namespace railyard::cli
