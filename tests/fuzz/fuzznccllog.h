#pragma once

/**
 * What fuzz_nccllog does with one input, shared with tst_fuzzregressions: the NCCL log reader
 * (io/nccllog.h) and, for a log it accepts, the comparison with a fixed two-server, eight-GPU
 * rail-optimised scenario (studies/ncclview.h) and its text and JSON. A ScenarioError is a
 * refusal; anything else escaping, or a broken invariant (a ring that is not an order of its
 * communicator's ranks, a connection outside it, more findings than network sends can make,
 * a graph with more channels than it says, a pick without a call, a ring diff naming more ranks
 * or spine hops than its ring has, a number in the JSON that is not finite) is a bug
 * (HarnessFailure). "Use what NCCL did" too: the nccl_observed section the log makes (rings and
 * each hop's NICs) must save and load unchanged, and the scenario evaluated with it must keep
 * the physical invariants (checkPhysical: no link busier than the iteration).
 */

#include "cost/costengine.h"
#include "fuzzharness.h"
#include "fuzzscenario.h"
#include "io/nccllog.h"
#include "scenario/scenariofile.h"
#include "studies/ncclringdiff.h"
#include "studies/ncclview.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <string>
#include <string_view>

namespace railyard::fuzz {

inline Outcome fuzzNcclLog(std::string_view input)
{
    NcclLog log;
    try {
        parseNcclLog(input, "fuzz.log", log);
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    require(log.ncclLines > 0, "a log without NCCL lines was accepted");
    for (const NcclLogComm &c : log.comms) {
        for (const std::vector<int> &ring : c.rings) {
            if (ring.empty())
                continue;
            std::vector<int> sorted = ring;
            std::sort(sorted.begin(), sorted.end());
            for (std::size_t i = 0; i < sorted.size(); ++i)
                require(sorted[i] == static_cast<int>(i), "a ring that is no order of its ranks");
            require(c.nranks == 0 || static_cast<int>(ring.size()) == c.nranks,
                "a ring of another size than its communicator");
        }
        for (const NcclLogConnection &k : c.connections)
            require(k.src >= 0 && k.dst >= 0
                    && (c.nranks == 0 || (k.src < c.nranks && k.dst < c.nranks)),
                "a connection outside its communicator");
        for (const NcclLogGraph &g : c.graphs)
            require(static_cast<int>(g.channels.size()) <= g.nChannels,
                "a graph with more channels than it says");
        for (const NcclLogPick &p : c.picks)
            require(p.calls >= 1 && p.channelLo <= p.channelHi, "a pick without a call");
    }

    const CostEngine engine(smallFuzzScenario(2));
    const NcclView view = compareNcclLog(log, engine);
    require(view.comms.size() == log.comms.size(), "one comparison per communicator");
    std::size_t sends = 0;
    for (const NcclViewComm &c : view.comms) {
        require(c.misBound <= c.netSends && c.leavingRail <= c.netSends && c.pxnSends <= c.netSends,
            "more findings than network sends");
        sends += static_cast<std::size_t>(c.netSends);
    }
    require(view.findings.size() <= 2 * sends, "more findings than network sends can make");
    require(view.rings.size() == log.comms.size(), "one ring diff per communicator");
    for (const NcclCommDiff &d : view.rings)
        for (const NcclChannelDiff &cd : d.channels) {
            require(cd.ranks.size() <= static_cast<std::size_t>(d.nranks)
                    && cd.observed.size() == cd.ranks.size()
                    && cd.expected.size() == cd.ranks.size(),
                "a ring diff naming more ranks than its ring has");
            require(cd.spineHops <= cd.networkHops && cd.crossRailHops <= cd.networkHops
                    && cd.networkHops <= d.nranks && cd.predicted >= 0
                    && cd.predicted < d.predictedChannels,
                "a ring diff with more spine hops than hops");
            require(cd.same == cd.ranks.empty(), "a ring diff both same and different");
        }
    checkFinite(ncclViewJson(log, view), "nccl-log");
    (void)ncclViewText(log, view);

    Scenario observed = engine.scenario();
    observed.ncclObserved = ncclObservedSpec(log, view.rings, placeNcclHosts(log, engine.fabric()),
        engine.fabric(), "2026-01-01T00:00:00Z");
    if (!observed.ncclObserved.empty()) {
        Scenario back;
        try {
            back = parseScenario(scenarioToText(observed));
        } catch (const ScenarioError &e) {
            require(
                false, std::string("the nccl_observed section written does not load: ") + e.what());
        }
        require(back.ncclObserved == observed.ncclObserved,
            "the nccl_observed section changed through a save and load");
        checkPhysical(CostEngine(back), "nccl_observed");
    }
    return Outcome::Evaluated;
}

} // namespace railyard::fuzz
