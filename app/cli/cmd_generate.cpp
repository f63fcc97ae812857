/**
 * `railyard-cli generate`: writes a scenario file from flags. The flags become a scenario JSON
 * document that goes through the same loader as any file (so every range and size check and
 * every message is the loader's), then the written text is read back, the fabric is built and
 * the layout and workload are planned: a file is written only when `evaluate` can use it.
 */
#include "cliutil.h"
#include "commands.h"

#include "fabric/fabric.h"
#include "layout/mapping.h"
#include "layout/parallellayout.h"
#include "workload/presets.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "workload/workloadplan.h"

#include <QHash>

#include <nlohmann/json.hpp>

#include <cstdint>
#include <utility>
#include <vector>

namespace railyard::cli {

namespace {

using nlohmann::json;

/** One command-line flag and the scenario field it sets (for error messages). */
struct Flag
{
    const char *name;
    const char *field;
    const char *valueName; ///< nullptr = a switch without a value
    const char *help;
};

// Bandwidths are per link per direction in Gbit/s, as in scenario files.
const std::vector<Flag> &flags()
{
    static const std::vector<Flag> all{
        {"fabric", "fabric.kind", "KIND", "rail-optimised | tor (required)."},
        {"servers", "fabric.servers", "N", "Number of servers (required)."},
        {"gpus-per-server", "fabric.gpus_per_server", "G", "GPU slots per server (required)."},
        {"nics-per-server", "fabric.nics_per_server", "N", "NICs per server (default: one per GPU)."},
        {"servers-per-su", "fabric.servers_per_su", "K", "Rail-optimised: servers per scalable unit (32)."},
        {"servers-per-leaf", "fabric.servers_per_leaf", "K", "ToR: servers per leaf (0 = derived)."},
        {"spines", "fabric.spines", "S", "Spines per pod (0 = derived from the radix)."},
        {"super-spines", "fabric.super_spines", "S", "Super-spines (0 = derived)."},
        {"switch-radix", "fabric.switch_radix", "R", "Ports per switch (64)."},
        {"nic-gbps", "fabric.nic_gbps", "B", "One NIC port, Gbit/s per direction (device default, 400)."},
        {"scaleup-gbps", "fabric.scaleup_gbps", "B", "One GPU's scale-up port, Gbit/s per direction (device default, 3600)."},
        {"pxn", "fabric.pxn", nullptr, "NCCL PXN: cross-rail traffic hops over NVLink first."},
        {"tp", "parallel.tp", "T", "Tensor-parallel degree (1)."},
        {"pp", "parallel.pp", "P", "Pipeline-parallel degree (1)."},
        {"dp", "parallel.dp", "D", "Data-parallel degree (default: all slots / (tp*pp*cp))."},
        {"cp", "parallel.cp", "C", "Context-parallel degree (1)."},
        {"ep", "parallel.ep", "E", "Expert-parallel degree (1)."},
        {"order", "parallel.order", "ORDER", "Megatron-LM rank order (tp-cp-ep-dp-pp)."},
        {"placement", "mapping.placement", "NAME", "packed | rail-aligned | scattered (packed)."},
        {"model", "model.preset", "NAME", "Model preset (llama2-70b); the flags below override it."},
        {"layers", "model.layers", "N", "Transformer layers."},
        {"hidden", "model.hidden", "N", "Hidden size."},
        {"heads", "model.heads", "N", "Attention heads."},
        {"kv-heads", "model.kv_heads", "N", "Key/value heads (0 = heads)."},
        {"ffn", "model.ffn", "N", "MLP intermediate size."},
        {"seq", "model.seq", "N", "Sequence length."},
        {"vocab", "model.vocab", "N", "Vocabulary size."},
        {"experts", "model.experts", "N", "Experts per MoE layer (0 = dense)."},
        {"top-k", "model.top_k", "K", "Experts per token."},
        {"micro-batch", "training.micro_batch", "N", "Micro-batch size (1)."},
        {"global-batch", "training.global_batch", "N", "Global batch size (512)."},
        {"precision", "training.precision", "P", "bf16 | fp16 | fp8 (bf16)."},
        {"recompute", "training.recompute", "R", "none | selective | full (selective)."},
        {"sequence-parallel", "training.sequence_parallel", nullptr, "Megatron sequence parallelism (default on)."},
        {"no-sequence-parallel", "training.sequence_parallel", nullptr, "Turn sequence parallelism off."},
        {"distributed-optimizer", "training.distributed_optimizer", nullptr, "Shard optimizer state over DP (default on)."},
        {"no-distributed-optimizer", "training.distributed_optimizer", nullptr, "Keep full optimizer state per replica."},
        {"schedule", "training.schedule", "S", "gpipe | 1f1b | interleaved (1f1b)."},
        {"interleave", "training.interleave", "V", "Virtual stages per rank (interleaved)."},
        {"device", "device.preset", "NAME", "Device preset (h100-sxm); sets NIC and scale-up defaults."},
        {"name", "name", "NAME", "Scenario name (default from model and degrees)."},
        {"description", "description", "TEXT", "Scenario description (default: this command line)."},
    };
    return all;
}

QString q(const char *text)
{
    return QString::fromLatin1(text);
}

/// The integer value of `--name`; range checks are the loader's.
std::int64_t integerFlag(const QCommandLineParser &parser, const char *name)
{
    bool ok = false;
    const QString text = parser.value(q(name));
    const qlonglong v = text.toLongLong(&ok);
    if (!ok)
        throw ScenarioError(std::string("--") + name,
                            "expected an integer, got '" + text.toStdString() + "'");
    return v;
}

/// `--on` / `--no-on` into `object[key]`; both at once is a usage error.
bool readSwitchPair(const QCommandLineParser &parser, const char *on, const char *off, json &object,
                    const char *key)
{
    const bool yes = parser.isSet(q(on));
    const bool no = parser.isSet(q(off));
    if (yes && no)
        return false;
    if (yes || no)
        object[key] = yes;
    return true;
}

/// The loader names JSON fields; for a flag the user gave, name the flag instead.
[[noreturn]] void rethrowForFlags(const ScenarioError &e, const QCommandLineParser &parser)
{
    for (const Flag &f : flags()) {
        if (e.field() == f.field && parser.isSet(q(f.name)))
            throw ScenarioError(std::string("--") + f.name, e.reason());
    }
    // "model" / "device" hold the preset name when the loader reads them as strings.
    if (e.field() == "model.preset" || e.field() == "device.preset")
        throw ScenarioError(e.field() == "model.preset" ? "--model" : "--device", e.reason());
    throw e;
}

/// The scenario document the flags describe; values are checked by the loader afterwards.
json documentFromFlags(const QCommandLineParser &parser)
{
    const auto integer = [&parser](json &object, const char *key, const char *flag) {
        if (parser.isSet(q(flag)))
            object[key] = integerFlag(parser, flag);
    };
    const auto text = [&parser](json &object, const char *key, const char *flag) {
        if (parser.isSet(q(flag)))
            object[key] = parser.value(q(flag)).toStdString();
    };

    json fabric = json::object();
    text(fabric, "kind", "fabric");
    const std::int64_t servers = integerFlag(parser, "servers");
    const std::int64_t gpus = integerFlag(parser, "gpus-per-server");
    fabric["servers"] = servers;
    fabric["gpus_per_server"] = gpus;
    integer(fabric, "nics_per_server", "nics-per-server");
    integer(fabric, "servers_per_su", "servers-per-su");
    integer(fabric, "servers_per_leaf", "servers-per-leaf");
    integer(fabric, "spines", "spines");
    integer(fabric, "super_spines", "super-spines");
    integer(fabric, "switch_radix", "switch-radix");
    const std::string device = parser.isSet(q("device")) ? parser.value(q("device")).toStdString()
                                                         : std::string("h100-sxm");
    const DeviceFabricDefaults defaults = deviceFabricDefaults(device);
    fabric["nic_gbps"] = parser.isSet(q("nic-gbps")) ? doubleOption(parser, q("nic-gbps"))
                                                     : defaults.nicGbps;
    fabric["scaleup_gbps"] = parser.isSet(q("scaleup-gbps"))
                                 ? doubleOption(parser, q("scaleup-gbps"))
                                 : defaults.scaleUpGbps;
    fabric["pxn"] = parser.isSet(q("pxn"));
    fabric["name"] = parser.value(q("fabric")).toStdString() + "-" + std::to_string(servers) + "x"
                     + std::to_string(gpus);

    json parallel = json::object();
    std::int64_t degree[3] = {1, 1, 1}; // tp, pp, cp
    const char *names[3] = {"tp", "pp", "cp"};
    for (int i = 0; i < 3; ++i) {
        if (parser.isSet(q(names[i])))
            degree[i] = integerFlag(parser, names[i]);
        parallel[names[i]] = degree[i];
    }
    integer(parallel, "ep", "ep");
    text(parallel, "order", "order");
    if (parser.isSet(q("dp"))) {
        parallel["dp"] = integerFlag(parser, "dp");
    } else {
        // dp fills the fabric. Out-of-range inputs skip this: the loader names them.
        const std::int64_t slots = servers * gpus;
        bool sane = servers >= 1 && gpus >= 1 && servers <= INT32_MAX && gpus <= INT32_MAX;
        std::int64_t cell = 1;
        for (std::int64_t d : degree) {
            sane = sane && d >= 1 && d <= INT32_MAX;
            if (sane)
                sane = !__builtin_mul_overflow(cell, d, &cell);
        }
        if (sane && (cell > slots || slots % cell != 0))
            throw ScenarioError("--dp", "not given, and the " + std::to_string(slots)
                                            + " GPU slots (servers * gpus-per-server) are not a "
                                              "multiple of tp*pp*cp = "
                                            + std::to_string(cell) + "; give --dp");
        parallel["dp"] = sane ? slots / cell : 1;
    }

    json model = json::object();
    model["preset"] = parser.isSet(q("model")) ? parser.value(q("model")).toStdString()
                                               : std::string("llama2-70b");
    for (const auto &[key, flag] : std::vector<std::pair<const char *, const char *>>{
             {"layers", "layers"}, {"hidden", "hidden"}, {"heads", "heads"},
             {"kv_heads", "kv-heads"}, {"ffn", "ffn"}, {"seq", "seq"}, {"vocab", "vocab"},
             {"experts", "experts"}, {"top_k", "top-k"}})
        integer(model, key, flag);

    json training = json::object();
    integer(training, "micro_batch", "micro-batch");
    integer(training, "global_batch", "global-batch");
    integer(training, "interleave", "interleave");
    text(training, "precision", "precision");
    text(training, "recompute", "recompute");
    text(training, "schedule", "schedule");
    if (!readSwitchPair(parser, "sequence-parallel", "no-sequence-parallel", training,
                        "sequence_parallel"))
        throw ScenarioError("--sequence-parallel", "contradicts --no-sequence-parallel");
    if (!readSwitchPair(parser, "distributed-optimizer", "no-distributed-optimizer", training,
                        "distributed_optimizer"))
        throw ScenarioError("--distributed-optimizer", "contradicts --no-distributed-optimizer");

    json mapping = json::object();
    text(mapping, "placement", "placement");

    json doc;
    doc["format_version"] = kScenarioFormatVersion;
    text(doc, "name", "name");
    text(doc, "description", "description");
    doc["fabric"] = std::move(fabric);
    doc["parallel"] = std::move(parallel);
    doc["model"] = std::move(model);
    doc["training"] = std::move(training);
    doc["device"] = json{{"preset", device}};
    doc["mapping"] = std::move(mapping);
    return doc;
}

/// "llama2-70b-tp8-pp4-dp4" (cp and ep only when > 1).
std::string defaultName(const Scenario &s)
{
    std::string name = s.model.name.empty() ? std::string("scenario") : s.model.name;
    name += "-tp" + std::to_string(s.degrees.tp) + "-pp" + std::to_string(s.degrees.pp) + "-dp"
            + std::to_string(s.degrees.dp);
    if (s.degrees.cp > 1)
        name += "-cp" + std::to_string(s.degrees.cp);
    if (s.degrees.ep > 1)
        name += "-ep" + std::to_string(s.degrees.ep);
    return name;
}

/// The command line without the output path, for the description.
std::string commandLine(const QCommandLineParser &parser)
{
    std::string line = "railyard-cli generate";
    QHash<QString, int> seen; // an option given twice lists its values in order
    for (const QString &name : parser.optionNames()) {
        const int occurrence = seen[name]++;
        if (name == QLatin1String("o") || name == QLatin1String("output"))
            continue;
        line += " --" + name.toStdString();
        for (const Flag &f : flags()) {
            if (name != q(f.name) || !f.valueName)
                continue;
            const QStringList values = parser.values(name);
            const std::string value = values.value(occurrence).toStdString();
            const bool quote = value.empty() || value.find_first_of(" \t'\"") != std::string::npos;
            line += quote ? " '" + value + "'" : " " + value;
        }
    }
    return line;
}

} // namespace

int runGenerate(const QStringList &args)
{
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Write a scenario (fabric, parallel layout, workload, device, placement) as JSON.\n"
        "Bandwidths are per link per direction in Gbit/s. Workload flags override --model."));
    for (const Flag &f : flags()) {
        if (f.valueName)
            parser.addOption({q(f.name), q(f.help), q(f.valueName)});
        else
            parser.addOption({q(f.name), q(f.help)});
    }
    parser.addOption({{QStringLiteral("o"), QStringLiteral("output")},
                      QStringLiteral("Write to FILE instead of stdout."), QStringLiteral("FILE")});
    int code = 0;
    if (!parseArgs(parser, args, code))
        return code;
    if (!parser.positionalArguments().isEmpty())
        return fail("generate takes no positional arguments, got '"
                        + parser.positionalArguments().front().toStdString() + "'",
                    kExitUsage);
    for (const char *required : {"fabric", "servers", "gpus-per-server"}) {
        if (!parser.isSet(q(required)))
            return fail(std::string("--") + required + " is required (see --help)", kExitUsage);
    }

    Scenario scenario;
    std::string text;
    try {
        json doc = documentFromFlags(parser);
        scenario = scenarioFromJson(doc);
        if (!parser.isSet(q("name")))
            scenario.name = defaultName(scenario);
        if (!parser.isSet(q("description")))
            scenario.description = commandLine(parser);

        // What is written must load back, and the engine must accept it.
        text = scenarioToText(scenario);
        const Scenario written = parseScenario(text);
        const Fabric fabric = Fabric::build(written.fabric);
        const ParallelLayout layout(written.degrees, written.order);
        planWorkload(written.model, written.training, written.device, written.degrees);
        const Mapping mapping = Mapping::place(written.placement, layout, fabric);
        for (const MappingIssue &issue : mapping.validate(layout, fabric)) {
            if (issue.severity == MappingIssue::Error)
                throw ScenarioError("--placement", issue.message);
        }
    } catch (const ScenarioError &e) {
        rethrowForFlags(e, parser);
    }
    writeOutput(parser.value(QStringLiteral("output")), text);
    return kExitOk;
}

} // namespace railyard::cli
