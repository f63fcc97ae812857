// StudyController's baseline and comparison: pinning baseline A (from the document, a file or a
// snapshot), comparing snapshots and refreshing the comparison after each edit.
#include "studycontroller.h"
#include "summarybar.h"

#include "annotationcontroller.h"
#include "base/scenarioerror.h"
#include "collectivecontroller.h"
#include "comparepanel.h"
#include "cost/costengine.h"
#include "cost/epsummary.h"
#include "document/scenariodocument.h"
#include "documentfiles.h"
#include "expertpanel.h"
#include "fabriccomparedialog.h"
#include "fabricview.h"
#include "inferencepanel.h"
#include "layoutsearchdialog.h"
#include "mainwindow.h"
#include "optimise/optimisetext.h"
#include "optimisedialog.h"
#include "presentationmode.h"
#include "remapdialog.h"
#include "scenario/scenariofile.h"
#include "slowparts.h"
#include "spotlightcontroller.h"
#include "studies/compare.h"
#include "studies/failureremap.h"
#include "studies/inference.h"
#include "userdialogs.h"

#include <QAction>
#include <QCheckBox>
#include <QDialog>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QStyle>
#include <QTimer>
#include <QUndoStack>

namespace railyard {

namespace {

/// Links outlined on the fabric when a baseline is pinned: the largest changes in utilisation.
constexpr int kBaselineHighlightedLinks = 24;

} // namespace

void StudyController::pinBaseline()
{
    ScenarioDocument *doc = m_window->document();
    doc->waitForEvaluation(); // pin what the document is, not an evaluation still running
    setBaseline(doc->scenario(), tr("current placement"));
}

bool StudyController::pinBaselineFromFile(const QString &path)
{
    try {
        setBaseline(loadScenario(path.toStdString()), QFileInfo(path).fileName());
        return true;
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Cannot compare with this file"), QString::fromStdString(e.what()));
        return false;
    }
}

bool StudyController::setBaseline(const Scenario &scenario, const QString &label)
{
    try {
        // Its own fabric and router: the document's router is not thread-safe and the document
        // may evaluate on a worker thread.
        m_baseline = std::make_unique<CostEngine>(scenario);
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Cannot pin this baseline"), QString::fromStdString(e.what()));
        return false;
    }
    m_sideB.reset(); // B is the document again unless compareSnapshots() sets it
    m_panel->setExplanation(QString()); // it explained the last baseline, if any
    m_pinnedAt = tr("%1, %2").arg(label, QTime::currentTime().toString(QStringLiteral("HH:mm")));
    m_clearAction->setEnabled(true);
    m_window->showPanel(m_compareDock);
    refreshComparison();
    m_window->showStatus(
        tr("Pinned %1 as baseline A; every change is now compared with it").arg(label));
    return true;
}

bool StudyController::compareSnapshots(int a, int b)
{
    ScenarioDocument *doc = m_window->document();
    doc->waitForEvaluation();
    const Scenario &current = doc->scenario();
    const auto count = static_cast<int>(current.snapshots.size());
    if (a < 0 || a >= count || b >= count || a == b)
        return false;
    const Snapshot &snapA = current.snapshots[static_cast<std::size_t>(a)];
    std::unique_ptr<CostEngine> sideB;
    if (b >= 0) {
        const Snapshot &snapB = current.snapshots[static_cast<std::size_t>(b)];
        try {
            sideB = std::make_unique<CostEngine>(withSnapshot(current, snapB));
        } catch (const std::exception &e) {
            m_window->files()->dialogs()->showError(m_window,
                tr("Cannot compare with this snapshot"),
                tr("Snapshot \"%1\": %2")
                    .arg(QString::fromStdString(snapB.name), QString::fromStdString(e.what())));
            return false;
        }
    }
    const QString nameA = QString::fromStdString(snapA.name);
    if (!setBaseline(withSnapshot(current, snapA), tr("snapshot \"%1\"").arg(nameA)))
        return false;
    m_sideB = std::move(sideB);
    if (b >= 0)
        m_pinnedAt
            = tr("snapshot \"%1\" against snapshot \"%2\"")
                  .arg(nameA,
                      QString::fromStdString(current.snapshots[static_cast<std::size_t>(b)].name));
    refreshComparison();
    return true;
}

void StudyController::clearBaseline()
{
    m_baseline.reset();
    m_sideB.reset();
    m_clearAction->setEnabled(false);
    m_panel->clear();
    m_highlighted.clear();
    applyHighlight();
    m_window->showStatus(tr("Baseline cleared"));
}

void StudyController::startClean()
{
    m_baseline.reset();
    m_sideB.reset();
    m_pinnedAt.clear();
    m_clearAction->setEnabled(false);
    m_panel->clear();
    m_highlighted.clear();
    if (m_layoutSearch) { // its candidates were searched for the last document
        m_layoutSearch->close();
        m_layoutSearch->deleteLater(); // the next one starts from the new document
    }
    applyHighlight();
    hideIdleStudies();
}

void StudyController::scheduleRefresh()
{
    if (m_pending)
        return;
    m_pending = true;
    // Coalesced: a drag preview emits reportChanged many times per frame.
    QTimer::singleShot(0, this, [this] {
        m_pending = false;
        refreshComparison();
        refreshExperts();
        if (m_inferenceDirty) // it depends on the scenario, not on where ranks sit
            refreshInference();
    });
}

void StudyController::refreshComparison()
{
    if (!m_baseline)
        return;
    const ScenarioDocument *doc = m_window->document();
    const CostEngine &current = m_sideB ? *m_sideB : doc->engine();
    const Comparison c = compareEngines(*m_baseline, current, 200);
    m_panel->setComparison(c, current.fabric(), m_pinnedAt);
    const Scenario &a = m_baseline->scenario();
    const Scenario &b = current.scenario();
    m_panel->setTimelines(m_baseline->report(), a.degrees.pp, chunksPerRank(a.training),
        current.report(), b.degrees.pp, chunksPerRank(b.training));
    m_highlighted.clear();
    if (c.sameTopology)
        for (std::size_t i = 0; i < c.links.size() && i < std::size_t { kBaselineHighlightedLinks };
             ++i)
            if (c.links[i].bytesA != c.links[i].bytesB)
                m_highlighted.push_back(c.links[i].link);
    applyHighlight();
}

} // namespace railyard
