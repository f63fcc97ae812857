#include "document/changecatalogue.h"

#include "document/scenariodocument.h"
#include "document/undocommands.h"

namespace railyard {

ChangeCatalogue::ChangeCatalogue(ScenarioDocument *document, std::optional<PartsCatalogue> before,
    std::optional<PartsCatalogue> after, const QString &text, QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_document(document)
    , m_before(std::move(before))
    , m_after(std::move(after))
{
}

void ChangeCatalogue::redo()
{
    m_document->applyCatalogue(m_after);
}

void ChangeCatalogue::undo()
{
    m_document->applyCatalogue(m_before);
}

int ChangeCatalogue::id() const
{
    return Cmd_ChangeCatalogue;
}

} // namespace railyard
