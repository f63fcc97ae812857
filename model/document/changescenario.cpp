#include "document/changescenario.h"

#include "cost/scenariocheck.h"
#include "document/scenariodocument.h"
#include "document/undocommands.h"

namespace railyard {

ChangeScenario::ChangeScenario(ScenarioDocument *document, Scenario before, Scenario after,
    const QString &text, bool structural, QUndoCommand *parent)
    : QUndoCommand(text, parent)
    , m_document(document)
    , m_before(std::move(before))
    , m_after(std::move(after))
    , m_structural(structural)
    , m_job(document->activeJob())
{
}

void ChangeScenario::redo()
{
    m_document->applyState(m_after, m_structural, m_job);
}

void ChangeScenario::undo()
{
    m_document->applyState(m_before, m_structural, m_job);
}

int ChangeScenario::id() const
{
    return Cmd_ChangeScenario;
}

bool ChangeScenario::mergeWith(const QUndoCommand *other)
{
    const auto *next = static_cast<const ChangeScenario *>(other); // same id() => same class
    if (!m_structural || !next->m_structural || next->text() != text() || next->m_job != m_job)
        return false;
    m_after = next->m_after;
    setObsolete(sameScenario(m_before, m_after));
    return true;
}

} // namespace railyard
