#include "io/computecalibration.h"

#include "base/fileio.h"
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "workload/workloadnames.h"

#include <nlohmann/json.hpp>

#include <cstdio>

namespace railyard {

namespace {

constexpr long long kMaxComputeCalibrationBytes = 1 << 20; // a few hundred bytes in practice
constexpr int kComputeCalibrationVersion = 1;

} // namespace

ComputeCalibration parseComputeCalibration(const std::string &text, const std::string &file)
{
    nlohmann::json root;
    try {
        root = parseJsonGuarded(text, 16);
    } catch (const ScenarioError &e) {
        throw ScenarioError(file, e.reason());
    }
    const JsonFields top(root, file, { "calibration" });
    const JsonFields cal(top.required("calibration"), file + ": calibration", { "compute" });
    const JsonFields c(cal.required("compute"), file + ": calibration.compute",
        { "version", "device", "precision", "stack", "log_format", "max_efficiency",
            "kernel_overhead_us", "fitted", "table_max_efficiency", "measured_step_time_s",
            "predicted_step_time_s", "engine_evaluations", "provenance" });
    c.rejectUnknown();
    const std::int64_t version = c.requiredInteger("version", 1, 1 << 20);
    if (version != kComputeCalibrationVersion)
        throw ScenarioError(c.fieldPath("version"),
            "is " + std::to_string(version) + "; this Railyard reads version "
                + std::to_string(kComputeCalibrationVersion));
    ComputeCalibration out;
    out.file = file;
    out.device = c.string("device", "", 256, false);
    if (!c.has("device"))
        c.required("device");
    const std::string precision = c.string("precision", "bf16", 16, false);
    if (!parsePrecision(precision, out.precision))
        throw ScenarioError(c.fieldPath("precision"), "unknown precision '" + precision + "'");
    const std::string stack = c.string("stack", "unknown", 64, false);
    if (stack != "unknown") {
        SoftwareStack s {};
        if (!parseStack(stack, s))
            throw ScenarioError(c.fieldPath("stack"), "unknown stack '" + stack + "'");
        out.stack = s;
    }
    // A share of the dense peak (DeviceSpec::maxEfficiency's own range) and a per-kernel
    // overhead in microseconds (deviceefficiency.h bounds the fitted ones to 1-10 us).
    out.maxEfficiency = c.number("max_efficiency", 0.0, 0.0, 1.0, LowerBound::Exclusive);
    if (!c.has("max_efficiency"))
        c.required("max_efficiency");
    out.kernelOverheadUs = c.number("kernel_overhead_us", 0.0, 0.0, 1000.0);
    out.measuredStepTime = c.number("measured_step_time_s", 0.0, 0.0, 1e6);
    if (const nlohmann::json *p = c.find("provenance"); p && p->is_object()) {
        if (const auto at = p->find("measured_at"); at != p->end() && at->is_string())
            out.measuredAt = at->get<std::string>();
        if (const auto sc = p->find("scenario"); sc != p->end() && sc->is_string())
            out.measuredScenario = sc->get<std::string>();
    }
    return out;
}

ComputeCalibration loadComputeCalibration(const std::string &path)
{
    return parseComputeCalibration(
        readFileLimited(path, kMaxComputeCalibrationBytes, "a compute calibration", " (1 MiB)"),
        path);
}

void applyComputeCalibration(Scenario &scenario, const ComputeCalibration &c)
{
    const std::string from = c.file + " was measured on ";
    if (scenario.device.name != c.device)
        throw ScenarioError("--calibration",
            from + "device " + c.device + "; the scenario's device is " + scenario.device.name
                + ": a compute calibration carries only to the same device");
    if (scenario.training.precision != c.precision)
        throw ScenarioError("--calibration",
            from + std::string(precisionName(c.precision)) + "; the scenario trains in "
                + std::string(precisionName(scenario.training.precision))
                + ": the GEMM efficiency is per precision");
    if (c.stack && scenario.training.stack && *c.stack != *scenario.training.stack)
        throw ScenarioError("--calibration",
            from + "stack " + std::string(stackName(*c.stack)) + "; the scenario's stack is "
                + std::string(stackName(*scenario.training.stack))
                + ": kernels and overlap differ between stacks");
    if (c.precision == Precision::Fp8)
        scenario.device.maxEfficiencyFp8 = c.maxEfficiency;
    else
        scenario.device.maxEfficiency = c.maxEfficiency;
    if (c.kernelOverheadUs > 0.0)
        scenario.device.kernelOverheadUs = c.kernelOverheadUs;
    if (c.stack && !scenario.training.stack)
        scenario.training.stack = c.stack;
}

std::string computeCalibrationText(const ComputeCalibration &c)
{
    char eff[32];
    std::snprintf(eff, sizeof eff, "%.3f", c.maxEfficiency);
    std::string out = "compute calibration " + c.file + ": " + c.device + " "
        + std::string(precisionName(c.precision)) + " "
        + (c.stack ? std::string(stackName(*c.stack)) : std::string("(stack unknown)"))
        + ", max efficiency " + eff;
    if (c.measuredStepTime > 0.0) {
        char t[32];
        std::snprintf(t, sizeof t, "%.3g s", c.measuredStepTime);
        out += " (measured " + std::string(t)
            + (c.measuredScenario.empty() ? "" : " on " + c.measuredScenario)
            + (c.measuredAt.empty() ? "" : ", " + c.measuredAt.substr(0, 10)) + ")";
    }
    return out;
}

} // namespace railyard
