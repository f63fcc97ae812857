#pragma once

#include "fabric/degradation.h"

#include <QString>

class QMenu;

namespace railyard {

class CostEngine;
class MainWindow;
class ScenarioDocument;

/**
 * Slow parts from the fabric's context menu (docs/stragglers.md): a GPU, its NIC or its server
 * marked slow is one undo step, and the status bar then says who waits on it and for how long,
 * composed from the engine's blast radius (studies/blastradius.h), the figures evaluate prints.
 */
namespace slowparts {

/// Adds "Mark GPU … Slow…", "Mark Its NIC Slow…" and "Mark Its Server Slow…" to a slot's menu
/// (object names actionSlowGpu, actionSlowNic, actionSlowServer).
void extendSlotMenu(QMenu *menu, MainWindow *window, int slot);
/// Asks the speed (a factor for a GPU or server, a share such as 50% for a NIC) and marks the
/// part; false when cancelled or refused (the refusal shown).
bool askAndMark(MainWindow *window, Degradation::Kind kind, int index);
/// Puts `part` into the scenario's degradations (replacing a part with its id): one undo step
/// named after it. Returns the engine's message when the scenario does not evaluate, else "".
QString mark(ScenarioDocument *document, const Degradation &part);
/// Lights the slots of every group that waits on the scenario's part `index`, and the part's
/// own links, in the spotlight (SpotlightController::spotlightParts()).
void spotlightWaiting(MainWindow *window, std::size_t index);
/// "gpu:32 (node004/gpu0), compute 50 %: +1.601 s per iteration alone; waiting: tp 4, dp 8,
/// pp 0; stages 0 +1.596 s, ..." for the scenario's part `index`; "" when it has none.
QString blastRadiusLine(const CostEngine &engine, std::size_t index);
/// With several jobs on the fabric: "; jobs waiting: a +1.539 s (1 group)" - every job the
/// part reaches, each alone on the fabric (studies/blastradius.h, jobsWaitingOn()) - or
/// "; no job waits"; empty for a single-job document.
QString jobsWaitingText(const ScenarioDocument &document, std::size_t index);

} // namespace slowparts

} // namespace railyard
