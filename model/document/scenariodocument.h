#pragma once

#include "costengine.h"
#include "scenario.h"

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
 */
class ScenarioDocument : public QObject
{
    Q_OBJECT

public:
    explicit ScenarioDocument(QObject *parent = nullptr);
    ~ScenarioDocument() override;

    /// Replaces the whole document (File > Open / New). Builds the engine first: on a
    /// ScenarioError it throws and the current document stays exactly as it was.
    void load(const Scenario &scenario, const QString &filePath = QString());

    const Scenario &scenario() const;
    const CostEngine &engine() const;
    const CostReport &report() const;   ///< the preview's report while a drag previews
    const Mapping &mapping() const;
    QUndoStack *undoStack() const;

    QString filePath() const;
    void setFilePath(const QString &path); ///< after Save As; marks the stack clean
    bool isModified() const;               ///< !undoStack()->isClean()

    // Edits: each pushes exactly one undo command.
    void swapRanks(int a, int b);
    /// Move several ranks at once (a whole server's ranks, a selection): rank -> target slot;
    /// ranks already on target slots are swapped out of the way. One command.
    void moveRanks(const std::vector<std::pair<int, int>> &rankToSlot, const QString &text);
    void applyPlacement(Placement placement);
    /// Replace the scenario's parameters (degrees, workload, fabric, schedule ...). Validates by
    /// building an engine first; returns the engine's message and changes nothing when invalid.
    QString editScenario(const Scenario &next, const QString &text);

    // Drag preview: the links show the load "as if dropped here"; not an edit, not undoable.
    void previewSwap(int a, int b);
    void endPreview();
    bool isPreviewing() const;

    /// Used by the undo commands only: set the engine and scenario to this state, emit signals.
    void applyScenarioState(const Scenario &scenario, bool structural);
    void applySwap(int a, int b);

Q_SIGNALS:
    void scenarioChanged();  ///< fabric, layout or workload changed: rebuild the views
    void mappingChanged();   ///< ranks moved: re-sync rank chips
    void reportChanged();    ///< new numbers (after any edit or preview step): recolour
    void filePathChanged(const QString &path);
    void modifiedChanged(bool modified);

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace railyard
