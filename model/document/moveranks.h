#pragma once

#include <QUndoCommand>

#include <utility>
#include <vector>

namespace railyard {

class ScenarioDocument;

/**
 * Move several ranks to new slots in one step (a server's ranks dragged onto another server,
 * a selection). Stored as the sequence of pairwise swaps that realises the move, so redo and
 * undo (the swaps in reverse) use the engine's incremental update like a single swap does.
 */
class MoveRanks : public QUndoCommand
{
public:
    MoveRanks(ScenarioDocument *document, std::vector<std::pair<int, int>> swaps,
              const QString &text, QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;
    int id() const override;

    const std::vector<std::pair<int, int>> &swaps() const { return m_swaps; }

private:
    ScenarioDocument *m_document;
    std::vector<std::pair<int, int>> m_swaps;
    int m_versionBefore;
};

} // namespace railyard
