/**
 * Expert parallelism with a skewed router: expert popularity, expert placement on the EP group,
 * the dispatch/combine traffic matrix of one MoE layer and its summary.
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

#include "cost/costengine.h"
#include "base/fileio.h"
#include "scenario/jsonfields.h"
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
#include <memory>
#include <set>

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
    case RoutingKind::Explicit:
        for (std::size_t i = 0; i < w.size(); ++i)
            w[i] = i < routing.hotness.size() ? routing.hotness[i] : 0.0;
        break;
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
    double sum = 0.0;
    for (std::size_t i = 0; i < routing.hotness.size(); ++i) {
        const double v = routing.hotness[i];
        if (!std::isfinite(v) || v < 0.0)
            throw ScenarioError(
                jsonElementPath(path, i), "must be a finite number >= 0, got " + number(v));
        sum += v;
    }
    if (!(sum > 0.0) || !std::isfinite(sum))
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
            JsonFields f(j, "", { "hotness" });
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
    // O_NONBLOCK: a FIFO named as a hotness file must not hang the loader (refused below).
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        throw ScenarioError(path, "cannot open hotness file: " + errnoText(errno));
    struct Closer
    {
        int fd;
        ~Closer() { ::close(fd); }
    } closer { fd };
    struct stat st
    {
    };
    if (::fstat(fd, &st) != 0)
        throw ScenarioError(path, "cannot read: " + errnoText(errno));
    if (!S_ISREG(st.st_mode))
        throw ScenarioError(path, "is not a regular file");
    if (st.st_size > kMaxHotnessFileBytes)
        throw ScenarioError(path,
            "file is " + std::to_string(st.st_size) + " bytes, more than the limit of "
                + std::to_string(kMaxHotnessFileBytes) + " bytes");
    const std::string text = readAllLimited(fd, path, kMaxHotnessFileBytes);
    return parseHotnessText(text, path);
}

EpSummary epSummary(const CostEngine &engine, int group)
{
    EpSummary out;
    const Scenario &s = engine.scenario();
    const ModelSpec &m = s.model;
    if (m.experts <= 0 || m.topK <= 0)
        return out;
    const ParallelLayout &layout = engine.layout();
    const Fabric &fabric = engine.fabric();
    const Mapping &mapping = engine.mapping();
    const CostReport &report = engine.report();
    const std::vector<std::vector<int>> &groups = layout.groups(GroupKind::Ep);
    if (groups.empty())
        return out;

    out.present = true;
    out.kind = m.routing.kind;
    out.zipfExponent = m.routing.kind == RoutingKind::Zipf ? m.routing.zipfExponent : 0.0;
    out.ep = s.degrees.ep;
    out.experts = m.experts;
    out.topK = m.topK;
    out.groupCount = static_cast<int>(groups.size());
    out.group = std::clamp(group, 0, out.groupCount - 1);
    out.groupRanks = groups[static_cast<std::size_t>(out.group)];
    const int ep = out.ep;
    const auto n = static_cast<std::size_t>(ep);

    // The all-to-all buffer per rank, as workloadplan.cpp sizes the EP op: T = b s / c tokens,
    // the sequence-parallel shard T / t with SP ([MegatronMoE] dispatches the SP shard),
    // S = T topK h e.
    const bool sp = s.training.sequenceParallel && s.degrees.tp > 1;
    const double tokens = static_cast<double>(s.training.microBatch) * m.seq / s.degrees.cp;
    out.tokensPerRank = sp ? tokens / s.degrees.tp : tokens;
    out.sendBytesPerRank
        = out.tokensPerRank * m.topK * m.hidden * precisionBytes(s.training.precision);
    const double S = out.sendBytesPerRank;

    out.expertShare = expertShares(m.routing, m.experts, m.topK);
    out.memberShare = memberShares(m.routing, m.experts, ep, m.topK);
    out.hottestExpert = static_cast<int>(
        std::max_element(out.expertShare.begin(), out.expertShare.end()) - out.expertShare.begin());

    // Dispatch matrix [Rajbhandari22]: source i sends destination j the routed copies of its
    // tokens whose expert lives on j, S H_j (every source routes alike); combine returns them.
    out.matrix.assign(n * n, 0.0);
    out.receivedBytes.assign(n, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j) {
            const double b = S * out.memberShare[j];
            out.matrix[i * n + j] = b;
            if (i != j) {
                out.dispatchBytesPerLayer += b;
                out.receivedBytes[j] += b;
            }
        }
    out.dispatchBytesPerLayerJob = out.dispatchBytesPerLayer * out.groupCount;
    out.hottestMember
        = static_cast<int>(std::max_element(out.receivedBytes.begin(), out.receivedBytes.end())
            - out.receivedBytes.begin());
    out.receivedMax = out.receivedBytes[static_cast<std::size_t>(out.hottestMember)];
    out.receivedMean = out.dispatchBytesPerLayer / ep;
    // Load skew max/mean [Fedus22] §2.2, [Hwang23]: = ep max_j H_j; 1 with a single member.
    out.skew = out.receivedMean > 0.0 ? out.receivedMax / out.receivedMean : 1.0;
    out.hottestRank = out.groupRanks[static_cast<std::size_t>(out.hottestMember)];
    const int local = m.experts / std::max(1, ep);
    out.hottestFirstExpert = out.hottestMember * local;
    out.hottestLastExpert = out.hottestFirstExpert + local - 1;

    // Which pairs meet only through a spine: the router's route has a leaf-to-leaf part.
    std::shared_ptr<Router> router = engine.sharedRouter();
    Router::Parts parts;
    out.crossesSpine.assign(n * n, false);
    for (std::size_t g = 0; g < groups.size(); ++g) {
        const std::vector<int> &members = groups[g];
        double crossing = 0.0;
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < n; ++j) {
                if (i == j)
                    continue;
                router->routeParts(mapping.slotOf(members[i]), mapping.slotOf(members[j]), parts);
                if (parts.segmentCount == 0)
                    continue;
                crossing += out.matrix[i * n + j];
                if (static_cast<int>(g) == out.group)
                    out.crossesSpine[i * n + j] = true;
            }
        if (static_cast<int>(g) == out.group)
            out.spineDispatchBytesPerLayer = crossing;
        out.spineDispatchBytesPerLayerJob += crossing;
    }

    for (Tier t : kAllTiers)
        out.tierBytes[static_cast<std::size_t>(index(t))]
            = report.tierBytes[index(t)][index(Dim::Ep)];
    out.spineBytes = out.tierBytes[static_cast<std::size_t>(index(Tier::Spine))]
        + out.tierBytes[static_cast<std::size_t>(index(Tier::SuperSpine))];
    out.exposedTime = report.dimExposed[index(Dim::Ep)];

    // Locality (seed: experts spread over rail leaves push dispatch onto the spine, against the
    // same-rail locality DP enjoys). A group needs a spine iff its members use > 1 server and
    // > 1 leaf: then some pair differs in both (no PXN considered here).
    struct Span
    {
        std::size_t servers = 0;
        std::size_t leaves = 0;
        bool spansLeaves() const { return servers > 1 && leaves > 1; }
    };
    auto spanOf = [&](const std::vector<int> &members) {
        std::set<int> servers;
        std::set<int> leaves;
        for (int r : members) {
            const int slot = mapping.slotOf(r);
            const int server = fabric.serverOfSlot(slot);
            servers.insert(server);
            leaves.insert(fabric.leafOfNic(server, fabric.nicOfGpu(fabric.gpuOfSlot(slot))));
        }
        return Span { servers.size(), leaves.size() };
    };
    if (s.degrees.dp * s.degrees.cp > 1) {
        for (const std::vector<int> &members : layout.groups(GroupKind::DpCp)) {
            ++out.dpGroups;
            out.dpGroupsOneLeaf += spanOf(members).spansLeaves() ? 0 : 1;
        }
    }
    for (const std::vector<int> &members : groups) {
        const Span span = spanOf(members);
        out.epGroupsOneServer += span.servers == 1 ? 1 : 0;
        out.epGroupsSpanningLeaves += span.spansLeaves() ? 1 : 0;
    }
    const bool epLocal = out.epGroupsOneServer == out.groupCount;
    const bool dpLocal = out.dpGroupsOneLeaf == out.dpGroups;
    out.locality = epLocal && dpLocal     ? "both-local"
        : epLocal                         ? "ep-in-server"
        : out.epGroupsSpanningLeaves == 0 ? "dp-on-leaf"
                                          : "ep-spans-leaves";
    return out;
}

} // namespace railyard
