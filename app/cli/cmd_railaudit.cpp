/**
 * `railyard-cli rail-audit`: for every communicator of the job (TP, the gradient sync, CP, PP,
 * EP and a MoE's expert-dp groups), whether its traffic stays on its rail, the hops that leave
 * it, and what the spine is needed for (model/studies/railaudit.h).
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "cost/costengine.h"
#include "studies/railaudit.h"

#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace railyard::cli {

namespace {

struct RailAuditCommandOptions
{
    std::string file;
    std::vector<std::pair<int, int>> swaps;
    bool pxn = false;
    bool noPxn = false;
    std::string crossNic = "2";
    bool json = false;
    std::string output;
};

int runRailAudit(const RailAuditCommandOptions &o)
{
    if (o.crossNic != "0" && o.crossNic != "1" && o.crossNic != "2")
        throw UsageError("--cross-nic: NCCL_CROSS_NIC is 0, 1 or 2, not '" + o.crossNic + "'");
    Scenario scenario = loadScenarioFile(o.file);
    if (o.pxn)
        scenario.fabric.pxn = true;
    if (o.noPxn)
        scenario.fabric.pxn = false;
    CostEngine engine(scenario);
    for (const auto &[a, b] : o.swaps)
        engine.swapRanks(a, b);
    railyard::RailAuditOptions options;
    options.crossNic = std::stoi(o.crossNic);
    const RailAudit audit = railAudit(engine, options);
    writeOutput(
        o.output, o.json ? jsonText(railAuditJson(audit)) : terminalText(railAuditText(audit)));
    return kExitOk;
}

} // namespace

void addRailAudit(CommandLine &line)
{
    auto o = std::make_shared<RailAuditCommandOptions>();
    Command c(line,
        line.addCommand("rail-audit",
            "For every communicator of the job (TP, the gradient sync, CP, PP, EP, expert-dp), "
            "whether its traffic stays on its rail: each group's flows as the engine plans them, "
            "routed over the fabric and classed as NVLink, one leaf, PXN, same rail through the "
            "spine, or off its rail; the hops that leave it, and what the spine is needed for. A "
            "disaggregated inference scenario adds its prefill -> decode KV hand-off (kv).",
            [o] { return runRailAudit(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    c.swaps(o->swaps, "Exchange the slots of global ranks A and B first (repeatable, in order).");
    CLI::Option *pxn = c.flag("--pxn", o->pxn,
        "Audit with NCCL's PXN on (NCCL_PXN_DISABLE=0): cross-rail sends cross NVLink first.");
    c.flag("--no-pxn", o->noPxn, "Audit with PXN off, whatever the scenario says.")->excludes(pxn);
    c.choice("--cross-nic", o->crossNic, "N",
        "NCCL_CROSS_NIC as the job sets it: 2 (NCCL's default) alternates a ring's two NICs on "
        "every other server, 0 keeps each ring hop on its entry NIC's rail, 1 lets NCCL pair any "
        "NICs (ring hops may leave their rails).",
        { "0", "1", "2" });
    c.json(o->json);
    c.output(o->output);
}

} // namespace railyard::cli
