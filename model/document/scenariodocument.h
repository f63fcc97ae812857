#pragma once

#include "cost/costengine.h"
#include "scenario/scenario.h"

#include <QObject>
#include <QString>
#include <QUndoStack>

#include <memory>
#include <utility>
#include <vector>

namespace railyard {

/**
 * The open design: one Scenario, the CostEngine evaluating it, and the undo stack. Every edit
 * goes through an undoable command (the command classes beside this file); views observe the signals and
 * never change the scenario or call the engine themselves. The scenario's `slots` always hold
 * the current mapping, so saving writes exactly what the user sees.
 *
 * Evaluation: a swap updates the engine incrementally on the UI thread (well under a
 * millisecond even at 16k GPUs). Structural edits (editScenario, presets, undo of those)
 * rebuild the engine, sharing the Fabric and Router when the fabric spec is unchanged; above
 * asyncThreshold() GPU slots the rebuild runs on a worker thread while the previous engine and
 * report stay visible (isEvaluating() is true). Edits made meanwhile are queued and applied in
 * order when the rebuild lands, so nothing is lost and no two threads touch one engine.
 *
 * Hence two views of the state:
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
    const CostReport &report() const;   ///< the preview's report while a drag previews
    const Mapping &mapping() const;     ///< the shown mapping, without the preview swap
    QUndoStack *undoStack() const;

    QString filePath() const;
    void setFilePath(const QString &path); ///< after Save As; marks the stack clean
    bool isModified() const;               ///< !undoStack()->isClean()

    // Edits: each pushes exactly one undo command (none when it would change nothing or the
    // input is invalid: ranks/slots out of range, a slot listed twice).
    void swapRanks(int a, int b);
    /// Move several ranks at once (a whole server's ranks, a selection): rank -> target slot;
    /// ranks already on target slots are swapped out of the way. One command.
    void moveRanks(const std::vector<std::pair<int, int>> &rankToSlot, const QString &text);
    void applyPlacement(Placement placement);
    /// Replace the scenario's parameters (degrees, workload, fabric, schedule ...). Validates by
    /// building an engine first; returns the engine's message and changes nothing when invalid.
    /// When the degrees or order change, or the slot list no longer fits the fabric, and
    /// `next.slots` is left as it was, the ranks are re-placed with `next.placement` (the old
    /// list belongs to another layout); other edits keep the mapping the user made.
    /// Consecutive edits with the same `text` merge into one undo step (a spin box's clicks).
    QString editScenario(const Scenario &next, const QString &text);

    // Drag preview: the links show the load "as if dropped here"; not an edit, not undoable.
    // Ignored while isEvaluating() (the engine is being replaced).
    void previewSwap(int a, int b);
    /// Preview one rank on a slot: an empty slot moves it there, an occupied one swaps.
    void previewMove(int rank, int slot);
    /// Preview several ranks on target slots at once (a server bar or a selection dragged onto
    /// a server), with moveRanks()' semantics: ranks already on target slots are swapped out
    /// of the way. The engine moves them incrementally; endPreview() (or any edit) reverts.
    /// Invalid input (out of range, a rank or slot listed twice) is ignored like moveRanks().
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

    /// Used by the undo commands only: set the engine and scenario to this state, emit signals.
    /// `structural` = more than the mapping changed (the engine must be rebuilt).
    void applyScenarioState(const Scenario &scenario, bool structural);
    void applySwap(int a, int b);
    /// Several swaps in this order, one round of signals (used by MoveRanks).
    void applySwaps(const std::vector<std::pair<int, int>> &swaps);
    /// Used by the undo commands only: the run record's mapping version (no signal).
    void applyMappingVersion(int version);

Q_SIGNALS:
    void scenarioChanged();  ///< fabric, layout or workload changed: rebuild the views
    void mappingChanged();   ///< ranks moved: re-sync rank chips
    void reportChanged();    ///< new numbers (after any edit or preview step): recolour
    void filePathChanged(const QString &path);
    void modifiedChanged(bool modified);
    void evaluatingChanged(bool evaluating); ///< a background rebuild started / settled
    /// A background rebuild failed (the checks before it normally catch everything); the
    /// document went back to the last evaluated state.
    void evaluationFailed(const QString &message);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace railyard
