#pragma once

#include "io/portcounters.h"
#include "io/portmap.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace railyard {

class Fabric;
struct CostReport;

/** A directed link with a measurement: its utilisation from the counters beside the prediction. */
struct MeasuredLink
{
    int link = -1; ///< FabricLink::id
    double rate = 0.0; ///< measured bytes/s
    double measured = 0.0; ///< rate / the link's bandwidth
    double predicted = 0.0; ///< CostReport::utilisation(link): busy time over the iteration
    std::string ports; ///< the counters it comes from ("node003/mlx5_3:1 tx")
};

enum class DivergenceCause {
    EcmpCollision,
    BelowPrediction,
    UnpredictedTraffic,
    IdleNic,
    AbovePrediction
};

/// "ecmp-collision", "below-prediction", "unpredicted-traffic", "idle-nic", "above-prediction".
std::string divergenceCauseName(DivergenceCause cause);

/** One cable whose measured load differs from the prediction, with its probable cause. */
struct CounterDivergence
{
    int link = -1; ///< the direction that differs most
    DivergenceCause cause = DivergenceCause::AbovePrediction;
    double measured = 0.0; ///< utilisation
    double predicted = 0.0;
    double score = 0.0; ///< |measured - predicted|, what the ranking sorts by
    std::string text; ///< one sentence: the link, both figures, the cause and what to check
};

struct CounterComparison
{
    double window = 0.0; ///< the longest window a rate was averaged over, seconds
    int ports = 0; ///< ports read
    std::vector<MeasuredLink> links; ///< every measured direction, by link id
    std::vector<CounterDivergence> divergences; ///< ranked, largest difference first
    std::vector<std::string> unmapped; ///< ports that map to no link, one line each
};

/// Measured and predicted utilisation agree within this many points of utilisation (0.05 =
/// 5 %): a counter window that does not hold whole iterations mis-states a link's mean load by
/// up to one iteration's share of the window; the tolerance is a stated choice, not a fit.
inline constexpr double kCounterAgreement = 0.05;
/// Below this utilisation (1 %) a port "carries nothing": LLDP, subnet management and
/// monitoring traffic stay far under it on a 100G+ port.
inline constexpr double kCounterIdle = 0.01;

/**
 * Maps each port's rates onto fabric links and ranks where the measurement and the prediction
 * part. A port maps through, in this order: a row of `map` (when given); a server's NIC (the
 * host is a server name or its short name, the device an RDMA device of fabric.nic_devices
 * or named mlx5_N / ibN / hcaN / nicN / rdmaN; with several network planes port P is plane
 * P - 1): its transmitted bytes load NIC -> leaf; a cable of the cabling inventory whose end
 * is the host (a switch) and the port. A port's transmitted bytes load the link leaving it,
 * its received bytes the link arriving; a direction measured at both ends takes the sending
 * end's counter.
 *
 * Causes, per cable (the direction that differs most): an uplink (leaf -> spine, spine ->
 * super-spine) above prediction while its measured siblings from the same switch average at
 * most half its load: **ECMP collision**; a NIC link carrying nothing where traffic is
 * predicted: **idle NIC**; any other link below prediction: **slow or down cable, retraining**;
 * traffic where none is predicted: **wrong rail, mis-bound NIC**; otherwise above prediction.
 * Throws ScenarioError naming the map's FILE:LINE for a row whose nodes are unknown or not
 * adjacent, and when no port maps to any link.
 */
CounterComparison compareCounters(const std::vector<PortRate> &rates, const PortMap *map,
    const Fabric &fabric, const CostReport &report);

/// Measured utilisation per link id (NaN where no counter measured it): the overlay's input.
std::vector<double> measuredUtilisation(const CounterComparison &comparison, int linkCount);

std::string counterComparisonText(const Fabric &fabric, const CounterComparison &comparison);
nlohmann::json counterComparisonJson(const Fabric &fabric, const CounterComparison &comparison);

} // namespace railyard
