#pragma once

#include <QString>

namespace railyard {

class ChartsPanel;
class FabricView;
class ScenarioDocument;
class TimelineView;

/// File > Export > PDF report: one A4 landscape page with the scenario's name and the date,
/// the summary numbers and a per-dimension table (bytes and exposed time) from doc->report(),
/// the fabric view, the pipeline timeline and the four charts. Waits for a background
/// evaluation first. Written through QSaveFile, so a failure leaves no file (and an existing
/// file at `path` untouched); then false and `*error` says why.
bool writePdfReport(const QString &path, ScenarioDocument *doc, FabricView *fabric,
                    TimelineView *timeline, ChartsPanel *charts, QString *error);

} // namespace railyard
