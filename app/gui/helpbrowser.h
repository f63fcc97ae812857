#pragma once

#include <QDialog>
#include <QString>

class QTextBrowser;
class QToolButton;

namespace railyard {

/**
 * In-app help: the manual's own pages (docs/), embedded in the executable with their
 * pictures and rendered as Markdown in a QTextBrowser with Back, Forward and Contents, so the
 * help and the manual are one text. Links between pages work, and a link's section
 * ("studies.md#failure-remap") scrolls to that heading. F1 opens the section of whatever has
 * focus. Modeless, so it can stay open beside the window.
 */
class HelpBrowser : public QDialog
{
    Q_OBJECT

public:
    explicit HelpBrowser(QWidget *parent = nullptr);

    /// Shows a page and its section ("explorer.md#inspector-right"); an unknown page shows the
    /// contents (the manual's README.md), an unknown section the page's top.
    void showPage(const QString &page);
    /// The page shown, as its file name ("explorer.md").
    QString currentPage() const;
    /// The section scrolled to, as its anchor ("inspector-right"); empty at a page's top.
    QString currentSection() const { return m_section; }
    QTextBrowser *browser() const { return m_browser; }

    /// The help section of a widget: the section of the dock it sits in
    /// ("explorer.md#inspector-right"), the fabric's, or the contents ("README.md").
    static QString pageFor(const QWidget *widget);
    /// Every page shipped (the file names of the docs/ pages).
    static QStringList pages();
    /// The anchor GitHub gives a heading, which the pages link to: lower case, spaces to
    /// '-', everything but letters, digits, '-' and '_' dropped ("Inspector (right)" ->
    /// "inspector-right").
    static QString anchorOf(const QString &heading);
    /// The anchors of a page's headings, in order.
    static QStringList sectionsOf(const QString &page);

private:
    /// Scrolls the page shown to the heading whose anchor is `anchor`; false when none is.
    bool scrollToSection(const QString &anchor);

    QTextBrowser *m_browser = nullptr;
    QToolButton *m_back = nullptr;
    QToolButton *m_forward = nullptr;
    QString m_section;
};

} // namespace railyard
