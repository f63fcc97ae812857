#pragma once

#include "cost/costengine.h"
#include "cost/ecmpreport.h"
#include "fabric/ecmprouting.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace CLI {
class Option;
}

namespace railyard::cli {

class Command;

/** --ecmp, --qps-per-connection and --seeds on evaluate and collective (docs/ecmp.md). */
struct EcmpFlags
{
    std::string mode;
    int qps = 0;
    int seeds = 0;
    const CLI::Option *qpsOption = nullptr;
    const CLI::Option *seedsOption = nullptr;
};

void addEcmpFlags(Command &c, EcmpFlags &flags);
/// The flags given override the scenario's fabric.routing fields; ScenarioError naming the
/// flag for a value out of range.
void applyEcmpFlags(const EcmpFlags &flags, EcmpRouting &routing);

/// evaluate's "ecmp" object; `allLinks` false keeps the kTopLinks hottest ECMP links.
nlohmann::json ecmpReportJson(const EcmpReport &r, const CostEngine &engine, bool allLinks);
std::string ecmpReportText(const EcmpReport &r, const CostEngine &engine);

/// Links listed without --links: the hottest by p99, enough to show the collisions of a
/// rail-optimised pod's uplinks without printing thousands of rows.
inline constexpr std::size_t kEcmpTopLinks = 16;

} // namespace railyard::cli
