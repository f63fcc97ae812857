#pragma once

/**
 * What the fuzz targets of the smaller readers of outside input do with one input, shared with
 * tst_fuzzregressions: preflight's run record and environment (fuzz_preflight), --hosts files
 * (fuzz_hosts), hotness files (fuzz_hotness), search parts as `railyard-cli merge` reads them
 * (fuzz_searchpart) and `import-topology --server-pattern` (fuzz_serverpattern).
 *
 * Inputs made of several pieces (a record and its environment, several parts) separate them
 * with a line "@@" (kSectionSeparator); tests/fuzz/corpus/<target>/ holds real-format seeds.
 * As in fuzzharness.h, a ScenarioError is a refusal; anything else escaping or a broken
 * invariant is a bug (HarnessFailure).
 */

#include "export/exportcommon.h"
#include "export/preflight.h"
#include "fuzzcabling.h"
#include "fuzzharness.h"
#include "optimise/layoutsearch.h"
#include "optimise/layoutsearchjson.h"
#include "workload/eprouting.h"

#include <nlohmann/json.hpp>

#include <array>
#include <cmath>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace railyard::fuzz {

/// The line between the pieces of one input.
inline constexpr std::string_view kSectionSeparator = "\n@@\n";

/// `input` cut at every separator line, at most `most` pieces (the last one keeps the rest).
inline std::vector<std::string_view> splitSections(std::string_view input, std::size_t most)
{
    std::vector<std::string_view> out;
    while (out.size() + 1 < most) {
        const std::size_t at = input.find(kSectionSeparator);
        if (at == std::string_view::npos)
            break;
        out.push_back(input.substr(0, at));
        input.remove_prefix(at + kSectionSeparator.size());
    }
    out.push_back(input);
    return out;
}

/// The lines of `text` (without their '\n').
inline std::vector<std::string_view> splitLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    while (!text.empty()) {
        const std::size_t nl = text.find('\n');
        lines.push_back(text.substr(0, nl));
        if (nl == std::string_view::npos)
            break;
        text.remove_prefix(nl + 1);
    }
    return lines;
}

/**
 * fuzz_preflight: a mapping-json run record, "@@", the environment as NAME=value lines ("@host=X"
 * is the host name, "@version=N" the --mapping-version), and optionally "@@" and the output of
 * nvidia-smi's query. A rank the check lets through is placed where its environment says.
 */
inline Outcome fuzzPreflight(std::string_view input)
{
    const std::vector<std::string_view> parts = splitSections(input, 3);
    PreflightEnvironment env;
    int version = 0;
    if (parts.size() > 1) {
        for (const std::string_view line : splitLines(parts[1])) {
            const std::size_t eq = line.find('=');
            if (eq == std::string_view::npos)
                continue;
            const std::string name(line.substr(0, eq));
            const std::string value(line.substr(eq + 1));
            if (name == "@host") {
                env.hostname = value;
            } else if (name == "@version") {
                version = 0;
                for (const char c : value.substr(0, 6))
                    if (c >= '0' && c <= '9')
                        version = version * 10 + (c - '0');
            } else {
                env.env[name] = value;
            }
        }
    }
    if (parts.size() > 2)
        env.nvidiaSmi = std::string(parts[2]);
    PreflightPlace place;
    try {
        place = checkPreflight(std::string(parts[0]), env, version);
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    require(place.rank >= 0, "preflight passed a rank below 0");
    require(place.gpu >= 0, "preflight passed a rank on GPU " + std::to_string(place.gpu));
    return Outcome::Loaded;
}

/// A small engine of `servers` servers of two GPUs, every slot used by data parallelism.
inline std::unique_ptr<CostEngine> makeSmallEngine(int servers)
{
    Scenario s;
    s.fabric.servers = servers;
    s.fabric.gpusPerServer = 2;
    s.fabric.nicsPerServer = 2;
    s.degrees.tp = 1;
    s.degrees.pp = 1;
    s.degrees.dp = 2 * servers;
    s.model.layers = 2;
    s.model.hidden = 256;
    s.model.heads = 8;
    s.model.kvHeads = 8;
    s.model.ffn = 1024;
    s.training.globalBatch = 2 * servers;
    return std::make_unique<CostEngine>(s);
}

/// A small engine of `servers` (1 to 4) servers of two GPUs, every slot used by data
/// parallelism; built once per size (the exports only read it).
inline const CostEngine &smallEngine(int servers)
{
    static std::array<std::unique_ptr<CostEngine>, 5> engines;
    std::unique_ptr<CostEngine> &engine = engines.at(static_cast<std::size_t>(servers));
    if (!engine)
        engine = makeSmallEngine(servers);
    return *engine;
}

/**
 * fuzz_hosts: a --hosts file, read for fabrics of 1 to 4 servers, the number of its host lines
 * and 16. An accepted file names every server once with a plain host name (letters, digits, '.',
 * '-', '_'), all different by their short names, and every export that names hosts then holds
 * no control character but newlines and tabs.
 */
inline Outcome fuzzHosts(std::string_view input)
{
    const std::string text(input);
    int lines = 0;
    for (const std::string_view line : splitLines(input))
        lines += line.find_first_not_of(" \t\r") != std::string_view::npos && line.front() != '#';
    std::set<int> counts { 1, 2, 3, 4, 16 };
    if (lines > 0 && lines <= 64)
        counts.insert(lines);
    Outcome outcome = Outcome::Rejected;
    for (const int servers : counts) {
        std::vector<std::string> hosts;
        try {
            hosts = parseHostsFile(text, servers);
        } catch (const ScenarioError &) {
            continue;
        }
        outcome = Outcome::Loaded;
        require(static_cast<int>(hosts.size()) == servers,
            "a hosts file named " + std::to_string(hosts.size()) + " hosts for "
                + std::to_string(servers) + " servers");
        std::set<std::string> shortNames;
        for (const std::string &h : hosts) {
            require(exportdetail::plainHostName(h), "an accepted host name is not plain: " + h);
            require(shortNames.insert(exportdetail::shortHostName(h)).second,
                "two accepted host names share a short name: " + h);
        }
        if (servers > 4)
            continue;
        const CostEngine &engine = smallEngine(servers);
        ExportOptions options;
        options.hosts = hosts;
        for (const ExportFormat format : allExportFormats()) {
            if (!exportUsesHosts(format))
                continue;
            std::string out;
            try {
                out = exportText(engine, format, options);
            } catch (const ScenarioError &) {
                continue;
            }
            for (const char c : out)
                require(static_cast<unsigned char>(c) >= 0x20 || c == '\n' || c == '\t',
                    std::string(exportFormatName(format)) + " export holds a control character");
        }
        outcome = Outcome::Evaluated;
    }
    return outcome;
}

/**
 * fuzz_hotness: a hotness file's text (JSON array, {"hotness": [...]} or CSV numbers). What
 * checkRouting() accepts must give expert shares that are finite, at most 1/top_k each and sum
 * to 1, EP members whose shares sum to 1 and a hot-load factor of at least 1; for up to 64
 * experts a small MoE scenario with that routing is then evaluated (fuzzharness.h invariants).
 */
inline Outcome fuzzHotness(std::string_view input)
{
    ExpertRouting routing;
    routing.kind = RoutingKind::Explicit;
    try {
        routing.hotness = parseHotnessText(std::string(input), "fuzz.csv");
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    const int experts = static_cast<int>(routing.hotness.size());
    try {
        checkRouting(routing, experts, "model.routing");
    } catch (const ScenarioError &) {
        return Outcome::Loaded;
    }
    const auto near1 = [](double x) { return std::isfinite(x) && std::fabs(x - 1.0) <= 1e-9; };
    for (const int topK : { 1, 2 }) {
        if (topK > experts)
            continue;
        const std::vector<double> shares = expertShares(routing, experts, topK);
        require(static_cast<int>(shares.size()) == experts, "one share per expert");
        double sum = 0.0;
        for (const double s : shares) {
            require(std::isfinite(s) && s >= 0.0 && s <= 1.0 / topK + 1e-9,
                "an expert share outside [0, 1/top_k]: " + std::to_string(s));
            sum += s;
        }
        require(near1(sum), "expert shares sum to " + std::to_string(sum));
        for (const int ep : { 1, 2, 4 }) {
            if (experts % ep != 0)
                continue;
            double members = 0.0;
            for (const double h : memberShares(routing, experts, ep, topK))
                members += h;
            require(near1(members), "EP member shares sum to " + std::to_string(members));
            const double hot = hotLoadFactor(routing, experts, ep, topK);
            require(std::isfinite(hot) && hot >= 1.0 - 1e-9 && hot <= ep + 1e-9,
                "hot-load factor " + std::to_string(hot) + " outside [1, ep]");
        }
    }
    if (experts > 64)
        return Outcome::Loaded;
    const int ep = experts % 2 == 0 ? 2 : 1;
    nlohmann::json scenario = {
        { "format_version", 1 },
        { "fabric", { { "servers", 1 }, { "gpus_per_server", 4 } } },
        { "parallel", { { "tp", 1 }, { "pp", 1 }, { "dp", 4 }, { "ep", ep } } },
        { "model",
            { { "layers", 2 }, { "hidden", 256 }, { "heads", 8 }, { "kv_heads", 8 },
                { "ffn", 1024 }, { "seq", 256 }, { "vocab", 1024 }, { "experts", experts },
                { "top_k", std::min(2, experts) },
                { "routing", { { "kind", "explicit" }, { "hotness", routing.hotness } } } } },
        { "training", { { "micro_batch", 1 }, { "global_batch", 8 } } },
    };
    Scenario s;
    try {
        s = parseScenario(scenario.dump());
    } catch (const ScenarioError &) {
        return Outcome::Loaded; // e.g. experts the layout cannot divide
    }
    require(s.model.routing.hotness.size() == routing.hotness.size(),
        "the scenario loader changed the hotness");
    return evaluateScenario(s);
}

/**
 * fuzz_searchpart: up to four search parts ("@@" between them), each read as merge reads a part
 * file (nlohmann::json::parse without exceptions, layoutSearchFromPartJson), written back and
 * read again to the same part, then merged; the merged result's JSON, CSV and text are written,
 * every number finite, and the best row's scenario built as --write-top would write it.
 */
inline Outcome fuzzSearchPart(std::string_view input)
{
    std::vector<LayoutSearchResult> parts;
    int index = 0;
    for (const std::string_view text : splitSections(input, 4)) {
        const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
        if (j.is_discarded())
            return Outcome::Rejected;
        const std::string what = "part " + std::to_string(++index);
        try {
            parts.push_back(layoutSearchFromPartJson(j, what));
        } catch (const ScenarioError &) {
            return Outcome::Rejected;
        }
        const nlohmann::json written = layoutSearchPartJson(parts.back());
        checkFinite(written, what);
        LayoutSearchResult back;
        try {
            back = layoutSearchFromPartJson(written, what + " written back");
        } catch (const ScenarioError &e) {
            throw HarnessFailure(std::string("a part does not read back: ") + e.what());
        }
        require(layoutSearchPartJson(back) == written, "a part reads back to another part");
    }
    LayoutSearchResult merged;
    try {
        merged = mergeSearchResults(parts);
    } catch (const ScenarioError &) {
        return Outcome::Loaded;
    }
    checkFinite(layoutSearchJson(merged), "merged");
    (void)layoutSearchCsv(merged);
    (void)layoutSearchText(merged);
    require(merged.top.size() <= static_cast<std::size_t>(std::max(0, merged.options.top))
            || merged.options.top <= 0,
        "the merge keeps more rows than its top");
    if (!merged.top.empty() && std::int64_t { merged.options.gpus } <= kMaxEvaluatedSlots) {
        try {
            const Scenario s = candidateScenario(merged.options, merged.top.front());
            (void)scenarioToText(s);
        } catch (const ScenarioError &) {
        }
    }
    return Outcome::Evaluated;
}

/**
 * fuzz_serverpattern: `import-topology --server-pattern`. The first line is the pattern (an
 * ECMAScript regular expression), every further line a device name; each device gets one cable
 * (`device,mlx5_0,leaf0,swpN,400`, RFC 4180 quoted) and the inventory goes through
 * importCabling() with the pattern and on to the engine as in fuzz_cabling.
 */
inline Outcome fuzzServerPattern(std::string_view input)
{
    const std::size_t nl = input.find('\n');
    const std::string pattern(input.substr(0, nl));
    std::string csv = "a_device,a_port,b_device,b_port,gbps\n";
    int n = 0;
    if (nl != std::string_view::npos) {
        for (const std::string_view device : splitLines(input.substr(nl + 1))) {
            std::string quoted = "\"";
            for (const char c : device) {
                quoted += c;
                if (c == '"')
                    quoted += '"';
            }
            quoted += '"';
            csv += quoted + ",mlx5_0,leaf0,swp" + std::to_string(n++) + ",400\n";
        }
    }
    CablingCsv parsed;
    try {
        parsed = parseCablingCsv(csv, "fuzz.csv");
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    return fuzzImportedCabling(parsed, pattern);
}

} // namespace railyard::fuzz
