/**
 * Expert parallelism with a skewed router: expert popularity, expert placement on the EP group,
 * and the share of routed tokens each EP member receives (cost/epsummary.cpp turns them into the
 * traffic matrix of an evaluated mapping).
 *
 * Sources cited below:
 *  [Zipf49]     G. K. Zipf, "Human Behavior and the Principle of Least Effort", 1949: the k-th
 *               most frequent item has frequency proportional to 1 / k^s (s ~ 1).
 *  [Fedus22]    Fedus, Zoph, Shazeer, "Switch Transformers: Scaling to Trillion Parameter Models
 *               with Simple and Efficient Sparsity", JMLR 2022, §2.2: tokens are not spread
 *               evenly over experts; the auxiliary load-balancing loss N sum_i f_i P_i pushes the
 *               dispatch fractions f_i towards 1/N (uniform routing is the balanced ideal).
 *  [Rajbhandari22] Rajbhandari et al., "DeepSpeed-MoE: Advancing Mixture-of-Experts Inference
 *               and Training to Power Next-Generation AI Scale", ICML 2022 (expert-parallel
 *               all-to-all dispatch/combine per MoE layer).
 *  [Hwang23]    Hwang et al., "Tutel: Adaptive Mixture-of-Experts at Scale", MLSys 2023, §2:
 *               the expert load changes from iteration to iteration and is skewed; the busiest
 *               expert's rank sets the layer's pace.
 *  [He22]       He et al., "FasterMoE: Modeling and Optimizing Training of Large-Scale Dynamic
 *               Pre-Trained Models", PPoPP 2022, §3-4: skewed expert popularity makes the ranks
 *               holding hot experts stragglers of the all-to-all and of the expert compute.
 *  [MegatronMoE] Megatron-Core MoE (megatron/core/transformer/moe): EP rank j holds the local
 *               experts [j E/ep, (j+1) E/ep) (local_expert_indices); the alltoall token
 *               dispatcher sends each rank's sequence-parallel shard of routed tokens.
 */
#include "workload/eprouting.h"

#include "base/fileio.h"
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace railyard {

namespace {

constexpr std::size_t kMaxHotnessEntries = 1 << 16; // model.experts' limit

std::string number(double v)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

/// Raw (unnormalised) weight per expert.
std::vector<double> rawWeights(const ExpertRouting &routing, int experts)
{
    std::vector<double> w(static_cast<std::size_t>(std::max(0, experts)), 1.0);
    switch (routing.kind) {
    case RoutingKind::Uniform:
        break;
    case RoutingKind::Zipf:
        // [Zipf49]: popularity rank k = i + 1 has weight 1 / k^s; expert 0 is the hottest.
        for (std::size_t i = 0; i < w.size(); ++i)
            w[i] = 1.0 / std::pow(static_cast<double>(i + 1), routing.zipfExponent);
        break;
    case RoutingKind::Explicit: {
        // Relative to the largest weight, so that their sum stays finite (eight weights of
        // 1e308 add up to inf, and every share would become 0).
        double largest = 0.0;
        for (std::size_t i = 0; i < w.size() && i < routing.hotness.size(); ++i)
            largest = std::max(largest, routing.hotness[i]);
        for (std::size_t i = 0; i < w.size(); ++i)
            w[i] = i < routing.hotness.size() && largest > 0.0 ? routing.hotness[i] / largest : 0.0;
        break;
    }
    }
    return w;
}

/// A number token of a CSV-style hotness text; throws naming the token.
double csvNumber(const std::string &token, const std::string &origin, std::size_t index)
{
    const char *begin = token.c_str();
    char *end = nullptr;
    errno = 0;
    const double v = std::strtod(begin, &end);
    if (end == begin || *end != '\0' || errno == ERANGE || !std::isfinite(v))
        throw ScenarioError(origin,
            "entry " + std::to_string(index) + " '" + token.substr(0, 40) + "' is not a number");
    return v;
}

} // namespace

std::string_view routingKindName(RoutingKind kind)
{
    switch (kind) {
    case RoutingKind::Zipf:
        return "zipf";
    case RoutingKind::Explicit:
        return "explicit";
    case RoutingKind::Uniform:
        break;
    }
    return "uniform";
}

void checkRouting(const ExpertRouting &routing, int experts, const std::string &field)
{
    switch (routing.kind) {
    case RoutingKind::Uniform:
        return;
    case RoutingKind::Zipf:
        if (!std::isfinite(routing.zipfExponent) || routing.zipfExponent < 0.0
            || routing.zipfExponent > kMaxZipfExponent)
            throw ScenarioError(jsonFieldPath(field, "zipf_exponent"),
                "must lie in 0.." + number(kMaxZipfExponent) + ", got "
                    + number(routing.zipfExponent));
        return;
    case RoutingKind::Explicit:
        break;
    }
    const std::string path = jsonFieldPath(field, "hotness");
    if (routing.hotness.empty())
        throw ScenarioError(path, "explicit routing needs one weight per expert, got none");
    double largest = 0.0; // not their sum: finite weights can add up to inf
    for (std::size_t i = 0; i < routing.hotness.size(); ++i) {
        const double v = routing.hotness[i];
        if (!std::isfinite(v) || v < 0.0)
            throw ScenarioError(
                jsonElementPath(path, i), "must be a finite number >= 0, got " + number(v));
        largest = std::max(largest, v);
    }
    if (!(largest > 0.0))
        throw ScenarioError(path, "all weights are zero: no expert would receive a token");
    if (experts > 0 && routing.hotness.size() != static_cast<std::size_t>(experts))
        throw ScenarioError(path,
            "has " + std::to_string(routing.hotness.size()) + " entries but model.experts is "
                + std::to_string(experts));
}

std::vector<double> expertShares(const ExpertRouting &routing, int experts, int topK)
{
    std::vector<double> w = rawWeights(routing, experts);
    // Top-k gating picks k distinct experts per token (Shazeer et al. 2017, "Outrageously Large
    // Neural Networks", §2.1; [Fedus22] §2.1): expert e receives a fraction p_e <= 1 of the
    // tokens and sum_e p_e = k, so its share of the copies p_e / k is at most 1/k. Cap there
    // and hand the excess to the uncapped experts in proportion to their weights, until no
    // share exceeds the cap (at most `experts` rounds).
    const double cap = topK > 1 && topK <= experts ? 1.0 / topK : 1.0;
    std::vector<bool> capped(w.size(), false);
    for (std::size_t round = 0; round <= w.size(); ++round) {
        double free = 1.0;
        double weight = 0.0;
        std::size_t open = 0;
        for (std::size_t i = 0; i < w.size(); ++i) {
            if (capped[i]) {
                free -= cap;
            } else {
                weight += w[i];
                ++open;
            }
        }
        // Only zero weights left uncapped (explicit hotness): the remaining picks must still go
        // to distinct experts, so spread them evenly.
        if (!(weight > 0.0))
            for (std::size_t i = 0; i < w.size(); ++i)
                if (!capped[i]) {
                    w[i] = 1.0;
                    weight = static_cast<double>(open);
                }
        bool again = false;
        for (std::size_t i = 0; i < w.size(); ++i) {
            if (capped[i])
                continue;
            if (weight > 0.0 && w[i] / weight * free > cap * (1.0 + 1e-12)) {
                capped[i] = true;
                again = true;
            }
        }
        if (again)
            continue;
        std::vector<double> share(w.size(), 0.0);
        for (std::size_t i = 0; i < w.size(); ++i)
            share[i] = capped[i] ? cap : (weight > 0.0 ? w[i] / weight * free : 0.0);
        return share;
    }
    return w; // not reached: every round caps at least one more expert
}

std::vector<double> memberShares(const ExpertRouting &routing, int experts, int ep, int topK)
{
    ep = std::max(1, ep);
    std::vector<double> h(static_cast<std::size_t>(ep), 0.0);
    if (routing.isUniform() || experts <= 0 || experts % ep != 0) {
        // Exactly 1/ep, the share the engine's uniform all-to-all has always used.
        std::fill(h.begin(), h.end(), 1.0 / ep);
        return h;
    }
    // [MegatronMoE]: member j holds experts [j E/ep, (j+1) E/ep); H_j sums their shares.
    const std::vector<double> share = expertShares(routing, experts, topK);
    const int local = experts / ep;
    for (int e = 0; e < experts; ++e)
        h[static_cast<std::size_t>(e / local)] += share[static_cast<std::size_t>(e)];
    return h;
}

double hotLoadFactor(const ExpertRouting &routing, int experts, int ep, int topK)
{
    if (routing.isUniform() || ep <= 1)
        return 1.0;
    const std::vector<double> h = memberShares(routing, experts, ep, topK);
    // Received tokens of member j over the average: ep H_j [He22]; the busiest sets the pace.
    return std::max(1.0, ep * *std::max_element(h.begin(), h.end()));
}

ExpertRouting parseRoutingOption(const std::string &text)
{
    ExpertRouting r;
    const std::size_t colon = text.find(':');
    const std::string kind = text.substr(0, colon);
    const std::string arg = colon == std::string::npos ? std::string() : text.substr(colon + 1);
    if (kind == "uniform" && colon == std::string::npos)
        return r;
    if (kind == "zipf" && colon != std::string::npos) {
        char *end = nullptr;
        errno = 0;
        const double s = std::strtod(arg.c_str(), &end);
        if (arg.empty() || end == arg.c_str() || *end != '\0' || errno == ERANGE)
            throw ScenarioError(
                "--routing", "expected zipf:S with a number S, got '" + text.substr(0, 60) + "'");
        if (!(s >= 0.0 && s <= kMaxZipfExponent))
            throw ScenarioError("--routing",
                "the Zipf exponent must lie in 0.." + number(kMaxZipfExponent) + ", got " + arg);
        r.kind = RoutingKind::Zipf;
        r.zipfExponent = s;
        return r;
    }
    if (kind == "hotness" && !arg.empty()) {
        r.kind = RoutingKind::Explicit;
        r.hotness = loadHotnessFile(arg); // values checked there; the length by the engine
        return r;
    }
    throw ScenarioError(
        "--routing", "expected uniform, zipf:S or hotness:FILE, got '" + text.substr(0, 60) + "'");
}

std::vector<double> parseHotnessText(const std::string &text, const std::string &origin)
{
    const std::size_t first = text.find_first_not_of(" \t\r\n");
    std::vector<double> out;
    if (first != std::string::npos && (text[first] == '[' || text[first] == '{')) {
        nlohmann::json j;
        try {
            j = parseJsonGuarded(text, 4);
        } catch (const nlohmann::json::exception &e) {
            throw ScenarioError(origin, std::string("not valid JSON: ") + e.what());
        }
        const nlohmann::json *values = &j;
        std::string path = origin;
        if (j.is_object()) {
            // The file names the object, so "unknown field" and "missing" say which file.
            JsonFields f(j, origin, { "hotness" });
            f.rejectUnknown();
            values = &f.required("hotness");
            path = jsonFieldPath(origin, "hotness");
        }
        if (!values->is_array())
            throw ScenarioError(path, "expected an array of numbers, got " + jsonTypeName(*values));
        if (values->size() > kMaxHotnessEntries)
            throw ScenarioError(path,
                "has " + std::to_string(values->size()) + " entries, more than the limit of "
                    + std::to_string(kMaxHotnessEntries));
        for (std::size_t i = 0; i < values->size(); ++i)
            out.push_back(jsonNumber((*values)[i], jsonElementPath(path, i), 0.0, 1e300));
        if (std::all_of(out.begin(), out.end(), [](double v) { return v == 0.0; }))
            throw ScenarioError(path, "all weights are zero: no expert would receive a token");
        return out;
    }
    // CSV or plain list: numbers separated by commas, semicolons or white space; '#' comments.
    std::string token;
    bool comment = false;
    auto flush = [&] {
        if (token.empty())
            return;
        if (out.size() >= kMaxHotnessEntries)
            throw ScenarioError(
                origin, "more than " + std::to_string(kMaxHotnessEntries) + " entries");
        out.push_back(csvNumber(token, origin, out.size()));
        if (out.back() < 0.0)
            throw ScenarioError(origin,
                "entry " + std::to_string(out.size() - 1) + " must not be negative, got "
                    + token.substr(0, 40));
        token.clear();
    };
    for (char c : text) {
        if (c == '\n')
            comment = false;
        if (comment)
            continue;
        if (c == '#') {
            flush();
            comment = true;
        } else if (c == ',' || c == ';' || c == ' ' || c == '\t' || c == '\r' || c == '\n') {
            flush();
        } else {
            token += c;
        }
    }
    flush();
    if (out.empty())
        throw ScenarioError(origin, "holds no hotness values");
    if (std::all_of(out.begin(), out.end(), [](double v) { return v == 0.0; }))
        throw ScenarioError(origin, "all weights are zero: no expert would receive a token");
    return out;
}

std::vector<double> loadHotnessFile(const std::string &path)
{
    std::string text;
    try {
        // Refuses a FIFO, directory or device at once (base/fileio.h).
        text = readFileLimited(path, kMaxHotnessFileBytes, "a hotness file");
    } catch (const ScenarioError &e) {
        // The message users and tests know for a missing file.
        if (e.reason().rfind("cannot open: ", 0) == 0)
            throw ScenarioError(path, "cannot open hotness file: " + e.reason().substr(13));
        throw;
    }
    return parseHotnessText(text, path);
}

} // namespace railyard
