#pragma once

#include "scenario/annotation.h"

#include <QObject>
#include <QString>

#include <optional>

class QMenu;

namespace railyard {

class MainWindow;

/**
 * The window's side of the whiteboard marks: the fabric's context menus offer "Add Note…"
 * and "Start Arrow Here" / "End Arrow Here" on a server, a chip (pinned to its rank) or a
 * cable; a note's or arrow's own menu edits its text, recolours or deletes it; a double-click
 * on a note edits its text. Every change is one undoable document edit; the text comes from
 * UserDialogs::askText, so tests script it.
 */
class AnnotationController : public QObject
{
    Q_OBJECT

public:
    explicit AnnotationController(MainWindow *window);

    /// Appends the annotation actions for a pin on `anchor` (named `where` in the menu).
    void extendMenu(QMenu *menu, const AnnotationAnchor &anchor, const QString &where);
    /// The menu of annotation `index` (Edit Text…, Colour, Delete).
    QMenu *annotationMenu(int index);
    /// Asks for a note's text and adds it pinned to `anchor`; false when cancelled.
    bool addNote(const AnnotationAnchor &anchor);
    /// Starts an arrow at `anchor`; the next "End Arrow Here" finishes it.
    void startArrow(const AnnotationAnchor &anchor);
    /// Finishes the started arrow at `anchor`, asking for an optional label.
    bool endArrow(const AnnotationAnchor &anchor);
    bool hasPendingArrow() const { return m_arrowTail.has_value(); }
    /// Asks for annotation `index`'s new text; false when cancelled or unchanged.
    bool editText(int index);

private:
    MainWindow *m_window;
    std::optional<AnnotationAnchor> m_arrowTail;
};

} // namespace railyard
