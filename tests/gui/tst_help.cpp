// In-app help and self-explaining controls: F1 opens the help browser at the page of the
// panel with the focus, every dock has its page, the pages hold the README's explorer sections
// and link only to pages that exist; every control of the window has a tooltip; the Experts
// matrix explains each mark and its colour scale in a key.
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
#include <QDockWidget>
#include <QFile>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>
#include <QTextBrowser>
#include <QTextDocument>
#include <QToolButton>

#include <memory>

using namespace railyard;

namespace {

QString pageText(const QString &page)
{
    QFile f(QStringLiteral(":/help/") + page);
    if (!f.open(QIODevice::ReadOnly))
        return QString();
    QTextDocument doc;
    doc.setHtml(QString::fromUtf8(f.readAll()));
    return doc.toPlainText();
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
    void f1OpensTheFocusedPanelsPage();
    void everyDockHasAPage();
    void pagesHoldTheReadmeExplorerSections();
    void linksResolve();
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

void TestHelp::f1OpensTheFocusedPanelsPage()
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
    QCOMPARE(window.helpBrowser()->currentPage(), QStringLiteral("inspector.html"));
    QVERIFY(window.helpBrowser()->browser()->toPlainText().contains(QStringLiteral("Inspector")));

    QVERIFY(QTest::qWaitForWindowActive(&window) || true);
    window.activateWindow();
    window.fabricView()->setFocus();
    QTest::keyClick(window.fabricView(), Qt::Key_F1);
    QCOMPARE(window.helpBrowser()->currentPage(), QStringLiteral("fabric.html"));
    QVERIFY(window.helpBrowser()->browser()->toPlainText().contains(QStringLiteral("Shift+wheel")));
}

void TestHelp::everyDockHasAPage()
{
    MainWindow window;
    const QStringList pages = HelpBrowser::pages();
    QVERIFY(pages.contains(QStringLiteral("index.html")));
    for (QDockWidget *dock : window.findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly)) {
        const QString page = HelpBrowser::pageFor(dock->widget());
        QVERIFY2(page != QLatin1String("index.html"), qPrintable(dock->objectName()));
        QVERIFY2(pages.contains(page), qPrintable(page));
        QVERIFY2(pageText(page).contains(dock->windowTitle()), qPrintable(dock->windowTitle() + QStringLiteral(" in ") + page));
    }
}

void TestHelp::pagesHoldTheReadmeExplorerSections()
{
    QFile readme(QStringLiteral(RAILYARD_SOURCE_DIR "/README.md"));
    QVERIFY(readme.open(QIODevice::ReadOnly));
    const QString text = QString::fromUtf8(readme.readAll());
    const qsizetype start = text.indexOf(QStringLiteral("\n## The desktop explorer"));
    QVERIFY(start >= 0);
    const qsizetype end = text.indexOf(QStringLiteral("\n## "), start + 5);
    const QString section = text.mid(start, end - start);
    // Its subsections and its bold topics ("- **Fabric view** (centre):").
    QStringList topics;
    static const QRegularExpression heading(QStringLiteral("\\n### ([^\\n]+)"));
    for (auto it = heading.globalMatch(section); it.hasNext();)
        topics << it.next().captured(1).trimmed();
    static const QRegularExpression bold(QStringLiteral("\\n- \\*\\*([^*]+?)[:.]?\\*\\*"));
    for (auto it = bold.globalMatch(section); it.hasNext();)
        topics << it.next().captured(1).trimmed();
    QVERIFY(topics.size() >= 8);
    QString all;
    for (const QString &page : HelpBrowser::pages())
        all += pageText(page) + QLatin1Char('\n');
    for (QString topic : topics) {
        topic.remove(QRegularExpression(QStringLiteral("[`*]")));
        topic = topic.section(QStringLiteral(" ▸ "), 0, 0).section(QStringLiteral(" ("), 0, 0);
        QVERIFY2(all.contains(topic, Qt::CaseInsensitive), qPrintable(QStringLiteral("README topic not in the help: ") + topic));
    }
}

void TestHelp::linksResolve()
{
    const QStringList pages = HelpBrowser::pages();
    QVERIFY(pages.size() >= 10);
    static const QRegularExpression link(QStringLiteral("href=\"([^\"#:]+)\""));
    for (const QString &page : pages) {
        QFile f(QStringLiteral(":/help/") + page);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QString html = QString::fromUtf8(f.readAll());
        for (auto it = link.globalMatch(html); it.hasNext();) {
            const QString target = it.next().captured(1);
            QVERIFY2(QFile::exists(QStringLiteral(":/help/") + target), qPrintable(page + QStringLiteral(" -> ") + target));
        }
    }
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
