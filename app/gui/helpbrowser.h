#pragma once

#include <QDialog>
#include <QString>

class QTextBrowser;
class QToolButton;

namespace railyard {

/**
 * In-app help: the explorer's manual as HTML pages embedded in the executable (resources/help:
 * the README's explorer sections, a page per dock, shortcuts, the lesson file format), in a
 * QTextBrowser with Back, Forward and Contents. F1 opens the page of whatever has focus.
 * Modeless, so it can stay open beside the window.
 */
class HelpBrowser : public QDialog
{
    Q_OBJECT

public:
    explicit HelpBrowser(QWidget *parent = nullptr);

    /// Shows a page ("fabric.html"); unknown names show the contents.
    void showPage(const QString &page);
    /// The page shown, as its file name.
    QString currentPage() const;
    QTextBrowser *browser() const { return m_browser; }

    /// The help page of a widget: the page of the dock it sits in ("inspector.html"), the
    /// fabric's, or the contents ("index.html").
    static QString pageFor(const QWidget *widget);
    /// Every page shipped.
    static QStringList pages();

private:
    QTextBrowser *m_browser = nullptr;
    QToolButton *m_back = nullptr;
    QToolButton *m_forward = nullptr;
};

} // namespace railyard
