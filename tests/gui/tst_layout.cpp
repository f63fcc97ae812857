// The main window on a real screen size, from the offscreen platform's configured screen:
// 1280x720 at scale 1 (gui_tst_layout) and 1920x1080 at QT_SCALE_FACTOR=2, 960x540 logical
// (gui_tst_layout_scale2, RAILYARD_LAYOUT_SCREEN=1920x1080@2), and 1465x900 at scale 1
// (gui_tst_layout_1465x900). On first launch the window fits
// the screen; with every tab of every dock group in front in turn, no two visible docks
// intersect each other or the fabric, no panel is squeezed below its minimum size, every label
// fits its text (QFontMetrics / its rich-text layout), text stays at a readable size, and the
// fabric keeps its detailed drawing; from 1280x720 up, every chip's (d,p,t) is drawn at a readable
// size at the default zoom. A saved layout belongs to its screen.
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "mainwindow.h"
#include "offscreenscreen.h"
#include "slotitem.h"
#include "studycontroller.h"
#include "windowlayout.h"

#include <QAction>
#include <QApplication>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFontInfo>
#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QLabel>
#include <QScreen>
#include <QSettings>
#include <QStandardPaths>
#include <QStyleOptionGraphicsItem>
#include <QTabBar>
#include <QTest>
#include <QTextDocument>

#include <cmath>
#include <cstdio>
#include <unistd.h>

using namespace railyard;

namespace {

/// The smallest type the window may show, in points.
constexpr double kReadablePoints = FabricView::kReadablePoints;

/// The visible docks of the window (in front in their tab group), but the title-less summary.
QList<QDockWidget *> visibleDocks(QMainWindow &w)
{
    QList<QDockWidget *> out;
    for (QDockWidget *d : w.findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly))
        if (d->isVisible() && !d->isFloating() && !d->visibleRegion().isEmpty())
            out << d;
    return out;
}

/// Why a label's text does not fit it, or empty.
QString labelProblem(const QLabel *label)
{
    const QString text = label->text();
    if (text.isEmpty() || !label->pixmap().isNull())
        return QString();
    const QRect room = label->contentsRect().adjusted(
        label->margin(), label->margin(), -label->margin(), -label->margin());
    const bool rich = label->textFormat() == Qt::RichText
        || (label->textFormat() == Qt::AutoText && Qt::mightBeRichText(text));
    if (label->wordWrap()) {
        const int needed = label->heightForWidth(label->width());
        return needed > label->height() + 1
            ? QStringLiteral("needs %1 px of height, has %2").arg(needed).arg(label->height())
            : QString();
    }
    QSizeF size;
    if (rich) {
        QTextDocument doc;
        doc.setDefaultFont(label->font());
        doc.setDocumentMargin(0);
        doc.setHtml(text);
        size = QSizeF(doc.idealWidth(), doc.size().height());
    } else {
        // With a buddy, "&Schedule" shows as "Schedule" with S underlined (Qt::TextShowMnemonic).
        const QFontMetrics fm(label->font());
        size = fm.size(label->buddy() ? Qt::TextShowMnemonic : 0, text);
    }
    if (size.width() > room.width() + 1.0)
        return QStringLiteral("needs %1 px of width, has %2").arg(size.width()).arg(room.width());
    if (size.height() > room.height() + 2.0)
        return QStringLiteral("needs %1 px of height, has %2")
            .arg(size.height())
            .arg(room.height());
    return QString();
}

/// Every arrangement of the tab groups: each tab of each group brought to the front once.
QList<QList<QDockWidget *>> tabGroups(QMainWindow &w)
{
    QList<QList<QDockWidget *>> groups;
    QList<QDockWidget *> seen;
    for (QDockWidget *d : w.findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly)) {
        if (seen.contains(d) || d->isHidden())
            continue;
        QList<QDockWidget *> group { d };
        for (QDockWidget *other : w.tabifiedDockWidgets(d))
            if (!other->isHidden())
                group << other;
        seen << group;
        groups << group;
    }
    return groups;
}

void settle(MainWindow &w)
{
    w.document()->waitForEvaluation();
    for (int i = 0; i < 5; ++i) {
        QCoreApplication::processEvents();
        QTest::qWait(20);
    }
}

} // namespace

class TestLayout : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void firstLaunchFitsTheScreen();
    void nothingOverlapsOrClips_data();
    void nothingOverlapsOrClips();
    void layoutIsKeptPerScreen();
    void defaultZoomComesBackAfterFit();
    void pinnedBaselineLeavesTheFabricItsRoom();
    void raisingAPanelKeepsTheAskedSize();
};

void TestLayout::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_layout"));
    qInfo("screen %s, available %dx%d logical, pixel ratio %.2f",
        qPrintable(WindowLayout::screenKey(QGuiApplication::primaryScreen())),
        QGuiApplication::primaryScreen()->availableGeometry().width(),
        QGuiApplication::primaryScreen()->availableGeometry().height(),
        QGuiApplication::primaryScreen()->devicePixelRatio());
}

void TestLayout::init()
{
    QSettings().clear();
}

void TestLayout::firstLaunchFitsTheScreen()
{
    MainWindow w;
    w.readSettings(); // nothing saved: the first launch
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w);
    const QRect available = w.screen()->availableGeometry();
    QVERIFY2(available.contains(w.frameGeometry()),
        qPrintable(QStringLiteral("window %1,%2 %3x%4 outside the screen %5x%6")
                       .arg(w.frameGeometry().x())
                       .arg(w.frameGeometry().y())
                       .arg(w.frameGeometry().width())
                       .arg(w.frameGeometry().height())
                       .arg(available.width())
                       .arg(available.height())));
    // The docks the issue found off-screen are on it.
    for (const char *name : { "inspectorDock", "timelineDock" }) {
        auto *dock = w.findChild<QDockWidget *>(QString::fromLatin1(name));
        QVERIFY(dock);
        const QRect global(dock->mapToGlobal(QPoint(0, 0)), dock->size());
        QVERIFY2(available.contains(global), name);
    }
}

void TestLayout::nothingOverlapsOrClips_data()
{
    QTest::addColumn<bool>("fullScreen");
    QTest::newRow("first launch") << false;
    QTest::newRow("whole screen") << true;
}

void TestLayout::nothingOverlapsOrClips()
{
    QFETCH(bool, fullScreen);
    MainWindow w;
    w.readSettings();
    const QRect available = WindowLayout::availableGeometry(&w);
    if (fullScreen)
        w.setGeometry(available);
    // A short screen's first launch opens maximised: the whole available area.
    const QSize wanted
        = !fullScreen && WindowLayout::opensMaximised(available) ? available.size() : w.size();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w);
    // Minimum sizes that add up to more than the screen force the window larger (off-screen).
    QCOMPARE(w.size(), wanted);
    QVERIFY(w.minimumSizeHint().width() <= available.width());
    QVERIFY(w.minimumSizeHint().height() <= available.height());

    // The fabric keeps its detailed drawing (chips with their coordinates) at the default zoom.
    FabricView *fabric = w.fabricView();
    QVERIFY2(!fabric->rootItem()->isOverview(),
        qPrintable(QStringLiteral("fabric %1x%2 zoom %3")
                       .arg(fabric->width())
                       .arg(fabric->height())
                       .arg(fabric->zoom())));
    QVERIFY2(fabric->width() >= w.width() / 2, qPrintable(QString::number(fabric->width())));
    qInfo("window %dx%d (minimum %dx%d), fabric %dx%d at zoom %.3f", w.width(), w.height(),
        w.minimumSizeHint().width(), w.minimumSizeHint().height(), fabric->width(),
        fabric->height(), fabric->zoom());
    // From a 1280x720 screen up, every chip's (d,p,t) is legible at the default zoom: drawn (the
    // view's level of detail is above the chips' coordinates threshold), in type at least the
    // labels' readable size on screen, and inside its chip. 960x540 logical keeps the detail only.
    if (available.width() >= 1280 && available.height() >= 720) {
        const double lod
            = QStyleOptionGraphicsItem::levelOfDetailFromTransform(fabric->viewportTransform());
        QVERIFY2(lod > SlotItem::kCoordinatesLod, qPrintable(QString::number(lod)));
        const double readable = kReadablePoints * fabric->logicalDpiY() / 72.0;
        const QRectF shown = fabric->mapToScene(fabric->viewport()->rect()).boundingRect();
        int chips = 0, inView = 0;
        QStringList small;
        for (QGraphicsItem *item : fabric->scene()->items()) {
            const auto *chip = qgraphicsitem_cast<SlotItem *>(item);
            if (!chip || chip->rank() < 0)
                continue;
            ++chips;
            if (shown.contains(chip->sceneBoundingRect()))
                ++inView;
            const QFont font = chip->coordinateFont();
            const double onScreen = QFontInfo(font).pixelSize() * lod;
            const double wide = QFontMetricsF(font).horizontalAdvance(chip->coordinateText());
            if (onScreen < readable || wide > FabricLayout::kChipWidth)
                small << QStringLiteral("rank %1 %2: %3 px on screen (readable %4), %5 of %6 wide")
                             .arg(chip->rank())
                             .arg(chip->coordinateText())
                             .arg(onScreen)
                             .arg(readable)
                             .arg(wide)
                             .arg(FabricLayout::kChipWidth);
        }
        qInfo("chips' coordinates at %d px, %.1f px on screen (readable: %.1f)",
            w.fabricView()->rootItem()->smallestCoordinatePixels(),
            w.fabricView()->rootItem()->smallestCoordinatePixels() * lod, readable);
        QCOMPARE(chips, 128); // the seed's ranks
        QVERIFY2(inView >= 8, qPrintable(QString::number(inView))); // a server's chips at least
        small = small.mid(0, 5);
        QVERIFY2(small.isEmpty(), qPrintable(small.join(QLatin1Char('\n'))));
    }

    // Compare A/B with a baseline pinned shows its full content (tables, two timelines).
    w.studies()->pinBaseline();
    settle(w);
    const int fabricHeight = w.centralWidget()->height();
    int checked = 0;
    QStringList problems;
    const QList<QList<QDockWidget *>> groups = tabGroups(w);
    QVERIFY(groups.size() >= 3); // right, bottom and the summary at least
    for (const QList<QDockWidget *> &group : groups) {
        for (QDockWidget *front : group) {
            w.showPanel(front);
            settle(w);
            // Nor does it push the window past the screen (its minimum width adds up).
            if (w.width() > available.width() || w.height() > available.height())
                problems << QStringLiteral("%1 in front makes the window %2x%3 on a %4x%5 screen")
                                .arg(front->objectName())
                                .arg(w.width())
                                .arg(w.height())
                                .arg(available.width())
                                .arg(available.height());
            // A panel brought to the front never takes the fabric's room: the fabric keeps
            // three quarters of the height it had with the first tabs in front.
            if (w.centralWidget()->height() < fabricHeight * 3 / 4)
                problems << QStringLiteral("%1 in front leaves the fabric %2 px of %3")
                                .arg(front->objectName())
                                .arg(w.centralWidget()->height())
                                .arg(fabricHeight);
            const QList<QDockWidget *> docks = visibleDocks(w);
            for (int i = 0; i < docks.size(); ++i) {
                for (int j = i + 1; j < docks.size(); ++j)
                    if (docks[i]->geometry().intersects(docks[j]->geometry()))
                        problems << QStringLiteral("%1 and %2 overlap")
                                        .arg(docks[i]->objectName(), docks[j]->objectName());
                if (docks[i]->geometry().intersects(w.centralWidget()->geometry()))
                    problems << QStringLiteral("%1 covers the fabric").arg(docks[i]->objectName());
                QWidget *content = docks[i]->widget();
                const QSize min = content->minimumSizeHint().expandedTo(content->minimumSize());
                if (content->width() < min.width() || content->height() < min.height())
                    problems << QStringLiteral("%1 squeezed to %2x%3 below its minimum %4x%5")
                                    .arg(docks[i]->objectName())
                                    .arg(content->width())
                                    .arg(content->height())
                                    .arg(min.width())
                                    .arg(min.height());
            }
            for (QLabel *label : w.findChildren<QLabel *>()) {
                if (!label->isVisible() || label->visibleRegion().isEmpty()
                    || label->window() != &w)
                    continue;
                ++checked;
                if (const QString why = labelProblem(label); !why.isEmpty())
                    problems << QStringLiteral("label %1 \"%2\" in %3: %4")
                                    .arg(label->objectName(), label->text().left(60),
                                        label->parentWidget() ? label->parentWidget()->objectName()
                                                              : QString(),
                                        why);
                const QFontInfo info(label->font());
                if (info.pointSizeF() < kReadablePoints)
                    problems << QStringLiteral("label %1 \"%2\": %3 pt is too small to read")
                                    .arg(label->objectName(), label->text().left(40))
                                    .arg(info.pointSizeF());
            }
        }
    }
    problems.removeDuplicates();
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
    QVERIFY(checked > 20);
}

void TestLayout::raisingAPanelKeepsTheAskedSize()
{
    // `railyard --size 1280x720` on a larger screen (a projector's size asked on a laptop):
    // raising any panel, with a baseline pinned, leaves the window at that size. A panel whose
    // minimum is wider than the room beside the right-hand docks made the window grow.
    MainWindow w;
    w.readSettings();
    const QSize asked = QSize(1280, 720).boundedTo(WindowLayout::availableGeometry(&w).size());
    w.resizeForScreen(asked);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w);
    QCOMPARE(w.size(), asked);
    w.studies()->pinBaseline();
    settle(w);
    QStringList problems;
    // Every panel, the hidden ones too (View > Experts on a dense model, as `--panel experts`).
    for (QDockWidget *front :
        w.findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly)) {
        const bool wasHidden = front->isHidden();
        w.showPanel(front);
        settle(w);
        if (w.size() != asked)
            problems << QStringLiteral("%1 in front: window %2x%3, minimum %4x%5")
                            .arg(front->objectName())
                            .arg(w.width())
                            .arg(w.height())
                            .arg(w.minimumSizeHint().width())
                            .arg(w.minimumSizeHint().height());
        if (wasHidden)
            front->hide();
        w.resize(asked); // the next panel on its own
        settle(w);
    }
    QVERIFY2(problems.isEmpty(), qPrintable(problems.join(QLatin1Char('\n'))));
}

void TestLayout::pinnedBaselineLeavesTheFabricItsRoom()
{
    // `railyard --baseline A.json` pins A before the window is first laid out: Compare A/B is in
    // front with both timelines filled. The window keeps its first-launch size and the fabric
    // keeps the room it has with the first tabs in front.
    MainWindow plain;
    plain.readSettings();
    plain.show();
    QVERIFY(QTest::qWaitForWindowExposed(&plain));
    settle(plain);
    const QSize size = plain.size();
    const int fabricHeight = plain.centralWidget()->height();

    MainWindow w;
    w.readSettings();
    QVERIFY(w.studies()->pinBaselineFromFile(
        QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w);
    QVERIFY(w.studies()->compareDock()->isVisible());
    QVERIFY2(w.size() == size,
        qPrintable(QStringLiteral("window %1x%2 with the baseline, %3x%4 without")
                       .arg(w.width())
                       .arg(w.height())
                       .arg(size.width())
                       .arg(size.height())));
    QVERIFY2(w.centralWidget()->height() >= fabricHeight * 3 / 4,
        qPrintable(QStringLiteral("fabric %1 px tall with the baseline, %2 without")
                       .arg(w.centralWidget()->height())
                       .arg(fabricHeight)));
}

void TestLayout::layoutIsKeptPerScreen()
{
    const QString key = WindowLayout::screenKey(QGuiApplication::primaryScreen());
    {
        MainWindow w;
        w.readSettings();
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        settle(w);
        w.writeSettings();
    }
    const QSettings settings;
    QVERIFY(settings.contains(QStringLiteral("window/%1/geometry").arg(key)));
    QVERIFY(settings.contains(QStringLiteral("window/%1/state").arg(key)));

    // A layout saved on another, larger screen is not applied here.
    {
        MainWindow big;
        big.setGeometry(0, 0, 3000, 2000);
        QSettings().setValue(QStringLiteral("window/5120x2880@2/geometry"), big.saveGeometry());
        QSettings().remove(QStringLiteral("window/%1").arg(key));
    }
    MainWindow w;
    w.readSettings();
    QCOMPARE(w.geometry(), WindowLayout::firstLaunchGeometry(WindowLayout::availableGeometry(&w)));
}

void TestLayout::defaultZoomComesBackAfterFit()
{
    // View > Default Zoom (Ctrl+9) returns to the zoom the file opened at after Fit to Window
    // (Ctrl+0) and zoom steps; Fit to Window never zooms in past the default.
    MainWindow w;
    w.readSettings();
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle(w);
    FabricView *fabric = w.fabricView();
    const double opened = fabric->zoom();
    auto *fit = w.findChild<QAction *>(QStringLiteral("actionFitView"));
    auto *zoomIn = w.findChild<QAction *>(QStringLiteral("actionZoomIn"));
    auto *readable = w.findChild<QAction *>(QStringLiteral("actionDefaultZoom"));
    QVERIFY(fit && zoomIn && readable);
    QCOMPARE(readable->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_9));
    fit->trigger();
    QVERIFY(fabric->zoom() <= opened * (1.0 + 1e-9));
    zoomIn->trigger();
    zoomIn->trigger();
    QVERIFY(std::abs(fabric->zoom() - opened) > 1e-6 * opened);
    readable->trigger();
    QVERIFY2(std::abs(fabric->zoom() - opened) <= 1e-9 * opened,
        qPrintable(QStringLiteral("%1 vs %2").arg(fabric->zoom()).arg(opened)));
}

int main(int argc, char *argv[])
{
    // The screen comes from the environment: "WxH@scale" (native pixels, QT_SCALE_FACTOR).
    railyard::testscreen::Screen screen;
    if (!railyard::testscreen::screenFromEnvironment("1280x720@1", screen))
        return 2;
    return railyard::testscreen::runOnScreen<TestLayout>(argc, argv, screen);
}

#include "tst_layout.moc"
