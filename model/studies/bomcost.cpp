#include "studies/bomcost.h"

#include "scenario/cataloguesection.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>

namespace railyard {

namespace {

// A Julian year (IAU: 365.25 days of 86,400 s), the period the amortisation is counted in.
constexpr double kBomSecondsPerYear = 365.25 * 86400.0;
constexpr double kBomJoulesPerKwh = 3.6e6;

std::string bomGbpsText(double gbps)
{
    const double rounded = std::round(gbps * 10.0) / 10.0;
    std::string s = std::to_string(rounded);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.')
        s.pop_back();
    return s + "G";
}

bool bomSameSpeed(double a, double b)
{
    return std::abs(a - b) < 1e-6;
}

const CataloguePart *findCataloguePart(const PartsCatalogue &c, PartKind kind,
    const std::function<bool(const CataloguePart &)> &matches)
{
    for (const CataloguePart &p : c.parts)
        if (p.kind == kind && matches(p))
            return &p;
    return nullptr;
}

struct BomPricer
{
    const PartsCatalogue &catalogue;
    BomCost &cost;

    void add(std::string group, std::string what, std::int64_t quantity, const CataloguePart *p,
        bool network, const std::string &missing)
    {
        if (quantity <= 0)
            return;
        BomCostLine line;
        line.group = std::move(group);
        line.what = std::move(what);
        line.quantity = quantity;
        line.network = network;
        if (p) {
            line.part = p->id;
            line.unitPriceUsd = p->priceUsd;
            line.unitTypicalW = p->typicalW;
            line.unitMaxW = p->maxW;
            line.source = p->source;
            line.illustrative = p->illustrative;
        } else {
            cost.unpriced.push_back(line.what + ": no catalogue part (" + missing + ")");
        }
        const auto q = static_cast<double>(quantity);
        line.priceUsd = q * line.unitPriceUsd;
        line.typicalW = q * line.unitTypicalW;
        line.maxW = q * line.unitMaxW;
        cost.lines.push_back(std::move(line));
    }
};

/// Each stage's compute per iteration over the iteration time, averaged (see bomcost.h).
double bomBusyFraction(const Scenario &s, const CostReport &r)
{
    if (r.iterationTime <= 0.0 || r.stages.empty())
        return std::clamp(r.mfu, 0.0, 1.0);
    const std::int64_t perStep = std::int64_t { s.training.microBatch } * s.degrees.dp;
    const double microbatches = static_cast<double>(
        (s.training.globalBatch + perStep - 1) / std::max<std::int64_t>(1, perStep));
    double sum = 0.0;
    for (const StageReport &st : r.stages)
        sum += microbatches * (st.computeForward + st.computeBackward);
    return std::clamp(sum / static_cast<double>(r.stages.size()) / r.iterationTime, 0.0, 1.0);
}

void finishBomFigures(BomFigures &f, const BomCost &c)
{
    const double seconds = c.iterationSeconds;
    const double joules = f.powerW * seconds;
    f.kwhPerIteration = joules / kBomJoulesPerKwh;
    f.energyUsdPerIteration
        = f.kwhPerIteration * c.economics.pue * c.economics.electricityUsdPerKwh;
    f.capitalUsdPerIteration
        = f.capexUsd / (c.economics.amortisationYears * kBomSecondsPerYear) * seconds;
    f.usdPerIteration = f.energyUsdPerIteration + f.capitalUsdPerIteration;
    if (c.tokensPerIteration > 0.0) {
        const double perMillion = 1e6 / c.tokensPerIteration;
        f.kwhPerMillionTokens = f.kwhPerIteration * perMillion;
        f.usdPerMillionTokens = f.usdPerIteration * perMillion;
        f.tokensPerJoule = joules > 0.0 ? c.tokensPerIteration / joules : 0.0;
    }
}

} // namespace

std::string bomUtilisationModel()
{
    return "GPU power = idle + (TDP - idle) x compute-busy fraction (each stage's compute time "
           "per iteration over the iteration time, averaged over the stages); unused GPUs idle; "
           "switches, NICs, transceivers, active cables and hosts at their typical draw";
}

const PartsCatalogue &catalogueOf(const Scenario &scenario)
{
    return scenario.catalogue ? *scenario.catalogue : defaultCatalogue();
}

BomCost priceBom(const BillOfMaterials &bom, const PartsCatalogue &catalogue,
    const Scenario &scenario, const CostReport &report)
{
    BomCost cost;
    cost.catalogueName = catalogue.name;
    cost.defaultCatalogue = &catalogue == &defaultCatalogue() || catalogue == defaultCatalogue();
    cost.economics = catalogue.economics;
    cost.economicsSources = catalogue.economicsSources;
    cost.ruleSources = catalogue.ruleSources;
    BomPricer pricer { catalogue, cost };
    const FabricSpec &spec = scenario.fabric;

    const std::string &device = scenario.device.name;
    const CataloguePart *gpu = findCataloguePart(
        catalogue, PartKind::Gpu, [&](const CataloguePart &p) { return p.device == device; });
    pricer.add(
        "gpu", "GPU, " + device, bom.gpus, gpu, false, "kind gpu, device \"" + device + "\"");

    const int perServer = spec.gpusPerServer;
    const CataloguePart *server = findCataloguePart(
        catalogue, PartKind::Server, [&](const CataloguePart &p) { return p.gpus == perServer; });
    if (!server)
        server = findCataloguePart(
            catalogue, PartKind::Server, [](const CataloguePart &p) { return p.gpus == 0; });
    pricer.add("server", "server host, " + std::to_string(perServer) + " GPUs", bom.servers, server,
        false, "kind server, gpus " + std::to_string(perServer) + " or 0");

    const double nicGbps = spec.nic.gbps;
    const CataloguePart *nic = findCataloguePart(catalogue, PartKind::Nic,
        [&](const CataloguePart &p) { return bomSameSpeed(p.gbps, nicGbps); });
    pricer.add("nic", "NIC, " + bomGbpsText(nicGbps), bom.nics, nic, true,
        "kind nic, gbps " + bomGbpsText(nicGbps));

    for (const BomSwitchLine &s : bom.switches) {
        const CataloguePart *p
            = findCataloguePart(catalogue, PartKind::Switch, [&](const CataloguePart &c) {
                  return c.radix == s.radix && bomSameSpeed(c.gbps, s.gbps);
              });
        pricer.add("switch",
            s.tier + " switch, " + std::to_string(s.radix) + " x " + bomGbpsText(s.gbps), s.count,
            p, true,
            "kind switch, radix " + std::to_string(s.radix) + ", gbps " + bomGbpsText(s.gbps));
        cost.lines.back().portsUsed = s.portsUsed;
        cost.lines.back().portsFree = s.portsFree;
    }
    for (const BomCableLine &c : bom.cables) {
        const std::string cls(cableClassName(c.cableClass));
        const CataloguePart *p
            = findCataloguePart(catalogue, PartKind::Cable, [&](const CataloguePart &x) {
                  return x.cableClass == c.cableClass && bomSameSpeed(x.gbps, c.gbps);
              });
        pricer.add("cable", c.link + " " + cls + " cable, " + bomGbpsText(c.gbps), c.cables, p,
            true, "kind cable, class " + cls + ", gbps " + bomGbpsText(c.gbps));
        if (c.transceivers > 0) {
            const CataloguePart *t = findCataloguePart(catalogue, PartKind::Transceiver,
                [&](const CataloguePart &x) { return bomSameSpeed(x.gbps, c.gbps); });
            pricer.add("transceiver", c.link + " transceiver, " + bomGbpsText(c.gbps),
                c.transceivers, t, true, "kind transceiver, gbps " + bomGbpsText(c.gbps));
        }
    }
    const CataloguePart *rack
        = findCataloguePart(catalogue, PartKind::Rack, [](const CataloguePart &) { return true; });
    pricer.add("rack",
        "rack (" + std::to_string(bom.computeRacks()) + " compute, "
            + std::to_string(bom.networkRacks()) + " network)",
        static_cast<std::int64_t>(bom.racks.size()), rack, false, "kind rack");

    for (const BomCostLine &l : cost.lines) {
        cost.capexUsd += l.priceUsd;
        if (l.network) {
            cost.networkCapexUsd += l.priceUsd;
            cost.networkTypicalW += l.typicalW;
            cost.networkMaxW += l.maxW;
        }
        if (l.group == "server")
            cost.hostTypicalW += l.typicalW;
    }

    cost.gpuTdpW = gpu ? gpu->maxW : 0.0;
    cost.gpuIdleW = gpu ? gpu->typicalW : 0.0;
    cost.busyFraction = bomBusyFraction(scenario, report);
    cost.gpuW = cost.gpuIdleW + (cost.gpuTdpW - cost.gpuIdleW) * cost.busyFraction;
    cost.iterationSeconds = report.iterationTime;
    cost.tokensPerIteration = static_cast<double>(scenario.training.globalBatch)
        * static_cast<double>(scenario.model.seq);

    const int jobGpus = std::min(report.ranks, bom.gpus);
    const double share = bom.gpus > 0 ? static_cast<double>(jobGpus) / bom.gpus : 0.0;
    cost.fabric.gpus = bom.gpus;
    cost.fabric.capexUsd = cost.capexUsd;
    cost.fabric.gpuPowerW = jobGpus * cost.gpuW + (bom.gpus - jobGpus) * cost.gpuIdleW;
    cost.fabric.networkPowerW = cost.networkTypicalW;
    cost.fabric.powerW = cost.fabric.gpuPowerW + cost.networkTypicalW + cost.hostTypicalW;
    cost.job.gpus = jobGpus;
    cost.job.capexUsd = cost.capexUsd * share;
    cost.job.gpuPowerW = jobGpus * cost.gpuW;
    cost.job.networkPowerW = cost.networkTypicalW * share;
    cost.job.powerW = cost.job.gpuPowerW + (cost.networkTypicalW + cost.hostTypicalW) * share;
    finishBomFigures(cost.fabric, cost);
    finishBomFigures(cost.job, cost);
    return cost;
}

PricedBom priceScenarioBom(const Fabric &fabric, const Scenario &scenario, const CostReport &report)
{
    const PartsCatalogue &catalogue = catalogueOf(scenario);
    PricedBom out;
    out.bom = billOfMaterials(fabric, catalogue.rules);
    out.cost = priceBom(out.bom, catalogue, scenario, report);
    return out;
}

} // namespace railyard
