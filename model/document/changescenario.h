#pragma once

#include "scenario/scenario.h"

#include <QUndoCommand>

namespace railyard {

class ScenarioDocument;

/**
 * Replace the whole scenario state (parameters, and the mapping with them): the generic
 * value-swapping command behind every inspector edit. Redo and undo both exchange the stored
 * state with the document's (Tiled's ChangeValue pattern). Consecutive edits with the same
 * text merge, so a spin box's clicks are one undo step; a merge that returns to the start
 * makes the command obsolete. Mapping-only changes use it too, with `structural` false.
 */
class ChangeScenario : public QUndoCommand
{
public:
    /// `structural` = more than the mapping changes (the engine is rebuilt). Mapping-only
    /// changes (a move onto spare slots, presets) never merge.
    ChangeScenario(ScenarioDocument *document, Scenario before, Scenario after, const QString &text,
        bool structural = true, QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;
    int id() const override;
    bool mergeWith(const QUndoCommand *other) override;

    const Scenario &before() const { return m_before; }
    const Scenario &after() const { return m_after; }

private:
    ScenarioDocument *m_document;
    Scenario m_before;
    Scenario m_after;
    bool m_structural;
    int m_job; ///< the document's active job when the edit was made (its states' form)
};

} // namespace railyard
