#pragma once

/**
 * What fuzz_catalogue does with one input, shared with tst_fuzzregressions: a parts catalogue
 * file (`bom --catalogue`, scenario/cataloguesection.h) read; when the reader accepts it, its
 * text written back reads as the same catalogue, and a fixed two-server scenario's bill of
 * materials priced with it gives finite, non-negative capital, power and per-iteration figures.
 */

#include "cost/costengine.h"
#include "fabric/bom.h"
#include "fuzzharness.h"
#include "fuzzscenario.h"
#include "scenario/cataloguesection.h"
#include "studies/bomcost.h"

#include <cmath>
#include <string>
#include <string_view>

namespace railyard::fuzz {

inline Outcome fuzzCatalogue(std::string_view input)
{
    PartsCatalogue c;
    try {
        c = cataloguesection::parseCatalogueText(std::string(input));
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    require(cataloguesection::parseCatalogueText(cataloguesection::catalogueToText(c)) == c,
        "the catalogue written back reads differently");
    for (const CataloguePart &p : c.parts)
        require(
            !p.source.empty() || p.illustrative, "a part without source nor illustrative marker");
    Scenario s = smallFuzzScenario(2);
    s.catalogue = c;
    const CostEngine engine(s);
    const PricedBom priced = priceScenarioBom(engine.fabric(), s, engine.report());
    const auto ok = [](double v) { return std::isfinite(v) && v >= 0.0; };
    const BomCost &cost = priced.cost;
    for (const double v :
        { cost.capexUsd, cost.networkTypicalW, cost.networkMaxW, cost.gpuW, cost.busyFraction,
            cost.fabric.powerW, cost.fabric.kwhPerIteration, cost.fabric.usdPerIteration,
            cost.fabric.usdPerMillionTokens, cost.fabric.tokensPerJoule, cost.job.usdPerIteration })
        require(ok(v), "a bill-of-materials figure negative or not finite");
    require(cost.busyFraction <= 1.0, "a compute-busy fraction above 1");
    require(cost.networkMaxW >= cost.networkTypicalW, "network maximum power below typical");
    return Outcome::Evaluated;
}

} // namespace railyard::fuzz
