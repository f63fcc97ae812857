#pragma once

/**
 * What fuzz_portcounters does with one input, shared with tst_fuzzregressions: the port counter
 * readers (io/portcounters.h: perfquery -x, Prometheus text, CSV), and, when the input holds a
 * line "---", the text after it as a port mapping file (io/portmap.h); for counters it accepts,
 * the rates over a 10 s window and the comparison with a fixed two-server scenario
 * (studies/countercompare.h) and its text and JSON. A ScenarioError is a refusal; anything else
 * escaping, or a broken invariant (a negative or non-finite rate or utilisation, a divergence
 * below the agreement, a ranking out of order, a number in the JSON that is not finite) is a
 * bug (HarnessFailure).
 */

#include "cost/costengine.h"
#include "fuzzharness.h"
#include "fuzzscenario.h"
#include "io/portcounters.h"
#include "io/portmap.h"
#include "studies/countercompare.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <optional>
#include <string>
#include <string_view>

namespace railyard::fuzz {

inline Outcome fuzzPortCounters(std::string_view input)
{
    const std::size_t split = input.find("\n---\n");
    const std::string counters(input.substr(0, split));
    std::optional<PortMap> map;
    std::vector<PortRate> rates;
    try {
        if (split != std::string_view::npos)
            map = parsePortMap(std::string(input.substr(split + 5)), "fuzz-map.csv");
        const PortCounterFile file = parsePortCounters(counters, "fuzz.txt");
        require(!file.samples.empty(), "a counter file without samples was accepted");
        for (const PortSample &s : file.samples)
            require(std::isfinite(s.tx) && std::isfinite(s.rx) && s.tx >= 0.0 && s.rx >= 0.0
                    && s.window >= 0.0 && s.line > 0,
                "a sample with a negative or non-finite count");
        // The file twice: its cumulative readings become a zero-byte window.
        rates = portRates({ file, file }, 10.0);
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    for (const PortRate &r : rates)
        require(std::isfinite(r.txRate) && std::isfinite(r.rxRate) && r.txRate >= 0.0
                && r.rxRate >= 0.0 && r.window > 0.0,
            "a negative or non-finite rate");
    const CostEngine engine(smallFuzzScenario(2));
    CounterComparison c;
    try {
        c = compareCounters(rates, map ? &*map : nullptr, engine.fabric(), engine.report());
    } catch (const ScenarioError &) {
        return Outcome::Loaded;
    }
    for (const MeasuredLink &m : c.links)
        require(m.link >= 0 && m.link < engine.fabric().linkCount() && std::isfinite(m.measured)
                && m.measured >= 0.0,
            "a measured link out of range or with a non-finite utilisation");
    for (std::size_t i = 0; i < c.divergences.size(); ++i) {
        require(c.divergences[i].score >= kCounterAgreement, "a divergence within the agreement");
        require(
            i == 0 || c.divergences[i - 1].score >= c.divergences[i].score, "ranking out of order");
    }
    checkFinite(counterComparisonJson(engine.fabric(), c), "counters");
    (void)counterComparisonText(engine.fabric(), c);
    return Outcome::Evaluated;
}

} // namespace railyard::fuzz
