#pragma once

#include "studies/blastradius.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

namespace railyard {

/// evaluate's "Degraded parts" block: the iteration beside the healthy one, then per part its
/// effect, its delay alone, the groups and the stages that wait on it (docs/stragglers.md).
/// `whose` names the subject in the heading ("job a alone on the fabric"); empty = the job.
std::string blastRadiusText(const BlastRadius &radius, const std::string &whose = {});
/// evaluate --json's "degradations" array: per part `id`, `name`, `effect`, `delay_s`,
/// `groups_waiting[]` ({kind, index, ranks}) and `stages_waiting[]` ({stage, delay_s}).
nlohmann::json blastRadiusJson(const BlastRadius &radius);

} // namespace railyard
