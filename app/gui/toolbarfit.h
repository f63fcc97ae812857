#pragma once

#include <QObject>

class QMainWindow;

namespace railyard {

/**
 * Keeps every toolbar button of the window's top line on screen: when the toolbars of the top
 * line need more width than the window has (a 1280x720 screen, QT_SCALE_FACTOR=2), the text
 * buttons of the main toolbar drop their text (the tooltips keep it), so that no button, the
 * colour toggles and the zoom among them, goes behind a toolbar's "»" menu; with room again
 * the text comes back.
 */
class ToolBarFit : public QObject
{
    Q_OBJECT

public:
    explicit ToolBarFit(QMainWindow *window);
    /// Re-checks the fit now (also done on every resize and font change of the window).
    void fit();

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    QMainWindow *m_window;
};

} // namespace railyard
