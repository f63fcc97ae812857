#include "cliutil.h"
#include "collectiveoptions.h"
#include "commands.h"

#include "cost/costengine.h"
#include "cost/epsummary.h"
#include "studies/inference.h"
#include "studies/inferencereport.h"
#include "io/reportjson.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"

#include <nlohmann/json.hpp>

#include <optional>

namespace railyard::cli {

namespace {

/// "A:B" -> {A, B}; throws ScenarioError naming the option.
std::pair<int, int> parseSwap(const QString &text)
{
    const QStringList parts = text.split(QLatin1Char(':'));
    bool okA = false, okB = false;
    const int a = parts.size() == 2 ? parts[0].toInt(&okA) : 0;
    const int b = parts.size() == 2 ? parts[1].toInt(&okB) : 0;
    if (!okA || !okB)
        throw ScenarioError("--swap", "expected two global ranks as A:B, got '"
                                          + text.toStdString() + "'");
    return {a, b};
}

} // namespace

int runEvaluate(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Predict per-link load, per-dimension cost, the pipeline timeline and memory per rank."));
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("scenario file"));
    parser.addOption({QStringLiteral("swap"),
                      QStringLiteral("Exchange the slots of global ranks A and B first (repeatable)."),
                      QStringLiteral("A:B")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print one JSON object.")});
    parser.addOption({QStringLiteral("links"),
                      QStringLiteral("With --json: add every loaded link (link_loads).")});
    parser.addOption({QStringLiteral("routing"),
                      QStringLiteral("MoE router model, overriding the file's model.routing: "
                                     "uniform, zipf:S or hotness:FILE."),
                      QStringLiteral("MODEL")});
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("Write to FILE instead of stdout."), QStringLiteral("FILE")});
    int code = 0;
    if (!parseArgs(parser, args, code))
        return code;
    if (parser.positionalArguments().size() != 1)
        return fail("evaluate takes exactly one scenario FILE", kExitUsage);

    std::vector<std::pair<int, int>> swaps;
    for (const QString &s : parser.values(QStringLiteral("swap")))
        swaps.push_back(parseSwap(s));

    std::optional<ExpertRouting> routing;
    if (parser.isSet(QStringLiteral("routing")))
        routing = parseRoutingOption(parser.value(QStringLiteral("routing")).toStdString());

    Scenario scenario = loadScenario(parser.positionalArguments().front().toStdString());
    if (routing) {
        if (scenario.model.experts == 0 && !routing->isUniform())
            throw ScenarioError("--routing", "the model is dense (model.experts = 0): there are "
                                             "no experts to route to");
        scenario.model.routing = *routing;
    }
    CostEngine engine(scenario);
    for (const auto &[a, b] : swaps)
        engine.swapRanks(a, b);

    std::string text;
    if (parser.isSet(QStringLiteral("json"))) {
        nlohmann::json j = reportToJson(engine, parser.isSet(QStringLiteral("links")));
        if (scenario.inference) // issue #5: the serving pools on the same fabric
            j["inference"] = inferenceReportToJson(evaluateInference(scenario, engine.fabric()),
                                                   engine.fabric());
        text = jsonText(j);
    } else {
        text = reportToText(engine);
        if (scenario.inference)
            text += "\n" + inferenceReportToText(evaluateInference(scenario, engine.fabric()),
                                                 engine.fabric());
    }
    writeOutput(parser.value(QStringLiteral("output")), text);
    return kExitOk;
}

int runCollective(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Predict one collective alone on a scenario's fabric and mapping (nccl-tests algbw/busbw)."));
    parser.addPositionalArgument(QStringLiteral("FILE"), QStringLiteral("scenario file"));
    parser.addOption({QStringLiteral("op"),
                      QStringLiteral("all-reduce | all-gather | reduce-scatter | all-to-all | send-recv"),
                      QStringLiteral("OP")});
    parser.addOption({QStringLiteral("ranks"),
                      QStringLiteral("Global ranks in member order: lists and ranges (0-7,16), all, "
                                     "or a group: tp:0, dp:p=0,t=3 (any Megatron group kind)."),
                      QStringLiteral("RANKS")});
    parser.addOption({QStringLiteral("bytes"),
                      QStringLiteral("Message size S (nccl-tests convention): 1e9, 256M, 1G (10^3 "
                                     "steps) or 1GiB (2^10 steps)."),
                      QStringLiteral("S")});
    parser.addOption({QStringLiteral("algo"),
                      QStringLiteral("auto (default: the scenario's collectives.algorithm) | ring | "
                                     "member-order | tree | nvls | hierarchical | pat"),
                      QStringLiteral("ALGO")});
    parser.addOption({QStringLiteral("swap"), QStringLiteral("Exchange two ranks first (repeatable)."),
                      QStringLiteral("A:B")});
    parser.addOption({QStringLiteral("json"), QStringLiteral("Print one JSON object.")});
    int code = 0;
    if (!parseArgs(parser, args, code))
        return code;
    if (parser.positionalArguments().size() != 1)
        return fail("collective takes exactly one scenario FILE", kExitUsage);
    for (const char *required : {"op", "ranks", "bytes"})
        if (!parser.isSet(QString::fromLatin1(required)))
            return fail(std::string("collective needs --") + required, kExitUsage);

    Collective op;
    const std::string opName = parser.value(QStringLiteral("op")).toStdString();
    if (!parseCollective(opName, op))
        throw ScenarioError("--op", "unknown collective '" + opName
                                        + "' (all-reduce, all-gather, reduce-scatter, all-to-all, send-recv)");
    const double bytes = parseByteSize(parser.value(QStringLiteral("bytes")).toStdString());
    std::optional<CollectiveAlgorithm> algo;
    if (parser.isSet(QStringLiteral("algo"))) {
        const std::string name = parser.value(QStringLiteral("algo")).toStdString();
        CollectiveAlgorithm a;
        if (!parseCollectiveAlgorithm(name, a))
            throw ScenarioError("--algo", "unknown algorithm '" + name
                                              + "' (auto, ring, member-order, tree, nvls, hierarchical, pat)");
        algo = a;
    }

    const Scenario scenario = loadScenario(parser.positionalArguments().front().toStdString());
    CostEngine engine(scenario);
    for (const QString &s : parser.values(QStringLiteral("swap"))) {
        const auto [a, b] = parseSwap(s);
        engine.swapRanks(a, b);
    }
    const std::vector<int> ranks =
        parseRankSelection(parser.value(QStringLiteral("ranks")).toStdString(), engine.layout());
    const CollectiveAlgorithm requested = algo.value_or(scenario.collectives.algorithm);
    const CollectiveResult r = engine.collective(op, ranks, bytes, requested);
    const std::string link = r.bottleneckLink >= 0 ? engine.fabric().linkName(r.bottleneckLink) : "";
    if (parser.isSet(QStringLiteral("json"))) {
        nlohmann::json considered = nlohmann::json::array();
        for (const AlgorithmTime &t : r.considered) {
            nlohmann::json protocols = nlohmann::json::object();
            for (const Protocol p : kAllProtocols)
                if (t.protocolTimes[static_cast<int>(p)] > 0.0)
                    protocols[std::string(protocolName(p))] = t.protocolTimes[static_cast<int>(p)];
            considered.push_back({{"algorithm", std::string(planAlgorithmName(t.algorithm))},
                                  {"protocol", std::string(protocolName(t.protocol))},
                                  {"time_s", t.time},
                                  {"alpha_s", t.alphaTime},
                                  {"channels", t.channels},
                                  {"protocol_times_s", protocols}});
        }
        nlohmann::json j = {{"op", opName},
                            {"ranks", ranks},
                            {"bytes", bytes},
                            {"requested_algorithm", std::string(collectiveAlgorithmName(requested))},
                            {"algorithm", std::string(planAlgorithmName(r.algorithm))},
                            {"protocol", std::string(protocolName(r.protocol))},
                            {"channels", r.channels},
                            {"considered", considered},
                            {"time_s", r.time},
                            {"alpha_s", r.alphaTime},
                            {"algbw_gbps", r.algBandwidth * 8.0 / 1e9},
                            {"busbw_gbps", r.busBandwidth * 8.0 / 1e9},
                            {"algbw_bytes_per_s", r.algBandwidth},
                            {"busbw_bytes_per_s", r.busBandwidth},
                            {"bus_factor", r.busFactor},
                            {"bytes_sent_per_rank", r.bytesSentPerRank},
                            {"bottleneck_link", r.bottleneckLink},
                            {"bottleneck_name", link}};
        writeOutput(QString(), jsonText(j));
    } else {
        std::string text = opName + " of " + formatBytes(bytes) + " over "
                           + std::to_string(ranks.size()) + " ranks: " + formatSeconds(r.time)
                           + " (latency " + formatSeconds(r.alphaTime) + ")\n";
        char line[160];
        std::snprintf(line, sizeof line, "algbw %.2f GB/s, busbw %.2f GB/s (bus factor %.4f)\n",
                      r.algBandwidth / 1e9, r.busBandwidth / 1e9, r.busFactor);
        text += line;
        text += "algorithm " + std::string(planAlgorithmName(r.algorithm)) + ", protocol "
                + std::string(protocolName(r.protocol)) + ", " + std::to_string(r.channels)
                + (r.channels == 1 ? " channel" : " channels") + "\n";
        if (r.considered.size() > 1) {
            text += "considered:";
            for (const AlgorithmTime &t : r.considered)
                text += " " + std::string(planAlgorithmName(t.algorithm)) + " "
                        + formatSeconds(t.time);
            text += "\n";
        }
        if (!link.empty())
            text += "bottleneck link: " + link + "\n";
        writeOutput(QString(), text);
    }
    return kExitOk;
}

} // namespace railyard::cli
