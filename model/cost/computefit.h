#pragma once

#include "scenario/scenario.h"

#include <string>

namespace railyard {

/** The compute efficiency that makes the whole engine's iteration time the measured one. */
struct ComputeFit
{
    bool fitted = false;
    std::string reason; ///< why not, when not fitted
    double maxEfficiency = 0.0; ///< the fitted share of the dense peak a large GEMM reaches
    double tableEfficiency = 0.0; ///< the calibrated table's value it replaces
    double kernelOverheadUs = 0.0; ///< kept from the table (one step time fits one parameter)
    double predictedBefore = 0.0; ///< the iteration time with the scenario's device as given
    double predictedAfter = 0.0; ///< with the fitted efficiency
    int evaluations = 0; ///< engine evaluations the fit took
};

/**
 * Fits the device's GEMM efficiency (DeviceSpec::maxEfficiency, or maxEfficiencyFp8 for an fp8
 * scenario) so that the whole engine - compute, communication, overlap, pipeline - predicts
 * `measuredStepTime` seconds for `scenario`'s layout: bisection over [0.05, 1.0] (the iteration
 * time falls as the efficiency grows). The kernel overhead stays at the table's value: a
 * single step time determines one parameter. Not fitted, with the reason, when the measured
 * time lies outside what the range predicts (faster than at 100 % efficiency: the rest of the
 * model, not compute, is off).
 */
ComputeFit fitComputeEfficiency(const Scenario &scenario, double measuredStepTime);

} // namespace railyard
