#include "cost/nccltuning.h"

#include <algorithm>
#include <cctype>
#include <string>

/*
 * Sources of the constants below.
 *
 * NCCL's tuner: NVIDIA/nccl src/graph/tuning.cc at 5067397c (NCCL 2.30.7), the defaults of
 * ncclTunerConstants (baseLatencies, hwLatencies per NVLINK / PCI / NET hop, nvlsEfficiency) and
 * the bandwidth refinements of ncclTopoTuneModel(). NCCL predicts an operation's time as
 * latency + bytes / bandwidth per (algorithm, protocol) and runs the fastest; Railyard keeps
 * that form, with the bandwidth part from its own routed link loads and the per-step wire
 * latency from the fabric (the calibration knobs, whose defaults - 1.2 us GPU -> NVSwitch -> GPU,
 * 3 us GPU -> NIC -> leaf -> NIC -> GPU - sit where NCCL's cheapest steps do: 0.6 us LL over
 * NVLink, 2.7 us LL over the network). What NCCL charges a step beyond its cheapest step of the
 * same kind (e.g. Simple's 3.4 - 0.6 us on NVLink, 14 - 2.7 us on the network: the flag
 * handshake and the flush) is added per step.
 *
 * Achievable bandwidth with the Simple protocol, measured by nccl-tests and stated by the NCCL
 * team: NVLink 4 carries 450 GB/s per direction, "with ~20% protocol overhead NCCL reaches
 * ~370 GB/s" as the bus bandwidth of ring operations (NVIDIA/nccl-tests issue #212); a 400 Gb/s
 * NDR NIC "should give 46-48 GB/s" (nccl-tests issue #290; CX-7 up to 48-49 GB/s, issue #267).
 * Railyard uses 370/450 for scale-up links and 47/50 for every network link (PCIe, NIC, leaf,
 * spine), and for NVLS multiplies the scale-up share by NCCL's nvlsEfficiency. Together they
 * reproduce, among others, 8-GPU NVLS all-reduce near 480 GB/s (H100) and 830 GB/s (B200), and
 * 8 x 24 GB/s HDR all-reduce on DGX A100 (the tests cite each figure).
 */

namespace railyard {

std::string_view planAlgorithmName(PlanAlgorithm a)
{
    constexpr std::array<std::string_view, kPlanAlgorithmCount> names { "ring", "member-order",
        "tree", "nvls", "nvls-tree", "hierarchical", "pat", "pairwise", "p2p" };
    return names[static_cast<int>(a)];
}

std::string_view protocolName(Protocol p)
{
    constexpr std::array<std::string_view, kProtocolCount> names { "LL", "LL128", "Simple" };
    return names[static_cast<int>(p)];
}

namespace nccltuning {

namespace {

constexpr int LL = 0, LL128 = 1, SIMPLE = 2;

/// Which of NCCL's own algorithms stands behind a plan (for its constants): the rings and the
/// ring-based hierarchical all-reduce take the ring's, the tree the tree's.
enum class NcclAlgo { Tree, Ring, Nvls, NvlsTree, Pat, None };

NcclAlgo ncclAlgo(PlanAlgorithm a)
{
    switch (a) {
    case PlanAlgorithm::Ring:
    case PlanAlgorithm::MemberOrder:
    case PlanAlgorithm::Hierarchical:
        return NcclAlgo::Ring;
    case PlanAlgorithm::Tree:
        return NcclAlgo::Tree;
    case PlanAlgorithm::Nvls:
        return NcclAlgo::Nvls;
    case PlanAlgorithm::NvlsTree:
        return NcclAlgo::NvlsTree;
    case PlanAlgorithm::Pat:
        return NcclAlgo::Pat;
    case PlanAlgorithm::Pairwise:
    case PlanAlgorithm::PointToPoint:
        break;
    }
    return NcclAlgo::None;
}

using Row = std::array<double, kProtocolCount>; // LL, LL128, Simple, microseconds

// tuning.cc baseLatencies: Tree {6.8, 14.0, 8.4}, Ring {6.6, 14.0, 8.4}, NVLS and NVLSTree 0,
// PAT {8, 8, 8}.
Row baseRow(NcclAlgo a)
{
    switch (a) {
    case NcclAlgo::Tree:
        return { 6.8, 14.0, 8.4 };
    case NcclAlgo::Ring:
        return { 6.6, 14.0, 8.4 };
    case NcclAlgo::Pat:
        return { 8.0, 8.0, 8.0 };
    case NcclAlgo::Nvls:
    case NcclAlgo::NvlsTree:
    case NcclAlgo::None:
        break;
    }
    return { 0.0, 0.0, 0.0 };
}

// tuning.cc hwLatencies[NVLINK] and [NET]: Tree {0.6, 1.25, 4.0} / {5.0, 8.5, 14}, Ring
// {0.6, 1.9, 3.4} / {2.7, 4.0, 14.0}, NVLS Simple 25 / 18, NVLSTree Simple 25 / 20.9, PAT
// Simple 4.0 / 14.
Row hwRow(NcclAlgo a, bool network)
{
    switch (a) {
    case NcclAlgo::Tree:
        return network ? Row { 5.0, 8.5, 14.0 } : Row { 0.6, 1.25, 4.0 };
    case NcclAlgo::Ring:
        return network ? Row { 2.7, 4.0, 14.0 } : Row { 0.6, 1.9, 3.4 };
    case NcclAlgo::Nvls:
        return network ? Row { 0.0, 0.0, 18.0 } : Row { 0.0, 0.0, 25.0 };
    case NcclAlgo::NvlsTree:
        return network ? Row { 0.0, 0.0, 20.9 } : Row { 0.0, 0.0, 25.0 };
    case NcclAlgo::Pat:
        return network ? Row { 0.0, 0.0, 14.0 } : Row { 0.0, 0.0, 4.0 };
    case NcclAlgo::None:
        break;
    }
    return { 0.0, 0.0, 0.0 };
}

/// NCCL's cheapest step of a kind (LL ring): what the fabric's hop latency stands for.
double cheapestStep(bool network)
{
    return hwRow(NcclAlgo::Ring, network)[LL];
}

} // namespace

double baseLatency(PlanAlgorithm a, Protocol p)
{
    return microseconds(baseRow(ncclAlgo(a))[static_cast<int>(p)]);
}

double stepExtra(PlanAlgorithm a, Protocol p, bool network)
{
    const NcclAlgo n = ncclAlgo(a);
    if (n == NcclAlgo::None || n == NcclAlgo::Nvls)
        return 0.0; // NVLS is charged once per operation (fixedLatency)
    if (n == NcclAlgo::NvlsTree && !network)
        return 0.0; // its NVLS part is charged once, the tree steps per step
    const double extra = hwRow(n, network)[static_cast<int>(p)] - cheapestStep(network);
    // PAT: tuning.cc charges its network latency over log2(nodes) steps divided by 3.5.
    return microseconds(std::max(0.0, n == NcclAlgo::Pat ? extra / 3.5 : extra));
}

double fixedLatency(PlanAlgorithm a, Protocol p, int ranks)
{
    if (p != Protocol::Simple)
        return 0.0;
    switch (ncclAlgo(a)) {
    case NcclAlgo::Nvls:
    case NcclAlgo::NvlsTree:
        // tuning.cc: NVLS latency = the NVLink hwLatency of NVLS (25 us) for the whole
        // operation; the chain adds the fabric's GPU -> NVSwitch -> GPU hop itself.
        return microseconds(hwRow(NcclAlgo::Nvls, false)[SIMPLE] - cheapestStep(false));
    case NcclAlgo::Pat:
        // tuning.cc: "nRanks * 2.8 - still a linear part".
        return microseconds(2.8 * ranks);
    case NcclAlgo::Tree:
    case NcclAlgo::Ring:
    case NcclAlgo::None:
        break;
    }
    return 0.0;
}

double bandwidthFactor(PlanAlgorithm a, Protocol p, int servers)
{
    switch (ncclAlgo(a)) {
    case NcclAlgo::Ring:
        // tuning.cc: Ring LL busBw * 0.5 (half of every 8-byte store is a flag), Ring LL128
        // busBw * 0.92 (120 of 128 bytes carry data).
        return p == Protocol::LL ? 0.5 : p == Protocol::LL128 ? 0.92 : 1.0;
    case NcclAlgo::Tree: {
        // tuning.cc: Tree all-reduce busBw * 0.92, then LL / 3.8, LL128 * 7/9 on one node or
        // * 120/128 across nodes.
        const double tree = 0.92;
        if (p == Protocol::LL)
            return tree / 3.8;
        if (p == Protocol::LL128)
            return tree * (servers <= 1 ? 7.0 / 9.0 : 120.0 / 128.0);
        return tree;
    }
    case NcclAlgo::Nvls:
    case NcclAlgo::NvlsTree:
        return p == Protocol::Simple ? 1.0 : 0.0; // tuning.cc: NVLS runs Simple only
    case NcclAlgo::Pat:
        return p == Protocol::Simple ? 0.75 : 0.0; // tuning.cc: PAT busBw * 0.75, Simple only
    case NcclAlgo::None:
        break;
    }
    return p == Protocol::Simple ? 1.0 : 0.0;
}

std::array<double, kTierCount> linkEfficiency(PlanAlgorithm a, double nvls)
{
    std::array<double, kTierCount> eff {};
    if (ncclAlgo(a) == NcclAlgo::None) {
        eff.fill(1.0); // send/recv and all-to-all: line rate (a modelling limit, see README)
        return eff;
    }
    constexpr double kNvlinkSimple = 370.0 / 450.0; // nccl-tests issue #212 (NCCL team)
    constexpr double kNetworkSimple = 47.0 / 50.0; // nccl-tests issue #290 (NCCL team)
    eff.fill(kNetworkSimple);
    const bool usesNvls = a == PlanAlgorithm::Nvls || a == PlanAlgorithm::NvlsTree;
    eff[index(Tier::ScaleUp)] = kNvlinkSimple * (usesNvls ? nvls : 1.0);
    return eff;
}

double bandwidthFloor(PlanAlgorithm a, Protocol p, const CollectiveChain &chain,
    const DeviceTuning &device, double bytes)
{
    if (a != PlanAlgorithm::Tree || p == Protocol::LL)
        return 0.0;
    // tuning.cc: Tree all-reduce busBw = min(busBw * 0.92, nChannels * perChMaxTreeBw), the
    // LL128 variant capped by perChMaxTreeLL128Bw; rows Volta, Ampere, Hopper, Blackwell, columns
    // 1 node, 2 nodes, more (GB/s). A tree's busBw is twice its algorithm bandwidth.
    constexpr double simple[4][3] = { { 26.5, 18.5, 10.0 }, { 24.0, 23.6, 17.8 },
        { 38.7, 41.4, 36.0 }, { 70.0, 42.8, 24.0 } };
    constexpr double ll128[4][3] = { { 20.0, 20.0, 20.0 }, { 20.0, 20.0, 20.0 },
        { 36.7, 36.7, 29.0 }, { 55.6, 31.67, 20.0 } };
    const int g = std::clamp(device.generation, 0, 3);
    const int nodes = chain.servers <= 1 ? 0 : chain.servers == 2 ? 1 : 2;
    const double cap = (p == Protocol::Simple ? simple : ll128)[g][nodes] * 1e9;
    return bytes / (0.5 * std::max(1, chain.channels) * cap);
}

namespace {

/// The entry of `tier` for algorithm `a` with the value `has` says it has, else the one for
/// every algorithm that has it.
template<typename Has>
const CalibratedTier *calibrationEntry(const DeviceTuning &device, Tier tier, PlanAlgorithm a, Has has)
{
    const CalibratedTier *any = nullptr;
    for (const CalibratedTier &c : device.calibration) {
        if (c.tier != tier || !has(c))
            continue;
        if (c.algorithm == planAlgorithmName(a))
            return &c;
        if (c.algorithm.empty() && !any)
            any = &c;
    }
    return any;
}

} // namespace

double calibratedStepLatency(const DeviceTuning &device, Tier tier, PlanAlgorithm a)
{
    const CalibratedTier *c = calibrationEntry(
        device, tier, a, [](const CalibratedTier &e) { return e.stepLatencyUs >= 0.0; });
    return c ? microseconds(c->stepLatencyUs) : -1.0;
}

double calibratedBandwidthScale(const DeviceTuning &device, Tier tier, PlanAlgorithm a)
{
    const CalibratedTier *c = calibrationEntry(
        device, tier, a, [](const CalibratedTier &e) { return e.bandwidthScale > 0.0; });
    return c ? c->bandwidthScale : 1.0;
}

std::array<double, kTierCount> linkEfficiency(PlanAlgorithm a, const DeviceTuning &device)
{
    std::array<double, kTierCount> eff = linkEfficiency(a, device.nvlsEfficiency);
    for (const Tier t : kAllTiers)
        eff[index(t)] = std::min(1.0, eff[index(t)] * calibratedBandwidthScale(device, t, a));
    return eff;
}

namespace {

/// latency() = fixed + passes * perPass.
struct LatencyParts
{
    double fixed = 0.0;
    double perPass = 0.0;
};

LatencyParts latencyParts(
    PlanAlgorithm a, Protocol p, const CollectiveChain &chain, const DeviceTuning &device)
{
    // The measured per-step α replaces the fabric's hop latency of those steps (the knob the
    // defaults stand for, see the top of this file); NCCL's per-protocol extras stay on top.
    double scaleUpWire = chain.wire - chain.networkWire;
    double networkWire = chain.networkWire;
    if (!device.calibration.empty()) {
        if (const double s = calibratedStepLatency(device, Tier::ScaleUp, a); s >= 0.0)
            scaleUpWire = chain.scaleUpSteps * s;
        if (chain.networkSteps > 0)
            if (const double s = calibratedStepLatency(device, chain.reach, a); s >= 0.0)
                networkWire = chain.networkSteps * s;
    }
    const double perPass = scaleUpWire + networkWire + chain.scaleUpSteps * stepExtra(a, p, false)
        + chain.networkSteps * stepExtra(a, p, true);
    return { baseLatency(a, p) + fixedLatency(a, p, chain.ranks), perPass };
}

} // namespace

double latency(PlanAlgorithm a, Protocol p, const CollectiveChain &chain, int passes,
    const DeviceTuning &device)
{
    const LatencyParts l = latencyParts(a, p, chain, device);
    return l.fixed + passes * l.perPass;
}

std::array<double, 2> latencyOneAndTwoPasses(
    PlanAlgorithm a, Protocol p, const CollectiveChain &chain, const DeviceTuning &device)
{
    const LatencyParts l = latencyParts(a, p, chain, device);
    return { l.fixed + 1 * l.perPass, l.fixed + 2 * l.perPass };
}

ProtocolChoice fastestProtocol(PlanAlgorithm a, const CollectiveChain &chain, int passes,
    double bytes, double secondsPerByte, const DeviceTuning &device)
{
    ProtocolChoice best;
    bool found = false;
    // Simple first: it wins ties, and a near-tie (1e-9) never flips between an incremental and
    // a fresh evaluation of the same loads.
    for (const Protocol p : { Protocol::Simple, Protocol::LL128, Protocol::LL }) {
        const double factor = bandwidthFactor(a, p, chain.servers);
        if (factor <= 0.0)
            continue;
        const double alpha = latency(a, p, chain, passes, device);
        const double t = alpha
            + std::max(passes * bytes * secondsPerByte / factor,
                bandwidthFloor(a, p, chain, device, bytes));
        best.times[static_cast<int>(p)] = t;
        if (!found || t < best.time * (1.0 - 1e-9)) {
            best.protocol = p;
            best.time = t;
            best.alpha = alpha;
            found = true;
        }
    }
    return best;
}

DeviceTuning deviceTuning(const DeviceSpec &device, const CollectiveSpec &spec)
{
    std::string name = device.name;
    std::transform(name.begin(), name.end(), name.begin(),
        [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    const auto has = [&name](const char *s) { return name.find(s) != std::string::npos; };
    int generation = -1; // unknown
    if (has("b100") || has("b200") || has("b300"))
        generation = 3;
    else if (has("h100") || has("h200") || has("h800") || has("h20"))
        generation = 2;
    else if (has("a100") || has("a800") || has("a30"))
        generation = 1;
    else if (has("v100"))
        generation = 0;
    // tuning.cc nvlsEfficiency per compute capability: Volta and Ampere 0 (no NVLink SHARP),
    // Hopper 0.85, Blackwell 0.74. An unknown device is taken as Hopper for the tuner's other
    // constants, but has NVLS only if the scenario says so.
    constexpr double nvls[4] = { 0.0, 0.0, 0.85, 0.74 };
    DeviceTuning t;
    t.generation = generation < 0 ? 2 : generation;
    t.nvlsEfficiency = generation < 0 ? 0.0 : nvls[generation];
    if (spec.nvls)
        t.nvlsEfficiency = *spec.nvls ? (t.nvlsEfficiency > 0.0 ? t.nvlsEfficiency : 0.85) : 0.0;
    return t;
}

DeviceTuning deviceTuning(
    const DeviceSpec &device, const CollectiveSpec &spec, const CalibrationSpec &calibration)
{
    DeviceTuning t = deviceTuning(device, spec);
    t.calibration = calibration.tiers;
    return t;
}

} // namespace nccltuning

} // namespace railyard
