#include "scenario/cataloguesection.h"

#include <initializer_list>
#include <string>
#include <tuple>
#include <utility>

/*
 * The embedded default parts catalogue (docs/bom-and-cost.md). Prices of data-centre parts are
 * quotes, not published lists, so every price here is illustrative: an order of magnitude to
 * start a comparison from, to be replaced by the user's own quotes (`bom --catalogue FILE`, or
 * the GUI's Bill of Materials dock). Power figures cite the vendor datasheet where one states
 * them; a part whose figures are only partly sourced is still marked illustrative, its `source`
 * naming the figure that is.
 */

namespace railyard {

namespace {

CataloguePart defaultPart(std::string id, PartKind kind, double priceUsd, double typicalW,
    double maxW, std::string source = {})
{
    CataloguePart p;
    p.id = std::move(id);
    p.kind = kind;
    p.priceUsd = priceUsd;
    p.typicalW = typicalW;
    p.maxW = maxW;
    p.source = std::move(source);
    p.illustrative = true; // every default price is (see above)
    return p;
}

CataloguePart defaultGpu(
    std::string device, double priceUsd, double idleW, double tdpW, std::string source)
{
    CataloguePart p
        = defaultPart("gpu-" + device, PartKind::Gpu, priceUsd, idleW, tdpW, std::move(source));
    p.device = std::move(device);
    return p;
}

CataloguePart defaultSpeedPart(
    std::string id, PartKind kind, double gbps, double priceUsd, double typicalW, double maxW)
{
    CataloguePart p = defaultPart(std::move(id), kind, priceUsd, typicalW, maxW);
    p.gbps = gbps;
    return p;
}

CataloguePart defaultSwitchPart(
    int radix, double gbps, double priceUsd, double typicalW, double maxW)
{
    CataloguePart p = defaultSpeedPart(
        "switch-" + std::to_string(radix) + "x" + std::to_string(static_cast<int>(gbps)),
        PartKind::Switch, gbps, priceUsd, typicalW, maxW);
    p.radix = radix;
    return p;
}

CataloguePart defaultCablePart(CableClass c, double gbps, double priceUsd, double typicalW)
{
    CataloguePart p = defaultSpeedPart(
        "cable-" + std::string(cableClassName(c)) + "-" + std::to_string(static_cast<int>(gbps)),
        PartKind::Cable, gbps, priceUsd, typicalW, typicalW);
    p.cableClass = c;
    return p;
}

PartsCatalogue makeDefaultCatalogue()
{
    PartsCatalogue c;
    c.name = "Railyard defaults (illustrative prices)";
    const std::string idle = "; the idle draw and the price are illustrative";
    c.parts = {
        defaultGpu("h100-sxm", 25000, 100, 700,
            "TDP: NVIDIA H100 Tensor Core GPU datasheet, H100 SXM up to 700 W" + idle),
        defaultGpu("h200", 30000, 100, 700,
            "TDP: NVIDIA H200 Tensor Core GPU datasheet, H200 SXM up to 700 W" + idle),
        defaultGpu("b200", 35000, 140, 1000,
            "TDP: NVIDIA HGX B200 datasheet, 1,000 W per B200 GPU" + idle),
        defaultGpu(
            "gb200", 40000, 160, 1200, "TDP: NVIDIA GB200 NVL72, 1,200 W per Blackwell GPU" + idle),
    };
    // The host of an 8-GPU HGX/DGX server: CPUs, memory, NVSwitches, fans, storage.
    CataloguePart host8 = defaultPart("server-8gpu-host", PartKind::Server, 150000, 3000, 4600,
        "max: NVIDIA DGX H100 datasheet, 10.2 kW maximum system power, less 8 x 700 W GPU TDP; "
        "the typical draw and the price are illustrative");
    host8.gpus = 8;
    CataloguePart host4 = defaultPart("server-4gpu-tray", PartKind::Server, 60000, 800, 1200);
    host4.gpus = 4; // an NVL72 compute tray (two Grace CPUs); its NVLink switch trays included
    CataloguePart hostAny = defaultPart("server-host", PartKind::Server, 100000, 1500, 3000);
    c.parts.push_back(host8);
    c.parts.push_back(host4);
    c.parts.push_back(hostAny);
    // NICs, switches, cables and transceivers: illustrative prices and draws, a maximum about
    // a third above the typical draw; cables and optics scale with the port speed from 400G.
    using NicRow = std::tuple<double, double, double>; // Gb/s, $, typical W
    for (const auto &[gbps, price, watts] : std::initializer_list<NicRow> {
             { 200.0, 1200.0, 16.0 }, { 400.0, 2000.0, 20.0 }, { 800.0, 3000.0, 30.0 } })
        c.parts.push_back(defaultSpeedPart("nic-" + std::to_string(static_cast<int>(gbps)),
            PartKind::Nic, gbps, price, watts, watts * 1.3));
    c.parts.push_back(defaultSwitchPart(32, 400, 15000, 500, 800));
    c.parts.push_back(defaultSwitchPart(64, 200, 18000, 600, 1000));
    c.parts.push_back(defaultSwitchPart(64, 400, 30000, 1100, 1700));
    c.parts.push_back(defaultSwitchPart(64, 800, 45000, 1500, 2400));
    c.parts.push_back(defaultSwitchPart(128, 400, 50000, 1600, 2400));
    c.parts.push_back(defaultSwitchPart(144, 800, 90000, 2500, 3500));
    for (const double gbps : { 200.0, 400.0, 800.0 }) {
        const double scale = gbps / 400.0;
        c.parts.push_back(defaultCablePart(CableClass::Copper, gbps, 150 * scale, 0));
        c.parts.push_back(defaultCablePart(CableClass::Active, gbps, 700 * scale, 12 * scale));
        c.parts.push_back(defaultCablePart(CableClass::Optics, gbps, 60, 0)); // the fibre patch
        c.parts.push_back(defaultSpeedPart("transceiver-" + std::to_string(static_cast<int>(gbps)),
            PartKind::Transceiver, gbps, 800 * scale, 8 * scale, 10 * scale));
    }
    c.parts.push_back(defaultPart("rack", PartKind::Rack, 5000, 0, 0));

    c.ruleSources = {
        { "servers_per_rack",
            "0 = derived: one NVLink domain per rack (NVL72: 18 trays), else 4 - the DGX H100 "
            "SuperPOD reference architecture's SU rack layout (four DGX H100 per compute rack)" },
        { "rack_width_m",
            "a 600 mm cabinet, the common data-centre enclosure width for EIA-310 19-inch "
            "equipment" },
        { "copper_max_m",
            "IEEE 802.3ck-2022: 100 Gb/s-per-lane twinax (200/400/800GBASE-CR2/4/8) reaches 2 m" },
        { "racks_per_row",
            "0 = derived: one scalable unit per row for a generated rail-optimised fabric (the "
            "SuperPOD's SU row), else 8 (illustrative)" },
    };
    c.economicsSources = {
        { "electricity_usd_per_kwh",
            "U.S. EIA, Electric Power Monthly: 2023 average retail price to industrial customers, "
            "about 8 cents/kWh" },
        { "pue", "Uptime Institute Global Data Center Survey 2023: average annual PUE 1.58" },
    };
    return c;
}

} // namespace

const PartsCatalogue &defaultCatalogue()
{
    static const PartsCatalogue c = makeDefaultCatalogue();
    return c;
}

} // namespace railyard
