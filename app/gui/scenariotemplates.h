#pragma once

#include "scenario/scenario.h"

#include <QList>
#include <QString>

namespace railyard {

/** A scenario shipped inside the executable, offered by File > New. */
struct ScenarioTemplate
{
    QString resource; ///< ":/scenarios/default-scenario.json", ":/samples/<file>.json"
    QString title;    ///< the scenario's name
    QString summary;  ///< one line: fabric, degrees, model
};

/// The embedded default (samples/seed-128.json, a 128-GPU TP8 x PP4 x DP4 job); `railyard` without a file opens it.
QString defaultScenarioResource();
/// Reads and checks an embedded scenario like any file. Throws ScenarioError.
Scenario loadResourceScenario(const QString &resource);
/// The default first, then the embedded samples in name order; unreadable ones are skipped.
QList<ScenarioTemplate> scenarioTemplates();
/// "16 × 8 GPUs, rail-optimised · TP 8 × PP 4 × DP 4 · llama2-70b"
QString scenarioSummary(const Scenario &scenario);

} // namespace railyard
