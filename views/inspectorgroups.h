#pragma once

#include "inspectorfield.h"

#include <vector>

namespace railyard {

struct Scenario;

/**
 * The inspector's field tables, one per form group. Paths are the scenario file's JSON paths
 * (README "Scenario files"), which are also the field names in ScenarioError messages, so an
 * engine error can point at its field. The caller owns the returned fields.
 */
namespace inspectorgroups {

std::vector<InspectorField *> parallelFields();
std::vector<InspectorField *> workloadFields();
std::vector<InspectorField *> deviceFields();
std::vector<InspectorField *> fabricFields();

/// The path of the preset pickers ("model.name", "device.name"): applied before the fields.
bool isPresetPath(const QString &path);

/// After an edit of model (device) fields: a preset name that no longer matches the values
/// becomes "custom", so a saved file does not call a changed model "llama2-70b".
void renameDepartedPresets(Scenario &next, bool modelEdited, bool deviceEdited);

} // namespace inspectorgroups

} // namespace railyard
