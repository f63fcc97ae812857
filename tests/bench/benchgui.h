#pragma once

// What the GUI benchmarks' files share (bench_gui.cpp, bench_gui_jobs.cpp).

#include "scenario/scenario.h"

#include <memory>

namespace railyard {
class FabricView;
class ScenarioDocument;
} // namespace railyard

namespace railyard::benchgui {

/// One step of a server-bar drag: the 8 ranks on server 0's slots previewed on `target`'s
/// slots (8 GPUs per server), and the frame the event loop then makes.
void previewFirstServerOn(ScenarioDocument &doc, int target);
/// The scenario `railyard-cli generate --fabric rail-optimised --servers SERVERS
/// --gpus-per-server 8 --switch-radix 128 --tp 8 --pp 16 --model gpt3-175b --global-batch
/// SERVERS` writes.
Scenario scenarioOfServers(int servers);
/// A shown 1400x900 view of `doc` at fit-to-window zoom, first paint done.
std::unique_ptr<FabricView> viewOf(ScenarioDocument &doc);

} // namespace railyard::benchgui
