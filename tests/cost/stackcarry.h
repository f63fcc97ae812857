#pragma once

// Issue 34's carry test, shared by one suite per software stack (tst_stackcarry_<stack>.cpp):
// one measured step of a stack, fitted as `calibrate --compute-out` fits it
// (fitComputeEfficiency, the whole engine) and carried as `evaluate --calibration` carries it
// (applyComputeCalibration), against every other complete run of that stack, device and
// precision in tests/data/published/training_runs.json.
#include "publishedruns.h"

#include "cost/computefit.h"
#include "cost/costengine.h"
#include "io/computecalibration.h"

#include <QtGlobal>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace railyard::stackcarry {

/// The goal (issue 34): every other run within 10 %, their mean |error| at most 6 %.
inline constexpr double kWorst = 0.10;
inline constexpr double kMean = 0.06;

struct Carried
{
    std::string id;
    double published = 0.0;
    double predicted = 0.0;
    double error() const { return predicted / published - 1.0; }
};

/** One device and precision of a stack: the measured run and the runs it was carried to. */
struct Group
{
    std::string label; ///< "h100-sxm bf16"
    std::string measured; ///< the run whose step time was fitted
    double efficiency = 0.0; ///< the fitted max GEMM efficiency
    std::vector<Carried> others;
    double mean = 0.0;
    double worst = 0.0;
};

/// The group a run is carried within: its device and precision ("h100-sxm fp8").
inline std::string deviceAndPrecision(const published::PublishedRun &r)
{
    return r.device + " " + r.precision;
}

/// Per group (by default device and precision) with two or more complete runs of `stack`: the
/// first calibration run (in file order) is measured, the others predicted with its
/// calibration. Printed as a table (qInfo) for the docs.
inline std::vector<Group> carryOneStep(const std::string &stack,
    const std::function<std::string(const published::PublishedRun &)> &groupOf = deviceAndPrecision)
{
    const std::vector<published::PublishedRun> runs = published::loadPublishedRuns();
    std::map<std::string, std::vector<const published::PublishedRun *>> byGroup;
    for (const published::PublishedRun &r : runs)
        if (r.stack == stack && r.complete && r.unsupported.empty() && r.stepSeconds > 0.0)
            byGroup[groupOf(r)].push_back(&r);
    std::vector<Group> out;
    for (auto &[label, members] : byGroup) {
        if (members.size() < 2)
            continue;
        // Calibration runs first (stable: file order within each split).
        std::stable_partition(members.begin(), members.end(),
            [](const published::PublishedRun *r) { return r->set == "calibration"; });
        const published::PublishedRun &m = *members.front();
        const ComputeFit fit = fitComputeEfficiency(m.scenario, m.stepSeconds);
        Group g;
        g.label = label;
        g.measured = m.id;
        if (!fit.fitted) {
            qInfo("%s %s: %s not fitted: %s", stack.c_str(), label.c_str(), m.id.c_str(),
                fit.reason.c_str());
            out.push_back(g);
            continue;
        }
        ComputeCalibration cal;
        cal.file = m.id;
        cal.device = m.scenario.device.name;
        cal.precision = m.scenario.training.precision;
        cal.stack = m.scenario.training.stack;
        cal.maxEfficiency = fit.maxEfficiency;
        cal.kernelOverheadUs = fit.kernelOverheadUs;
        cal.measuredStepTime = m.stepSeconds;
        g.efficiency = fit.maxEfficiency;
        qInfo("\nStack %s, %s: one measured step (%s, %.3f s) -> max efficiency %.3f",
            stack.c_str(), label.c_str(), m.id.c_str(), m.stepSeconds, fit.maxEfficiency);
        qInfo("| run | set | GPUs | published s | predicted s | error |");
        qInfo("|---|---|---|---|---|---|");
        double sum = 0.0;
        for (std::size_t i = 1; i < members.size(); ++i) {
            const published::PublishedRun &r = *members[i];
            Scenario s = r.scenario;
            applyComputeCalibration(s, cal);
            Carried c { r.id, r.stepSeconds, CostEngine(s).report().iterationTime };
            qInfo("| %s | %s | %d | %.3f | %.3f | %+.1f %% |", r.id.c_str(), r.set.c_str(), r.gpus,
                c.published, c.predicted, 100.0 * c.error());
            sum += std::abs(c.error());
            g.worst = std::max(g.worst, std::abs(c.error()));
            g.others.push_back(c);
        }
        g.mean = sum / static_cast<double>(g.others.size());
        qInfo(
            "%zu runs: mean |error| %.2f %%, worst %.2f %% (goal mean %.0f %%, worst %.0f %%: %s)",
            g.others.size(), 100.0 * g.mean, 100.0 * g.worst, 100.0 * kMean, 100.0 * kWorst,
            g.mean <= kMean && g.worst <= kWorst ? "met" : "not met");
        out.push_back(g);
    }
    return out;
}

} // namespace railyard::stackcarry
