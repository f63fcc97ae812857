#include "document/moveranks.h"

#include "document/scenariodocument.h"
#include "document/undocommands.h"

namespace railyard {

MoveRanks::MoveRanks(
    ScenarioDocument *document, MovedRanks moves, const QString &text, QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_document(document)
    , m_moves(std::move(moves))
    , m_versionBefore(document->scenario().mappingVersion)
    , m_job(document->activeJob())
{
}

void MoveRanks::redo()
{
    m_document->applyMoves(m_moves, m_versionBefore + 1, m_job); // every remap is a new version
}

void MoveRanks::undo()
{
    m_document->applyMoves(inverseMoves(m_moves), m_versionBefore, m_job);
}

int MoveRanks::id() const
{
    return Cmd_MoveRanks;
}

} // namespace railyard
