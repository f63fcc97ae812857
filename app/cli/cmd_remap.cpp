/**
 * `railyard-cli remap`: mark servers, GPUs, NICs or leaves failed and remap the job with one
 * strategy (drop-dp, spares, shrink-pp) or compare all of them (model/studies/failureremap.h). The
 * degraded scenario is a new mapping version that `evaluate` and `export` take like any other.
 * Nothing is written when anything fails; the scenario is written atomically.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/scenarioerror.h"
#include "fabric/fabric.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"
#include "studies/failureremap.h"
#include "studies/jobremap.h"
#include "studies/remaptext.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

constexpr int kMovesShown = 16;

/// Columns padded to their widest cell.
std::string tableText(const std::vector<std::vector<std::string>> &rows)
{
    std::vector<std::size_t> width;
    const auto length = [](const std::string &s) {
        // Count UTF-8 code points, not bytes, so "µs" pads like "ms".
        return static_cast<std::size_t>(
            std::count_if(s.begin(), s.end(), [](char ch) { return (ch & 0xC0) != 0x80; }));
    };
    for (const auto &row : rows)
        for (std::size_t c = 0; c < row.size(); ++c) {
            if (width.size() <= c)
                width.push_back(0);
            width[c] = std::max(width[c], length(row[c]));
        }
    std::string out;
    for (const auto &row : rows) {
        std::string line;
        for (std::size_t c = 0; c < row.size(); ++c) {
            line += row[c];
            if (c + 1 < row.size())
                line += std::string(width[c] - length(row[c]) + 2, ' ');
        }
        out += line + "\n";
    }
    return out;
}

std::string slotText(const Fabric &fabric, int slot)
{
    return "slot " + std::to_string(slot) + " " + fabric.node(fabric.gpuVertex(slot)).name;
}

std::string moveText(const Fabric &fabric, const RemapResult &r, const RemappedRank &m)
{
    const ParallelDegrees &oldDeg = r.healthy.degrees;
    std::string text = rankCoordText(m.oldCoord, oldDeg) + " " + slotText(fabric, m.oldSlot)
        + (m.oldSlotFailed ? " [failed]" : "") + " -> ";
    if (m.kind == RemappedRank::Kind::Dropped)
        return text + "dropped";
    text += rankCoordText(m.newCoord, r.result.degrees);
    if (m.kind == RemappedRank::Kind::Moved)
        text += " " + slotText(fabric, m.newSlot);
    else
        text += " same slot";
    return text;
}

std::string resultText(const Fabric &fabric, const RemapResult &r, bool allMoves)
{
    std::string out;
    out += std::string(remapStrategyName(r.strategy)) + ":\n";
    if (!r.possible)
        return out + "  impossible: " + r.reason + "\n";
    for (const std::string &n : r.notes)
        out += "  " + n + "\n";
    if (r.tpGroupsAcross.empty()) {
        out += "  no TP group across servers\n";
    } else {
        out += "  " + std::to_string(r.tpGroupsAcross.size()) + " TP groups across servers:\n";
        for (const std::string &g : r.tpGroupsAcross)
            out += "    " + g + "\n";
    }
    out += "  moved ranks (healthy coordinates): " + std::to_string(r.ranksMoved) + " moved, "
        + std::to_string(r.ranksRenumbered) + " renumbered, " + std::to_string(r.ranksDropped)
        + " dropped, " + std::to_string(r.ranksUnchanged) + " unchanged\n";
    const int shown = allMoves ? static_cast<int>(r.moves.size())
                               : std::min<int>(kMovesShown, static_cast<int>(r.moves.size()));
    for (int i = 0; i < shown; ++i)
        out += "    " + moveText(fabric, r, r.moves[static_cast<std::size_t>(i)]) + "\n";
    if (shown < static_cast<int>(r.moves.size()))
        out += "    ... " + std::to_string(r.moves.size() - static_cast<std::size_t>(shown))
            + " more (--moves lists all)\n";
    return out;
}

nlohmann::json summaryJson(const RemapSummary &s)
{
    nlohmann::json j = { { "ranks", s.ranks }, { "tp", s.degrees.tp }, { "pp", s.degrees.pp },
        { "dp", s.degrees.dp }, { "cp", s.degrees.cp }, { "ep", s.degrees.ep },
        { "global_batch", s.globalBatch }, { "microbatches", s.microbatches },
        { "iteration_time_s", s.iterationTime }, { "samples_per_s", s.samplesPerSecond },
        { "tokens_per_s", s.tokensPerSecond }, { "bubble_fraction", s.bubble }, { "mfu", s.mfu },
        { "memory_max_bytes_per_rank", s.maxMemoryPerRank },
        { "memory_device_bytes", s.deviceMemory }, { "memory_fits", s.memoryFits },
        { "tp_groups_across_servers", s.tpGroupsAcrossServers },
        { "dp_groups_across_rails", s.dpGroupsAcrossRails }, { "spine_bytes_share", s.spineShare },
        { "link_p99", s.linkP99 }, { "link_max", s.linkMax },
        { "stage_imbalance", s.stageImbalance } };
    if (!s.memoryDevice.empty()) { // mixed devices: the stage that decides, and its device
        j["memory_device"] = s.memoryDevice;
        j["memory_stage_bytes"] = s.memoryUsed;
    }
    return j;
}

nlohmann::json coordJson(const RankCoord &c)
{
    return { { "d", c.d }, { "p", c.p }, { "t", c.t }, { "c", c.c }, { "e", c.e } };
}

nlohmann::json resultJson(const RemapResult &r)
{
    nlohmann::json j;
    j["strategy"] = std::string(remapStrategyName(r.strategy));
    j["possible"] = r.possible;
    if (!r.possible) {
        j["reason"] = r.reason;
        return j;
    }
    j["mapping_version"] = r.degraded.mappingVersion;
    j["healthy"] = summaryJson(r.healthy);
    j["degraded"] = summaryJson(r.result);
    j["stage_memory_bytes"] = r.stageMemory;
    j["stage_layers"] = r.stageLayers;
    j["memory_growth"] = r.memoryGrowth;
    j["layer_imbalance"] = r.layerImbalance;
    j["compute_imbalance"] = r.computeImbalance;
    j["tp_groups_across"] = r.tpGroupsAcross;
    j["ranks_on_failed_slots"] = r.ranksOnFailedSlots;
    j["ranks_unchanged"] = r.ranksUnchanged;
    j["ranks_moved"] = r.ranksMoved;
    j["ranks_renumbered"] = r.ranksRenumbered;
    j["ranks_dropped"] = r.ranksDropped;
    j["notes"] = r.notes;
    nlohmann::json moves = nlohmann::json::array();
    for (const RemappedRank &m : r.moves) {
        nlohmann::json mj { { "kind", std::string(remappedRankKindName(m.kind)) },
            { "old", coordJson(m.oldCoord) }, { "old_rank", m.oldRank }, { "old_slot", m.oldSlot },
            { "old_slot_failed", m.oldSlotFailed } };
        if (m.kind != RemappedRank::Kind::Dropped) {
            mj["new"] = coordJson(m.newCoord);
            mj["new_rank"] = m.newRank;
            mj["new_slot"] = m.newSlot;
        }
        moves.push_back(std::move(mj));
    }
    j["moves"] = moves;
    return j;
}

struct RemapOptions
{
    std::string file;
    std::vector<std::string> failures;
    std::string strategy = "all";
    std::string output;
    bool json = false;
    bool moves = false;
    std::string spare;
    std::string job;
    const CLI::Option *strategyOption = nullptr;
};

/// The job a remap of a scenario with jobs acts on: `name`, or the one job the failures reach.
std::size_t jobToRemap(
    const Scenario &shared, const std::vector<FailedComponent> &failures, const std::string &name)
{
    if (shared.jobs.empty())
        throw ScenarioError("--job", "the scenario holds one job: leave --job out");
    std::string names;
    for (std::size_t j = 0; j < shared.jobs.size(); ++j) {
        names += (j ? ", " : "") + shared.jobs[j].name;
        if (!name.empty() && shared.jobs[j].name == name)
            return j;
    }
    if (!name.empty())
        throw ScenarioError("--job", "no job \"" + name + "\" (the jobs: " + names + ")");
    const std::vector<std::size_t> hit = jobsHitBy(shared, failures);
    if (hit.size() == 1)
        return hit.front();
    if (hit.empty())
        throw ScenarioError("--fail",
            "no job has a rank on the failed parts (the jobs: " + names
                + "): nothing to remap; name one with --job to remap it anyway");
    std::string reached;
    for (std::size_t k = 0; k < hit.size(); ++k)
        reached += (k ? (k + 1 == hit.size() ? " and " : ", ") : "") + shared.jobs[hit[k]].name;
    throw ScenarioError("--job",
        "the failures reach jobs " + reached
            + ": remap one with --job NAME, then the next on its output");
}

int runRemap(const RemapOptions &o)
{
    if (o.failures.empty())
        throw UsageError("remap needs at least one --fail KIND:INDEX (server:3, gpu:17, nic:5, "
                         "leaf:2)",
            false);
    RemapStrategy strategy = RemapStrategy::DropDp;
    // --spare: the spares strategy as a hot-spare swap (studies/remapresult.h, HotSpare).
    HotSpare spare;
    if (!o.spare.empty()) {
        if (o.strategyOption->count() > 0 && o.strategy != "spares")
            throw UsageError(
                "--spare applies to the spares strategy only, not --strategy " + o.strategy, false);
        spare.use = true;
        if (o.spare != "first")
            spare.part = parseFailure(o.spare, "--spare");
    }
    const bool all = o.strategy == "all" && !spare.use;
    if (spare.use)
        strategy = RemapStrategy::Spares;
    else if (!all && !parseRemapStrategy(o.strategy, strategy))
        throw UsageError(
            "--strategy: unknown strategy '" + o.strategy + "' (drop-dp, spares, shrink-pp, all)",
            false);
    if (o.moves && o.json)
        throw UsageError("--moves applies only to the text report: the JSON lists every move");
    const std::string &output = o.output;
    if (output == "-")
        throw UsageError("-o needs a file name: the report goes to stdout", false);

    std::vector<FailedComponent> failures;
    for (const std::string &f : o.failures) {
        const std::size_t first = f.find_first_not_of(" \t");
        const std::size_t last = f.find_last_not_of(" \t");
        failures.push_back(parseFailure(
            first == std::string::npos ? std::string() : f.substr(first, last - first + 1),
            "--fail"));
    }

    const Scenario file = loadScenarioFile(o.file);
    // A scenario with jobs: the remap moves one job, onto its own and the free GPUs (the other
    // jobs' count as failed for it), and the result goes back among the others.
    std::optional<std::size_t> job;
    if (!file.jobs.empty() || !o.job.empty())
        job = jobToRemap(file, failures, o.job);
    Scenario scenario = job ? jobWithOthersFixed(file, *job) : file;
    // A failed GPU of another job is given once, as the failure it is.
    std::erase_if(scenario.failures, [&](const FailedComponent &f) {
        return job && std::find(failures.begin(), failures.end(), f) != failures.end()
            && std::find(file.failures.begin(), file.failures.end(), f) == file.failures.end();
    });
    const std::vector<RemapResult> results = all
        ? remapAll(scenario, failures)
        : std::vector<RemapResult> { spare.use ? remap(scenario, failures, strategy, spare)
                                               : remap(scenario, failures, strategy) };
    const int chosen = all ? bestRemap(results) : 0;
    if (!all && !results.front().possible)
        throw ScenarioError("remap",
            std::string(remapStrategyName(strategy)) + " is impossible: " + results.front().reason);
    if (all && !output.empty() && chosen < 0)
        throw ScenarioError("remap",
            "no strategy is possible with shards that fit in memory; "
            "nothing written");

    const Fabric fabric = Fabric::build(scenario.fabric);
    const std::vector<char> usable = usableSlots(fabric, [&] {
        std::vector<FailedComponent> every = scenario.failures;
        every.insert(every.end(), failures.begin(), failures.end());
        return every;
    }());
    const int usableCount = static_cast<int>(std::count(usable.begin(), usable.end(), 1));

    std::string text;
    if (o.json) {
        nlohmann::json j;
        j["scenario"] = file.name;
        if (job)
            j["job"] = file.jobs[*job].name;
        std::vector<std::string> names;
        for (const FailedComponent &f : failures)
            names.push_back(failureText(f));
        j["failures"] = names;
        j["usable_slots"] = usableCount;
        j["slots"] = fabric.slotCount();
        j["ranks_on_failed_slots"] = results.front().ranksOnFailedSlots;
        nlohmann::json list = nlohmann::json::array();
        for (const RemapResult &r : results)
            list.push_back(resultJson(r));
        j["strategies"] = list;
        j["best"] = chosen >= 0 ? nlohmann::json(std::string(
                        remapStrategyName(results[static_cast<std::size_t>(chosen)].strategy)))
                                : nlohmann::json(nullptr);
        j["written"] = output.empty() ? nlohmann::json(nullptr) : nlohmann::json(output);
        text = jsonText(std::move(j));
    } else {
        std::string failed;
        for (const FailedComponent &f : failures)
            failed += (failed.empty() ? "" : ", ") + describeFailure(fabric, f);
        text += "Remap of " + (job ? "job " + file.jobs[*job].name + " of " : std::string())
            + (file.name.empty() ? std::string("(unnamed)") : file.name) + " after " + failed
            + " failed: " + std::to_string(results.front().ranksOnFailedSlots)
            + (results.front().ranksOnFailedSlots == 1 ? " rank" : " ranks")
            + " sat on failed slots; " + std::to_string(usableCount) + " of "
            + std::to_string(fabric.slotCount()) + " GPU slots usable\n\n";
        text += tableText(remapComparisonRows(results)) + "\n";
        for (const RemapResult &r : results)
            text += resultText(fabric, r, o.moves);
        if (all)
            text += chosen >= 0 ? "best: "
                    + std::string(
                        remapStrategyName(results[static_cast<std::size_t>(chosen)].strategy))
                    + "\n"
                                : "best: none (no possible strategy fits in memory)\n";
    }
    if (!output.empty()) {
        const RemapResult &r = results[static_cast<std::size_t>(chosen)];
        // atomic: temp file, fsync, rename
        saveScenario(job ? withRemappedJob(file, *job, r.degraded, failures) : r.degraded, output);
        if (!o.json)
            text += "wrote " + output + " (" + std::string(remapStrategyName(r.strategy))
                + ", mapping version " + std::to_string(r.degraded.mappingVersion) + ")\n";
    }
    writeOutput({}, o.json ? text : terminalText(text));
    return kExitOk;
}

} // namespace

void addRemap(CommandLine &line)
{
    auto o = std::make_shared<RemapOptions>();
    std::string strategies;
    std::vector<std::string> names;
    for (RemapStrategy s : allRemapStrategies()) {
        strategies += "  " + std::string(remapStrategyName(s))
            + std::string(11 - remapStrategyName(s).size(), ' ')
            + std::string(remapStrategyDescription(s)) + "\n";
        names.emplace_back(remapStrategyName(s));
    }
    names.emplace_back("all");
    Command c(line,
        line.addCommand("remap",
            "Mark servers, GPUs, NICs or leaves failed and remap the job. It prints the healthy "
            "and "
            "degraded predictions side by side and the ranks that moved. Strategies:\n"
                + strategies
                + "  all        compare all three; with -o write the best (possible, fits in "
                  "memory, "
                  "highest samples/s)",
            [o] { return runRemap(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.texts("--fail", o->failures, "KIND:INDEX",
        "A failed component: server:S, gpu:SLOT, nic:N, leaf:N (global 0-based indexes; "
        "repeatable).");
    o->strategyOption
        = c.choice("--strategy", o->strategy, "S", "The remap strategy (default all).", names);
    c.text("--spare", o->spare, "SPARE",
        "Swap with a hot spare instead of retiring (the spares strategy): server:S or gpu:N, or "
        "first (the first free slot). Only the hit ranks move, each TP group inside one NVLink "
        "domain and each rank on its rail.");
    c.text("--job", o->job, "NAME",
        "Scenarios with jobs: remap this job (default: the one job the failures reach) onto its "
        "own and the free GPUs; the other jobs stay where they are.");
    c.file("-o,--output", o->output, "FILE", "Write the degraded scenario to FILE (atomically).");
    c.json(o->json);
    c.flag("--moves", o->moves, "List every moved rank in the text report (the JSON lists all).");
}

} // namespace railyard::cli
