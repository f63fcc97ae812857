#pragma once

#include <array>
#include <string_view>

namespace railyard {

/**
 * How a flow's bytes take the equal-cost paths between two switches (docs/ecmp.md):
 * - Ideal: split evenly over every equal-cost path at every hop (the engine's fast path).
 * - Hashed: each connection's queue pair takes ONE path, picked at every switch by a seeded
 *   hash of the flow (static ECMP as switches do it); the report gives the spread over seeds.
 * - Adaptive: spread over the paths (per packet or per flowlet, as InfiniBand adaptive routing
 *   and Spectrum-X do) at a stated efficiency of the ECMP links' bandwidth.
 */
enum class EcmpMode { Ideal, Hashed, Adaptive };

inline constexpr std::array<EcmpMode, 3> kAllEcmpModes { EcmpMode::Ideal, EcmpMode::Hashed,
    EcmpMode::Adaptive };

constexpr std::string_view ecmpModeName(EcmpMode m)
{
    switch (m) {
    case EcmpMode::Hashed:
        return "hashed";
    case EcmpMode::Adaptive:
        return "adaptive";
    case EcmpMode::Ideal:
        break;
    }
    return "ideal";
}

/// Parses "ideal", "hashed" or "adaptive"; false for anything else.
constexpr bool parseEcmpMode(std::string_view text, EcmpMode &out)
{
    for (const EcmpMode m : kAllEcmpModes)
        if (ecmpModeName(m) == text) {
            out = m;
            return true;
        }
    return false;
}

/** The scenario's fabric.routing with its parameters (scenario file: fabric.routing,
 *  fabric.qps_per_connection, fabric.seeds, fabric.adaptive_efficiency). */
struct EcmpRouting
{
    EcmpMode mode = EcmpMode::Ideal;
    /// Queue pairs NCCL opens per connection, each hashed on its own
    /// (NCCL_IB_QPS_PER_CONNECTION; NCCL's environment-variable docs give the default 1).
    int qpsPerConnection = 1;
    /// Seeds (K) the hashed mode draws; 64 is the figure the benchmark names
    /// (evaluate at 1,024 GPUs with 64 seeds); by nearest rank its p99 is then the worst seed.
    int seeds = 64;
    /// Adaptive: the share of the ECMP links' bandwidth the spreading achieves. NVIDIA reports
    /// 95 % data throughput with Spectrum-X adaptive routing against about 60 % for standard
    /// Ethernet's flow collisions (NVIDIA newsroom, xAI Colossus, 28 October 2024); the default
    /// takes that figure and is illustrative for any other fabric.
    double adaptiveEfficiency = 0.95;

    /// Bounds the scenario reader checks: 1..kMaxQps queue pairs (NCCL has no upper bound; 128
    /// is far past any published tuning) and 1..kMaxSeeds seeds (keeps a CLI run bounded).
    static constexpr int kMaxQps = 128;
    static constexpr int kMaxSeeds = 4096;

    bool operator==(const EcmpRouting &) const = default;
};

} // namespace railyard
