#include "studies/bomreport.h"

#include "export/quoting.h"

#include <cmath>
#include <cstdio>
#include <sstream>

namespace railyard {

namespace {

using nlohmann::ordered_json;

std::string bomFixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

/// Three significant figures with a unit prefix: 1.23M, 456k, 78.9.
std::string bomScaled(double v, const char *unit, bool prefixFirst)
{
    const double a = std::abs(v);
    const char *prefix = "";
    double x = v;
    if (a >= 1e9) {
        x = v / 1e9;
        prefix = prefixFirst ? "B" : "G";
    } else if (a >= 1e6) {
        x = v / 1e6;
        prefix = "M";
    } else if (a >= 1e3) {
        x = v / 1e3;
        prefix = "k";
    }
    const double ax = std::abs(x);
    const std::string number = bomFixed(x, ax >= 100 ? 0 : (ax >= 10 ? 1 : 2));
    return prefixFirst ? unit + number + prefix : number + " " + prefix + unit;
}

ordered_json bomFiguresJson(const BomFigures &f)
{
    ordered_json j;
    j["gpus"] = f.gpus;
    j["capex_usd"] = f.capexUsd;
    j["power_w"] = f.powerW;
    j["gpu_power_w"] = f.gpuPowerW;
    j["network_power_w"] = f.networkPowerW;
    j["kwh_per_iteration"] = f.kwhPerIteration;
    j["energy_usd_per_iteration"] = f.energyUsdPerIteration;
    j["capital_usd_per_iteration"] = f.capitalUsdPerIteration;
    j["usd_per_iteration"] = f.usdPerIteration;
    j["kwh_per_million_tokens"] = f.kwhPerMillionTokens;
    j["usd_per_million_tokens"] = f.usdPerMillionTokens;
    j["tokens_per_joule"] = f.tokensPerJoule;
    return j;
}

/// Each value with its source, or "illustrative" when it has none.
template<typename Values>
ordered_json bomSourcedJson(const Values &values, const std::map<std::string, std::string> &sources)
{
    ordered_json j;
    for (const auto &[key, value] : values) {
        ordered_json v;
        v["value"] = value;
        const auto it = sources.find(key);
        if (it != sources.end())
            v["source"] = it->second;
        else
            v["illustrative"] = true;
        j[key] = std::move(v);
    }
    return j;
}

} // namespace

std::string formatUsd(double usd)
{
    return bomScaled(usd, "$", true);
}
std::string formatWatts(double watts)
{
    return bomScaled(watts, "W", false);
}

ordered_json bomJson(const BillOfMaterials &bom, const BomCost &cost)
{
    ordered_json j;
    j["format_version"] = 1;
    j["catalogue"] = cost.catalogueName;
    j["default_catalogue"] = cost.defaultCatalogue;
    ordered_json counts;
    counts["servers"] = bom.servers;
    counts["gpus"] = bom.gpus;
    counts["nics"] = bom.nics;
    counts["nic_ports"] = bom.nicPorts;
    counts["nic_gbps"] = bom.nicGbps;
    counts["planes"] = bom.planes;
    counts["scale_up_domains"] = bom.scaleUpDomains;
    counts["switches"] = bom.switchCount();
    counts["cables"] = bom.cableCount();
    counts["transceivers"] = bom.transceiverCount();
    counts["compute_racks"] = bom.computeRacks();
    counts["network_racks"] = bom.networkRacks();
    counts["servers_per_rack"] = bom.serversPerRack;
    counts["racks_per_row"] = bom.racksPerRow;
    j["counts"] = std::move(counts);
    ordered_json switches = ordered_json::array();
    for (const BomSwitchLine &s : bom.switches)
        switches.push_back({ { "tier", s.tier }, { "radix", s.radix }, { "gbps", s.gbps },
            { "count", s.count }, { "ports_used", s.portsUsed }, { "ports_free", s.portsFree } });
    j["switches"] = std::move(switches);
    ordered_json cables = ordered_json::array();
    for (const BomCableLine &c : bom.cables)
        cables.push_back(
            { { "link", c.link }, { "class", std::string(cableClassName(c.cableClass)) },
                { "gbps", c.gbps }, { "cables", c.cables }, { "transceivers", c.transceivers } });
    j["cables"] = std::move(cables);
    ordered_json racks = ordered_json::array();
    for (const BomRack &r : bom.racks)
        racks.push_back({ { "row", r.row }, { "position", r.position },
            { "kind", r.network ? "network" : "compute" }, { "servers", r.servers },
            { "switches", r.switches } });
    j["racks"] = std::move(racks);

    ordered_json lines = ordered_json::array();
    for (const BomCostLine &l : cost.lines) {
        ordered_json x;
        x["group"] = l.group;
        x["item"] = l.what;
        x["quantity"] = l.quantity;
        if (l.portsUsed >= 0) {
            x["ports_used"] = l.portsUsed;
            x["ports_free"] = l.portsFree;
        }
        x["part"] = l.part;
        x["unit_price_usd"] = l.unitPriceUsd;
        x["price_usd"] = l.priceUsd;
        x["typical_w"] = l.typicalW;
        x["max_w"] = l.maxW;
        x["network"] = l.network;
        if (!l.part.empty()) {
            x["source"] = l.source;
            x["illustrative"] = l.illustrative;
        }
        lines.push_back(std::move(x));
    }
    j["lines"] = std::move(lines);
    j["unpriced"] = cost.unpriced;
    ordered_json totals;
    totals["capex_usd"] = cost.capexUsd;
    totals["network_capex_usd"] = cost.networkCapexUsd;
    totals["network_typical_w"] = cost.networkTypicalW;
    totals["network_max_w"] = cost.networkMaxW;
    totals["host_typical_w"] = cost.hostTypicalW;
    j["totals"] = std::move(totals);
    ordered_json power;
    power["gpu_tdp_w"] = cost.gpuTdpW;
    power["gpu_idle_w"] = cost.gpuIdleW;
    power["busy_fraction"] = cost.busyFraction;
    power["gpu_w"] = cost.gpuW;
    power["utilisation_model"] = bomUtilisationModel();
    j["gpu_power"] = std::move(power);
    j["iteration_s"] = cost.iterationSeconds;
    j["tokens_per_iteration"] = cost.tokensPerIteration;
    j["job"] = bomFiguresJson(cost.job);
    j["fabric"] = bomFiguresJson(cost.fabric);
    const CatalogueEconomics &e = cost.economics;
    j["economics"] = bomSourcedJson(
        std::map<std::string, double> { { "electricity_usd_per_kwh", e.electricityUsdPerKwh },
            { "pue", e.pue }, { "amortisation_years", e.amortisationYears } },
        cost.economicsSources);
    const BomRules &r = bom.rules;
    j["rules"] = bomSourcedJson(
        std::map<std::string, double> {
            { "servers_per_rack", static_cast<double>(r.serversPerRack) },
            { "switches_per_rack", static_cast<double>(r.switchesPerRack) },
            { "racks_per_row", static_cast<double>(r.racksPerRow) },
            { "rack_width_m", r.rackWidthM }, { "slack_m", r.slackM },
            { "copper_max_m", r.copperMaxM }, { "active_max_m", r.activeMaxM } },
        cost.ruleSources);
    return j;
}

std::string bomCsv(const BomCost &cost)
{
    using exportdetail::csvField;
    std::ostringstream out;
    out << "group,item,quantity,ports_used,ports_free,part,unit_price_usd,price_usd,typical_w,"
           "max_w,network,illustrative,source\r\n";
    for (const BomCostLine &l : cost.lines) {
        out << csvField(l.group) << ',' << csvField(l.what) << ',' << l.quantity << ','
            << (l.portsUsed >= 0 ? std::to_string(l.portsUsed) : std::string()) << ','
            << (l.portsFree >= 0 ? std::to_string(l.portsFree) : std::string()) << ','
            << csvField(l.part) << ',' << bomFixed(l.unitPriceUsd, 2) << ','
            << bomFixed(l.priceUsd, 2) << ',' << bomFixed(l.typicalW, 1) << ','
            << bomFixed(l.maxW, 1) << ',' << (l.network ? "yes" : "no") << ','
            << (l.part.empty() ? "" : (l.illustrative ? "yes" : "no")) << ',' << csvField(l.source)
            << "\r\n";
    }
    return out.str();
}

std::string bomText(const BillOfMaterials &bom, const BomCost &cost)
{
    std::ostringstream out;
    out << "Bill of materials: " << bom.gpus << " GPUs on " << bom.servers << " servers, "
        << bom.switchCount() << " switches, " << bom.cableCount() << " cables, "
        << bom.transceiverCount() << " transceivers, " << bom.racks.size() << " racks ("
        << bom.computeRacks() << " compute, " << bom.networkRacks() << " network)\n";
    out << "Catalogue: " << cost.catalogueName
        << (cost.defaultCatalogue ? " (embedded defaults)" : "")
        << "  (* = illustrative figure)\n\n";
    char buf[512];
    std::snprintf(buf, sizeof buf, "%-44s %9s %11s %12s %10s\n", "item", "quantity", "ports free",
        "price", "power");
    out << buf;
    for (const BomCostLine &l : cost.lines) {
        const std::string item
            = l.what + (l.part.empty() ? " (unpriced)" : (l.illustrative ? " *" : ""));
        std::snprintf(buf, sizeof buf, "%-44s %9lld %11s %12s %10s\n", item.c_str(),
            static_cast<long long>(l.quantity),
            l.portsFree >= 0 ? std::to_string(l.portsFree).c_str() : "",
            formatUsd(l.priceUsd).c_str(), formatWatts(l.typicalW).c_str());
        out << buf;
    }
    out << "\nCapital: " << formatUsd(cost.capexUsd) << " (network "
        << formatUsd(cost.networkCapexUsd)
        << ")\nNetwork power: " << formatWatts(cost.networkTypicalW) << " typical, "
        << formatWatts(cost.networkMaxW) << " maximum\n";
    out << "GPU power: " << bomFixed(cost.gpuW, 0) << " W per job GPU (TDP "
        << bomFixed(cost.gpuTdpW, 0) << " W, idle " << bomFixed(cost.gpuIdleW, 0)
        << " W, compute-busy " << bomFixed(100.0 * cost.busyFraction, 1) << " %)\n  "
        << bomUtilisationModel() << "\n";
    out << "Iteration " << bomFixed(cost.iterationSeconds, 3) << " s, "
        << bomFixed(cost.tokensPerIteration, 0) << " tokens\n\n";
    std::snprintf(buf, sizeof buf, "%-28s %14s %14s\n", "", "job", "fabric");
    out << buf;
    const auto row = [&](const char *name, double job, double fabric, int decimals) {
        std::snprintf(buf, sizeof buf, "%-28s %14s %14s\n", name, bomFixed(job, decimals).c_str(),
            bomFixed(fabric, decimals).c_str());
        out << buf;
    };
    row("GPUs", cost.job.gpus, cost.fabric.gpus, 0);
    row("power, kW", cost.job.powerW / 1e3, cost.fabric.powerW / 1e3, 1);
    row("kWh per iteration", cost.job.kwhPerIteration, cost.fabric.kwhPerIteration, 4);
    row("$ per iteration", cost.job.usdPerIteration, cost.fabric.usdPerIteration, 4);
    row("kWh per million tokens", cost.job.kwhPerMillionTokens, cost.fabric.kwhPerMillionTokens, 3);
    row("$ per million tokens", cost.job.usdPerMillionTokens, cost.fabric.usdPerMillionTokens, 3);
    row("tokens per joule", cost.job.tokensPerJoule, cost.fabric.tokensPerJoule, 3);
    out << "\nElectricity $" << bomFixed(cost.economics.electricityUsdPerKwh, 3) << "/kWh, PUE "
        << bomFixed(cost.economics.pue, 2) << ", capital over "
        << bomFixed(cost.economics.amortisationYears, 1) << " years\n";
    for (const std::string &u : cost.unpriced)
        out << "unpriced: " << u << "\n";
    return out.str();
}

} // namespace railyard
