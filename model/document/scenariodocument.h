#pragma once

#include "cost/costengine.h"
#include "cost/partnerroutes.h"
#include "document/changeevents.h"
#include "scenario/scenario.h"
#include "studies/bomcost.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <optional>
#include <utility>
#include <vector>

namespace railyard {

class ChangeScenario;
class Evaluator;
class MoveRanks;

/**
 * The open design: one Scenario and its undo stack. Every edit is one undoable command (the
 * command classes beside this file), and only the commands change the scenario; views observe
 * the typed signals and never change the scenario or call the engine themselves. The
 * scenario's `slots` are the one mapping the document keeps, so saving writes exactly what the
 * user made.
 *
 * The evaluation is the Evaluator's (evaluator()): the engine, its background rebuilds for
 * large scenarios and the drag preview. Hence two views of the state:
 *  - scenario(): the document itself, including edits whose evaluation is still running. Save
 *    writes it; editors (the inspector) start their changes from it.
 *  - engine(), report(), mapping(): the evaluation on screen, always consistent with each
 *    other (engine().layout()/fabric() describe the ranks and slots that mapping() uses).
 *    They equal scenario() whenever isEvaluating() is false, which is always the case below
 *    the threshold when a signal arrives.
 */
class ScenarioDocument : public QObject
{
    Q_OBJECT

public:
    explicit ScenarioDocument(QObject *parent = nullptr);
    ~ScenarioDocument() override;

    /// Replaces the whole document (File > Open / New). Builds the engine first: on a
    /// ScenarioError it throws and the current document stays exactly as it was.
    /// Clears the undo stack and marks the document clean. `scenario().slots` is filled from
    /// the placement when the file has no explicit slots.
    void load(const Scenario &scenario, const QString &filePath = QString());

    const Scenario &scenario() const;
    const CostEngine &engine() const;
    const CostReport &report() const; ///< the preview's report while a drag previews
    const Mapping &mapping() const; ///< the shown mapping, without the preview's moves
    QUndoStack *undoStack() const;
    Evaluator *evaluator() const; ///< the evaluation's counters and state

    QString filePath() const;
    void setFilePath(const QString &path); ///< after Save As; marks the stack clean
    bool isModified() const; ///< !undoStack()->isClean()

    // Edits: each pushes exactly one undo command (none when it would change nothing or the
    // input is invalid: ranks/slots out of range, a slot listed twice, a failed slot).
    void swapRanks(int a, int b);
    /// Move ranks at once (one rank onto a slot, a whole server's ranks, a selection): rank ->
    /// target slot; ranks already on target slots are swapped out of the way. One MoveRanks.
    void moveRanks(const std::vector<std::pair<int, int>> &rankToSlot, const QString &text);
    /// Re-places every rank with a preset; no step when the ranks already sit that way.
    void applyPlacement(Placement placement);
    /// Replace the scenario's parameters (degrees, workload, fabric, schedule ...). Validates by
    /// building an engine first; returns the engine's message and changes nothing when invalid.
    /// When the degrees or order change, or the slot list no longer fits the fabric, and
    /// `next.slots` is left as it was, the ranks are re-placed with `next.placement` (the old
    /// list belongs to another layout); other edits keep the mapping the user made.
    /// Consecutive edits with the same `text` merge into one undo step (a spin box's clicks).
    QString editScenario(const Scenario &next, const QString &text);

    // Drag preview: the links show the load "as if dropped here"; not an edit, not undoable.
    // Ignored while isEvaluating() (the engine is being replaced). A drop that pushes the
    // previewed moves keeps the preview's evaluation.
    void previewSwap(int a, int b);
    /// Preview one rank on a slot: an empty slot moves it there, an occupied one swaps.
    void previewMove(int rank, int slot);
    /// Preview several ranks on target slots at once, with moveRanks()' semantics. Invalid
    /// input (out of range, a rank or slot listed twice, a failed slot) is ignored.
    void previewMoves(const std::vector<std::pair<int, int>> &rankToSlot);
    void endPreview();
    bool isPreviewing() const;

    /// True while an engine rebuild runs off the UI thread (large scenarios only).
    bool isEvaluating() const;
    /// Blocks until every queued evaluation has landed (Save, tests, --screenshot).
    void waitForEvaluation();
    /// GPU slots above which rebuilds run off the UI thread (default 2048; 0 = always).
    void setAsyncThreshold(int gpuSlots);
    int asyncThreshold() const;

    /// The partners of `rank` on screen and the links of its routes to them (for highlighting).
    PartnerRoutes partnerRoutes(int rank);

    /// Hashed or adaptive fabric.routing: what ECMP does to the mapping on screen
    /// (CostEngine::ecmp(), docs/ecmp.md), computed on first ask and kept until the mapping,
    /// the routing or the evaluation changes. nullptr under ideal routing, while a drag
    /// previews or while an evaluation runs (the preview shows the ideal split).
    const EcmpReport *ecmpReport() const;

    // Whiteboard: notes, arrows and snapshots, kept in the scenario file and never evaluated.
    // Each edit is one undo step (ChangeWhiteboard) and emits annotationsChanged() or
    // snapshotsChanged(); an index out of range or an edit that changes nothing pushes none.
    /// Adds a note or an arrow; returns its index.
    int addAnnotation(const Annotation &annotation);
    /// Replaces annotation `index` (moved, reworded, recoloured); `text` names the undo step.
    void editAnnotation(int index, const Annotation &annotation, const QString &text);
    void removeAnnotation(int index);
    /// Keeps the mapping as it is now under `name` (taken at `takenAt`, ISO 8601). False when
    /// the name is empty or already a snapshot's.
    bool takeSnapshot(const QString &name, const QString &takenAt);
    bool renameSnapshot(int index, const QString &name);
    void removeSnapshot(int index);
    /// Puts snapshot `index`'s mapping back: one undoable editScenario() (the engine checks it
    /// against the fabric as it is now). Returns the engine's message when it cannot.
    QString restoreSnapshot(int index);
    /// The snapshot the mapping equals now, or -1.
    int currentSnapshot() const;

    /// Replaces the parts catalogue (std::nullopt = back to the embedded defaults): one undo
    /// step (ChangeCatalogue) named `text`, then catalogueChanged(). Nothing is re-evaluated.
    /// An edit that changes nothing pushes none.
    void setCatalogue(std::optional<PartsCatalogue> catalogue, const QString &text);
    /// The fabric's bill of materials priced with the scenario's catalogue and the report on
    /// screen (studies/bomcost.h), computed on each call (linear in the links).
    PricedBom pricedBom() const;

    // Several jobs on the fabric (docs/shared-fabric.md, scenariodocumentjobs.cpp). With jobs,
    // scenario()'s top-level fields hold the *active* job (document/activejob.h): the palette,
    // the inspector, the timeline, the summary and a drag show and edit it; the other jobs stay
    // in scenario().jobs. Without jobs the active job is 0 and all of this is a no-op.
    int activeJob() const;
    /// Shows job `index` from now on: a view change, not an undo step (the edits' commands
    /// remember their job and bring it back). Returns the engine's message when it cannot.
    QString setActiveJob(int index);
    /// What a save writes: every job current, the first in the top-level fields.
    Scenario fileScenario() const;
    /// The job other than the active one holding `slot` (-1: free or the active job's), and
    /// its rank there.
    int otherJobOfSlot(int slot) const;
    int otherJobRankOfSlot(int slot) const;
    /// Why ranks may not go to these slots: "slot 69 (node008 GPU 5) is job \"b\"'s", or "".
    QString moveRefusal(const std::vector<std::pair<int, int>> &rankToSlot) const;
    /// Moves job `index` as a whole onto `servers` (its k-th server onto servers[k], each rank
    /// keeping its GPU index): one undo step. Returns why it was refused, or "".
    QString moveJob(int index, const std::vector<int> &servers);
    /// Adds `job` (on its slots) to the fabric: one undo step. A single-job scenario becomes
    /// a scenario with jobs, itself the first. Returns why it was refused, or "".
    QString addJob(const JobSpec &job);

Q_SIGNALS:
    /// Fabric, layout or workload changed: rebuild the views. A reportChanged() follows.
    void scenarioChanged();
    /// Ranks moved on screen (an edit, undo, redo, a queued edit landing): the moved ranks and
    /// the links whose load moved with them. The report changed with it; no reportChanged().
    void mappingChanged(const railyard::MappingChange &change);
    /// New numbers without a move on screen (a preview step, a parameter edit, a rebuild).
    void reportChanged(const railyard::ReportChange &change);
    void filePathChanged(const QString &path);
    void modifiedChanged(bool modified);
    void evaluatingChanged(bool evaluating); ///< a background rebuild started / settled
    /// A background rebuild failed (the checks before it normally catch everything); the
    /// document went back to the last evaluated state.
    void evaluationFailed(const QString &message);
    /// Notes or arrows were added, moved, edited or removed (not on a load: scenarioChanged).
    void annotationsChanged();
    /// Snapshots were taken, renamed or removed (not on a load: scenarioChanged).
    void snapshotsChanged();
    /// The parts catalogue was edited, loaded or reset (not on a load: scenarioChanged).
    void catalogueChanged();
    /// Another job became the active one (a scenarioChanged() comes with it).
    void activeJobChanged(int index);

private:
    // The commands are the only writers of the scenario.
    friend class ChangeScenario;
    friend class ChangeWhiteboard;
    friend class ChangeCatalogue;
    /// Sets the catalogue (the command's redo and undo); emits catalogueChanged().
    void applyCatalogue(const std::optional<PartsCatalogue> &catalogue);
    friend class MoveRanks;
    /// Sets the whiteboard lists (the command's redo and undo); emits what changed.
    void applyWhiteboard(
        const std::vector<Annotation> &annotations, const std::vector<Snapshot> &snapshots);
    void pushWhiteboard(
        std::vector<Annotation> annotations, std::vector<Snapshot> snapshots, const QString &text);
    /// Moves ranks of job `job` in the scenario and on screen (making it the active job
    /// first); `mappingVersion` is the run record's.
    void applyMoves(const MovedRanks &moves, int mappingVersion, int job = 0);
    /// Replaces the scenario state, in the form with `job` active. `structural` = more than the
    /// mapping changed.
    void applyState(const Scenario &scenario, bool structural, int job = 0);
    /// Recomputes which other job holds each slot (after the jobs or the active one changed).
    void refreshJobSlots();
    void onEvaluationFailed(const QString &message);
    QString rankText(int rank) const;

    Scenario m_scenario;
    int m_activeJob = 0;
    DeviceSpec m_sharedDevice; ///< the scenario's default device (a job without one takes it)
    std::vector<int> m_otherJobOfSlot, m_otherJobRank; ///< per slot (refreshJobSlots())
    // ecmpReport()'s cache: the report, and the engine, mapping and ideal iteration it is of.
    mutable std::optional<EcmpReport> m_ecmp;
    mutable const CostEngine *m_ecmpEngine = nullptr;
    mutable std::vector<int> m_ecmpSlots;
    mutable double m_ecmpIteration = 0.0;
    QUndoStack *m_undoStack;
    QString m_filePath;
    Evaluator *m_evaluator;
};

} // namespace railyard
