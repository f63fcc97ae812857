#pragma once

#include "scenario/scenario.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <vector>

/**
 * The whiteboard sections of a scenario file, "annotations" and "snapshots" (scenariofile.cpp
 * documents the schema). Readers throw ScenarioError naming the field path
 * ("annotations[2].anchor", "snapshots[0].mapping.slots[5]") at the first problem.
 */
namespace railyard::scenarionotes {

inline constexpr std::size_t kMaxAnnotations = 4096;
inline constexpr std::size_t kMaxSnapshots = 256;
inline constexpr std::size_t kMaxNoteBytes = 2048;

/// Anchors are checked for their form and the limits of what they name, not against this
/// fabric: an edit or a remap may leave a pin without its server or rank (then it is drawn
/// detached), and the file must still open.
std::vector<Annotation> readAnnotations(const nlohmann::json &value);
/// Each snapshot's slots are checked against its own degrees (one per rank, each used once),
/// its failures against `fabric`.
std::vector<Snapshot> readSnapshots(const nlohmann::json &value, const FabricSpec &fabric);

/// The JSON of the sections (json or ordered_json, so a saved file keeps its key order).
template<typename Json>
Json annotationsToJson(const std::vector<Annotation> &annotations);
template<typename Json>
Json snapshotsToJson(const std::vector<Snapshot> &snapshots);

} // namespace railyard::scenarionotes
