/**
 * `railyard-cli nccl-log FILE --log LOG...`: NCCL's own account of a job (its NCCL_DEBUG=INFO
 * output, io/nccllog.h) rebuilt into communicators, rings and connections, and checked against
 * the scenario (studies/ncclview.h): sends over a NIC the scenario does not bind that GPU to,
 * hops that leave their rail, and each ring against the ring the engine predicts for the same
 * ranks (studies/ncclringdiff.h); with the GRAPH and TUNING subsystems, the graphs NCCL searched
 * and the algorithm and protocol it picked per call size.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "io/nccllog.h"
#include "scenario/scenariofile.h"
#include "studies/ncclview.h"

#include <nlohmann/json.hpp>

#include <ctime>
#include <memory>
#include <string>
#include <vector>

namespace railyard::cli {

namespace {

struct NcclLogOptions
{
    std::string file;
    std::vector<std::string> logs;
    bool json = false;
    std::string output;
    std::string useObserved;
};

std::string ncclLogUtcNow()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm {};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

int runNcclLog(const NcclLogOptions &o)
{
    const Scenario scenario = loadScenarioFile(o.file);
    const NcclLog log = readNcclLogs(o.logs);
    CostEngine engine(scenario);
    const NcclView view = compareNcclLog(log, engine);
    std::string written;
    if (!o.useObserved.empty()) {
        // "Use what NCCL did": the scenario with NCCL's rings as its nccl_observed section.
        Scenario observed = scenario;
        observed.ncclObserved = ncclObservedSpec(log, view.rings,
            placeNcclHosts(log, engine.fabric()), engine.fabric(), ncclLogUtcNow());
        if (observed.ncclObserved.empty())
            throw ScenarioError("--use-observed",
                "no communicator of the log has rings and every rank placed: nothing to use");
        saveScenario(observed, o.useObserved); // atomic: temp file, fsync, rename
        written = "wrote " + o.useObserved + " (NCCL's rings of "
            + std::to_string(observed.ncclObserved.comms.size())
            + (observed.ncclObserved.comms.size() == 1 ? " communicator" : " communicators")
            + " as its nccl_observed section)\n";
    }
    if (o.json) {
        nlohmann::json j = ncclViewJson(log, view);
        j["format_version"] = kJsonFormatVersion;
        j["written"]
            = o.useObserved.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.useObserved);
        writeOutput(o.output, jsonText(std::move(j)));
    } else {
        writeOutput(o.output, terminalText(ncclViewText(log, view) + written));
    }
    return kExitOk;
}

} // namespace

void addNcclLog(CommandLine &line)
{
    auto o = std::make_shared<NcclLogOptions>();
    Command c(line,
        line.addCommand("nccl-log",
            "Read NCCL's own log (NCCL_DEBUG=INFO, one file per rank or interleaved, any launcher "
            "prefix) into communicators, rings and connections, and check them against the "
            "scenario: every network send over a NIC the scenario does not bind its GPU to, "
            "every hop whose two NICs sit on different rails, and every rank whose next hop in a "
            "ring differs from the engine's predicted ring; with NCCL_DEBUG_SUBSYS=GRAPH,TUNING "
            "also the graphs NCCL searched and the algorithm and protocol it picked per size.",
            [o] { return runNcclLog(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    CLI::Option *logs = c.texts("--log", o->logs, "LOG",
        "NCCL output files (NCCL_DEBUG=INFO; NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING,NET or ALL).");
    logs->expected(1, 1 << 16)->required();
    line.setFileValue(logs);
    c.json(o->json);
    c.output(o->output);
    c.file("--use-observed", o->useObserved, "OUT",
        "Use what NCCL did: write the scenario to OUT with NCCL's rings and the NICs of their "
        "network hops as its nccl_observed section; evaluating OUT routes every group whose "
        "slots are a logged communicator's over NCCL's rings instead of the predicted ones, each "
        "hop from and to the NICs NCCL used (remove the section to go back).");
}

} // namespace railyard::cli
