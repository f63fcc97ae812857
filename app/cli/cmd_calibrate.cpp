/**
 * `railyard-cli calibrate FILE --measured RESULTS... [--run ID=FILE]... [--step-time S] [-o OUT]`:
 * reads nccl-tests output (the text table or the -J JSON), ties each log to a group of the
 * scenario (io/measuredruns.h), fits per fabric tier the per-step α and the achievable bandwidth
 * the engine uses (cost/calibrationfit.h), prints the fit and its residuals, and with -o writes
 * the scenario with its "calibration" section. Training logs and profiler traces among the files
 * (told apart by content) are compared with the prediction (studies/trainingcomparison.h). Any bad
 * log, binding or fit stops it before anything is written.
 */
#include "cliutil.h"
#include "collectiveoptions.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"
#include "usageerror.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "cost/calibrationfit.h"
#include "cost/costengine.h"
#include "export/runrecord.h"
#include "io/calibrationreport.h"
#include "io/measuredruns.h"
#include "io/nccltestslog.h"
#include "scenario/calibrationsection.h"
#include "scenario/scenariofile.h"
#include "studies/trainingcomparison.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
#include <ctime>
#include <memory>

namespace railyard::cli {

namespace {

struct CalibrateOptions
{
    std::string file;
    std::vector<std::string> measured;
    std::vector<std::string> runs;
    std::string output;
    std::string computeOut;
    double stepTime = -1.0;
    bool json = false;
};

std::string utcNow()
{
    const std::time_t now = std::time(nullptr);
    std::tm tm {};
    gmtime_r(&now, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

int runCalibrate(const CalibrateOptions &o)
{
    if (o.stepTime != -1.0 && !(o.stepTime > 0.0 && std::isfinite(o.stepTime)))
        throw UsageError("--step-time: must be a positive number of seconds");
    if (o.measured.empty() && o.stepTime == -1.0)
        throw UsageError("--measured is required (or --step-time SECONDS)");
    Scenario scenario = loadScenarioFile(o.file);

    // Every file is read, and refused, before anything is written.
    std::vector<NcclTestsLog> logs;
    std::vector<std::string> trainingFiles;
    std::vector<MeasurementFormat> trainingFormats;
    for (const std::string &path : o.measured) {
        const MeasurementFormat format = measuredFileFormat(path);
        if (format != MeasurementFormat::NcclTests) {
            trainingFiles.push_back(path);
            trainingFormats.push_back(format);
            continue;
        }
        for (NcclTestsLog &l : readNcclTestsLogs(path)) // one run per table of the file
            logs.push_back(std::move(l));
    }
    TrainingComparison training;
    if (!trainingFiles.empty() || o.stepTime > 0.0) {
        const CostEngine predicted(scenario); // as the user evaluates it, calibration included
        training = compareTraining(predicted, trainingFiles, trainingFormats, o.stepTime);
    }
    // --compute-out: fitted now, written last, so a failure anywhere writes nothing.
    nlohmann::json computeSection;
    std::string computeText;
    if (!o.computeOut.empty()) {
        computeSection = computeCalibrationSection(scenario, training, utcNow());
        const nlohmann::json &c = computeSection["calibration"]["compute"];
        char buf[320];
        std::snprintf(buf, sizeof buf,
            "compute fit (%s, %s, %s): max efficiency %.4f (table %.4f), kernel overhead %.1f us "
            "kept; "
            "predicted step %.4g s -> %.4g s (measured %.4g s)\n",
            c["device"].get<std::string>().c_str(), c["precision"].get<std::string>().c_str(),
            c["stack"].get<std::string>().c_str(), c["max_efficiency"].get<double>(),
            c["table_max_efficiency"].get<double>(), c["kernel_overhead_us"].get<double>(),
            c["predicted_step_time_s"]["before"].get<double>(),
            c["predicted_step_time_s"]["after"].get<double>(),
            c["measured_step_time_s"].get<double>());
        computeText = buf;
    }
    auto writeCompute = [&](std::string &text) {
        if (o.computeOut.empty())
            return;
        writeFileAtomically(o.computeOut, computeSection.dump(2) + "\n");
        if (!o.json)
            text += computeText + "wrote " + o.computeOut + " (calibration.compute, version 1)\n";
    };
    if (logs.empty()) {
        if (!o.output.empty())
            throw ScenarioError("-o",
                "writes the network calibration fitted to nccl-tests logs; "
                "none was given (training logs and traces are compared, not "
                "written)");
        std::string text;
        if (o.json) {
            nlohmann::json j;
            j["scenario"] = scenario.name;
            j["calibration"] = nullptr;
            j["runs"] = nlohmann::json::array();
            j["training"] = training.json;
            j["compute"] = computeSection.is_null() ? computeSection
                                                    : computeSection["calibration"]["compute"];
            j["written"] = nullptr;
            j["compute_written"]
                = o.computeOut.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.computeOut);
            text = jsonText(std::move(j));
        } else {
            text = "measured beside predicted\n" + training.text;
        }
        writeCompute(text);
        writeOutput({}, o.json ? text : terminalText(text));
        return kExitOk;
    }

    Scenario base = scenario;
    base.calibration = {}; // fit against the defaults, not an older calibration
    CostEngine engine(base);
    std::vector<RunBinding> bindings;
    const std::vector<PlanRun> plan = ncclPlanRuns(engine);
    for (const std::string &text : o.runs) {
        const std::size_t eq = text.find('=');
        if (eq == std::string::npos || eq == 0 || eq + 1 == text.size())
            throw ScenarioError("--run", "expected ID=FILE, got '" + text + "'");
        RunBinding b;
        b.id = text.substr(0, eq);
        b.file = text.substr(eq + 1);
        const bool planned = std::any_of(
            plan.begin(), plan.end(), [&b](const PlanRun &r) { return r.id == b.id; });
        if (!planned) {
            try {
                b.ranks = parseRankSelection(b.id, engine.layout());
            } catch (const ScenarioError &e) {
                throw ScenarioError("--run " + text,
                    "\"" + b.id
                        + "\" is neither a run of the scenario's nccl-plan nor a rank "
                          "selection ("
                        + e.reason() + ")");
            }
        }
        bindings.push_back(std::move(b));
    }
    const std::vector<MeasuredRun> runs = matchMeasuredRuns(engine, logs, bindings);

    CalibrationFitOptions fit;
    fit.measuredAt = utcNow();
    for (const NcclTestsLog &l : logs)
        if (fit.ncclVersion.empty())
            fit.ncclVersion = l.ncclVersion;
    CalibrationSpec spec = fitCalibration(engine, runs, fit);
    spec.fabricHash = fabricHash(scenario.fabric);
    spec.mappingVersion = scenario.mappingVersion;
    scenario.calibration = spec;

    std::string text;
    if (o.json) {
        nlohmann::json j;
        j["scenario"] = scenario.name;
        j["calibration"] = calibrationsection::calibrationToJson<nlohmann::json>(spec);
        nlohmann::json checks = nlohmann::json::array();
        for (const CalibrationRun &r : spec.runs)
            checks.push_back({ { "id", r.id }, { "fitted", r.fitted },
                { "plateau_busbw_error", plateauBusbwError(r) } });
        j["runs"] = checks;
        j["training"] = training.json;
        j["compute"]
            = computeSection.is_null() ? computeSection : computeSection["calibration"]["compute"];
        j["written"] = o.output.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.output);
        j["compute_written"]
            = o.computeOut.empty() ? nlohmann::json(nullptr) : nlohmann::json(o.computeOut);
        text = jsonText(std::move(j));
    } else {
        text = calibrationFitText(spec);
        if (!training.text.empty())
            text += "\nmeasured beside predicted\n" + training.text;
    }
    if (!o.output.empty()) {
        saveScenario(scenario, o.output); // atomic: temp file, fsync, rename
        if (!o.json)
            text += "wrote " + o.output + " (calibration of " + std::to_string(spec.tiers.size())
                + (spec.tiers.size() == 1 ? " tier entry" : " tier entries") + ")\n";
    }
    writeCompute(text);
    writeOutput({}, o.json ? text : terminalText(text));
    return kExitOk;
}

} // namespace

void addCalibrate(CommandLine &line)
{
    auto o = std::make_shared<CalibrateOptions>();
    Command c(line,
        line.addCommand("calibrate",
            "Fit the engine's per-tier start-up latency and achievable bandwidth to measured "
            "nccl-tests runs (text output or -J JSON) of the scenario's groups, print the fit "
            "and its residuals, and with -o write the scenario with a calibration section that "
            "evaluate uses. Each log (each table of a file holding several, named FILE#BINARY) "
            "is tied to a run of `export --format nccl-plan` by its file name (RUN.log), by its "
            "command line, or by --run. Training logs (Megatron-LM, NeMo, torchtitan) and "
            "PyTorch profiler (Kineto) traces, told apart by their content, are compared with "
            "the prediction: the steady step time (warm-up skipped) and, from a trace, the "
            "exposed communication per parallel dimension.",
            [o] { return runCalibrate(*o); }));
    c.positionalFile("FILE", o->file, "Scenario file.");
    CLI::Option *measured = c.texts("--measured", o->measured, "RESULTS",
        "nccl-tests output files (one run per result table), training logs or profiler traces "
        "(several after one --measured).");
    measured->expected(1, 1 << 16);
    line.setFileValue(measured);
    c.texts("--run", o->runs, "ID=FILE",
        "Tie FILE to the plan run ID, or to a group given as ranks (0-7, all, tp:0, dp:p=0,t=3) "
        "(repeatable).");
    c.number("--step-time", o->stepTime, "SECONDS",
        "A measured step time read elsewhere, compared with the prediction.");
    c.file("--compute-out,--calibration-out", o->computeOut, "CAL",
        "Fit the device's GEMM efficiency to the one measured step time (a training log, a trace "
        "or --step-time) with the whole engine and write it to CAL as a versioned "
        "calibration.compute section with its provenance (--calibration-out is the same "
        "option).");
    c.file("-o,--output", o->output, "OUT", "Write the calibrated scenario to OUT (atomically).");
    c.json(o->json);
}

} // namespace railyard::cli
