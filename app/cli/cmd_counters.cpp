/**
 * `railyard-cli counters FILE COUNTERS...`: port counters of NICs and switches (perfquery -x,
 * Prometheus text, CSV; io/portcounters.h) turned into the measured utilisation of each fabric
 * link and set beside the prediction, the divergences ranked with a probable cause
 * (studies/countercompare.h).
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "io/portcounters.h"
#include "io/portmap.h"
#include "studies/countercompare.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

struct CountersOptions
{
    std::string file;
    std::vector<std::string> counters;
    std::string map;
    double window = NAN; ///< NaN: not given
    bool json = false;
    std::string output;
};

int runCounters(const CountersOptions &o)
{
    if (!std::isnan(o.window) && !(o.window > 0.0 && std::isfinite(o.window)))
        throw ScenarioError("--window", "must be a number of seconds > 0");
    const Scenario scenario = loadScenarioFile(o.file);
    std::vector<PortCounterFile> files;
    files.reserve(o.counters.size());
    for (const std::string &path : o.counters)
        files.push_back(loadPortCounters(path));
    std::optional<PortMap> map;
    if (!o.map.empty())
        map = loadPortMap(o.map);
    const std::vector<PortRate> rates = portRates(files, std::isnan(o.window) ? 0.0 : o.window);
    CostEngine engine(scenario);
    const CounterComparison c
        = compareCounters(rates, map ? &*map : nullptr, engine.fabric(), engine.report());
    if (o.json) {
        nlohmann::json j = counterComparisonJson(engine.fabric(), c);
        j["format_version"] = kJsonFormatVersion;
        writeOutput(o.output, jsonText(std::move(j)));
    } else {
        writeOutput(o.output, terminalText(counterComparisonText(engine.fabric(), c)));
    }
    return kExitOk;
}

} // namespace

void addCounters(CommandLine &line)
{
    auto o = std::make_shared<CountersOptions>();
    Command c(line,
        line.addCommand("counters",
            "Read port counters of NICs and switches over a window (perfquery -x output, "
            "Prometheus text such as node exporter's, or a CSV; two snapshots or bytes over a "
            "window) and set each fabric link's measured utilisation beside the predicted one: "
            "the divergences ranked with a probable cause (ECMP collision, slow or down cable, "
            "wrong rail or mis-bound NIC, idle NIC).",
            [o] { return runCounters(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    CLI::Option *counters = c.app().add_option("COUNTERS", o->counters,
        "Counter files, in time order: a port read in two of them gives its rate.");
    counters->required()->expected(1, 1 << 16)->type_name("");
    line.setFileValue(counters);
    c.file("--map", o->map, "MAP",
        "Port mapping file (CSV host,device,port,from,to): counters of ports the scenario's "
        "server names, NIC devices and cabling do not name.");
    c.number("--window", o->window, "SECONDS",
        "Seconds between the two snapshots (default: from their timestamps).");
    c.json(o->json);
    c.output(o->output);
}

} // namespace railyard::cli
