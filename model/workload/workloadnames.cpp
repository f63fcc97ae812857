#include "workload/workloadnames.h"

#include "workload/workloadplan.h"

#include "base/sizelimits.h"

#include <array>
#include <cstdint>

namespace railyard {

namespace {

constexpr std::array<std::string_view, 3> kPrecisionNames{"bf16", "fp16", "fp8"};
constexpr std::array<std::string_view, 3> kRecomputeNames{"none", "selective", "full"};
constexpr std::array<std::string_view, 3> kDpShardingNames{"optim", "optim_grads",
                                                           "optim_grads_params"};

} // namespace

std::string_view precisionName(Precision p)
{
    return kPrecisionNames[static_cast<std::size_t>(p)];
}

bool parsePrecision(std::string_view name, Precision &out)
{
    for (std::size_t i = 0; i < kPrecisionNames.size(); ++i) {
        if (kPrecisionNames[i] == name) {
            out = static_cast<Precision>(i);
            return true;
        }
    }
    return false;
}

std::string_view recomputeName(Recompute r)
{
    return kRecomputeNames[static_cast<std::size_t>(r)];
}

bool parseRecompute(std::string_view name, Recompute &out)
{
    for (std::size_t i = 0; i < kRecomputeNames.size(); ++i) {
        if (kRecomputeNames[i] == name) {
            out = static_cast<Recompute>(i);
            return true;
        }
    }
    return false;
}

std::string_view dpShardingName(DpSharding d)
{
    return kDpShardingNames[static_cast<std::size_t>(d)];
}

bool parseDpSharding(std::string_view name, DpSharding &out)
{
    for (std::size_t i = 0; i < kDpShardingNames.size(); ++i) {
        if (kDpShardingNames[i] == name) {
            out = static_cast<DpSharding>(i);
            return true;
        }
    }
    return false;
}

std::string fsdpModeName(int shard)
{
    return shard > 0 ? "hybrid:" + std::to_string(shard) : std::string("full");
}

bool parseFsdpMode(std::string_view text, int &shard)
{
    if (text == "full") {
        shard = 0;
        return true;
    }
    constexpr std::string_view kHybrid = "hybrid:";
    if (text.substr(0, kHybrid.size()) != kHybrid)
        return false;
    const std::string_view digits = text.substr(kHybrid.size());
    // 1 to limits::kMaxDegree (2^20, the largest parallel degree): at most 7 digits.
    if (digits.empty() || digits.size() > 7 || digits.front() == '0')
        return false;
    std::int64_t value = 0;
    for (const char ch : digits) {
        if (ch < '0' || ch > '9')
            return false;
        value = value * 10 + (ch - '0');
    }
    if (value > limits::kMaxDegree)
        return false;
    shard = static_cast<int>(value);
    return true;
}

std::string_view scheduleName(ScheduleKind k)
{
    switch (k) {
    case ScheduleKind::GPipe:
        return "gpipe";
    case ScheduleKind::OneFOneB:
        return "1f1b";
    case ScheduleKind::Interleaved:
        return "interleaved";
    case ScheduleKind::ZbH1:
        return "zb-h1";
    case ScheduleKind::DualPipe:
        return "dualpipe";
    }
    return "1f1b";
}

bool parseSchedule(std::string_view name, ScheduleKind &out)
{
    for (const ScheduleKind k : kScheduleKinds) {
        if (name == scheduleName(k)) {
            out = k;
            return true;
        }
    }
    return false;
}

std::string_view stackName(SoftwareStack s)
{
    switch (s) {
    case SoftwareStack::MegatronCoreTe:
        return "megatron-core-te";
    case SoftwareStack::MegatronLm:
        return "megatron-lm";
    case SoftwareStack::Fsdp2:
        return "fsdp2";
    case SoftwareStack::DeepSpeed:
        return "deepspeed";
    case SoftwareStack::Composer:
        return "composer";
    }
    return "megatron-core-te";
}

bool parseStack(std::string_view name, SoftwareStack &out)
{
    for (const SoftwareStack s : kSoftwareStacks) {
        if (name == stackName(s)) {
            out = s;
            return true;
        }
    }
    return false;
}

std::string_view cpAttentionName(CpAttention a)
{
    return a == CpAttention::TorchAllGather ? "torch-allgather" : "te-p2p";
}

bool parseCpAttention(std::string_view name, CpAttention &out)
{
    for (const CpAttention a : kCpAttentions) {
        if (name == cpAttentionName(a)) {
            out = a;
            return true;
        }
    }
    return false;
}

std::string_view collectiveName(Collective c)
{
    constexpr std::array<std::string_view, 5> names { "all-reduce", "all-gather", "reduce-scatter",
        "all-to-all", "send-recv" };
    return names[static_cast<std::size_t>(c)];
}

bool parseCollective(std::string_view name, Collective &out)
{
    for (Collective c : { Collective::AllReduce, Collective::AllGather, Collective::ReduceScatter,
             Collective::AllToAll, Collective::SendRecv }) {
        if (collectiveName(c) == name) {
            out = c;
            return true;
        }
    }
    return false;
}

} // namespace railyard
