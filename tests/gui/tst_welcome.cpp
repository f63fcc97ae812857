// The first start: a fresh settings folder shows the welcome panel once, its three buttons do
// what they say, Help > Welcome brings it back; the toolbar reaches the Lessons panel; the
// fabric's call to action is whole and the spines are in view at 1280x720 (and at 960x540,
// a 1920x1080 screen at QT_SCALE_FACTOR=2). Set RAILYARD_GRAB_DIR to save the welcome panel.
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "guidecontroller.h"
#include "legenditem.h"
#include "lessoncontroller.h"
#include "mainwindow.h"
#include "offscreenscreen.h"
#include "scriptedwindow.h"
#include "studycontroller.h"
#include "welcomepanel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFontMetricsF>
#include <QMenu>
#include <QMenuBar>
#include <QPushButton>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

using namespace railyard;

class TestWelcome : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void firstStartShowsTheWelcomeOnce();
    void untickedItShowsAgain();
    void helpMenuShowsIt();
    void dragButtonHighlightsARank();
    void lessonsButtonRaisesTheLessons();
    void compareButtonPinsABaseline();
    void toolbarReachesTheLessons();
    void callToActionIsWhole_data();
    void callToActionIsWhole();
    void spinesInViewOnOpen_data();
    void spinesInViewOnOpen();

private:
    QTemporaryDir m_settingsDir;
};

void TestWelcome::initTestCase()
{
    // A fresh settings folder of this suite's own (what a first start finds).
    QVERIFY(m_settingsDir.isValid());
    QSettings::setDefaultFormat(QSettings::IniFormat);
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, m_settingsDir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_welcome"));
}

void TestWelcome::init()
{
    QSettings().clear();
    QSettings().sync();
}

void TestWelcome::firstStartShowsTheWelcomeOnce()
{
    QVERIFY(QSettings().allKeys().isEmpty());
    {
        ScriptedWindow w;
        QVERIFY(w.window.guide()->showWelcomeIfFirstStart());
        WelcomePanel *panel = w.window.guide()->welcomePanel();
        QVERIFY(panel);
        QVERIFY(QTest::qWaitForWindowExposed(panel));
        QVERIFY(panel->isVisible());
        // What the screen shows, in words a newcomer can map onto it.
        for (const char *word : { "servers", "GPU", "NICs", "rail", "leaf", "spine", "load" })
            QVERIFY2(panel->introLabel()->text().contains(QLatin1String(word)), word);
        QVERIFY(panel->dontShowAgainBox()->isChecked());
        // Set RAILYARD_GRAB_DIR to see it (and the window behind it).
        if (const QByteArray dir = qgetenv("RAILYARD_GRAB_DIR"); !dir.isEmpty()) {
            panel->grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/welcome.png"));
            w.window.grab().save(
                QString::fromLocal8Bit(dir) + QStringLiteral("/welcome-window.png"));
        }
        panel->reject(); // Close
        QVERIFY(!panel->isVisible());
    }
    // The second start: not again.
    ScriptedWindow second;
    QVERIFY(!second.window.guide()->showWelcomeIfFirstStart());
    QVERIFY(!second.window.guide()->welcomePanel());
}

void TestWelcome::untickedItShowsAgain()
{
    {
        ScriptedWindow w;
        QVERIFY(w.window.guide()->showWelcomeIfFirstStart());
        WelcomePanel *panel = w.window.guide()->welcomePanel();
        QTest::mouseClick(panel->dontShowAgainBox(), Qt::LeftButton);
        QVERIFY(!panel->dontShowAgainBox()->isChecked());
        panel->reject();
    }
    {
        ScriptedWindow w;
        QVERIFY(w.window.guide()->showWelcomeIfFirstStart()); // asked for at every start
        WelcomePanel *panel = w.window.guide()->welcomePanel();
        QVERIFY(!panel->dontShowAgainBox()->isChecked()); // shows the choice made
        panel->dontShowAgainBox()->setChecked(true);
        panel->reject();
    }
    ScriptedWindow w;
    QVERIFY(!w.window.guide()->showWelcomeIfFirstStart()); // ticked again: respected
}

void TestWelcome::helpMenuShowsIt()
{
    QSettings().setValue(QLatin1String(WelcomePanel::kSeenKey), true); // not a first start
    ScriptedWindow w;
    QVERIFY(!w.window.guide()->showWelcomeIfFirstStart());
    auto *action = w.window.findChild<QAction *>(QStringLiteral("actionWelcome"));
    QVERIFY(action);
    bool inHelp = false;
    for (QAction *top : w.window.menuBar()->actions())
        if (top->menu() && top->text().contains(QLatin1String("Help")))
            inHelp = top->menu()->actions().contains(action);
    QVERIFY(inHelp);
    action->trigger();
    QVERIFY(w.window.guide()->welcomePanel());
    QVERIFY(w.window.guide()->welcomePanel()->isVisible());
}

void TestWelcome::dragButtonHighlightsARank()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    WelcomePanel *panel = w.window.guide()->showWelcome();
    QTest::mouseClick(panel->dragButton(), Qt::LeftButton);
    QVERIFY(!panel->isVisible());
    FabricView *view = w.window.fabricView();
    QCOMPARE(view->pinnedRank(), 1);
    QCOMPARE(view->selectedRanks(), std::vector<int> { 1 });
    // Rank 8 is GPU 0 of node001 on the seed: the swap the notice asks for.
    QVERIFY2(view->noticeText().contains(QLatin1String("rank 1"))
            && view->noticeText().contains(QLatin1String("rank 8")),
        qPrintable(view->noticeText()));
    // Both ends and the spines in the picture.
    const QRect vp = view->viewport()->rect();
    const FabricItem *root = view->rootItem();
    const QRectF spine
        = root->mapRectToScene(root->layout().switchRect(root->fabric().spineVertex(0)));
    QVERIFY(vp.contains(view->mapFromScene(spine.center())));
}

void TestWelcome::lessonsButtonRaisesTheLessons()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    QDockWidget *dock = w.window.lessons()->dock();
    WelcomePanel *panel = w.window.guide()->showWelcome();
    QTest::mouseClick(panel->lessonsButton(), Qt::LeftButton);
    QCoreApplication::processEvents();
    QVERIFY(dock->isVisible());
    QVERIFY(!dock->visibleRegion().isEmpty()); // in front of its tab group
}

void TestWelcome::compareButtonPinsABaseline()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    QVERIFY(!w.window.studies()->hasBaseline());
    WelcomePanel *panel = w.window.guide()->showWelcome();
    QTest::mouseClick(panel->compareButton(), Qt::LeftButton);
    QCoreApplication::processEvents();
    QVERIFY(w.window.studies()->hasBaseline());
    QCOMPARE(w.window.studies()->baseline()->scenario().slots, w.doc()->scenario().slots);
    QVERIFY(!w.window.studies()->compareDock()->visibleRegion().isEmpty());
}

void TestWelcome::toolbarReachesTheLessons()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    auto *bar = w.window.findChild<QToolBar *>(QStringLiteral("mainToolBar"));
    auto *action = w.window.findChild<QAction *>(QStringLiteral("actionShowLessons"));
    QVERIFY(bar && action);
    QVERIFY(bar->actions().contains(action));
    QWidget *button = bar->widgetForAction(action);
    QVERIFY(button);
    QVERIFY(button->isVisible()); // on the bar at 1280x720, not in its » menu
    QDockWidget *dock = w.window.lessons()->dock();
    dock->hide();
    QTest::mouseClick(button, Qt::LeftButton);
    QCoreApplication::processEvents();
    QVERIFY(dock->isVisible());
    QVERIFY(!dock->visibleRegion().isEmpty());
}

void TestWelcome::callToActionIsWhole_data()
{
    QTest::addColumn<QSize>("size");
    QTest::newRow("1280x720") << QSize(1280, 720);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
    QTest::newRow("1920x1080 at scale 2") << QSize(960, 540);
}

void TestWelcome::callToActionIsWhole()
{
    QFETCH(QSize, size);
    ScriptedWindow w(size);
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    FabricView *view = w.window.fabricView();
    view->fitDefault();
    const LegendItem *legend = view->legendItem();
    // Every word of it is drawn (one line, or one per gesture), none elided.
    QCOMPARE(legend->hintLines().join(QStringLiteral(" · ")), LegendItem::hintText());
    for (const QString &line : legend->hintLines())
        QVERIFY(!line.contains(QChar(0x2026)));
    QVERIFY(LegendItem::hintText().contains(QLatin1String("Shift+drag selects")));
    // ... inside the legend and inside the view.
    QVERIFY(legend->hintWidth() <= legend->boundingRect().width());
    const QPoint left = view->mapFromScene(legend->scenePos());
    QVERIFY2(left.x() + legend->hintWidth() <= view->viewport()->width(),
        qPrintable(QStringLiteral("hint ends at %1, viewport %2 wide")
                       .arg(left.x() + legend->hintWidth())
                       .arg(view->viewport()->width())));
}

void TestWelcome::spinesInViewOnOpen_data()
{
    // A window whose fabric view shows the spines, the leaves and a row of chips at the
    // readable zoom (about 400 pixels high). At 1280x720 the bottom docks leave it 350: the
    // chips' readable size (tst_layout) wins there and the view starts at the leaves.
    QTest::addColumn<QSize>("size");
    QTest::newRow("1920x1080") << QSize(1920, 1080);
    QTest::newRow("1600x900") << QSize(1600, 900);
    QTest::newRow("1465x900") << QSize(1465, 900);
}

void TestWelcome::spinesInViewOnOpen()
{
    QFETCH(QSize, size);
    ScriptedWindow w(QSize(), false);
    w.window.resizeForScreen(size); // as `railyard --size WxH` opens (clamped to the screen)
    w.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    QCoreApplication::processEvents();
    FabricView *view = w.window.fabricView();
    view->fitDefault(); // as the window opens
    qInfo("window %dx%d, fabric view %dx%d at zoom %.3f (readable from %.3f)", w.window.width(),
        w.window.height(), view->viewport()->width(), view->viewport()->height(), view->zoom(),
        view->readableZoom());
    QVERIFY(view->zoom() >= view->readableZoom() * 0.999); // the chips stay readable
    const FabricItem *root = view->rootItem();
    const FabricLayout &layout = root->layout();
    const QRect vp = view->viewport()->rect();
    const QRect legend = view->mapFromScene(view->legendItem()->sceneBoundingRect()).boundingRect();
    // The spine row is on screen and not under the legend; so is the first row of servers.
    for (int s = 0; s < root->fabric().spineCount(); ++s) {
        const QRect spine
            = view->mapFromScene(
                      root->mapRectToScene(layout.switchRect(root->fabric().spineVertex(s))))
                  .boundingRect();
        QVERIFY2(vp.contains(spine.center()), qPrintable(QStringLiteral("spine %1").arg(s)));
        QVERIFY(spine.top() >= legend.bottom() - 2 || !spine.intersects(legend));
    }
    const QRect server
        = view->mapFromScene(root->mapRectToScene(layout.serverRect(0))).boundingRect();
    QVERIFY(vp.contains(server.center()));
}

int main(int argc, char *argv[])
{
    // A 1920x1080 screen (the offscreen platform's own is smaller): 1280x720 and 1920x1080
    // windows open at their size, as `railyard --size` on those screens.
    return railyard::testscreen::runOnScreen<TestWelcome>(argc, argv, { 1920, 1080, 1.0 });
}

#include "tst_welcome.moc"
