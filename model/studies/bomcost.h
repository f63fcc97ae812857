#pragma once

#include "cost/costreport.h"
#include "fabric/bom.h"
#include "scenario/partscatalogue.h"
#include "scenario/scenario.h"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace railyard {

/** One priced line of the bill of materials. */
struct BomCostLine
{
    std::string group; ///< "gpu", "server", "nic", "switch", "cable", "transceiver", "rack"
    std::string what; ///< "leaf switch, 64 x 400G", "leaf-spine optics cable, 400G"
    std::int64_t quantity = 0;
    std::int64_t portsUsed = -1; ///< switches only, else -1
    std::int64_t portsFree = -1;
    std::string part; ///< the catalogue part's id; "" = no part prices it (counted at 0)
    double unitPriceUsd = 0.0;
    double unitTypicalW = 0.0;
    double unitMaxW = 0.0;
    double priceUsd = 0.0; ///< quantity x unit
    double typicalW = 0.0;
    double maxW = 0.0;
    bool network = false; ///< NICs, switches, cables, transceivers: the network's share
    std::string source;
    bool illustrative = false;
};

/** Cost and energy of one iteration of the job, for the job's share or the whole fabric. */
struct BomFigures
{
    int gpus = 0;
    double capexUsd = 0.0;
    double powerW = 0.0; ///< IT power while the job runs
    double networkPowerW = 0.0;
    double gpuPowerW = 0.0;
    double kwhPerIteration = 0.0; ///< IT energy
    double energyUsdPerIteration = 0.0; ///< IT energy x PUE x electricity price
    double capitalUsdPerIteration = 0.0; ///< capex / amortisation period x iteration time
    double usdPerIteration = 0.0;
    double kwhPerMillionTokens = 0.0;
    double usdPerMillionTokens = 0.0;
    double tokensPerJoule = 0.0;
};

/**
 * A bill of materials priced from a parts catalogue, with the network's and the GPUs' power and
 * what one iteration of the scenario's job costs in dollars and energy.
 *
 * GPU power (the utilisation model): a GPU of the job draws idle + (TDP - idle) x busy, where
 * busy is the job's compute-busy fraction - each pipeline stage's compute time per iteration
 * (micro-batches x (forward + backward compute), CostReport::stages) over the iteration time,
 * averaged over the stages. GPUs the job does not use draw their idle power. Switches, NICs,
 * transceivers, active cables and hosts draw their typical power whatever the load (a switch's
 * draw varies little with traffic).
 *
 * Per fabric: the whole fabric's capital and power charged to the job's iteration. Per job:
 * the job's GPUs' power, and the fabric's capital, host and network power in the share of its
 * GPUs (ranks / GPU slots).
 */
struct BomCost
{
    std::string catalogueName;
    bool defaultCatalogue = true; ///< the embedded defaults (the scenario has no catalogue)
    std::vector<BomCostLine> lines;
    std::vector<std::string> unpriced; ///< what no catalogue part prices, one line each
    double capexUsd = 0.0;
    double networkCapexUsd = 0.0;
    double networkTypicalW = 0.0;
    double networkMaxW = 0.0;
    double hostTypicalW = 0.0;
    double gpuTdpW = 0.0; ///< per GPU
    double gpuIdleW = 0.0; ///< per GPU
    double busyFraction = 0.0;
    double gpuW = 0.0; ///< one job GPU at the busy fraction
    double iterationSeconds = 0.0;
    double tokensPerIteration = 0.0; ///< global batch x sequence length
    CatalogueEconomics economics;
    std::map<std::string, std::string> economicsSources;
    std::map<std::string, std::string> ruleSources;
    BomFigures job;
    BomFigures fabric;
};

/// The utilisation model in one sentence, for reports.
std::string bomUtilisationModel();

/// Prices `bom` with `catalogue`; `report` is the engine's report of `scenario` (its iteration
/// time and stage compute times give the per-iteration figures).
BomCost priceBom(const BillOfMaterials &bom, const PartsCatalogue &catalogue,
    const Scenario &scenario, const CostReport &report);

/// The catalogue the scenario prices with: its own section, or the embedded defaults.
const PartsCatalogue &catalogueOf(const Scenario &scenario);

/** A fabric's bill of materials and its pricing, as the GUI and the PDF report show them. */
struct PricedBom
{
    BillOfMaterials bom;
    BomCost cost;
};

/// billOfMaterials(fabric, catalogue rules) priced with the scenario's catalogue.
PricedBom priceScenarioBom(
    const Fabric &fabric, const Scenario &scenario, const CostReport &report);

} // namespace railyard
