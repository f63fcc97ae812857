#pragma once

#include <QObject>

class QWidget;

namespace railyard {

/**
 * Ctrl+Z, Ctrl+Shift+Z and Ctrl+Y are the document's, whatever has focus in the main window.
 * A focused spin box or line edit otherwise claims them (its ShortcutOverride accepts the
 * key for its own text undo), so the Undo action shows a step that the keys cannot reach.
 * Installed on the application, it declines that override for widgets of `window`, so the
 * window's Undo and Redo actions get the keys; dialogs (their line edits) keep their own.
 */
class UndoShortcutFilter : public QObject
{
    Q_OBJECT

public:
    explicit UndoShortcutFilter(QWidget *window);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QWidget *m_window;
};

} // namespace railyard
