#include "undoshortcutfilter.h"

#include <QEvent>
#include <QKeyEvent>
#include <QKeySequence>
#include <QWidget>

namespace railyard {

namespace {

bool isUndoOrRedo(const QKeyEvent *key)
{
    if (key->matches(QKeySequence::Undo) || key->matches(QKeySequence::Redo))
        return true;
    const QKeyCombination combination = key->keyCombination();
    return combination == QKeyCombination(Qt::ControlModifier | Qt::ShiftModifier, Qt::Key_Z)
        || combination == QKeyCombination(Qt::ControlModifier, Qt::Key_Y);
}

} // namespace

UndoShortcutFilter::UndoShortcutFilter(QWidget *window)
    : QObject(window)
    , m_window(window)
{
}

bool UndoShortcutFilter::eventFilter(QObject *watched, QEvent *event)
{
    if (event->type() != QEvent::ShortcutOverride || !watched->isWidgetType())
        return false;
    auto *key = static_cast<QKeyEvent *>(event);
    if (!isUndoOrRedo(key) || static_cast<QWidget *>(watched)->window() != m_window)
        return false;
    // Not accepted: the shortcut map goes on to the window's Undo/Redo action.
    key->ignore();
    return true;
}

} // namespace railyard
