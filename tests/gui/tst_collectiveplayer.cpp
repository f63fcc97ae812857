// Watch a collective through the real window: a rank's right-click menu starts its DP
// gradient sync, the player bar under the fabric steps through every step with its buttons, and at
// each step the overlay highlights exactly the links the model's step decomposition names with
// their bytes (model/cost/collectivewatch.h), the sum over the steps being the engine's load; the
// View menu plays a whole dimension; the player stays in presentation mode; playing advances by
// the speed; frames export as numbered PNGs and an animated PNG.
#include "collectivecontroller.h"
#include "collectiveoverlayitem.h"
#include "collectiveplayer.h"
#include "cost/collectivewatch.h"
#include "document/scenariodocument.h"
#include "fabric/router.h"
#include "fabricview.h"
#include "frameexport.h"
#include "lessoncontroller.h"
#include "mainwindow.h"
#include "presentationmode.h"
#include "scriptedwindow.h"
#include "studycontroller.h"

#include <QAction>
#include <QComboBox>
#include <QFile>
#include <QMenu>
#include <QMenuBar>
#include <QSlider>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include <cmath>
#include <map>

using namespace railyard;

namespace {

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max({ 1.0, std::abs(a), std::abs(b) });
}

/// The model's own decomposition of `target` on the window's engine, independently of the
/// controller (its own router).
WatchedCollective expected(MainWindow &window, const WatchTarget &target)
{
    Router router(window.document()->engine().fabric());
    return watchCollective(window.document()->engine(), router, target);
}

QAction *actionNamed(QMenu *menu, const QString &name)
{
    for (QAction *a : menu->actions())
        if (a->objectName() == name || a->text() == name)
            return a;
    return nullptr;
}

/// Fails unless the overlay highlights exactly `links` with their bytes.
void checkHighlight(const CollectiveOverlayItem *overlay, const std::vector<StepLink> &links)
{
    const std::unordered_map<int, double> &shown = overlay->highlightedLinks();
    QCOMPARE(shown.size(), links.size());
    for (const StepLink &l : links) {
        const auto it = shown.find(l.link);
        QVERIFY2(
            it != shown.end(), qPrintable(QStringLiteral("link %1 not highlighted").arg(l.link)));
        QVERIFY2(near(it->second, l.bytes),
            qPrintable(QStringLiteral("link %1: %2 shown, %3 in the model")
                           .arg(l.link)
                           .arg(it->second)
                           .arg(l.bytes)));
    }
}

} // namespace

class TestCollectivePlayer : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void rankMenuWatchesItsDpSync();
    void viewMenuPlaysAWholeDimension();
    void playingAdvancesBySpeed();
    void presentationModeKeepsThePlayer();
    void exportWritesFramesAndAnApng();
    void aMoveReplansTheWatchedGroup();
    void aNewDocumentStopsTheWatch();
    void aLessonStartsItsWatch();
};

void TestCollectivePlayer::rankMenuWatchesItsDpSync()
{
    ScriptedWindow w(QSize(1400, 900));
    w.doc()->waitForEvaluation();
    const int rank = 5;
    QMenu *menu = w.window.studies()->slotMenu(w.doc()->mapping().slotOf(rank));
    QAction *watchDp = actionNamed(menu, QStringLiteral("actionWatchDP"));
    QVERIFY(watchDp);
    // The seed's distributed optimizer syncs gradients by a reduce-scatter, then gathers the
    // parameters: both are offered.
    QCOMPARE(watchDp->text(), QStringLiteral("Watch Its DP Reduce-Scatter"));
    QVERIFY(actionNamed(menu, QStringLiteral("actionWatchDP1")));
    QCOMPARE(actionNamed(menu, QStringLiteral("actionWatchDP1"))->text(),
        QStringLiteral("Watch Its DP All-Gather"));
    QVERIFY(actionNamed(menu, QStringLiteral("actionWatchTP")));
    QVERIFY(actionNamed(menu, QStringLiteral("actionWatchPP")));
    QVERIFY(!actionNamed(menu, QStringLiteral("actionWatchEP"))); // the seed has no experts
    watchDp->trigger();
    delete menu;

    CollectiveController *c = w.window.collectives();
    QVERIFY(c->isWatching());
    CollectivePlayer *player = c->player();
    QVERIFY(player->isVisible());
    QVERIFY(w.window.fabricView()->rect().contains(player->geometry()));
    const WatchedCollective model = expected(w.window, { Dim::Dp, rank, false, 0 });
    QCOMPARE(c->watched().groups, model.groups);
    QCOMPARE(model.groups.front(), (std::vector<int> { 5, 13, 21, 29 }));
    const int steps = model.steps.stepCount();
    QCOMPARE(steps, 3); // a ring reduce-scatter over 4 ranks: n - 1 steps
    QCOMPARE(player->slider()->maximum(), steps - 1);
    QVERIFY(!player->backButton()->isEnabled());

    // Step through every step with the player's button: each shows the model's links and bytes.
    std::map<int, double> played;
    for (int s = 0; s < steps; ++s) {
        QCOMPARE(c->step(), s);
        QCOMPARE(player->stepText(), QString::fromStdString(model.steps.label(s)));
        checkHighlight(c->overlay(), model.steps.stepLinks(s));
        QVERIFY(c->overlay()->chunkCount() > 0);
        for (const auto &[link, bytes] : c->overlay()->highlightedLinks())
            played[link] += bytes;
        if (s + 1 < steps)
            QTest::mouseClick(player->stepButton(), Qt::LeftButton);
    }
    QVERIFY(!player->stepButton()->isEnabled());
    // Summed over the steps: the engine's per-link load of one sync of the group.
    const std::vector<StepLink> totals = model.steps.totals();
    QCOMPARE(played.size(), totals.size());
    for (const StepLink &l : totals)
        QVERIFY(near(played[l.link], l.bytes));

    QTest::mouseClick(player->backButton(), Qt::LeftButton);
    QCOMPARE(c->step(), steps - 2);
    QTest::mouseClick(player->closeButton(), Qt::LeftButton);
    QVERIFY(!c->isWatching());
    QVERIFY(!player->isVisible());
    QVERIFY(c->overlay()->highlightedLinks().empty());
}

void TestCollectivePlayer::viewMenuPlaysAWholeDimension()
{
    ScriptedWindow w(QSize(1400, 900));
    w.doc()->waitForEvaluation();
    QMenu *watchMenu = w.window.menuBar()->findChild<QMenu *>(QStringLiteral("watchMenu"));
    QVERIFY(watchMenu);
    Q_EMIT watchMenu->aboutToShow();
    QAction *every = actionNamed(watchMenu, QStringLiteral("Every PP Group at Once"));
    QVERIFY(every);
    every->trigger();
    CollectiveController *c = w.window.collectives();
    QVERIFY(c->isWatching());
    const WatchedCollective model = expected(w.window, { Dim::Pp, 0, true, 0 });
    QCOMPARE(c->watched().groups.size(), std::size_t(32)); // tp 8 x dp 4 pipelines
    for (int s = 0; s < model.steps.stepCount(); ++s) {
        c->player()->slider()->setValue(s); // the slider seeks
        QCOMPARE(c->step(), s);
        checkHighlight(c->overlay(), model.steps.stepLinks(s));
        QCOMPARE(c->overlay()->chunkCount(), 32); // one send per pipeline
    }
}

void TestCollectivePlayer::playingAdvancesBySpeed()
{
    ScriptedWindow w(QSize(1400, 900));
    w.doc()->waitForEvaluation();
    CollectiveController *c = w.window.collectives();
    QVERIFY(c->watch({ Dim::Pp, 0, false, 0 })); // rank 0's pipeline: 3 sends on, 3 back
    QCOMPARE(c->watched().steps.stepCount(), 6);
    CollectivePlayer *player = c->player();
    player->speedBox()->setCurrentIndex(player->speedBox()->findData(4.0));
    QCOMPARE(player->speed(), 4.0);
    const QPointF start = c->overlay()->chunkPosition(0);
    // 0.6 s at 4 steps a second: 2.4 steps on.
    c->advance(0.6);
    QCOMPARE(c->step(), 2);
    QVERIFY(std::abs(c->progress() - 0.4) < 1e-9);
    QVERIFY(c->overlay()->chunkPosition(0) != start || c->overlay()->chunkCount() > 1);
    // The play button starts the timer and pauses it again.
    QTest::mouseClick(player->playButton(), Qt::LeftButton);
    QVERIFY(c->isPlaying());
    // The timer's ticks move it on (however long a loaded machine takes to paint a frame).
    QTRY_VERIFY_WITH_TIMEOUT(c->step() > 2 || c->progress() > 0.4, 5000);
    QTest::mouseClick(player->playButton(), Qt::LeftButton);
    QVERIFY(!c->isPlaying());
    // Past the last step it stops there.
    c->advance(1e6);
    QCOMPARE(c->step(), c->watched().steps.stepCount() - 1);
    QCOMPARE(c->progress(), 1.0);
    QVERIFY(!c->isPlaying());
}

void TestCollectivePlayer::presentationModeKeepsThePlayer()
{
    ScriptedWindow w(QSize(1400, 900));
    w.doc()->waitForEvaluation();
    CollectiveController *c = w.window.collectives();
    QVERIFY(c->watch({ Dim::Dp, 0, false, 0 }));
    w.window.presentation()->setActive(true);
    QCoreApplication::processEvents();
    QVERIFY(c->player()->isVisible());
    QVERIFY(w.window.fabricView()->rect().contains(c->player()->geometry()));
    QTest::mouseClick(c->player()->stepButton(), Qt::LeftButton);
    QCOMPARE(c->step(), 1);
    w.window.presentation()->setActive(false);
    QCoreApplication::processEvents();
    QVERIFY(c->player()->isVisible());
    QVERIFY(w.window.fabricView()->rect().contains(c->player()->geometry()));
}

void TestCollectivePlayer::exportWritesFramesAndAnApng()
{
    ScriptedWindow w(QSize(1000, 700));
    w.doc()->waitForEvaluation();
    CollectiveController *c = w.window.collectives();
    QVERIFY(c->watch({ Dim::Dp, 0, false, 0 }));
    QTemporaryDir dir;
    QString error;
    QVERIFY2(c->exportFrames(dir.path(), 2, &error), qPrintable(error));
    const int frames = 2 * c->watched().steps.stepCount();
    QVERIFY(QFile::exists(
        dir.filePath(QStringLiteral("frame-%1.png").arg(frames, 4, 10, QLatin1Char('0')))));
    QVERIFY(!QFile::exists(
        dir.filePath(QStringLiteral("frame-%1.png").arg(frames + 1, 4, 10, QLatin1Char('0')))));
    const QImage first(dir.filePath(QStringLiteral("frame-0001.png")));
    // The fabric as on screen, at the screen's resolution (twice the pixels at scale 2).
    QCOMPARE(first.size(),
        w.window.fabricView()->viewport()->size() * w.window.fabricView()->devicePixelRatio());
    QFile apng(dir.filePath(QStringLiteral("collective.png")));
    QVERIFY(apng.open(QIODevice::ReadOnly));
    const QByteArray bytes = apng.readAll();
    QVERIFY(bytes.startsWith(QByteArray("\x89PNG\r\n\x1a\n", 8)));
    const qsizetype actl = bytes.indexOf("acTL");
    QVERIFY(actl > 0);
    QCOMPARE(qFromBigEndian<quint32>(bytes.constData() + actl + 4), quint32(frames));
    QCOMPARE(bytes.count("fcTL"), frames);
    QCOMPARE(bytes.count("fdAT") >= frames - 1, true);
    // The first frame is a plain PNG to a reader without APNG: Qt reads it at full size.
    QCOMPARE(QImage(apng.fileName()).size(), first.size());
    // The CRC of the PNG specification's known value for "IEND".
    QCOMPARE(frameexport::crc32(QByteArray("IEND")), quint32(0xae426082));
    QCOMPARE(c->step(), 0); // back where it was
}

void TestCollectivePlayer::aMoveReplansTheWatchedGroup()
{
    // Rank 8 (DP partner of rank 0 on server 1) swapped with rank 11 (GPU 3 of server 1): the
    // DP ring now crosses rails, and the overlay shows the replanned steps.
    ScriptedWindow w(QSize(1400, 900));
    w.doc()->waitForEvaluation();
    CollectiveController *c = w.window.collectives();
    QVERIFY(c->watch({ Dim::Dp, 0, false, 0 }));
    c->setStep(1);
    const std::vector<StepLink> before = c->watched().steps.stepLinks(1);
    w.doc()->swapRanks(8, 11);
    w.doc()->waitForEvaluation();
    QCoreApplication::processEvents();
    QCOMPARE(c->step(), 1);
    const WatchedCollective model = expected(w.window, { Dim::Dp, 0, false, 0 });
    checkHighlight(c->overlay(), model.steps.stepLinks(1));
    QVERIFY(model.steps.stepLinks(1) != before);
}

void TestCollectivePlayer::aNewDocumentStopsTheWatch()
{
    // One document, one state: a watch started on one file does not follow into the next.
    ScriptedWindow w(QSize(1400, 900));
    w.doc()->waitForEvaluation();
    CollectiveController *c = w.window.collectives();
    QVERIFY(c->watch({ Dim::Dp, 5, false, 0 }));
    QVERIFY(w.window.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128-tor.json")));
    QVERIFY(!c->isWatching());
    QVERIFY(!c->player()->isVisible());
    QVERIFY(c->overlay()->highlightedLinks().empty());
}

void TestCollectivePlayer::aLessonStartsItsWatch()
{
    // A lesson file's start.watch plays that collective once the lesson's scenario is open; a
    // malformed one is refused with the field named.
    ScriptedWindow w(QSize(1400, 900));
    w.doc()->waitForEvaluation();
    QTemporaryDir dir;
    const auto lessonFile = [&dir](const char *name, const char *watch) {
        const QString path = dir.filePath(QString::fromLatin1(name));
        QFile f(path);
        if (!f.open(QIODevice::WriteOnly))
            return QString();
        f.write(QByteArray(R"({"lesson_format": 1, "id": "watch", "title": "Watch the pipeline",
            "scenario": "sample:seed-128.json", "start": {"watch": ")")
            + watch + R"("}, "goal": "Watch.", "check": [{"figure": "bubble", "below": 2}]})");
        return path;
    };
    LessonController *lessons = w.window.lessons();
    QVERIFY(lessons->addLessonFile(lessonFile("good.json", "pp:0")));
    const int index = static_cast<int>(lessons->lessons().size()) - 1;
    QCOMPARE(lessons->lessons().back().startWatch, QStringLiteral("pp:0"));
    QVERIFY(lessons->startLesson(index));
    CollectiveController *c = w.window.collectives();
    QVERIFY(c->isWatching());
    QCOMPARE(c->watched().target.dim, Dim::Pp);
    QCOMPARE(c->watched().steps.stepCount(), 6);
    const int before = static_cast<int>(lessons->lessons().size());
    QVERIFY(!lessons->addLessonFile(lessonFile("bad.json", "xp:0")));
    QCOMPARE(static_cast<int>(lessons->lessons().size()), before);
}

QTEST_MAIN(TestCollectivePlayer)
#include "tst_collectiveplayer.moc"
