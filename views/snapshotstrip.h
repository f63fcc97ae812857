#pragma once

#include <QToolBar>

#include <vector>

class QLabel;
class QLineEdit;
class QMenu;
class QToolButton;

namespace railyard {

class ScenarioDocument;

/**
 * The snapshots of the document as a strip of buttons above the fabric: one per named version
 * of the mapping (the one shown now is checked), previous and next to step through them in
 * front of a room, a name field and Take to keep the mapping as it is now. Clicking a snapshot
 * restores it (one undo step, ScenarioDocument::restoreSnapshot); its menu renames, deletes or
 * compares it with the mapping shown or another snapshot (compareRequested, which the
 * application answers in the Compare A/B dock). It computes nothing.
 */
class SnapshotStrip : public QToolBar
{
    Q_OBJECT

public:
    explicit SnapshotStrip(ScenarioDocument *document, QWidget *parent = nullptr);

    /// The snapshot buttons, in the document's order.
    const std::vector<QToolButton *> &snapshotButtons() const { return m_buttons; }
    QLineEdit *nameEdit() const { return m_name; }
    QToolButton *takeButton() const { return m_take; }
    QAction *previousAction() const { return m_previous; }
    QAction *nextAction() const { return m_next; }
    /// Takes a snapshot named from the name field (or "v<N>" when it is empty).
    bool takeSnapshot();
    /// Restores the snapshot before / after the one shown (or the last restored); false at an end.
    bool step(int direction);
    /// The menu of snapshot `index` (built, not shown: tests trigger its actions).
    QMenu *snapshotMenu(int index);
    /// The snapshot `step()` starts from: the one shown, else the last one restored.
    int position() const;

Q_SIGNALS:
    /// Compare snapshot `a` (as A) with snapshot `b` (as B); b == -1: the mapping shown.
    void compareRequested(int a, int b);
    /// Something happened worth a line in the status bar.
    void statusMessage(const QString &message);

private:
    void rebuild();
    void sync(); ///< checks the button of the snapshot shown, enables the steps
    void restore(int index);

    ScenarioDocument *m_document;
    QLabel *m_title = nullptr;
    QAction *m_previous = nullptr;
    QAction *m_next = nullptr;
    QAction *m_buttonsEnd = nullptr; ///< the snapshot buttons go before this separator
    std::vector<QToolButton *> m_buttons;
    std::vector<QAction *> m_buttonActions;
    QLineEdit *m_name = nullptr;
    QToolButton *m_take = nullptr;
    int m_last = -1; ///< the snapshot restored last
};

} // namespace railyard
