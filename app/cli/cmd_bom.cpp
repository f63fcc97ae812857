/**
 * `railyard-cli bom`: the bill of materials of a scenario's fabric (switches with their used
 * and free ports, cables and transceivers per link class, NICs, racks), priced with a parts
 * catalogue, with the network's and the GPUs' power and what one iteration of the job costs
 * (model/fabric/bom.h, model/studies/bomcost.h).
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "cost/costengine.h"
#include "fabric/bom.h"
#include "scenario/cataloguesection.h"
#include "studies/bomcost.h"
#include "studies/bomreport.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <optional>
#include <string>

namespace railyard::cli {

namespace {

struct BomOptions
{
    std::string file;
    std::string catalogue;
    std::string writeCatalogue;
    bool json = false;
    bool csv = false;
    std::string output;
};

int runBom(const BomOptions &o)
{
    if (o.json && o.csv)
        throw UsageError("--json and --csv: give one of them", false);
    Scenario scenario = loadScenarioFile(o.file);
    // Every input is read before anything is written.
    std::optional<PartsCatalogue> fromFile;
    if (!o.catalogue.empty())
        fromFile = cataloguesection::loadCatalogueFile(o.catalogue);
    const PartsCatalogue &catalogue = fromFile ? *fromFile : catalogueOf(scenario);
    CostEngine engine(scenario);
    const BillOfMaterials bom = billOfMaterials(engine.fabric(), catalogue.rules);
    const BomCost cost = priceBom(bom, catalogue, scenario, engine.report());
    if (!o.writeCatalogue.empty())
        writeOutput(o.writeCatalogue, cataloguesection::catalogueToText(catalogue));
    if (o.json)
        writeOutput(o.output,
            bomJson(bom, cost).dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
                + "\n");
    else if (o.csv)
        writeOutput(o.output, bomCsv(cost));
    else
        writeOutput(o.output, terminalText(bomText(bom, cost)));
    return kExitOk;
}

} // namespace

void addBom(CommandLine &line)
{
    auto o = std::make_shared<BomOptions>();
    Command c(line,
        line.addCommand("bom",
            "Bill of materials of the scenario's fabric: switches per tier and model class with "
            "their used and free ports, cables and transceivers per link class (in-rack copper, "
            "in-row active, across-hall optics, by the catalogue's reach rules), NICs and racks; "
            "priced with a parts catalogue (the scenario's, --catalogue FILE, or the embedded "
            "defaults), with network and GPU power and the $ and kWh per iteration and per "
            "million tokens, per job and per fabric. Every figure names its source or is "
            "marked illustrative.",
            [o] { return runBom(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.file("--catalogue", o->catalogue, "CATALOGUE",
        "Price with this catalogue file (JSON, the scenario's \"catalogue\" section on its own) "
        "instead of the scenario's or the embedded one.");
    c.file("--write-catalogue", o->writeCatalogue, "FILE",
        "Also write the catalogue used to FILE: a starting point to edit.");
    c.json(o->json);
    c.flag("--csv", o->csv, "Print CSV: one row per priced line.");
    c.output(o->output);
}

} // namespace railyard::cli
