#pragma once

#include "fabric/failedcomponent.h"
#include "scenario/scenario.h"

#include <QDateTime>
#include <QObject>
#include <QPointer>
#include <QString>

#include <memory>

class QAction;
class QDockWidget;
class QMenu;

namespace railyard {

class ComparePanel;
class CostEngine;
class ExpertPanel;
class InferencePanel;
class FabricCompareDialog;
class LayoutSearchDialog;
class MainWindow;

/**
 * The what-if studies of the Study menu, wired between the document, the engine and the
 * views: the A/B comparison (a pinned baseline engine compared with the document's after every
 * change, the changed links outlined on the fabric), and the entry points of the other studies.
 * It owns the baseline; the views only display what it computes with the engine.
 */
class StudyController : public QObject
{
    Q_OBJECT

public:
    explicit StudyController(MainWindow *window);
    ~StudyController() override;

    /// Keeps the document as it is now as baseline A (after any running evaluation lands).
    void pinBaseline();
    /// Loads a scenario file as baseline A. False (and an error dialog) when it does not load.
    bool pinBaselineFromFile(const QString &path);
    void clearBaseline();
    bool hasBaseline() const { return static_cast<bool>(m_baseline); }
    /// Compares snapshot `a` (as baseline A) with snapshot `b`, or with the document when `b`
    /// is -1 (then every change is compared with it, as after pinning). False (and a message)
    /// when a snapshot does not evaluate on the fabric as it is now.
    bool compareSnapshots(int a, int b);
    /// B is a fixed snapshot rather than the document.
    bool comparesFixedB() const { return static_cast<bool>(m_sideB); }
    const CostEngine *baseline() const { return m_baseline.get(); }

    ComparePanel *comparePanel() const { return m_panel; }
    QDockWidget *compareDock() const { return m_compareDock; }
    ExpertPanel *expertPanel() const { return m_experts; }
    QDockWidget *expertDock() const { return m_expertDock; }
    InferencePanel *inferencePanel() const { return m_inference; }
    QDockWidget *inferenceDock() const { return m_inferenceDock; }
    /// Marks these components failed (in addition to the document's) and offers the remap
    /// strategies (RemapDialog). On accept the healthy placement becomes baseline A and the
    /// degraded scenario, a new mapping version, replaces the document as one undoable step.
    /// False when cancelled or refused.
    bool remapAfterFailure(const std::vector<FailedComponent> &failures);
    /// Study ▸ Optimise Placement…: runs the placement optimiser in its dialog (OptimiseDialog)
    /// on a copy of the document, previewing the best mapping so far on the fabric. On Apply
    /// the ranks move to the result's slots as one undoable step, the start mapping becomes
    /// baseline A and the optimiser's explanation appears in the Compare A/B dock. False when
    /// cancelled (the document is then exactly as it was).
    bool optimisePlacement();
    /// Study ▸ Search Layouts…: shows the parallel-layout search (LayoutSearchDialog, not
    /// modal: it never touches the document) and raises it when it is already open.
    LayoutSearchDialog *showLayoutSearch();
    /// Study ▸ Compare Fabrics…: the open job on the standard fabric designs
    /// (FabricCompareDialog); a chosen design opens in a new window.
    FabricCompareDialog *showFabricCompare();
    /// Opens `scenario` (a searched candidate) untitled in a new main window; this window's
    /// document is untouched. The new window deletes itself when closed; nullptr when the
    /// scenario does not load.
    MainWindow *openInNewWindow(const Scenario &scenario);
    /// The right-click menus the fabric view asks for (built, not shown: tests trigger them).
    QMenu *serverMenu(int server);
    QMenu *slotMenu(int slot);
    /// Colour the fabric's links by the KV load of the inference pools (when the scenario has
    /// them) instead of the training load.
    void setKvOverlay(bool on);
    bool kvOverlay() const;
    QMenu *menu() const { return m_menu; }
    /// Hides the study docks with nothing to show (Compare A/B without a baseline, Experts for
    /// a dense model, Inference without pools) and brings the Pipeline tab back to the front.
    /// A new file and a new session start this way: a tab raised for the last file would
    /// otherwise hide the timeline.
    void hideIdleStudies();
    /// Another scenario replaced the document: the baseline, the comparison and its outlines,
    /// the optimiser's explanation and the layout search's candidates were the last
    /// document's, so they go, and the idle study docks make way for the Pipeline tab.
    void startClean();
    /// Recomputes every study now (otherwise they follow the document, coalesced).
    void refreshComparison();
    void refreshExperts();
    void refreshInference();

private:
    void buildMenu();
    void scheduleRefresh();
    bool setBaseline(const Scenario &scenario, const QString &label);
    void applyHighlight();
    void onScenarioChanged();
    void askFailures();
    QDockWidget *addDock(QWidget *panel, const QString &title, const QString &objectName);

    MainWindow *m_window;
    QMenu *m_menu = nullptr;
    ComparePanel *m_panel = nullptr;
    QDockWidget *m_compareDock = nullptr;
    QAction *m_clearAction = nullptr;
    QAction *m_kvAction = nullptr;
    ExpertPanel *m_experts = nullptr;
    QDockWidget *m_expertDock = nullptr;
    InferencePanel *m_inference = nullptr;
    QDockWidget *m_inferenceDock = nullptr;
    std::unique_ptr<CostEngine> m_baseline;
    std::unique_ptr<CostEngine> m_sideB; ///< a snapshot compared as B (else the document)
    QString m_pinnedAt;
    std::vector<int> m_highlighted; ///< the comparison's most changed links
    std::vector<int> m_kvLinks; ///< links on the inference pools' KV paths
    QString m_kvCaption;
    bool m_pending = false;
    bool m_inferenceDirty = true;
    QPointer<LayoutSearchDialog> m_layoutSearch;
    QPointer<FabricCompareDialog> m_fabricCompare;
};

} // namespace railyard
