#pragma once

#include "scenario/partscatalogue.h"

#include <QUndoCommand>

#include <optional>

namespace railyard {

class ScenarioDocument;

/**
 * The scenario's parts catalogue before and after one edit (a price, a power figure, a reach
 * rule, a loaded catalogue file, back to the defaults): redo and undo exchange it with the
 * document's. Nothing is re-evaluated - the engine never reads the catalogue; the Bill of
 * Materials dock re-prices on catalogueChanged(). Edits never merge: each is one undo step.
 */
class ChangeCatalogue : public QUndoCommand
{
public:
    ChangeCatalogue(ScenarioDocument *document, std::optional<PartsCatalogue> before,
        std::optional<PartsCatalogue> after, const QString &text, QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;
    int id() const override;

private:
    ScenarioDocument *m_document;
    std::optional<PartsCatalogue> m_before;
    std::optional<PartsCatalogue> m_after;
};

} // namespace railyard
