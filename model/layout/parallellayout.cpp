#include "layout/parallellayout.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>

// Rank generation follows Megatron-LM, megatron/core/parallel_state.py: class RankGenerator
// and generate_masked_orthogonal_rank_groups(). Written from its documented semantics:
//  * the order string lists the dimensions fastest-varying first, so with sizes s_0..s_{n-1}
//    in order the global rank is sum_i x_i * (s_0 * ... * s_{i-1});
//  * dimensions of size 1 missing from the order are appended; a missing dimension of size > 1
//    is an error;
//  * for a token such as "dp-cp" the mask selects those dimensions (by their position in the
//    order, so "cp-dp" is the same token); members of one group enumerate the masked dims,
//    groups enumerate the unmasked dims, the first dim in order varying fastest in both;
//  * initialize_model_parallel() builds a dense generator (tp, cp, ep=1, dp, pp) and an expert
//    generator (expert tp, ep, expert dp, pp, cp=1) over the same order; here expert tp = tp,
//    so expert dp = world / (tp*ep*pp) = dp*cp/ep.

namespace railyard {

namespace {

constexpr int kKindCount = 8;
constexpr std::array<std::string_view, kKindCount> kKindNames { "tp", "pp", "dp", "cp", "ep",
    "dp-cp", "tp-pp", "edp" };
constexpr int kindIndex(GroupKind kind)
{
    return static_cast<int>(kind);
}

/// The five dimension tokens a Megatron order string may contain.
enum Token { TokTp, TokPp, TokDp, TokCp, TokEp, TokCount };
constexpr std::array<std::string_view, TokCount> kTokenNames { "tp", "pp", "dp", "cp", "ep" };

/** One Megatron RankGenerator: the dimensions in order (fastest first) and their sizes. */
struct Generator
{
    std::vector<Token> order;
    std::vector<int> sizes;
    std::vector<int> strides; ///< prefix products of sizes (global stride of each dim)

    Generator(const std::vector<Token> &tokens, const std::array<int, TokCount> &sizeOf)
        : order(tokens)
    {
        int stride = 1;
        for (Token t : order) {
            sizes.push_back(sizeOf[t]);
            strides.push_back(stride);
            stride *= sizeOf[t];
        }
    }

    int position(Token t) const
    {
        return static_cast<int>(std::find(order.begin(), order.end(), t) - order.begin());
    }

    /// generate_masked_orthogonal_rank_groups(world, sizes, mask) for the dims in `token`.
    GroupList groups(int world, std::initializer_list<Token> token) const
    {
        std::vector<int> maskedSize, maskedStride, unmaskedSize, unmaskedStride;
        for (std::size_t i = 0; i < order.size(); ++i) {
            const bool masked = std::find(token.begin(), token.end(), order[i]) != token.end();
            (masked ? maskedSize : unmaskedSize).push_back(sizes[i]);
            (masked ? maskedStride : unmaskedStride).push_back(strides[i]);
        }
        int groupSize = 1;
        for (int s : maskedSize)
            groupSize *= s;
        const int groupCount = world / groupSize;

        // Offsets of the members relative to the group's first rank are the same for every
        // group, so compute them once.
        std::vector<int> memberOffset(static_cast<std::size_t>(groupSize));
        for (int i = 0; i < groupSize; ++i)
            memberOffset[static_cast<std::size_t>(i)] = innerProduct(i, maskedSize, maskedStride);

        std::vector<int> members;
        members.reserve(static_cast<std::size_t>(world));
        for (int g = 0; g < groupCount; ++g) {
            const int base = innerProduct(g, unmaskedSize, unmaskedStride);
            for (int off : memberOffset)
                members.push_back(base + off);
        }
        return { std::move(members), groupSize };
    }

    /// Decomposes `index` over `shape` (first fastest) and maps the digits through `stride`.
    static int innerProduct(
        int index, const std::vector<int> &shape, const std::vector<int> &stride)
    {
        int value = 0;
        for (std::size_t i = 0; i < shape.size(); ++i) {
            value += (index % shape[i]) * stride[i];
            index /= shape[i];
        }
        return value;
    }
};

void checkDegree(const char *name, int value)
{
    const std::string field = std::string("parallel.") + name;
    if (value < 1)
        throw ScenarioError(
            field, std::string(name) + " must be at least 1, got " + std::to_string(value));
    if (value > limits::kMaxDegree)
        throw ScenarioError(field,
            std::string(name) + " = " + std::to_string(value) + " exceeds the limit of "
                + std::to_string(limits::kMaxDegree));
}

/// Splits and checks the order string; appends missing size-1 dims as Megatron does.
std::vector<Token> parseOrder(const std::string &order, const std::array<int, TokCount> &dense,
    const std::array<int, TokCount> &expert)
{
    const std::string field = "parallel.order";
    if (order.empty())
        throw ScenarioError(field, "the order string is empty (expected e.g. 'tp-cp-ep-dp-pp')");

    std::vector<Token> tokens;
    std::size_t start = 0;
    while (true) {
        const std::size_t dash = order.find('-', start);
        const std::string word
            = order.substr(start, dash == std::string::npos ? std::string::npos : dash - start);
        if (word.empty())
            throw ScenarioError(field, "empty dimension name in '" + order + "'");
        const auto it = std::find(kTokenNames.begin(), kTokenNames.end(), word);
        if (it == kTokenNames.end())
            throw ScenarioError(field,
                "unknown dimension '" + word + "' in '" + order
                    + "' (expected tp, pp, dp, cp or ep)");
        const auto tok = static_cast<Token>(it - kTokenNames.begin());
        if (std::find(tokens.begin(), tokens.end(), tok) != tokens.end())
            throw ScenarioError(field, "'" + word + "' appears more than once in '" + order + "'");
        tokens.push_back(tok);
        if (dash == std::string::npos)
            break;
        start = dash + 1;
    }

    for (int t = 0; t < TokCount; ++t) {
        const auto tok = static_cast<Token>(t);
        if (std::find(tokens.begin(), tokens.end(), tok) != tokens.end())
            continue;
        const std::string name(kTokenNames[tok]);
        // ep only exists in the expert generator; there dp becomes dp*cp/ep, which may exceed
        // 1 even when dp itself is 1: Megatron's expert RankGenerator then rejects the order.
        const int size = std::max(dense[tok], tok == TokDp ? 1 : expert[tok]);
        if (size > 1)
            throw ScenarioError(field,
                name + " = " + std::to_string(size) + " > 1 but '" + name
                    + "' is not in the order '" + order + "'");
        if (tok == TokDp && expert[tok] > 1)
            throw ScenarioError(field,
                "expert data-parallel size dp*cp/ep = " + std::to_string(expert[tok])
                    + " > 1 but 'dp' is not in the order '" + order + "'");
        tokens.push_back(tok);
    }
    return tokens;
}

} // namespace

std::string_view groupKindName(GroupKind kind)
{
    return kKindNames[static_cast<std::size_t>(kindIndex(kind))];
}

bool parseGroupKind(std::string_view name, GroupKind &out)
{
    const auto it = std::find(kKindNames.begin(), kKindNames.end(), name);
    if (it == kKindNames.end())
        return false;
    out = static_cast<GroupKind>(it - kKindNames.begin());
    return true;
}

ParallelLayout::ParallelLayout(const ParallelDegrees &degrees, std::string order)
    : m_degrees(degrees)
    , m_order(std::move(order))
{
    checkDegree("tp", degrees.tp);
    checkDegree("pp", degrees.pp);
    checkDegree("dp", degrees.dp);
    checkDegree("cp", degrees.cp);
    checkDegree("ep", degrees.ep);

    // Each degree is <= 2^20, so the running product stays far inside int64 before the check;
    // the message lists the factors because their full product may not fit in any integer.
    std::int64_t world = 1;
    for (int d : { degrees.tp, degrees.pp, degrees.dp, degrees.cp }) {
        world *= d;
        if (world > limits::kMaxGpus)
            throw ScenarioError("parallel",
                "world size tp*pp*dp*cp = " + std::to_string(degrees.tp) + "*"
                    + std::to_string(degrees.pp) + "*" + std::to_string(degrees.dp) + "*"
                    + std::to_string(degrees.cp) + " exceeds the limit of "
                    + std::to_string(limits::kMaxGpus) + " GPUs");
    }
    m_world = static_cast<int>(world);

    const int dpcp = degrees.dp * degrees.cp;
    if (dpcp % degrees.ep != 0)
        throw ScenarioError("parallel.ep",
            "ep = " + std::to_string(degrees.ep) + " must divide dp*cp = " + std::to_string(dpcp));
    const int expertDp = dpcp / degrees.ep;

    std::transform(m_order.begin(), m_order.end(), m_order.begin(),
        [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
    const std::array<int, TokCount> denseSizes { degrees.tp, degrees.pp, degrees.dp, degrees.cp,
        1 };
    const std::array<int, TokCount> expertSizes { degrees.tp, degrees.pp, expertDp, 1, degrees.ep };
    const std::vector<Token> tokens = parseOrder(m_order, denseSizes, expertSizes);

    const Generator dense(tokens, denseSizes);
    const Generator expert(tokens, expertSizes);

    m_stride.t = dense.strides[static_cast<std::size_t>(dense.position(TokTp))];
    m_stride.p = dense.strides[static_cast<std::size_t>(dense.position(TokPp))];
    m_stride.d = dense.strides[static_cast<std::size_t>(dense.position(TokDp))];
    m_stride.c = dense.strides[static_cast<std::size_t>(dense.position(TokCp))];

    // Megatron-LM's initialize_model_parallel() rejects an order where pp is not last unless
    // the expert and dense data-parallel sizes agree, and an order where the two generators
    // disagree on the pp groups.
    const std::string quoted = "'" + m_order + "'";
    const std::string epText = "ep = " + std::to_string(degrees.ep);
    const bool ppLast = m_order.size() >= 2 && m_order.compare(m_order.size() - 2, 2, "pp") == 0;
    if (!ppLast && degrees.pp > 1 && expertDp != degrees.dp)
        throw ScenarioError("parallel.order",
            "pp = " + std::to_string(degrees.pp) + " > 1 is not last in the order " + quoted
                + ", so Megatron-LM needs the expert data-parallel size "
                  "dp*cp/ep = "
                + std::to_string(expertDp) + " to equal dp = " + std::to_string(degrees.dp));
    // Each kind's groups are made once (tp and pp for the checks below and for the layout);
    // where cp and ep are 1 the two generators have one shape and agree on every kind.
    const bool oneShape = dense.sizes == expert.sizes;
    GroupList ppGroups = dense.groups(m_world, { TokPp });
    GroupList tpGroups = dense.groups(m_world, { TokTp });
    if (!oneShape && ppGroups != expert.groups(m_world, { TokPp }))
        throw ScenarioError("parallel.order",
            "in the order " + quoted
                + " the expert rank generator (cp folded into "
                  "dp, "
                + epText
                + ") gives other pp groups than the dense one, which "
                  "Megatron-LM rejects; keep cp, ep and dp on the same side of pp");
    // Not a Megatron check: Megatron lets expert TP differ from TP, Railyard models expert TP =
    // TP, so each ep group must sit inside one dp-cp group (same t and p).
    if (!oneShape && tpGroups != expert.groups(m_world, { TokTp }))
        throw ScenarioError("parallel.order",
            "in the order " + quoted
                + " the expert rank generator (cp folded into "
                  "dp, "
                + epText
                + ") gives other tp groups than the dense one, but "
                  "Railyard models expert TP = TP; keep cp, ep and dp on the same side "
                  "of tp");

    m_groups.resize(kKindCount);
    m_groups[kindIndex(GroupKind::Tp)] = std::move(tpGroups);
    m_groups[kindIndex(GroupKind::Pp)] = std::move(ppGroups);
    m_groups[kindIndex(GroupKind::Dp)] = dense.groups(m_world, { TokDp });
    m_groups[kindIndex(GroupKind::Cp)] = dense.groups(m_world, { TokCp });
    m_groups[kindIndex(GroupKind::DpCp)] = dense.groups(m_world, { TokDp, TokCp });
    m_groups[kindIndex(GroupKind::TpPp)] = dense.groups(m_world, { TokTp, TokPp });
    m_groups[kindIndex(GroupKind::Ep)] = expert.groups(m_world, { TokEp });
    m_groups[kindIndex(GroupKind::ExpertDp)] = expert.groups(m_world, { TokDp });

    const auto w = static_cast<std::size_t>(m_world);
    m_groupOf.assign(kKindCount, std::vector<int>(w, -1));
    m_coords.assign(w, RankCoord {});
    for (int k = 0; k < kKindCount; ++k) {
        const auto &groups = m_groups[static_cast<std::size_t>(k)];
        auto &groupOf = m_groupOf[static_cast<std::size_t>(k)];
        for (std::size_t g = 0; g < groups.size(); ++g) {
            for (std::size_t i = 0; i < groups[g].size(); ++i) {
                const auto r = static_cast<std::size_t>(groups[g][i]);
                groupOf[r] = static_cast<int>(g);
                if (k == kindIndex(GroupKind::Ep))
                    m_coords[r].e = static_cast<int>(i);
            }
        }
    }
    for (int r = 0; r < m_world; ++r) {
        RankCoord &c = m_coords[static_cast<std::size_t>(r)];
        c.t = (r / m_stride.t) % degrees.tp;
        c.p = (r / m_stride.p) % degrees.pp;
        c.d = (r / m_stride.d) % degrees.dp;
        c.c = (r / m_stride.c) % degrees.cp;
    }
}

int ParallelLayout::rankOf(int t, int p, int d, int c) const
{
    // Out-of-range coordinates have no rank; callers get -1 rather than a neighbour's rank.
    if (t < 0 || t >= m_degrees.tp || p < 0 || p >= m_degrees.pp || d < 0 || d >= m_degrees.dp
        || c < 0 || c >= m_degrees.cp)
        return -1;
    return t * m_stride.t + p * m_stride.p + d * m_stride.d + c * m_stride.c;
}

const GroupList &ParallelLayout::groups(GroupKind kind) const
{
    return m_groups[static_cast<std::size_t>(kindIndex(kind))];
}

int ParallelLayout::groupOf(GroupKind kind, int rank) const
{
    return m_groupOf[static_cast<std::size_t>(kindIndex(kind))][static_cast<std::size_t>(rank)];
}

std::vector<std::vector<int>> hybridSubgroups(std::span<const int> members, int shard, bool replica)
{
    const int n = static_cast<int>(members.size());
    if (shard <= 0 || shard >= n)
        return { std::vector<int>(members.begin(), members.end()) };
    const int shards = n / shard;
    std::vector<std::vector<int>> out;
    if (!replica) {
        for (int k = 0; k < shards; ++k)
            out.emplace_back(members.begin() + k * shard, members.begin() + (k + 1) * shard);
        return out;
    }
    for (int j = 0; j < shard; ++j) {
        std::vector<int> &sub = out.emplace_back();
        for (int k = 0; k < shards; ++k)
            sub.push_back(members[static_cast<std::size_t>(k * shard + j)]);
    }
    return out;
}

} // namespace railyard
