// The text over the fabric as a room sees it, through the real window on a real screen size:
// 1280x720 (gui_tst_stagelayout), 1920x1080 (gui_tst_stagelayout_1920x1080) and 1920x1080 at
// QT_SCALE_FACTOR=2 (gui_tst_stagelayout_scale2: the scale is set in the environment before the
// QApplication, as Qt reads it there, like tst_layout), in the window and in presentation mode
// (each room size), on the whiteboard sample. No two pieces of text over the fabric (notes,
// arrow labels, the legend, the names of servers and switches) intersect; in presentation mode
// every one is at least the stage's type size (18 px at 1280x720) and every server and switch
// is named; the whole fabric is in view and fills the screen's width or height; the summary
// bar shows the bottleneck link's name whole, never elided.
#include "annotationlayer.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "mainwindow.h"
#include "offscreenscreen.h"
#include "presentationmode.h"
#include "scripteddialogs.h"
#include "slotitem.h"
#include "stagelabelsitem.h"
#include "summarybar.h"
#include "switchitem.h"
#include "windowlayout.h"

#include <QAbstractAxis>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFontMetricsF>
#include <QLabel>
#include <QLayout>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QStandardPaths>
#include <QStyle>
#include <QTest>
#include <QTextDocument>
#include <QToolBar>
#include <QToolButton>

#include <cmath>
#include <cstdio>
#include <memory>
#include <unistd.h>

using namespace railyard;

namespace {

void settle(MainWindow &w)
{
    w.document()->waitForEvaluation();
    for (int i = 0; i < 6; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(20);
    }
}

/// Pairs of text boxes that intersect (by more than a hairline), described.
QStringList overlaps(const QList<FabricView::TextBox> &boxes)
{
    QStringList out;
    for (qsizetype i = 0; i < boxes.size(); ++i)
        for (qsizetype j = i + 1; j < boxes.size(); ++j) {
            const QRectF both = boxes[i].rect.intersected(boxes[j].rect);
            if (both.width() > 0.5 && both.height() > 0.5)
                out << QStringLiteral("%1 [%2,%3 %4x%5] and %6 [%7,%8 %9x%10] overlap")
                           .arg(boxes[i].what)
                           .arg(boxes[i].rect.x())
                           .arg(boxes[i].rect.y())
                           .arg(boxes[i].rect.width())
                           .arg(boxes[i].rect.height())
                           .arg(boxes[j].what)
                           .arg(boxes[j].rect.x())
                           .arg(boxes[j].rect.y())
                           .arg(boxes[j].rect.width())
                           .arg(boxes[j].rect.height());
        }
    return out;
}

/// The bottleneck label's words as shown (rich text to plain, line breaks dropped).
QString shownBottleneck(const SummaryBar *bar)
{
    QTextDocument doc;
    doc.setHtml(bar->bottleneckLabel()->text());
    return doc.toPlainText().remove(QLatin1Char('\n')).remove(QChar::LineSeparator);
}

} // namespace

class TestStageLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void textDoesNotOverlap_data();
    void textDoesNotOverlap();
    void smallScreensClipNothing();
    void windowOpensOnTheWholePath_data();
    void windowOpensOnTheWholePath();
};

void TestStageLayout::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_stagelayout"));
    QSettings().clear();
    const QScreen *screen = QGuiApplication::primaryScreen();
    qInfo("screen %dx%d logical at device pixel ratio %.1f", screen->geometry().width(),
        screen->geometry().height(), screen->devicePixelRatio());
}

void TestStageLayout::textDoesNotOverlap_data()
{
    QTest::addColumn<bool>("presenting");
    QTest::addColumn<int>("room");
    QTest::newRow("window") << false << 0;
    QTest::newRow("presentation, small room") << true << int(PresentationMode::Room::Small);
    QTest::newRow("presentation, medium room") << true << int(PresentationMode::Room::Medium);
    QTest::newRow("presentation, large hall") << true << int(PresentationMode::Room::LargeHall);
}

void TestStageLayout::textDoesNotOverlap()
{
    QFETCH(bool, presenting);
    QFETCH(int, room);
    QSettings().clear();
    MainWindow w;
    w.setDialogs(std::make_unique<ScriptedDialogs>());
    w.readSettings(); // the first launch's layout for this screen
    QVERIFY(w.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128-whiteboard.json")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w);
    PresentationMode *stage = w.presentation();
    if (presenting) {
        stage->setRoom(static_cast<PresentationMode::Room>(room));
        stage->setActive(true);
        settle(w);
    }
    FabricView *view = w.fabricView();
    const QList<FabricView::TextBox> boxes = view->textBoxes();
    QStringList kinds;
    for (const FabricView::TextBox &b : boxes)
        kinds << b.what;
    qInfo("%s: %d text boxes at zoom %.3f in a %dx%d view", presenting ? "presentation" : "window",
        int(boxes.size()), view->zoom(), view->viewport()->width(), view->viewport()->height());
    // The sample's two notes and its arrow's label are on screen, and the legend. In the
    // window on a 960x540 logical screen (scale 2) the fabric view is too small for them: a
    // note may fold to its numbered badge and the arrow go without its label there.
    const bool roomy = presenting || w.screen()->geometry().height() >= 720;
    QVERIFY2(
        kinds.contains(QStringLiteral("legend")), qPrintable(kinds.join(QStringLiteral(", "))));
    QCOMPARE(kinds.filter(QStringLiteral("note ")).size(), 2);
    if (roomy) {
        QCOMPARE(kinds.filter(QStringLiteral("arrow ")).size(), 1);
        for (const AnnotationNoteItem *note : view->annotationLayer()->notes())
            QVERIFY(note->cardShape() != AnnotationNoteItem::Shape::Badge);
    }

    const QStringList crossing = overlaps(boxes);
    QVERIFY2(crossing.isEmpty(), qPrintable(crossing.join(QLatin1Char('\n'))));

    if (presenting) {
        // The stage's type size follows the screen and the room; nothing is drawn smaller.
        const double px = stage->stagePixels(w.height());
        const QSize screen = w.screen()->geometry().size();
        if (screen == QSize(1280, 720))
            QVERIFY2(px >= 18.0, qPrintable(QString::number(px)));
        // The legend keeps the view's width (a large hall's key on a 1280-pixel screen would
        // not fit): it may stay at a small room's size, never under it.
        const double smallRoom = std::round(w.height() / PresentationMode::kScreenLines);
        QStringList small;
        for (const FabricView::TextBox &b : boxes)
            if (b.pixels < (b.what == QLatin1String("legend") ? std::min(px, smallRoom) : px) - 0.5)
                small
                    << QStringLiteral("%1: %2 px (stage %3 px)").arg(b.what).arg(b.pixels).arg(px);
        QVERIFY2(small.isEmpty(), qPrintable(small.join(QLatin1Char('\n'))));
        // Every switch of the seed is named (8 leaves, 2 spines), and in a small room every
        // server too (in a larger one a server's name gives way to a note where both cannot be).
        const QStringList names = kinds.filter(QStringLiteral("name "));
        QCOMPARE(names.filter(QStringLiteral("name rail ")).size()
                + names.filter(QStringLiteral("name spine ")).size(),
            10);
        if (room == int(PresentationMode::Room::Small))
            QCOMPARE(names.size(), 26);
        else
            QVERIFY2(names.size() >= (screen.height() >= 720 ? 18 : 10),
                qPrintable(names.join(QStringLiteral(", "))));
        // The whole fabric, as large as the screen allows: in view, and filling its width or
        // its height (less the legend's band).
        const QRectF fabric = view->viewportTransform().mapRect(
            view->rootItem()->mapRectToScene(view->rootItem()->boundingRect()));
        const QRectF shown(view->viewport()->rect());
        QVERIFY2(shown.adjusted(-1, -1, 1, 1).contains(fabric),
            qPrintable(QStringLiteral("fabric %1,%2 %3x%4 in a %5x%6 view")
                           .arg(fabric.x())
                           .arg(fabric.y())
                           .arg(fabric.width())
                           .arg(fabric.height())
                           .arg(shown.width())
                           .arg(shown.height())));
        QVERIFY2(fabric.width() >= 0.9 * shown.width() || fabric.height() >= 0.75 * shown.height(),
            qPrintable(QStringLiteral("fabric %1x%2 in a %3x%4 view")
                           .arg(fabric.width())
                           .arg(fabric.height())
                           .arg(shown.width())
                           .arg(shown.height())));
    }

    // The bottleneck link's name in full in the summary bar.
    const SummaryBar *bar = w.findChild<SummaryBar *>(QStringLiteral("summaryBar"));
    QVERIFY(bar);
    const QString name = bar->bottleneckName();
    QVERIFY(name.size() > 10);
    // Also on a 960-px logical screen (scale 2): the other columns give up the room they keep
    // for their widest values before the name would lose its middle.
    QVERIFY2(shownBottleneck(bar)
                 .remove(QLatin1Char(' '))
                 .contains(QString(name).remove(QLatin1Char(' '))),
        qPrintable(QStringLiteral("shows \"%1\" for \"%2\"").arg(shownBottleneck(bar), name)));
    QVERIFY(!shownBottleneck(bar).contains(QChar(0x2026))); // no "…"
    // …and its lines inside the label (not cut at the bar's bottom).
    {
        const QLabel *label = bar->bottleneckLabel();
        QTextDocument doc;
        doc.setDefaultFont(label->font());
        doc.setDocumentMargin(0);
        doc.setHtml(label->text());
        QVERIFY2(doc.size().height() <= label->contentsRect().height() + 2.0,
            qPrintable(QStringLiteral("needs %1 px of height, has %2")
                           .arg(doc.size().height())
                           .arg(label->contentsRect().height())));
        // The label whole inside the bar, the bar whole on screen (its dock as tall as it).
        QVERIFY2(bar->rect().contains(label->geometry())
                && bar->visibleRegion().boundingRect() == bar->rect(),
            qPrintable(QStringLiteral("label %1,%2 %3x%4 in a bar of %5x%6, %7 px of it visible")
                           .arg(label->x())
                           .arg(label->y())
                           .arg(label->width())
                           .arg(label->height())
                           .arg(bar->width())
                           .arg(bar->height())
                           .arg(bar->visibleRegion().boundingRect().height())));
        QVERIFY2(doc.idealWidth() <= label->contentsRect().width() + 1.0,
            qPrintable(QStringLiteral("needs %1 px of width, has %2")
                           .arg(doc.idealWidth())
                           .arg(label->contentsRect().width())));
    }
    if (presenting)
        stage->setActive(false);
}

// The window as it opens on this screen: the Inspector's spin boxes whole (their arrows in the
// panel), every main toolbar button on screen (none behind a "»" menu), every chart's axis
// titles with the room they need (QtCharts cuts them to "…" otherwise).
void TestStageLayout::smallScreensClipNothing()
{
    QSettings().clear();
    MainWindow w;
    w.setDialogs(std::make_unique<ScriptedDialogs>());
    w.readSettings();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w);
    QStringList problems;

    auto *inspector = w.findChild<QDockWidget *>(QStringLiteral("inspectorDock"));
    QVERIFY(inspector);
    w.showPanel(inspector);
    settle(w);
    auto *scroll = inspector->findChild<QScrollArea *>();
    QVERIFY(scroll);
    int spins = 0;
    for (QAbstractSpinBox *spin : inspector->findChildren<QAbstractSpinBox *>()) {
        ++spins;
        const int right = spin->mapTo(scroll->viewport(), QPoint(spin->width(), 0)).x();
        if (right > scroll->viewport()->width() + 1)
            problems << QStringLiteral("spin box %1 ends at %2, the panel at %3 (its arrows cut)")
                            .arg(spin->objectName())
                            .arg(right)
                            .arg(scroll->viewport()->width());
    }
    QVERIFY(spins > 5);

    for (QToolBar *bar : w.findChildren<QToolBar *>(QString(), Qt::FindDirectChildrenOnly)) {
        if (!bar->isVisible())
            continue;
        for (QToolButton *more :
            bar->findChildren<QToolButton *>(QStringLiteral("qt_toolbar_ext_button")))
            if (more->isVisible())
                problems << QStringLiteral("toolbar %1 hides buttons behind its \u00bb menu")
                                .arg(bar->objectName());
    }
    // The colour toggles (d, p, t) in particular.
    auto *main = w.findChild<QToolBar *>(QStringLiteral("mainToolBar"));
    QVERIFY(main);
    int toggles = 0;
    for (QAction *a : main->actions()) {
        if (!a->isCheckable() || a->data().toChar().isNull())
            continue;
        ++toggles;
        QWidget *button = main->widgetForAction(a);
        if (!button || !button->isVisible())
            problems << QStringLiteral("colour toggle %1 not on the toolbar").arg(a->text());
    }
    QVERIFY(toggles >= 3);

    auto *charts = w.findChild<QDockWidget *>(QStringLiteral("chartsDock"));
    QVERIFY(charts);
    w.showPanel(charts);
    settle(w);
    int titles = 0;
    for (QChartView *view : charts->findChildren<QChartView *>()) {
        if (!view->isVisible())
            continue;
        const QRectF plot = view->chart()->plotArea();
        for (QAbstractAxis *axis : view->chart()->axes()) {
            if (!axis->isVisible() || !axis->isTitleVisible() || axis->titleText().isEmpty())
                continue;
            ++titles;
            const double needed
                = QFontMetricsF(axis->titleFont()).horizontalAdvance(axis->titleText());
            const double room = axis->orientation() == Qt::Vertical ? plot.height() : plot.width();
            if (needed > room + 1.0)
                problems << QStringLiteral("axis title \"%1\" needs %2 px, the plot has %3")
                                .arg(axis->titleText())
                                .arg(needed)
                                .arg(room);
        }
    }
    QVERIFY(titles >= 2);
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

int main(int argc, char *argv[])
{
    // The screen comes from the environment, as in tst_layout: "WxH@scale" (native pixels,
    // QT_SCALE_FACTOR), written as the offscreen platform's screen before the application.
    railyard::testscreen::Screen screen;
    if (!railyard::testscreen::screenFromEnvironment("1280x720@1", screen))
        return 2;
    return railyard::testscreen::runOnScreen<TestStageLayout>(argc, argv, screen);
}

#include "tst_stagelayout.moc"

void TestStageLayout::windowOpensOnTheWholePath_data()
{
    QTest::addColumn<QString>("file");
    QTest::newRow("seed") << QStringLiteral("seed-128.json");
    QTest::newRow("whiteboard") << QStringLiteral("seed-128-whiteboard.json");
}

// A first start on a 1280x720 (or larger) screen shows the path a byte takes in one picture:
// every spine whole and clear of the legend, every leaf, and the first servers' chips. (On the
// 960x540 logical screen of scale 2 the view is too short for it at a readable zoom, and opens
// on the leaves and the servers.) The window's compact trays (FabricLayout::Spacing) make the
// room at 1280x720: with the stage's, the spines opened above the view's edge.
void TestStageLayout::windowOpensOnTheWholePath()
{
    QFETCH(QString, file);
    if (QGuiApplication::primaryScreen()->geometry().height() < 720)
        QSKIP("a 540-pixel logical screen opens on the leaves and servers");
    QSettings().clear();
    MainWindow w;
    w.setDialogs(std::make_unique<ScriptedDialogs>());
    w.readSettings();
    QVERIFY(w.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + file));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w);
    FabricView *view = w.fabricView();
    const FabricItem *root = view->rootItem();
    QCOMPARE(root->spacing(), FabricLayout::Spacing::Window);
    const QRectF shown(view->viewport()->rect());
    QRectF legend;
    for (const FabricView::TextBox &b : view->textBoxes())
        if (b.what == QLatin1String("legend"))
            legend = b.rect;
    QVERIFY(!legend.isEmpty());
    const Fabric &f = root->fabric();
    QVERIFY(f.spineCount() > 0);
    const auto inView = [&](int vertex) {
        const SwitchItem *s = root->switchItem(vertex);
        return view->viewportTransform().mapRect(s->mapRectToScene(s->box()));
    };
    for (int i = 0; i < f.spineCount(); ++i) {
        const QRectF r = inView(f.spineVertex(i));
        QVERIFY2(shown.contains(r) && !r.intersects(legend),
            qPrintable(QStringLiteral("spine %1 at %2,%3 in a %4x%5 view (legend to y %6)")
                           .arg(i)
                           .arg(r.x())
                           .arg(r.y())
                           .arg(shown.width())
                           .arg(shown.height())
                           .arg(legend.bottom())));
    }
    for (int i = 0; i < f.leafCount(); ++i)
        QVERIFY(shown.contains(inView(f.leafVertex(i))));
    // The first server's chips whole.
    const QRectF chip = view->viewportTransform().mapRect(
        root->slotItem(0)->mapRectToScene(root->slotItem(0)->boundingRect()));
    QVERIFY2(shown.contains(chip),
        qPrintable(QStringLiteral("chip 0 at %1,%2 %3x%4")
                       .arg(chip.x())
                       .arg(chip.y())
                       .arg(chip.width())
                       .arg(chip.height())));

    // The stage lays the same fabric out with its roomier trays (a spotlit group stays lit
    // through the new layout), and the window gets its own back.
    PresentationMode *stage = w.presentation();
    view->setSpotlight({ 0, 1 }, {}, Qt::red);
    stage->setActive(true);
    settle(w);
    QCOMPARE(root->spacing(), FabricLayout::Spacing::Stage);
    QVERIFY(view->hasSpotlight());
    stage->setActive(false);
    settle(w);
    QCOMPARE(root->spacing(), FabricLayout::Spacing::Window);
    // (Where the window returns is the platform's: Qt's offscreen platform gives a window
    // maximised before the stage its normal size back, so the view is not checked here.)
}
