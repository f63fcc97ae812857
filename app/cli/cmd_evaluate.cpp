/**
 * `railyard-cli evaluate` predicts a scenario (link loads, phase times, pipeline, memory, and
 * the inference pools when the file has them); `railyard-cli collective` predicts one
 * collective alone on a scenario's fabric and mapping, by the nccl-tests definitions.
 */
#include "cliutil.h"
#include "collectiveoptions.h"
#include "collectivestepstext.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "degradationoptions.h"
#include "ecmpoptions.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "cost/collectivesteps.h"
#include "cost/costengine.h"
#include "cost/costenginejobs.h"
#include "cost/epsummary.h"
#include "fabric/failedcomponent.h"
#include "fabric/router.h"
#include "io/calibrationreport.h"
#include "io/computecalibration.h"
#include "io/reportjson.h"
#include "io/sharedfabricreport.h"
#include "scenario/scenariofile.h"
#include "studies/blastradiusreport.h"
#include "studies/inference.h"
#include "studies/inferencereport.h"
#include "studies/trainingcomparison.h"
#include "workload/eprouting.h"
#include "workload/workloadnames.h"

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
    std::string calibration;
    std::vector<std::string> measured;
    std::string output;
    EcmpFlags ecmp;
    DegradationFlags degradations;
    std::string overlap = "worst";
    const CLI::Option *overlapOption = nullptr;
};

/// A scenario with jobs (docs/shared-fabric.md): each job alone and shared, and the fabric.
/// The single-job options that change one job's engine are refused by name.
/// Job by job, the parts of the scenario's degradations that reach it (a rank on a slow GPU or
/// host, or traffic through a slow NIC or cable), each evaluated with the job alone on the
/// fabric: the blast radius of a single-job file of that job.
std::vector<BlastRadius> jobBlastRadii(const SharedFabricReport &report)
{
    std::vector<BlastRadius> out;
    for (const JobReport &job : report.jobs) {
        BlastRadius radius = blastRadius(*job.aloneEngine);
        std::erase_if(radius.parts, [](const PartImpact &p) {
            return p.groups.empty() && p.stages.empty() && p.delay <= 0.0;
        });
        out.push_back(std::move(radius));
    }
    return out;
}

int runEvaluateJobs(const EvaluateOptions &o, Scenario scenario)
{
    auto refuse = [](bool given, const char *flag) {
        if (given)
            throw ScenarioError(flag,
                "not for a scenario with jobs (evaluate each job's own file, or drop the flag)");
    };
    refuse(!o.swaps.empty(), "--swap");
    refuse(o.routingOption->count() > 0, "--routing");
    refuse(!o.calibration.empty(), "--calibration");
    refuse(!o.measured.empty(), "--measured");
    refuse(o.links, "--links");
    if (scenario.fabric.routing.mode != EcmpMode::Ideal)
        throw ScenarioError("fabric.routing",
            "hashed and adaptive ECMP are not modelled for a scenario with jobs yet: the jobs "
            "share links with the ideal split (leave --ecmp out or set the mode to ideal)");
    refuse(scenario.inference.has_value(), "inference");
    PhaseOverlap overlap = PhaseOverlap::Worst;
    if (!parsePhaseOverlap(o.overlap, overlap))
        throw ScenarioError(
            "--overlap", "unknown assumption '" + o.overlap + "' (worst, duty-cycle)");
    applyDegradationFlags(o.degradations, scenario);
    const SharedFabricReport report = evaluateJobs(scenario, overlap);
    const std::vector<BlastRadius> radii
        = scenario.degradations.empty() ? std::vector<BlastRadius>() : jobBlastRadii(report);
    if (o.json) {
        nlohmann::json j = sharedFabricToJson(report);
        for (std::size_t k = 0; k < radii.size(); ++k) {
            j["jobs"][k]["healthy_alone_iteration_time_s"] = radii[k].healthyIterationTime;
            j["jobs"][k]["degradations"] = blastRadiusJson(radii[k]);
        }
        writeOutput(o.output, jsonText(std::move(j)));
    } else {
        std::string text = sharedFabricToText(report);
        for (std::size_t k = 0; k < radii.size(); ++k) {
            const std::string whose = "job " + report.jobs[k].name + " alone on the fabric";
            text += radii[k].parts.empty() ? "\nDegraded parts (docs/stragglers.md): none reaches "
                    + report.jobs[k].name + "\n"
                                           : blastRadiusText(radii[k], whose);
        }
        writeOutput(o.output, terminalText(text));
    }
    return kExitOk;
}

int runEvaluate(const EvaluateOptions &o)
{
    std::optional<ExpertRouting> routing;
    if (o.routingOption->count() > 0)
        routing = parseRoutingOption(o.routing);

    Scenario scenario = loadScenarioFile(o.file);
    if (!scenario.jobs.empty()) {
        applyEcmpFlags(o.ecmp, scenario.fabric.routing);
        return runEvaluateJobs(o, scenario);
    }
    if (o.overlapOption->count() > 0)
        throw ScenarioError("--overlap",
            "the scenario holds one job: the overlap assumption is for jobs sharing a fabric");
    if (routing) {
        if (scenario.model.experts == 0 && !routing->isUniform())
            throw ScenarioError("--routing",
                "the model is dense (model.experts = 0): there are "
                "no experts to route to");
        scenario.model.routing = *routing;
    }
    applyEcmpFlags(o.ecmp, scenario.fabric.routing);
    applyDegradationFlags(o.degradations, scenario);
    std::optional<ComputeCalibration> compute;
    if (!o.calibration.empty()) {
        compute = loadComputeCalibration(o.calibration);
        applyComputeCalibration(scenario, *compute);
    }
    CostEngine engine(scenario);
    for (const auto &[a, b] : o.swaps)
        engine.swapRanks(a, b);
    // --measured: the job's own training logs and traces beside this prediction (the same
    // comparison as calibrate's), every file read and refused before anything is written.
    std::vector<MeasurementFormat> formats;
    for (const std::string &path : o.measured) {
        formats.push_back(measuredFileFormat(path));
        if (formats.back() == MeasurementFormat::NcclTests)
            throw ScenarioError(path,
                "an nccl-tests log calibrates the network: give it to `railyard-cli calibrate "
                "--measured`; evaluate --measured takes training logs and profiler traces");
    }
    const TrainingComparison measured = o.measured.empty()
        ? TrainingComparison {}
        : compareTraining(engine, o.measured, formats, 0.0);
    // Hashed or adaptive ECMP: its figures beside the ideal split's (an ideal-routing report
    // stays exactly as it was).
    std::optional<EcmpReport> ecmp;
    if (scenario.fabric.routing.mode != EcmpMode::Ideal)
        ecmp = engine.ecmp();
    // Slow parts: who waits on each and for how long (a healthy report stays as it was).
    const BlastRadius radius = blastRadius(engine);

    std::string text;
    if (o.json) {
        nlohmann::json j = reportToJson(engine, o.links);
        if (scenario.inference) // the serving pools on the same fabric
            j["inference"] = inferenceReportToJson(
                evaluateInference(scenario, engine.fabric()), engine.fabric());
        j["calibration"] = calibrationStatusJson(engine);
        if (ecmp)
            j["ecmp"] = ecmpReportJson(*ecmp, engine, o.links);
        if (compute)
            j["compute_calibration"] = { { "file", compute->file }, { "device", compute->device },
                { "precision", std::string(precisionName(compute->precision)) },
                { "stack",
                    compute->stack ? std::string(stackName(*compute->stack))
                                   : std::string("unknown") },
                { "max_efficiency", compute->maxEfficiency },
                { "kernel_overhead_us", compute->kernelOverheadUs },
                { "measured_step_time_s", compute->measuredStepTime },
                { "measured_at", compute->measuredAt },
                { "measured_scenario", compute->measuredScenario } };
        if (!o.measured.empty())
            j["measured"] = measured.json;
        if (!radius.parts.empty()) {
            j["healthy_iteration_time_s"] = radius.healthyIterationTime;
            j["degradations"] = blastRadiusJson(radius);
        }
        text = jsonText(std::move(j));
    } else {
        text = reportToText(engine);
        text += blastRadiusText(radius);
        if (ecmp)
            text += ecmpReportText(*ecmp, engine);
        if (!scenario.calibration.empty()) // uncalibrated reports stay as they were
            text += "\n" + calibrationStatusText(engine);
        if (compute)
            text += "\n" + computeCalibrationText(*compute) + "\n";
        if (!o.measured.empty())
            text += "\nMeasured beside predicted\n" + measured.text;
        if (scenario.inference)
            text += "\n"
                + inferenceReportToText(
                    evaluateInference(scenario, engine.fabric()), engine.fabric());
    }
    writeOutput(o.output, o.json ? text : terminalText(text));
    return kExitOk;
}

struct CollectiveOptions
{
    std::string file;
    std::string op;
    std::string ranks;
    std::string bytes;
    std::string algo;
    std::vector<std::pair<int, int>> swaps;
    bool json = false;
    bool steps = false;
    EcmpFlags ecmp;
};

nlohmann::json consideredJson(const CollectiveResult &r)
{
    nlohmann::json considered = nlohmann::json::array();
    for (const AlgorithmTime &t : r.considered) {
        nlohmann::json protocols = nlohmann::json::object();
        for (const Protocol p : kAllProtocols)
            if (t.protocolTimes[static_cast<int>(p)] > 0.0)
                protocols[std::string(protocolName(p))] = t.protocolTimes[static_cast<int>(p)];
        considered.push_back({ { "algorithm", std::string(planAlgorithmName(t.algorithm)) },
            { "protocol", std::string(protocolName(t.protocol)) }, { "time_s", t.time },
            { "alpha_s", t.alphaTime }, { "channels", t.channels },
            { "protocol_times_s", protocols } });
    }
    return considered;
}

int runCollective(const CollectiveOptions &o)
{
    Collective op;
    if (!parseCollective(o.op, op))
        throw ScenarioError("--op",
            "unknown collective '" + o.op
                + "' (all-reduce, all-gather, reduce-scatter, all-to-all, send-recv)");
    const double bytes = parseByteSize(o.bytes);
    std::optional<CollectiveAlgorithm> algo;
    if (!o.algo.empty()) {
        CollectiveAlgorithm a;
        if (!parseCollectiveAlgorithm(o.algo, a))
            throw ScenarioError("--algo",
                "unknown algorithm '" + o.algo
                    + "' (auto, ring, member-order, tree, nvls, hierarchical, pat)");
        algo = a;
    }

    Scenario scenario = loadScenarioFile(o.file);
    applyEcmpFlags(o.ecmp, scenario.fabric.routing);
    CostEngine engine(scenario);
    for (const auto &[a, b] : o.swaps)
        engine.swapRanks(a, b);
    const std::vector<int> ranks = parseRankSelection(o.ranks, engine.layout());
    const CollectiveAlgorithm requested = algo.value_or(scenario.collectives.algorithm);
    const CollectiveResult r = engine.collective(op, ranks, bytes, requested);
    const std::string link
        = r.bottleneckLink >= 0 ? engine.fabric().linkName(r.bottleneckLink) : "";
    std::optional<CollectiveSteps> steps;
    if (o.steps) { // the algorithm that ran, step by step (what the GUI's player plays)
        std::vector<int> slots;
        for (const int rank : ranks)
            slots.push_back(engine.mapping().slotOf(rank));
        Router router(engine.fabric(), routedFailures(engine.fabric(), scenario.failures));
        steps = collectiveSteps(r.algorithm, op, slots, bytes, engine.fabric(), router,
            nccltuning::deviceTuning(scenario.device, scenario.collectives, scenario.calibration)
                .nvlsEfficiency);
    }
    if (o.json) {
        nlohmann::json j = { { "op", o.op }, { "ranks", ranks }, { "bytes", bytes },
            { "requested_algorithm", std::string(collectiveAlgorithmName(requested)) },
            { "algorithm", std::string(planAlgorithmName(r.algorithm)) },
            { "protocol", std::string(protocolName(r.protocol)) }, { "channels", r.channels },
            { "considered", consideredJson(r) }, { "time_s", r.time }, { "alpha_s", r.alphaTime },
            { "algbw_gbps", r.algBandwidth * 8.0 / 1e9 },
            { "busbw_gbps", r.busBandwidth * 8.0 / 1e9 }, { "algbw_bytes_per_s", r.algBandwidth },
            { "busbw_bytes_per_s", r.busBandwidth }, { "bus_factor", r.busFactor },
            { "bytes_sent_per_rank", r.bytesSentPerRank }, { "bottleneck_link", r.bottleneckLink },
            { "bottleneck_name", link } };
        if (const EcmpRouting &g = scenario.fabric.routing; g.mode != EcmpMode::Ideal) {
            j["time_p99_s"] = r.timeP99;
            j["ecmp"] = { { "routing", std::string(ecmpModeName(g.mode)) },
                { "qps_per_connection", g.qpsPerConnection },
                { "seeds", g.mode == EcmpMode::Hashed ? g.seeds : 1 },
                { "adaptive_efficiency", g.adaptiveEfficiency } };
        }
        if (steps)
            j["steps"] = collectiveStepsJson(*steps, engine.fabric());
        writeOutput({}, jsonText(std::move(j)));
    } else {
        std::string text = o.op + " of " + formatBytes(bytes) + " over "
            + std::to_string(ranks.size()) + " ranks: " + formatSeconds(r.time) + " (latency "
            + formatSeconds(r.alphaTime) + ")\n";
        char line[160];
        std::snprintf(line, sizeof line, "algbw %.2f GB/s, busbw %.2f GB/s (bus factor %.4f)\n",
            r.algBandwidth / 1e9, r.busBandwidth / 1e9, r.busFactor);
        text += line;
        if (scenario.fabric.routing.mode == EcmpMode::Hashed)
            text += "hashed ECMP over " + std::to_string(scenario.fabric.routing.seeds)
                + " seeds: expected " + formatSeconds(r.time) + ", p99 " + formatSeconds(r.timeP99)
                + "\n";
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
        if (steps)
            text += collectiveStepsText(*steps, engine.fabric());
        writeOutput({}, terminalText(text));
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
    CLI::Option *calibration = c.text("--calibration", o->calibration, "CAL",
        "A compute calibration (calibrate --compute-out) measured on another layout of the same "
        "device, precision and stack: its fitted GEMM efficiency replaces the device table's.");
    line.setFileValue(calibration);
    CLI::Option *measured = c.texts("--measured", o->measured, "LOG",
        "Training logs (Megatron-LM, NeMo, torchtitan) or PyTorch profiler traces of this job: "
        "the measured step and, from a trace, each dimension's exposed communication beside "
        "the prediction, and the part that differs most (several after one --measured).");
    measured->expected(1, 1 << 16);
    line.setFileValue(measured);
    addEcmpFlags(c, o->ecmp);
    addDegradationFlags(c, o->degradations);
    o->overlapOption = c.choice("--overlap", o->overlap, "ASSUMPTION",
        "Scenarios with jobs: how the jobs' phases meet on a shared link (default worst: all "
        "overlap; duty-cycle: each neighbour for the fraction of its iteration its traffic "
        "there is active). docs/shared-fabric.md.",
        { "worst", "duty-cycle" });
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
    c.text("--ranks", o->ranks, "RANKS",
         "Global ranks in member order: lists and ranges (0-7,16), all, or a group: tp:0, "
         "dp:p=0,t=3 (any Megatron group kind).")
        ->required();
    c.text("--bytes", o->bytes, "S",
         "Message size S (nccl-tests convention): 1e9, 256M, 1G (10^3 steps) or 1GiB (2^10 "
         "steps).")
        ->required();
    c.choice("--algo", o->algo, "ALGO",
        "Collective algorithm; default: the scenario's collectives.algorithm (auto).",
        { "auto", "ring", "member-order", "tree", "nvls", "hierarchical", "pat" });
    c.swaps(o->swaps, "Exchange the slots of global ranks A and B first (repeatable, in order).");
    c.flag("--steps", o->steps,
        "Also list the algorithm's steps (ring steps, tree levels, ...) with the bytes each puts "
        "on the links, and every link's sum over the steps.");
    addEcmpFlags(c, o->ecmp);
    c.json(o->json);
}

} // namespace railyard::cli
