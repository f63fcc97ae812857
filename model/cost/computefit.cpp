#include "cost/computefit.h"

#include "cost/costengine.h"
#include "workload/deviceefficiency.h"

#include <cmath>

namespace railyard {

namespace {

// The search range: 5 % lies far below every entry of the calibrated table (deviceefficiency.cpp),
// so a fit that needs less says that something other than compute is off; 100 % is the peak.
constexpr double kLowestEfficiency = 0.05;
constexpr double kHighestEfficiency = 1.0;
// 40 halvings of 0.95: 1e-12 of the range, far below any measurement's precision.
constexpr int kBisections = 40;

Scenario withEfficiency(const Scenario &scenario, double efficiency, double overheadUs)
{
    Scenario s = scenario;
    if (s.training.precision == Precision::Fp8)
        s.device.maxEfficiencyFp8 = efficiency;
    else
        s.device.maxEfficiency = efficiency;
    s.device.kernelOverheadUs = overheadUs;
    return s;
}

} // namespace

ComputeFit fitComputeEfficiency(const Scenario &scenario, double measuredStepTime)
{
    ComputeFit fit;
    const GemmEfficiency table = gemmEfficiency(scenario.device, scenario.training.precision);
    fit.tableEfficiency = table.maxEfficiency;
    fit.kernelOverheadUs = table.kernelOverheadUs;
    fit.predictedBefore = evaluate(scenario).iterationTime;
    ++fit.evaluations;
    auto timeAt = [&](double e) {
        ++fit.evaluations;
        return evaluate(withEfficiency(scenario, e, table.kernelOverheadUs)).iterationTime;
    };
    if (!(measuredStepTime > 0.0) || !std::isfinite(measuredStepTime)) {
        fit.reason = "the measured step time is not a positive number";
        return fit;
    }
    const double fastest = timeAt(kHighestEfficiency);
    if (measuredStepTime < fastest) {
        fit.reason = "the measured step is faster than the engine predicts at 100 % efficiency ("
            + std::to_string(fastest) + " s): compute is not what is off";
        return fit;
    }
    const double slowest = timeAt(kLowestEfficiency);
    if (measuredStepTime > slowest) {
        fit.reason = "the measured step is slower than the engine predicts at 5 % efficiency ("
            + std::to_string(slowest) + " s)";
        return fit;
    }
    double lo = kLowestEfficiency, hi = kHighestEfficiency; // time(lo) >= measured >= time(hi)
    for (int i = 0; i < kBisections; ++i) {
        const double mid = 0.5 * (lo + hi);
        (timeAt(mid) > measuredStepTime ? lo : hi) = mid;
    }
    fit.fitted = true;
    fit.maxEfficiency = 0.5 * (lo + hi);
    fit.predictedAfter = timeAt(fit.maxEfficiency);
    return fit;
}

} // namespace railyard
