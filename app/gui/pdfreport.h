#pragma once

#include <QString>

namespace railyard {

class ChartsPanel;
class FabricView;
class ScenarioDocument;
class TimelineView;

/// File > Export > PDF report, A4 landscape pages: the summary numbers, the per-dimension table
/// (bytes and exposed time), the warnings, the notes, arrows and snapshots; the fabric view with
/// its legend and notes; the pipeline timeline with its legend (and strips of it, large enough
/// for the micro-batch numbers, when the whole is too dense); each chart on half a page. All
/// from doc->report(), at screen resolution so nothing is clipped. Waits for a background
/// evaluation first. Written through QSaveFile, so a failure leaves no file (and an existing
/// file at `path` untouched); then false and `*error` says why.
bool writePdfReport(const QString &path, ScenarioDocument *doc, FabricView *fabric,
                    TimelineView *timeline, ChartsPanel *charts, QString *error);

} // namespace railyard
