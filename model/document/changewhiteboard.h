#pragma once

#include "scenario/annotation.h"
#include "scenario/snapshot.h"

#include <QUndoCommand>

#include <vector>

namespace railyard {

class ScenarioDocument;

/**
 * The whiteboard part of the scenario (notes, arrows and snapshots) before and after one edit:
 * adding, moving, rewording or deleting a note, taking, renaming or deleting a snapshot. The
 * generic value-swapping command of those edits (redo and undo exchange the stored lists with
 * the document's). Nothing is evaluated: the engine never reads them. Consecutive moves of the
 * same note do not merge; a drag is one command already.
 */
class ChangeWhiteboard : public QUndoCommand
{
public:
    struct State
    {
        std::vector<Annotation> annotations;
        std::vector<Snapshot> snapshots;
        bool operator==(const State &) const = default;
    };

    ChangeWhiteboard(ScenarioDocument *document, State before, State after, const QString &text,
                     QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;
    int id() const override;

    const State &before() const { return m_before; }
    const State &after() const { return m_after; }

private:
    ScenarioDocument *m_document;
    State m_before;
    State m_after;
};

} // namespace railyard
