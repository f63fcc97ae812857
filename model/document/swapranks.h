#pragma once

#include <QUndoCommand>

namespace railyard {

class ScenarioDocument;

/**
 * Exchange the GPU slots of two ranks (a drag of one rank chip onto another). Its own inverse;
 * the engine updates incrementally. Each drop is its own undo step (no merging).
 */
class SwapRanks : public QUndoCommand
{
public:
    SwapRanks(ScenarioDocument *document, int rankA, int rankB, const QString &text,
              QUndoCommand *parent = nullptr);

    void redo() override;
    void undo() override;
    int id() const override;

    int rankA() const { return m_a; }
    int rankB() const { return m_b; }

private:
    ScenarioDocument *m_document;
    int m_a;
    int m_b;
    int m_versionBefore;
};

} // namespace railyard
