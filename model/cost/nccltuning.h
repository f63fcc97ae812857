#pragma once

#include "base/units.h"
#include "scenario/calibrationspec.h"
#include "scenario/collectivespec.h"
#include "workload/workload.h"

#include <array>
#include <vector>
#include <string_view>

namespace railyard {

/** The algorithm a collective plan really runs (after the planner's fallbacks). */
enum class PlanAlgorithm : unsigned char {
    Ring, ///< topology-aware rings, one channel per NIC the members use
    MemberOrder, ///< one ring in member order
    Tree, ///< double binary tree across servers, chain inside
    Nvls, ///< NVLink SHARP in one server's NVSwitch
    NvlsTree, ///< NVLS inside each server, a double binary tree per rail across servers
    Hierarchical, ///< ring reduce-scatter inside, ring all-reduce per rail across, all-gather
    Pat, ///< NCCL's PAT (all-gather / reduce-scatter, one GPU per server)
    Pairwise, ///< all-to-all: every ordered pair
    PointToPoint, ///< send-recv
};
inline constexpr int kPlanAlgorithmCount = 9;
/// "ring", "member-order", "tree", "nvls", "nvls-tree", "hierarchical", "pat", "pairwise", "p2p".
std::string_view planAlgorithmName(PlanAlgorithm a);

/** NCCL's protocols: LL (8-byte flag+data stores), LL128 (128-byte lines), Simple. */
enum class Protocol : unsigned char { LL, LL128, Simple };
inline constexpr int kProtocolCount = 3;
inline constexpr std::array<Protocol, kProtocolCount> kAllProtocols { Protocol::LL, Protocol::LL128,
    Protocol::Simple };
std::string_view protocolName(Protocol p); ///< "LL", "LL128", "Simple" (NCCL_PROTO's spelling)

/**
 * The latency structure of one collective: the steps of its critical chain per pass (a pass is
 * one reduce-scatter or all-gather sweep; an all-reduce has two), split by where each step goes,
 * and the fabric latency of those steps added up (the hops each step really takes).
 */
struct CollectiveChain
{
    double wire = 0.0; ///< seconds per pass: the chain's route latencies summed
    int scaleUpSteps = 0; ///< per pass: steps inside a server (NVLink / NVSwitch)
    int networkSteps = 0; ///< per pass: steps between servers
    double networkWire = 0.0; ///< the network steps' part of `wire`
    Tier reach = Tier::ScaleUp; ///< the farthest tier a step's route takes
    int ranks = 0; ///< members of the group
    int servers = 0; ///< servers the members sit on
    int channels = 1; ///< the plan's channels (NCCL caps a tree's bandwidth per channel)
};

/**
 * NCCL's analytical tuner (src/graph/tuning.cc, NCCL 2.30.7) and the measured protocol
 * efficiencies that turn line rates into achievable bandwidth. Times are
 *
 *     T = base(a, p) + fixed(a, p, n) + passes * (wire + sum_steps extra(a, p, hop))
 *         + passes * S * max_l(load_l / (B_l * eff_l(a))) / factor(a, p)
 *
 * per algorithm a and protocol p: NCCL's "latency + size / bandwidth" with Railyard's routed
 * link loads as the bandwidth part and the fabric's hop latencies as the wire part.
 */
namespace nccltuning {

/** What NCCL's tuner needs to know of the GPUs. */
struct DeviceTuning
{
    double nvlsEfficiency = 0.0; ///< 0 = no NVLink SHARP
    int generation = 2; ///< 0 Volta, 1 Ampere, 2 Hopper, 3 Blackwell (tuning.cc's rows)
    /// Values fitted on measured runs (the scenario's "calibration" section); empty = defaults.
    std::vector<CalibratedTier> calibration;
};

/// The calibrated per-step latency (seconds) of steps at `tier` under `a`: the entry for that
/// algorithm, else the one for every algorithm; below 0 when neither calibrates it.
double calibratedStepLatency(const DeviceTuning &device, Tier tier, PlanAlgorithm a);
/// The calibrated factor on the achievable bandwidth of `tier`'s links under `a` (1 = default).
double calibratedBandwidthScale(const DeviceTuning &device, Tier tier, PlanAlgorithm a);

/// NCCL's baseLat: once per operation (seconds).
double baseLatency(PlanAlgorithm a, Protocol p);
/// NCCL's hwLat of a step on that kind of hop above the cheapest step (LL ring) of its kind,
/// which the fabric's own hop latency stands for (seconds).
double stepExtra(PlanAlgorithm a, Protocol p, bool network);
/// Latency NCCL charges once per operation beyond base and steps: NVLS's NVSwitch round trip,
/// PAT's linear term (seconds).
double fixedLatency(PlanAlgorithm a, Protocol p, int ranks);
/// The bandwidth a protocol delivers relative to Simple on the same algorithm (LL 1/2, LL128
/// 0.92, the tree's 0.92 and PAT's 0.75 from NCCL's tuner); 0 = the protocol does not apply.
double bandwidthFactor(PlanAlgorithm a, Protocol p, int servers);
/// The share of a link's line rate the Simple protocol delivers on a tier, for an algorithm:
/// 370 of 450 GB/s on NVLink, 47 of 50 GB/s on a 400G network path (nccl-tests figures), NVLS
/// times the device's NVLS efficiency; 1 for send/recv and all-to-all (not modelled yet).
std::array<double, kTierCount> linkEfficiency(PlanAlgorithm a, double nvlsEfficiency);
/// The same with the device's calibrated bandwidth factors applied (a share never above 1).
std::array<double, kTierCount> linkEfficiency(PlanAlgorithm a, const DeviceTuning &device);

/// NCCL's ceiling on a tree's bandwidth, per channel (tuning.cc perChMaxTreeBws and
/// perChMaxTreeLL128Bws, by generation and 1 / 2 / more nodes), as the time it sets for S
/// bytes: S / (0.5 * channels * cap), the tree moving half of S per tree; 0 for other plans.
double bandwidthFloor(PlanAlgorithm a, Protocol p, const CollectiveChain &chain,
    const DeviceTuning &device, double bytes);

/// The latency part of T above (seconds). A calibrated step latency of the scale-up tier
/// replaces the wire latency of the chain's scale-up steps, one of the tier its network steps
/// reach (chain.reach) that of its network steps; NCCL's per-protocol extras stay.
double latency(PlanAlgorithm a, Protocol p, const CollectiveChain &chain, int passes,
    const DeviceTuning &device);
/// latency() for one pass and for two ([passes - 1]): the same sums, the per-pass part once.
std::array<double, 2> latencyOneAndTwoPasses(
    PlanAlgorithm a, Protocol p, const CollectiveChain &chain, const DeviceTuning &device);

/** The fastest protocol of one algorithm for one op, and every protocol's time. */
struct ProtocolChoice
{
    Protocol protocol = Protocol::Simple;
    double time = 0.0; ///< seconds
    double alpha = 0.0; ///< its latency part
    std::array<double, kProtocolCount> times {}; ///< 0 where the protocol does not apply
};

/// T above for every protocol the algorithm runs, for an op of `passes` passes of `bytes`
/// whose busiest link takes `secondsPerByte` per byte of S per pass at Simple's achievable
/// bandwidth; the smallest wins (Simple on a tie).
ProtocolChoice fastestProtocol(PlanAlgorithm a, const CollectiveChain &chain, int passes,
    double bytes, double secondsPerByte, const DeviceTuning &device);

/// The scenario's device as NCCL's tuner sees it: its generation from the device name (A100 /
/// A800 Ampere, H100 / H200 / H800 Hopper, B100 / B200 / B300 Blackwell, V100 Volta, unknown
/// names Hopper) and its NVLS efficiency (NCCL's nvlsEfficiency: Hopper 0.85, Blackwell 0.74,
/// earlier 0 = no NVLink SHARP; CollectiveSpec::nvls overrides).
DeviceTuning deviceTuning(const DeviceSpec &device, const CollectiveSpec &spec);
/// The same with the scenario's calibration.
DeviceTuning deviceTuning(
    const DeviceSpec &device, const CollectiveSpec &spec, const CalibrationSpec &calibration);

} // namespace nccltuning

} // namespace railyard
