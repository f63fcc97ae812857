// Find (Ctrl+F) and "go to bottleneck": a rank, (d,p,t), a server, a switch or a link typed
// into the find bar is selected and brought into view; the bottleneck button and a click on
// the summary bar's bottleneck name select and centre the report's bottleneck link; at 16,384
// GPUs the name index is built once, not per search.
#include "document/scenariodocument.h"
#include "fabricfindindex.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "fabricview.h"
#include "findbar.h"
#include "guidecontroller.h"
#include "mainwindow.h"
#include "scenario/scenariofile.h"
#include "scriptedwindow.h"
#include "summarybar.h"
#include "workload/presets.h"

#include <QAction>
#include <QCompleter>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStandardPaths>
#include <QStringListModel>
#include <QTest>

#include <algorithm>

using namespace railyard;

namespace {

/// The view's centre in scene coordinates.
QPointF viewCentre(const FabricView *view)
{
    return view->mapToScene(view->viewport()->rect().center());
}

bool emphasises(const FabricView *view, int link)
{
    const std::vector<int> &e = view->rootItem()->emphasis();
    return std::find(e.begin(), e.end(), link) != e.end();
}

/// 2,048 servers x 8 GPUs, rail-optimised, three tiers (bench_engine's scenario16k()).
Scenario scenario16k()
{
    Scenario s;
    s.name = "find-16k";
    s.fabric.kind = FabricKind::RailOptimised;
    s.fabric.servers = 2048;
    s.fabric.gpusPerServer = 8;
    s.fabric.serversPerSu = 32;
    s.fabric.switchRadix = 64;
    s.degrees = { 8, 16, 128, 1, 1 };
    s.model = *modelPreset("gpt3-175b");
    s.device = *devicePreset("h100-sxm");
    s.training.microBatch = 1;
    s.training.globalBatch = 1536;
    return s;
}

} // namespace

class TestFind : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void ctrlFOpensTheBar();
    void findsRanksAndCoordinates_data();
    void findsRanksAndCoordinates();
    void findsServersSwitchesAndLinks();
    void completesNames();
    void saysWhyNothingWasFound_data();
    void saysWhyNothingWasFound();
    void goesToTheBottleneck();
    void summaryBottleneckNameGoesThere();
    void worksAt16kGpus();
};

void TestFind::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_find"));
}

void TestFind::ctrlFOpensTheBar()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    FindBar *bar = w.window.guide()->findBar();
    QVERIFY(!bar->isVisible());
    w.window.fabricView()->setFocus();
    QTest::keyClick(w.window.fabricView(), Qt::Key_F, Qt::ControlModifier);
    QVERIFY(bar->isVisible());
    QVERIFY(bar->lineEdit()->hasFocus());
    // Inside the fabric view, whole.
    const QRect inView = QRect(bar->mapTo(w.window.fabricView(), QPoint(0, 0)), bar->size());
    QVERIFY(w.window.fabricView()->rect().contains(inView));
    QTest::keyClick(bar->lineEdit(), Qt::Key_Escape);
    QVERIFY(!bar->isVisible());
}

void TestFind::findsRanksAndCoordinates_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("t");
    QTest::addColumn<int>("p");
    QTest::addColumn<int>("d");
    // The seed: tp 8, pp 4, dp 4 in Megatron's order (t fastest, then d, then p).
    QTest::newRow("rank") << QStringLiteral("42") << -1 << -1 << -1;
    QTest::newRow("rank word") << QStringLiteral("rank 42") << -1 << -1 << -1;
    QTest::newRow("(d,p,t)") << QStringLiteral("(1,0,3)") << 3 << 0 << 1;
    QTest::newRow("(d, p, t) spaced") << QStringLiteral("( 2, 3, 7 )") << 7 << 3 << 2;
    QTest::newRow("named") << QStringLiteral("d=1 p=0 t=3") << 3 << 0 << 1;
    QTest::newRow("named any order") << QStringLiteral("t=5 d=3 p=2") << 5 << 2 << 3;
}

void TestFind::findsRanksAndCoordinates()
{
    QFETCH(QString, text);
    QFETCH(int, t);
    QFETCH(int, p);
    QFETCH(int, d);
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    FindBar *bar = w.window.guide()->findBar();
    bar->open();
    const ParallelLayout &layout = w.doc()->engine().layout();
    const int rank = t < 0 ? 42 : layout.rankOf(t, p, d);
    if (t >= 0) { // the coordinates name the rank whose chip shows them
        const RankCoord c = layout.coord(rank);
        QCOMPARE(c.t, t);
        QCOMPARE(c.p, p);
        QCOMPARE(c.d, d);
    }
    QTest::keyClicks(bar->lineEdit(), text);
    QTest::keyClick(bar->lineEdit(), Qt::Key_Return);
    FabricView *view = w.window.fabricView();
    QCOMPARE(view->pinnedRank(), rank);
    QCOMPARE(view->selectedRanks(), std::vector<int> { rank });
    // Its chip is on screen, at a size its coordinates can be read at.
    const FabricItem *root = view->rootItem();
    const int slot = w.doc()->mapping().slotOf(rank);
    const int server = root->fabric().serverOfSlot(slot);
    const QRectF rect = root->mapRectToScene(root->layout().serverRect(server));
    QVERIFY(view->viewport()->rect().contains(view->mapFromScene(rect.center())));
    QVERIFY(view->zoom() >= view->readableZoom() * 0.99);
    QVERIFY(bar->messageLabel()->text().contains(QStringLiteral("rank %1").arg(rank)));
}

void TestFind::findsServersSwitchesAndLinks()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    FindBar *bar = w.window.guide()->findBar();
    FabricView *view = w.window.fabricView();
    const Fabric &f = w.doc()->engine().fabric();
    const FabricItem *root = view->rootItem();
    bar->open();

    // A server: its NIC uplinks outlined, the server in the middle of the view.
    QVERIFY(bar->find(QString::fromStdString(f.serverName(5)).toUpper())); // any case
    const QRectF server = root->mapRectToScene(root->layout().serverRect(5));
    QVERIFY(QLineF(viewCentre(view), server.center()).length() < server.width());
    const int uplink = f.linkBetween(f.nicVertex(5, 0), f.leafVertex(f.leafOfNic(5, 0)));
    QVERIFY(uplink >= 0);
    QVERIFY(emphasises(view, uplink));

    // A spine: its links.
    const int spine = f.spineVertex(1);
    QVERIFY(bar->find(QString::fromStdString(f.node(spine).name)));
    QVERIFY(view->viewport()->rect().contains(
        view->mapFromScene(root->mapRectToScene(root->layout().switchRect(spine)).center())));
    QVERIFY(emphasises(view, f.linkBetween(spine, f.leafVertex(0))));

    // A link by its name, spaces around the arrow or not.
    const int link = f.linkBetween(f.leafVertex(2), spine);
    QVERIFY(link >= 0);
    QString name = QString::fromStdString(f.linkName(link));
    name.remove(QLatin1Char(' '));
    QVERIFY(bar->find(name));
    QCOMPARE(root->emphasis(), std::vector<int> { link });
    const QRectF cable = root->mapRectToScene(root->layout().cablePath(link >> 1).boundingRect());
    QVERIFY(view->viewport()->rect().contains(view->mapFromScene(cable.center())));
}

void TestFind::completesNames()
{
    ScriptedWindow w;
    FindBar *bar = w.window.guide()->findBar();
    bar->open();
    const Fabric &f = w.doc()->engine().fabric();
    const QStringList names = bar->index().names();
    // Every server, switch and link, once.
    QCOMPARE(names.size(),
        f.servers() + f.leafCount() + f.spineCount() + f.superSpineCount() + f.linkCount());
    QVERIFY(std::is_sorted(names.begin(), names.end(),
        [](const QString &a, const QString &b) { return a.compare(b, Qt::CaseInsensitive) < 0; }));
    // The completer offers what starts with the typed text.
    const QString spine = QString::fromStdString(f.node(f.spineVertex(0)).name);
    bar->completer()->setCompletionPrefix(spine.left(spine.size() - 1));
    QVERIFY(bar->completer()->completionCount() >= 1);
    QVERIFY(bar->completer()->currentCompletion().startsWith(
        spine.left(spine.size() - 1), Qt::CaseInsensitive));
    QCOMPARE(bar->completer()->modelSorting(), QCompleter::CaseInsensitivelySortedModel);
}

void TestFind::saysWhyNothingWasFound_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("reason");
    QTest::newRow("rank out of range") << QStringLiteral("128") << QStringLiteral("ranks 0-127");
    QTest::newRow("coordinate out of range")
        << QStringLiteral("(4,0,0)") << QStringLiteral("d < 4");
    QTest::newRow("missing t") << QStringLiteral("d=1 p=0") << QStringLiteral("t=");
    QTest::newRow("unknown name") << QStringLiteral("spine99x")
                                  << QStringLiteral("no rank, server, switch or link");
}

void TestFind::saysWhyNothingWasFound()
{
    QFETCH(QString, text);
    QFETCH(QString, reason);
    ScriptedWindow w;
    FindBar *bar = w.window.guide()->findBar();
    bar->open();
    w.window.fabricView()->selectRank(3);
    QVERIFY(!bar->find(text));
    QVERIFY2(bar->messageLabel()->text().contains(reason), qPrintable(bar->messageLabel()->text()));
    QVERIFY(bar->messageLabel()->isVisible());
    QCOMPARE(w.window.fabricView()->pinnedRank(), 3); // nothing changed
}

void TestFind::goesToTheBottleneck()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    FindBar *bar = w.window.guide()->findBar();
    FabricView *view = w.window.fabricView();
    const int link = w.doc()->report().bottleneckLink;
    QVERIFY(link >= 0);
    bar->open();
    QTest::mouseClick(bar->bottleneckButton(), Qt::LeftButton);
    QCOMPARE(view->rootItem()->emphasis(), std::vector<int> { link });
    QVERIFY(view->rootItem()->emphasisCaption().contains(QStringLiteral("bottleneck")));
    // Centred: the middle of its cable (or its server, inside one) at the view's middle.
    const FabricItem *root = view->rootItem();
    const QPolygonF &path = root->layout().cablePath(link >> 1);
    const QRectF target = path.isEmpty() ? root->mapRectToScene(root->layout().serverRect(
                              root->fabric().node(root->fabric().link(link).src).server))
                                         : root->mapRectToScene(path.boundingRect());
    const QPoint at = view->mapFromScene(target.center());
    QVERIFY(view->viewport()->rect().contains(at));
    QVERIFY2(std::abs(at.x() - view->viewport()->width() / 2) < view->viewport()->width() / 5,
        qPrintable(QStringLiteral("%1 of %2").arg(at.x()).arg(view->viewport()->width())));
}

void TestFind::summaryBottleneckNameGoesThere()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    FabricView *view = w.window.fabricView();
    QVERIFY(view->rootItem()->emphasis().empty());
    QLabel *name = w.window.summaryBar()->bottleneckLabel();
    QTest::mouseClick(name, Qt::LeftButton, {}, name->rect().center());
    QCOMPARE(view->rootItem()->emphasis(), std::vector<int> { w.doc()->report().bottleneckLink });
    QCOMPARE(name->cursor().shape(), Qt::PointingHandCursor);
}

void TestFind::worksAt16kGpus()
{
    ScriptedWindow w(QSize(1280, 720));
    QVERIFY(QTest::qWaitForWindowExposed(&w.window));
    w.doc()->load(scenario16k());
    w.doc()->waitForEvaluation();
    QCoreApplication::processEvents();
    FindBar *bar = w.window.guide()->findBar();
    FabricView *view = w.window.fabricView();
    bar->open();
    QCOMPARE(bar->indexBuilds(), 1);
    // A rank far from the first servers, its coordinates, a switch, the bottleneck.
    QVERIFY(bar->find(QStringLiteral("16000")));
    QCOMPARE(view->pinnedRank(), 16000);
    QVERIFY(!view->rootItem()->isOverview()); // zoomed in to its chips
    const ParallelLayout &layout = w.doc()->engine().layout();
    QVERIFY(bar->find(QStringLiteral("(127,15,7)")));
    QCOMPARE(view->pinnedRank(), layout.rankOf(7, 15, 127));
    const Fabric &f = w.doc()->engine().fabric();
    QVERIFY(bar->find(QString::fromStdString(f.node(f.spineVertex(f.spineCount() - 1)).name)));
    QVERIFY(bar->goToBottleneck());
    QCOMPARE(view->rootItem()->emphasis(), std::vector<int> { w.doc()->report().bottleneckLink });
    // Typing completes from the same index: built once for the document.
    QTest::keyClicks(bar->lineEdit(), QStringLiteral("node2000"));
    QCOMPARE(bar->indexBuilds(), 1);
    bar->completer()->setCompletionPrefix(QStringLiteral("node2000"));
    QVERIFY(bar->completer()->completionCount() >= 1);
    // A new fabric: a new index, once.
    w.doc()->load(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json"));
    w.doc()->waitForEvaluation();
    bar->open();
    QVERIFY(bar->find(QStringLiteral("100")));
    QCOMPARE(bar->indexBuilds(), 2);
}

QTEST_MAIN(TestFind)
#include "tst_find.moc"
