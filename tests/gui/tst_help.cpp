// In-app help and self-explaining controls: F1 opens the help browser at the manual's section on
// the panel with the focus, scrolled to it; every dock has its section; the pages are the docs/
// pages themselves (one source, no HTML copy) and link only to pages, sections and pictures that
// exist; every control of the window has a tooltip; the Experts matrix explains each mark and its
// colour scale in a key.
#include "cost/epsummary.h"
#include "epmatrixview.h"
#include "fabricview.h"
#include "helpbrowser.h"
#include "inspectorpanel.h"
#include "mainwindow.h"
#include "scripteddialogs.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolButton>

#include <memory>

using namespace railyard;

namespace {

/// The text of a page's section ("explorer.md#inspector-right"): its heading and what follows,
/// up to the next heading of the same or a higher level; empty when there is no such section.
QString sectionText(const QString &pageAndSection)
{
    QFile f(QStringLiteral(":/docs/") + pageAndSection.section(QLatin1Char('#'), 0, 0));
    if (!f.open(QIODevice::ReadOnly))
        return QString();
    QTextDocument doc;
    doc.setMarkdown(QString::fromUtf8(f.readAll()));
    const QString anchor = pageAndSection.section(QLatin1Char('#'), 1);
    QString text;
    int level = 0;
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next()) {
        const int heading = b.blockFormat().headingLevel();
        if (level > 0 && heading > 0 && heading <= level)
            break;
        if (level == 0 && heading > 0 && HelpBrowser::anchorOf(b.text()) == anchor)
            level = heading;
        if (level > 0)
            text += b.text() + QLatin1Char('\n');
    }
    return text;
}

/// The heading block at the top of the browser's view.
QString headingInView(QTextBrowser *browser)
{
    QTextBlock b = browser->cursorForPosition(QPoint(4, 4)).block();
    while (b.isValid() && b.blockFormat().headingLevel() == 0)
        b = b.next();
    return b.text();
}

/// A widget Qt builds inside another (a spin box's line edit, a dock's title buttons, a
/// toolbar's overflow arrow): the outer control carries the tooltip.
bool isInternal(const QWidget *w)
{
    const QString name = w->objectName();
    const QString cls = QString::fromLatin1(w->metaObject()->className());
    return name.startsWith(QLatin1String("qt_")) || cls.startsWith(QLatin1String("QDockWidgetTitle"))
        || cls == QLatin1String("QToolBarExtension") || cls == QLatin1String("QLineEditIconButton")
        || qobject_cast<const QAbstractSpinBox *>(w->parentWidget()) || qobject_cast<const QComboBox *>(w->parentWidget())
        || cls == QLatin1String("QTabBar") || cls.contains(QLatin1String("ScrollBar"))
        // a tab bar's own scroll arrows (Qt's, shown when the tabs do not fit)
        || name == QLatin1String("ScrollLeftButton") || name == QLatin1String("ScrollRightButton")
        // a table's select-all corner: Qt hides it with the vertical header
        || (cls == QLatin1String("QTableCornerButton") && !w->isVisibleTo(w->parentWidget()));
}

QString tipOf(const QWidget *w)
{
    if (const auto *tool = qobject_cast<const QToolButton *>(w); tool && tool->defaultAction())
        return tool->defaultAction()->toolTip();
    return w->toolTip();
}

} // namespace

class TestHelp : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void f1OpensTheFocusedPanelsSection();
    void everyDockHasASection();
    void helpIsTheManual();
    void linksResolve();
    void linkToAnotherPagesSection();
    void everyControlHasATooltip();
    void expertMatrixHasAKey();
};

void TestHelp::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_help"));
    QSettings().clear();
}

void TestHelp::f1OpensTheFocusedPanelsSection()
{
    MainWindow window;
    window.setDialogs(std::make_unique<ScriptedDialogs>());
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowActive(&window));
    QVERIFY(!window.helpBrowser());
    window.showPanel(window.findChild<QDockWidget *>(QStringLiteral("inspectorDock")));
    QWidget *spin = window.inspector()->editor(QStringLiteral("parallel.tp"));
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    QTest::keyClick(spin, Qt::Key_F1);
    QVERIFY(window.helpBrowser());
    QVERIFY(window.helpBrowser()->isVisible());
    // The manual's page on the explorer, rendered from its Markdown, at the Inspector's section.
    QCOMPARE(window.helpBrowser()->currentPage(), QStringLiteral("explorer.md"));
    QCOMPARE(window.helpBrowser()->currentSection(), QStringLiteral("inspector-right"));
    QTextBrowser *text = window.helpBrowser()->browser();
    QVERIFY(text->toPlainText().startsWith(QStringLiteral("The desktop explorer")));
    QTRY_VERIFY(text->verticalScrollBar()->value() > 0);
    QTRY_COMPARE(headingInView(text), QStringLiteral("Inspector (right)"));

    window.activateWindow();
    QTRY_VERIFY(window.isActiveWindow());
    window.fabricView()->setFocus();
    QTRY_VERIFY(window.fabricView()->hasFocus());
    QTest::keyClick(window.fabricView(), Qt::Key_F1);
    QCOMPARE(window.helpBrowser()->currentPage(), QStringLiteral("explorer.md"));
    QCOMPARE(window.helpBrowser()->currentSection(), QStringLiteral("fabric-view-centre"));
    QTRY_COMPARE(headingInView(text), QStringLiteral("Fabric view (centre)"));
    QVERIFY(text->toPlainText().contains(QStringLiteral("Shift+wheel")));
    // The pictures come with the pages: the explorer page's screenshot is loaded.
    const QVariant picture = text->document()->resource(QTextDocument::ImageResource,
        QUrl(QStringLiteral("qrc:/resources/screenshots/main-window.png")));
    QVERIFY(picture.isValid());
}

void TestHelp::everyDockHasASection()
{
    MainWindow window;
    const QStringList pages = HelpBrowser::pages();
    QVERIFY(pages.contains(QStringLiteral("README.md")));
    for (QDockWidget *dock : window.findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly)) {
        const QString section = HelpBrowser::pageFor(dock->widget());
        QVERIFY2(section.contains(QLatin1Char('#')),
            qPrintable(dock->objectName() + QStringLiteral(": ") + section));
        QVERIFY2(pages.contains(section.section(QLatin1Char('#'), 0, 0)), qPrintable(section));
        const QString text = sectionText(section);
        QVERIFY2(!text.isEmpty(), qPrintable(QStringLiteral("no section ") + section));
        QVERIFY2(text.contains(dock->windowTitle()),
            qPrintable(dock->windowTitle() + QStringLiteral(" in ") + section));
    }
}

/// The help shows the docs/ pages themselves, byte for byte, and no HTML copy remains.
void TestHelp::helpIsTheManual()
{
    const QDir docs(QStringLiteral(RAILYARD_SOURCE_DIR "/docs"));
    const QStringList onDisk = docs.entryList({ QStringLiteral("*.md") }, QDir::Files, QDir::Name);
    QVERIFY(onDisk.size() >= 15);
    QCOMPARE(HelpBrowser::pages(), onDisk);
    for (const QString &page : onDisk) {
        QFile disk(docs.filePath(page));
        QFile embedded(QStringLiteral(":/docs/") + page);
        QVERIFY(disk.open(QIODevice::ReadOnly) && embedded.open(QIODevice::ReadOnly));
        QVERIFY2(disk.readAll() == embedded.readAll(), qPrintable(page));
    }
    QVERIFY(!QDir(QStringLiteral(":/help")).exists());
    QVERIFY(!QDir(QStringLiteral(RAILYARD_SOURCE_DIR "/resources/help")).exists());
}

void TestHelp::linksResolve()
{
    const QStringList pages = HelpBrowser::pages();
    // [text](target) and ![alt](picture): every relative target is compiled in, and a section
    // is one of its page's headings.
    static const QRegularExpression link(QStringLiteral("\\]\\(([^)\\s]+)\\)"));
    int checked = 0;
    for (const QString &page : pages) {
        QFile f(QStringLiteral(":/docs/") + page);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString markdown = QString::fromUtf8(f.readAll());
        for (auto it = link.globalMatch(markdown); it.hasNext();) {
            const QString target = it.next().captured(1);
            if (target.contains(QLatin1String("://")))
                continue;
            const QString file = target.section(QLatin1Char('#'), 0, 0);
            const QString anchor = target.section(QLatin1Char('#'), 1);
            const QString path = file.isEmpty() ? QStringLiteral(":/docs/") + page
                                                : QDir::cleanPath(QStringLiteral(":/docs/") + file);
            QVERIFY2(QFile::exists(path), qPrintable(page + QStringLiteral(" -> ") + target));
            if (!anchor.isEmpty() && path.startsWith(QLatin1String(":/docs/")))
                QVERIFY2(HelpBrowser::sectionsOf(path.mid(7)).contains(anchor),
                    qPrintable(page + QStringLiteral(" -> ") + target
                        + QStringLiteral(": no such section")));
            ++checked;
        }
    }
    QVERIFY(checked > 50);
}

/// A link between pages opens the other page at the section it names.
void TestHelp::linkToAnotherPagesSection()
{
    HelpBrowser help;
    help.resize(760, 620);
    help.show();
    QVERIFY(QTest::qWaitForWindowExposed(&help));
    help.showPage(QStringLiteral("whiteboard-session.md"));
    QCOMPARE(help.currentPage(), QStringLiteral("whiteboard-session.md"));
    // What clicking the link "What-if studies" of step 6 does.
    help.browser()->setSource(
        QUrl(QStringLiteral("qrc:/docs/studies.md#compare-two-placements-ab")));
    QCOMPARE(help.currentPage(), QStringLiteral("studies.md"));
    QCOMPARE(help.currentSection(), QStringLiteral("compare-two-placements-ab"));
    QTRY_COMPARE(headingInView(help.browser()), QStringLiteral("Compare two placements (A/B)"));
    // Back returns to the page before.
    help.browser()->backward();
    QCOMPARE(help.currentPage(), QStringLiteral("whiteboard-session.md"));
}

void TestHelp::everyControlHasATooltip()
{
    MainWindow window;
    window.setDialogs(std::make_unique<ScriptedDialogs>());
    window.resize(1600, 1000);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    // Every panel, the studies too.
    for (QDockWidget *dock : window.findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly))
        dock->show();
    QStringList missing;
    for (QWidget *w : window.findChildren<QWidget *>()) {
        const bool control = qobject_cast<QAbstractButton *>(w) || qobject_cast<QComboBox *>(w)
            || qobject_cast<QAbstractSpinBox *>(w) || qobject_cast<QLineEdit *>(w);
        if (!control || isInternal(w) || w->window() != &window)
            continue;
        if (tipOf(w).trimmed().isEmpty())
            missing << QStringLiteral("%1 %2 \"%3\" in %4")
                           .arg(QString::fromLatin1(w->metaObject()->className()), w->objectName(),
                                qobject_cast<QAbstractButton *>(w) ? qobject_cast<QAbstractButton *>(w)->text() : QString(),
                                w->parentWidget() ? w->parentWidget()->objectName() : QString());
    }
    missing.removeDuplicates();
    QVERIFY2(missing.isEmpty(), qPrintable(QStringLiteral("no tooltip:\n") + missing.join(QLatin1Char('\n'))));
}

void TestHelp::expertMatrixHasAKey()
{
    EpMatrixView view;
    EpSummary s;
    s.present = true;
    s.ep = 4;
    s.experts = 8;
    s.topK = 2;
    s.matrix = {0, 3e6, 1e6, 1e6, 2e6, 0, 1e6, 1e6, 2e6, 3e6, 0, 1e6, 2e6, 3e6, 1e6, 0};
    s.crossesSpine = std::vector<bool>(16, false);
    s.crossesSpine[1] = s.crossesSpine[4] = true;
    s.skew = 1.5;
    s.hottestMember = 1;
    s.groupRanks = {0, 1, 2, 3};
    view.setSummary(s);
    view.resize(460, 420);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QStringList key = view.legendEntries();
    // The scale's ends (0 and the largest off-diagonal cell, 3 MB) and each mark drawn.
    QCOMPARE(key.size(), 5);
    QCOMPARE(key[0], QStringLiteral("0"));
    QVERIFY2(key[1].startsWith(QStringLiteral("3 MB")), qPrintable(key[1]));
    QVERIFY(key.contains(QStringLiteral("stays on the rank")));
    QVERIFY(key.contains(QStringLiteral("crosses a spine")));
    QVERIFY(key.contains(QStringLiteral("hottest destination")));
    const QRect legend = view.legendRect();
    QVERIFY(!legend.isEmpty());
    QVERIFY(view.rect().contains(legend));
    QVERIFY(legend.top() > view.cellRect(3, 3).bottom()); // under the matrix, not over it
}

QTEST_MAIN(TestHelp)
#include "tst_help.moc"
