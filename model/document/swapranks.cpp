#include "document/swapranks.h"

#include "document/scenariodocument.h"
#include "document/undocommands.h"

namespace railyard {

SwapRanks::SwapRanks(ScenarioDocument *document, int rankA, int rankB, const QString &text,
                     QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_document(document)
    , m_a(rankA)
    , m_b(rankB)
    , m_versionBefore(document->scenario().mappingVersion)
{}

void SwapRanks::redo()
{
    m_document->applySwap(m_a, m_b);
    m_document->applyMappingVersion(m_versionBefore + 1); // every remap is a new version
}

void SwapRanks::undo()
{
    m_document->applySwap(m_a, m_b);
    m_document->applyMappingVersion(m_versionBefore);
}

int SwapRanks::id() const
{
    return Cmd_SwapRanks;
}

} // namespace railyard
