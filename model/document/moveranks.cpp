#include "document/moveranks.h"

#include "document/scenariodocument.h"
#include "document/undocommands.h"

namespace railyard {

MoveRanks::MoveRanks(ScenarioDocument *document, std::vector<std::pair<int, int>> swaps,
                     const QString &text, QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_document(document)
    , m_swaps(std::move(swaps))
    , m_versionBefore(document->scenario().mappingVersion)
{}

void MoveRanks::redo()
{
    m_document->applySwaps(m_swaps);
    m_document->applyMappingVersion(m_versionBefore + 1);
}

void MoveRanks::undo()
{
    m_document->applySwaps({m_swaps.rbegin(), m_swaps.rend()});
    m_document->applyMappingVersion(m_versionBefore);
}

int MoveRanks::id() const
{
    return Cmd_MoveRanks;
}

} // namespace railyard
