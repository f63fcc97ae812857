// No accidents in front of a room: the unsaved-changes prompt names the action and presses
// nothing on plain keys (Enter and Esc cancel), samples and read-only files save through Save As,
// Ctrl+Z / Ctrl+Shift+Z reach the document whatever has focus, the toolbar and the summary bar
// keep their geometry after an edit, a preset that changes nothing is no undo step and says so,
// study tabs of the last file make way for the timeline, and the fabric pans with Shift+wheel
// and Space+drag. Driven through the real MainWindow and its widgets (offscreen).
#include "document/scenariodocument.h"
#include "documentfiles.h"
#include "fabricview.h"
#include "inspectorpanel.h"
#include "mainactions.h"
#include "mainwindow.h"
#include "rankpalette.h"
#include "savechangesprompt.h"
#include "scenario/scenariofile.h"
#include "slotitem.h"
#include "studycontroller.h"
#include "summarybar.h"
#include "scripteddialogs.h"
#include "scriptedwindow.h"

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QGraphicsScene>
#include <QLabel>
#include <QPushButton>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolBar>
#include <QUndoStack>
#include <QWheelEvent>

#include <memory>

using namespace railyard;

namespace {


struct Fixture : ScriptedWindow
{
    Fixture() : ScriptedWindow(QSize(), false)
    {
        dialogs->saveChoice = UserDialogs::SaveChoice::Cancel; // nothing is lost by accident
    }
    QAction *action(const char *name) const { return window.actions()->action(QString::fromLatin1(name)); }
    QDockWidget *dock(const char *name) const { return window.findChild<QDockWidget *>(QString::fromLatin1(name)); }
};

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// The tab QMainWindow shows in front of the tab group holding `dock`, or empty.
QString frontTab(const QMainWindow &window, const QDockWidget *dock)
{
    for (QTabBar *bar : window.findChildren<QTabBar *>(QString(), Qt::FindDirectChildrenOnly))
        for (int i = 0; i < bar->count(); ++i)
            if (bar->tabText(i) == dock->windowTitle() && bar->isVisible())
                return bar->tabText(bar->currentIndex());
    return QString();
}

void wheel(QWidget *viewport, const QPoint &pos, const QPoint &angle, Qt::KeyboardModifiers modifiers)
{
    QWheelEvent event(pos, viewport->mapToGlobal(pos), QPoint(), angle, Qt::NoButton, modifiers,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(viewport, &event);
}

QPoint chipPos(const FabricView &view, int rank)
{
    for (QGraphicsItem *item : view.scene()->items())
        if (item->type() == SlotItem::Type && item->data(SlotItem::kRankKey).toInt() == rank)
            return view.mapFromScene(item->sceneBoundingRect().center());
    return QPoint(-1, -1);
}

} // namespace

class TestNoAccidents : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void promptPressesNothingOnPlainKeys();
    void promptNamesTheAction();
    void sampleSavesThroughSaveAs();
    void readOnlyFileSavesThroughSaveAs();
    void saveAsRefusesASample();
    void shippedSamplesAreProtected();
    void undoRedoFromAFocusedSpinBox();
    void toolbarKeepsItsGeometryAfterAnEdit();
    void summaryColumnsStayWhenTheBottleneckChanges();
    void presetThatChangesNothingIsNoStep();
    void presetSaysWhatItDid();
    void studyTabOfTheLastFileMakesWay();
    void compareIsNotRaisedAtTheNextLaunch();
    void shiftWheelPans();
    void spaceDragPansEvenOverAChip();

private:
    QTemporaryDir m_dir;
};

void TestNoAccidents::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_noaccidents"));
    QVERIFY(m_dir.isValid());
}

void TestNoAccidents::init()
{
    QSettings().clear();
}

void TestNoAccidents::promptPressesNothingOnPlainKeys()
{
    // The real prompt of UserDialogs, typed at as if the user went on typing a path after
    // Ctrl+O: "samples/seed-128.json" holds an s, a d, an a... none may press a button.
    UserDialogs dialogs;
    bool stillOpen = false;
    QString question;
    QTimer::singleShot(0, [&] {
        auto *prompt = qobject_cast<SaveChangesPrompt *>(QApplication::activeModalWidget());
        if (!prompt)
            return;
        question = prompt->question();
        QTest::keyClicks(prompt->focusWidget() ? prompt->focusWidget() : prompt,
                         QStringLiteral("samples/seed-128.json sdc"));
        stillOpen = prompt->isVisible();
        QTest::keyClick(prompt->focusWidget() ? prompt->focusWidget() : prompt, Qt::Key_Return);
    });
    const UserDialogs::SaveChoice choice
        = dialogs.askToSaveChanges(nullptr, QStringLiteral("seed-128.json"), QStringLiteral("opening another file"));
    QVERIFY2(stillOpen, "a plain letter key pressed a button of the unsaved-changes prompt");
    QCOMPARE(int(choice), int(UserDialogs::SaveChoice::Cancel)); // Enter cancels
    QCOMPARE(question, QStringLiteral("Save changes to \"seed-128.json\" before opening another file?"));

    // Alt+S is the way to save; Esc cancels.
    SaveChangesPrompt prompt(QStringLiteral("x.json"), QStringLiteral("closing"));
    prompt.show();
    QVERIFY(QTest::qWaitForWindowExposed(&prompt));
    QVERIFY(prompt.cancelButton()->isDefault());
    QVERIFY(!prompt.saveButton()->isDefault() && !prompt.saveButton()->autoDefault());
    QTest::keyClick(&prompt, Qt::Key_Escape);
    QCOMPARE(prompt.answer(), SaveChangesPrompt::Cancel);
    QVERIFY(!prompt.isVisible());
    SaveChangesPrompt again(QStringLiteral("x.json"), QStringLiteral("closing"));
    again.show();
    QVERIFY(QTest::qWaitForWindowActive(&again));
    QTest::keyClick(&again, Qt::Key_S, Qt::AltModifier);
    QTRY_COMPARE(again.answer(), SaveChangesPrompt::Save); // a mnemonic animates its click first
}

void TestNoAccidents::promptNamesTheAction()
{
    Fixture f;
    f.doc()->swapRanks(0, 9);
    f.dialogs->saveChoice = UserDialogs::SaveChoice::Cancel;
    f.action("actionOpen")->trigger();
    f.action("actionNew")->trigger();
    QVERIFY(!f.window.close()); // cancelled: the window stays
    QCOMPARE(f.dialogs->actions, (QStringList{QStringLiteral("opening another file"),
                                              QStringLiteral("starting a new scenario"), QStringLiteral("closing")}));
    QVERIFY(f.doc()->isModified());
}

void TestNoAccidents::sampleSavesThroughSaveAs()
{
    // A copy of the samples folder stands in for the shipped one.
    QTemporaryDir samples;
    const QString sample = samples.filePath(QStringLiteral("seed-128.json"));
    QVERIFY(QFile::copy(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json"), sample));
    const QByteArray original = readAll(sample);
    Fixture f;
    f.window.files()->setSampleDirectories({samples.path()});
    QVERIFY(f.window.openFile(sample));
    f.doc()->swapRanks(0, 9);
    const QString mine = m_dir.filePath(QStringLiteral("my-seed.json"));
    f.dialogs->saveName = mine;
    f.action("actionSave")->trigger();
    QCOMPARE(f.dialogs->saveNameQuestions, 1); // Save asked for a name
    QCOMPARE(readAll(sample), original);      // the sample is untouched
    QCOMPARE(f.doc()->filePath(), mine);
    QVERIFY(!f.doc()->isModified());
    QCOMPARE(loadScenario(mine.toStdString()).slots, f.doc()->scenario().slots);

    // The prompt's Save takes the same path: a modified sample is never written in place.
    QVERIFY(f.window.openFile(sample));
    f.doc()->swapRanks(1, 10);
    f.dialogs->saveChoice = UserDialogs::SaveChoice::Save;
    f.dialogs->saveName.clear(); // then cancel the name: nothing is written, nothing is lost
    f.dialogs->openName = sample;
    f.action("actionOpen")->trigger();
    QCOMPARE(f.dialogs->saveNameQuestions, 2);
    QCOMPARE(readAll(sample), original);
    QVERIFY(f.doc()->isModified());
}

void TestNoAccidents::readOnlyFileSavesThroughSaveAs()
{
    const QString path = m_dir.filePath(QStringLiteral("locked.json"));
    QVERIFY(QFile::copy(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json"), path));
    QVERIFY(QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::ReadGroup | QFileDevice::ReadOther));
    const QByteArray original = readAll(path);
    Fixture f;
    QVERIFY(f.window.openFile(path));
    QVERIFY(f.window.files()->isProtected(path));
    f.doc()->swapRanks(0, 9);
    f.dialogs->saveName = m_dir.filePath(QStringLiteral("unlocked.json"));
    f.action("actionSave")->trigger();
    QCOMPARE(f.dialogs->saveNameQuestions, 1);
    QCOMPARE(readAll(path), original);
    QCOMPARE(f.doc()->filePath(), f.dialogs->saveName);
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
}

void TestNoAccidents::saveAsRefusesASample()
{
    QTemporaryDir samples;
    const QString sample = samples.filePath(QStringLiteral("seed-128.json"));
    QVERIFY(QFile::copy(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json"), sample));
    const QByteArray original = readAll(sample);
    Fixture f;
    f.window.files()->setSampleDirectories({samples.path()});
    f.doc()->swapRanks(0, 9);
    f.dialogs->saveName = sample;
    f.action("actionSaveAs")->trigger();
    QCOMPARE(readAll(sample), original);
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY2(f.dialogs->errors.front().contains(QStringLiteral("shipped samples")), qPrintable(f.dialogs->errors.front()));
    QVERIFY(f.doc()->isModified());
}

void TestNoAccidents::shippedSamplesAreProtected()
{
    Fixture f;
    const QString sample = QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    QVERIFY(f.window.files()->isProtected(sample));
    QVERIFY(!f.window.files()->isProtected(m_dir.filePath(QStringLiteral("new.json"))));
}

void TestNoAccidents::undoRedoFromAFocusedSpinBox()
{
    Fixture f;
    f.window.resize(1400, 900);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowActive(&f.window));
    f.window.showPanel(f.dock("inspectorDock"));
    auto *spin = qobject_cast<QSpinBox *>(f.window.inspector()->editor(QStringLiteral("training.global_batch")));
    QVERIFY(spin);
    const int before = f.doc()->scenario().training.globalBatch;
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    spin->setValue(before * 2); // one committed edit, the spin box keeps the focus
    QCOMPARE(f.doc()->undoStack()->count(), 1);
    QCOMPARE(f.doc()->scenario().training.globalBatch, before * 2);
    QVERIFY(f.action("actionUndo")->isEnabled());

    QTest::keyClick(spin, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(f.doc()->scenario().training.globalBatch, before);
    QCOMPARE(f.doc()->undoStack()->index(), 0);
    QTest::keyClick(spin, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(f.doc()->scenario().training.globalBatch, before * 2);
    QTest::keyClick(spin, Qt::Key_Z, Qt::ControlModifier);
    QTest::keyClick(spin, Qt::Key_Y, Qt::ControlModifier);
    QCOMPARE(f.doc()->scenario().training.globalBatch, before * 2);
}

void TestNoAccidents::toolbarKeepsItsGeometryAfterAnEdit()
{
    Fixture f;
    f.window.resize(1400, 900);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    auto *bar = f.window.findChild<QToolBar *>(QStringLiteral("mainToolBar"));
    QVERIFY(bar);
    auto geometries = [bar] {
        QList<QRect> out;
        for (QAction *a : bar->actions())
            if (QWidget *w = bar->widgetForAction(a))
                out << w->geometry();
        return out;
    };
    const QList<QRect> before = geometries();
    f.doc()->swapRanks(0, 9); // the undo step is named "Swap rank 0 (d0 p0 t0) and rank 9 (...)"
    QCoreApplication::processEvents();
    QVERIFY(f.action("actionUndo")->text().contains(QStringLiteral("Swap")));
    QCOMPARE(geometries(), before);
    QCOMPARE(bar->widgetForAction(f.action("actionUndo"))->property("text").toString(), QStringLiteral("Undo"));
}

void TestNoAccidents::summaryColumnsStayWhenTheBottleneckChanges()
{
    Fixture f;
    f.window.resize(1400, 900);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    SummaryBar *bar = f.window.summaryBar();
    auto columns = [bar] {
        QList<QRect> out;
        for (QLabel *l : {bar->iterationLabel(), bar->mfuLabel(), bar->bubbleLabel(), bar->bottleneckLabel(),
                          bar->spineLabel(), bar->memoryLabel(), bar->warningsLabel()})
            out << l->geometry();
        return out;
    };
    const QList<QRect> before = columns();
    const QString oldName = bar->bottleneckLabel()->toolTip().section(QLatin1Char('\n'), 0, 0);
    f.doc()->applyPlacement(Placement::Scattered); // another bottleneck, another name length
    QCoreApplication::processEvents();
    const QString newName = bar->bottleneckLabel()->toolTip().section(QLatin1Char('\n'), 0, 0);
    QVERIFY2(oldName.size() != newName.size(), qPrintable(oldName + QStringLiteral(" / ") + newName));
    QCOMPARE(columns(), before);
}

void TestNoAccidents::presetThatChangesNothingIsNoStep()
{
    // seed-128 is packed with tp 8 = 8 GPUs per server: already rail-aligned.
    Fixture f;
    f.action("actionPlacementRailAligned")->trigger();
    QCOMPARE(f.doc()->undoStack()->count(), 0);
    QVERIFY(!f.doc()->isModified());
    QVERIFY(!f.action("actionUndo")->isEnabled());
    QVERIFY2(f.window.rankPalette()->presetResultLabel()->text().contains(QStringLiteral("nothing changed")),
             qPrintable(f.window.rankPalette()->presetResultLabel()->text()));
}

void TestNoAccidents::presetSaysWhatItDid()
{
    Fixture f;
    f.window.resize(1400, 900);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    const QList<QPushButton *> scattered = f.window.rankPalette()->findChildren<QPushButton *>();
    QPushButton *button = nullptr;
    for (QPushButton *b : scattered)
        if (b->text() == QStringLiteral("Scattered"))
            button = b;
    QVERIFY(button);
    QTest::mouseClick(button, Qt::LeftButton);
    QCOMPARE(f.doc()->undoStack()->count(), 1);
    QLabel *result = f.window.rankPalette()->presetResultLabel();
    QVERIFY(result->isVisible());
    // Scattered puts rank r = 16a + b on slot 8b + a (server r mod 16, GPU r / 16); packed on
    // slot r. They agree where 15a = 7b, i.e. ranks 0 and 127: 126 ranks move.
    QVERIFY2(result->text().contains(QStringLiteral("Scattered: 126 ranks moved")), qPrintable(result->text()));
    QCOMPARE(f.window.fabricView()->noticeText(), result->text());
    f.doc()->undoStack()->undo(); // the line is about the last preset only
    QVERIFY(!result->isVisible());
}

void TestNoAccidents::studyTabOfTheLastFileMakesWay()
{
    Fixture f;
    f.window.resize(1400, 900);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    QDockWidget *inference = f.dock("inferenceDock");
    QDockWidget *timeline = f.dock("timelineDock");
    QVERIFY(f.window.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/inference-disaggregated.json")));
    QTRY_VERIFY(inference->isVisible());
    QTRY_COMPARE(frontTab(f.window, timeline), inference->windowTitle());

    QVERIFY(f.window.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json")));
    QCoreApplication::processEvents();
    QVERIFY(!inference->isVisible());
    QVERIFY(timeline->isVisible());
    QVERIFY(!timeline->visibleRegion().isEmpty()); // in front, not behind a tab
}

void TestNoAccidents::compareIsNotRaisedAtTheNextLaunch()
{
    {
        Fixture f;
        f.window.resize(1400, 900);
        f.window.show();
        QVERIFY(QTest::qWaitForWindowExposed(&f.window));
        f.window.studies()->pinBaseline();
        QVERIFY(f.dock("compareDock")->isVisible());
        f.window.writeSettings();
    }
    Fixture g;
    g.window.readSettings();
    g.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&g.window));
    QCoreApplication::processEvents();
    QVERIFY(!g.window.studies()->hasBaseline());
    QVERIFY(!g.dock("compareDock")->isVisible());
    QVERIFY(!g.dock("timelineDock")->visibleRegion().isEmpty());
}

void TestNoAccidents::shiftWheelPans()
{
    Fixture f;
    f.window.resize(1400, 900);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    FabricView *view = f.window.fabricView();
    QScrollBar *h = view->horizontalScrollBar();
    for (int i = 0; i < 12 && h->maximum() - h->minimum() < view->viewport()->width(); ++i)
        view->zoomIn(); // zoomed in: there is room to pan
    QVERIFY(h->maximum() - h->minimum() >= view->viewport()->width());
    const double zoom = view->zoom();
    h->setValue((h->minimum() + h->maximum()) / 2);
    const int x = h->value();
    wheel(view->viewport(), view->viewport()->rect().center(), QPoint(0, -120), Qt::ShiftModifier);
    QCOMPARE(view->zoom(), zoom); // no zoom
    QVERIFY2(h->value() > x, qPrintable(QStringLiteral("%1 -> %2").arg(x).arg(h->value())));
    wheel(view->viewport(), view->viewport()->rect().center(), QPoint(0, 120), Qt::NoModifier);
    QVERIFY(view->zoom() > zoom); // the plain wheel still zooms
}

void TestNoAccidents::spaceDragPansEvenOverAChip()
{
    Fixture f;
    f.window.resize(1400, 900);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowActive(&f.window));
    FabricView *view = f.window.fabricView();
    view->setFocus();
    QScrollBar *h = view->horizontalScrollBar();
    for (int i = 0; i < 12 && h->maximum() - h->minimum() < 2 * view->viewport()->width(); ++i)
        view->zoomIn(); // room to pan 100 px either way wherever the chip is
    // Rank 28 (server 3 of the 8 in a rack column) lies away from the scene's top and bottom
    // edges, so the picture can follow the hand down as well.
    view->selectRank(28); // scrolls rank 28's chip into view
    const QPoint chip = chipPos(*view, 28);
    QVERIFY(view->viewport()->rect().contains(chip));
    const QPoint scroll(view->horizontalScrollBar()->value(), view->verticalScrollBar()->value());
    QTest::keyPress(view, Qt::Key_Space);
    QTest::mousePress(view->viewport(), Qt::LeftButton, {}, chip);
    for (int i = 1; i <= 5; ++i) {
        QMouseEvent move(QEvent::MouseMove, chip + QPoint(-20 * i, -10 * i), view->viewport()->mapToGlobal(chip + QPoint(-20 * i, -10 * i)),
                         Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(view->viewport(), &move);
    }
    QTest::mouseRelease(view->viewport(), Qt::LeftButton, {}, chip + QPoint(-100, -50));
    QTest::keyRelease(view, Qt::Key_Space);
    const QPoint after(view->horizontalScrollBar()->value(), view->verticalScrollBar()->value());
    QCOMPARE(after - scroll, QPoint(100, 50)); // the picture followed the hand
    QCOMPARE(f.doc()->undoStack()->count(), 0); // and no rank moved
}

QTEST_MAIN(TestNoAccidents)
#include "tst_noaccidents.moc"
