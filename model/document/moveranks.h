#pragma once

#include "document/rankmove.h"

#include <QUndoCommand>

namespace railyard {

class ScenarioDocument;

/**
 * Move ranks to other slots in one step: a chip dropped on a slot (onto an occupied one it is
 * a swap, two moves), a server's ranks dragged onto another server, a selection. Holds the
 * complete list of rank moves; redo applies it and undo its inverse, so the engine updates
 * incrementally either way (and keeps a drag preview's result when it equals the edit). Each
 * drop is its own undo step (no merging).
 */
class MoveRanks : public QUndoCommand
{
public:
    MoveRanks(ScenarioDocument *document, MovedRanks moves, const QString &text,
        QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;
    int id() const override;

    const MovedRanks &moves() const { return m_moves; }

private:
    ScenarioDocument *m_document;
    MovedRanks m_moves;
    int m_versionBefore;
    int m_job; ///< the job whose ranks move (the document's active job when it was made)
};

} // namespace railyard
