#include "document/changewhiteboard.h"

#include "document/scenariodocument.h"
#include "document/undocommands.h"

namespace railyard {

ChangeWhiteboard::ChangeWhiteboard(ScenarioDocument *document, State before, State after, const QString &text,
                                   QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_document(document)
    , m_before(std::move(before))
    , m_after(std::move(after))
{
}

void ChangeWhiteboard::redo()
{
    m_document->applyWhiteboard(m_after.annotations, m_after.snapshots);
}

void ChangeWhiteboard::undo()
{
    m_document->applyWhiteboard(m_before.annotations, m_before.snapshots);
}

int ChangeWhiteboard::id() const
{
    return Cmd_ChangeWhiteboard;
}

} // namespace railyard
