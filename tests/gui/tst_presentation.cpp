// Whiteboard mode through the real window: F5 enters presentation mode (full screen, larger
// fonts, docks, toolbar and menu bar away, the snapshot strip kept) and F5 or Esc leaves it with
// everything back as it was; shortcuts keep working meanwhile. The snapshot strip takes
// snapshots from its name field, brings them back with a click or the step keys (one undo step
// each), and compares two of them, or one with the mapping shown, in the Compare A/B dock.
#include "comparepanel.h"
#include "document/scenariodocument.h"
#include "fabricview.h"
#include "mainwindow.h"
#include "presentationmode.h"
#include "scripteddialogs.h"
#include "scriptedwindow.h"
#include "snapshotstrip.h"
#include "studycontroller.h"

#include <QAction>
#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QSettings>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTest>
#include <QTextDocument>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>

#include <memory>

using namespace railyard;

namespace {

/// The summary's items whose text (rich, two lines) does not fit their label, with why.
QStringList clippedSummaryItems(const QMainWindow &window)
{
    QStringList clipped;
    const QWidget *bar = window.findChild<QWidget *>(QStringLiteral("summaryBar"));
    if (!bar)
        return {QStringLiteral("no summary bar")};
    for (const QLabel *label : bar->findChildren<QLabel *>()) {
        if (!label->isVisible() || label->text().isEmpty())
            continue;
        QTextDocument doc;
        doc.setDefaultFont(label->font());
        doc.setDocumentMargin(0);
        doc.setHtml(label->text());
        const QRect room = label->contentsRect();
        if (doc.idealWidth() > room.width() + 1.0 || doc.size().height() > room.height() + 2.0)
            clipped << QStringLiteral("%1: needs %2x%3, has %4x%5")
                           .arg(label->objectName())
                           .arg(doc.idealWidth())
                           .arg(doc.size().height())
                           .arg(room.width())
                           .arg(room.height());
    }
    return clipped;
}

struct Fixture : ScriptedWindow
{
    Fixture() : ScriptedWindow(QSize(1400, 900)) {}
    SnapshotStrip *strip() const { return window.snapshotStrip(); }
    void settle()
    {
        doc()->waitForEvaluation();
        for (int i = 0; i < 4; ++i)
            QCoreApplication::processEvents();
    }
    QStringList shownDocks() const
    {
        QStringList out;
        for (QDockWidget *d : window.findChildren<QDockWidget *>(QString(), Qt::FindDirectChildrenOnly))
            if (!d->isHidden())
                out << d->objectName();
        out.sort();
        return out;
    }
    void take(const QString &name)
    {
        strip()->nameEdit()->setText(name);
        QTest::mouseClick(strip()->takeButton(), Qt::LeftButton);
    }
};

} // namespace

class TestPresentation : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void f5TogglesPresentationMode();
    void escapeLeavesAndShortcutsStillWork();
    void snapshotStripTakesAndSteps();
    void snapshotsCompareInTheCompareDock();
};

void TestPresentation::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_presentation"));
    QSettings().clear();
}

void TestPresentation::f5TogglesPresentationMode()
{
    Fixture f;
    QVERIFY(QTest::qWaitForWindowActive(&f.window));
    f.settle();
    const QStringList docks = f.shownDocks();
    const double points = f.window.font().pointSizeF();
    const QRect geometry = f.window.geometry();
    QVERIFY(docks.size() > 3);

    QTest::keyClick(&f.window, Qt::Key_F5);
    f.settle();
    QVERIFY(f.window.presentation()->isActive());
    QVERIFY(f.window.windowState() & Qt::WindowFullScreen);
    QCOMPARE(f.shownDocks(), QStringList{QStringLiteral("summaryDock")});
    QVERIFY(!f.window.menuBar()->isVisible());
    QVERIFY(!f.window.findChild<QToolBar *>(QStringLiteral("mainToolBar"))->isVisible());
    QVERIFY(f.strip()->isVisible());
    QVERIFY(f.window.font().pointSizeF() >= points * 1.45);
    QVERIFY(f.window.fabricView()->font().pointSizeF() >= points * 1.45); // inherited by the views
    // The summary's columns and height follow the larger font: nothing clipped.
    const QStringList clipped = clippedSummaryItems(f.window);
    QVERIFY2(clipped.isEmpty(), qPrintable(clipped.join(QLatin1Char('\n'))));
    QVERIFY(f.window.fabricView()->noticeText().contains(QStringLiteral("Presentation mode")));

    QTest::keyClick(&f.window, Qt::Key_F5);
    f.settle();
    QVERIFY(!f.window.presentation()->isActive());
    QVERIFY(!(f.window.windowState() & Qt::WindowFullScreen));
    QCOMPARE(f.shownDocks(), docks);
    QVERIFY(f.window.menuBar()->isVisible());
    QCOMPARE(f.window.font().pointSizeF(), points);
    QCOMPARE(f.window.geometry(), geometry);
    QVERIFY(clippedSummaryItems(f.window).isEmpty());
}

void TestPresentation::escapeLeavesAndShortcutsStillWork()
{
    Fixture f;
    QVERIFY(QTest::qWaitForWindowActive(&f.window));
    f.window.presentation()->setActive(true);
    f.settle();
    const std::vector<int> before = f.doc()->scenario().slots;
    f.doc()->swapRanks(0, 9);
    // The menu bar is hidden, its actions still answer their keys.
    QTest::keyClick(f.window.fabricView(), Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(f.doc()->scenario().slots, before);
    QTest::keyClick(f.window.fabricView(), Qt::Key_Escape);
    f.settle();
    QVERIFY(!f.window.presentation()->isActive());
    QVERIFY(f.window.menuBar()->isVisible());
}

void TestPresentation::snapshotStripTakesAndSteps()
{
    Fixture f;
    QVERIFY(QTest::qWaitForWindowActive(&f.window));
    const std::vector<int> packed = f.doc()->scenario().slots;
    f.take(QStringLiteral("packed"));
    QCOMPARE(f.doc()->scenario().snapshots.size(), std::size_t{1});
    QCOMPARE(f.strip()->snapshotButtons().size(), std::size_t{1});
    QVERIFY(f.strip()->snapshotButtons()[0]->isChecked()); // it is the mapping shown
    QVERIFY(f.strip()->nameEdit()->text().isEmpty());
    f.doc()->applyPlacement(Placement::Scattered);
    const std::vector<int> scattered = f.doc()->scenario().slots;
    QVERIFY(!f.strip()->snapshotButtons()[0]->isChecked());
    f.take(QString()); // no name: v2
    QCOMPARE(f.doc()->scenario().snapshots[1].name, std::string("v2"));
    const int steps = f.doc()->undoStack()->count();

    QTest::mouseClick(f.strip()->snapshotButtons()[0], Qt::LeftButton);
    f.settle();
    QCOMPARE(f.doc()->scenario().slots, packed);
    QCOMPARE(f.doc()->undoStack()->count(), steps + 1);
    QVERIFY(f.strip()->snapshotButtons()[0]->isChecked());
    QVERIFY(!f.strip()->previousAction()->isEnabled());
    QVERIFY(f.strip()->nextAction()->isEnabled());

    QTest::keyClick(&f.window, Qt::Key_PageDown, Qt::ControlModifier);
    f.settle();
    QCOMPARE(f.doc()->scenario().slots, scattered);
    QVERIFY(f.strip()->snapshotButtons()[1]->isChecked());
    // In presentation mode the plain page keys step (a presenter's clicker).
    f.window.presentation()->setActive(true);
    f.settle();
    QTest::keyClick(&f.window, Qt::Key_PageUp);
    f.settle();
    QCOMPARE(f.doc()->scenario().slots, packed);
    f.doc()->undoStack()->undo();
    QCOMPARE(f.doc()->scenario().slots, scattered);
    f.window.presentation()->setActive(false);
}

void TestPresentation::snapshotsCompareInTheCompareDock()
{
    Fixture f;
    f.take(QStringLiteral("packed"));
    f.doc()->applyPlacement(Placement::Scattered);
    f.take(QStringLiteral("scattered"));
    f.doc()->applyPlacement(Placement::Packed);
    f.settle();
    // "packed" (A) against "scattered" (B), from the first snapshot's menu.
    QMenu *menu = f.strip()->snapshotMenu(0);
    QAction *withOther = menu->findChild<QAction *>(QStringLiteral("actionCompareSnapshot-1"));
    QVERIFY(withOther);
    withOther->trigger();
    f.settle();
    StudyController *studies = f.window.studies();
    QVERIFY(studies->hasBaseline());
    QVERIFY(studies->comparesFixedB());
    QVERIFY(f.window.findChild<QDockWidget *>(QStringLiteral("compareDock"))->isVisible());
    ComparePanel *panel = studies->comparePanel();
    QVERIFY(panel->hasComparison());
    // Scattered splits every TP group: B has 16 across servers, A none.
    QCOMPARE(panel->figureText(QStringLiteral("TP groups across servers"), 1), QStringLiteral("0"));
    QCOMPARE(panel->figureText(QStringLiteral("TP groups across servers"), 2), QStringLiteral("16"));
    // The document (packed) is not B: an edit leaves the comparison as it is.
    f.doc()->swapRanks(0, 9);
    f.settle();
    QCOMPARE(panel->figureText(QStringLiteral("TP groups across servers"), 2), QStringLiteral("16"));

    // One snapshot against the mapping shown: B follows the document again.
    QMenu *second = f.strip()->snapshotMenu(1);
    second->findChild<QAction *>(QStringLiteral("actionCompareSnapshotWithShown"))->trigger();
    f.settle();
    QVERIFY(!studies->comparesFixedB());
    QCOMPARE(panel->figureText(QStringLiteral("TP groups across servers"), 1), QStringLiteral("16"));
    // The mapping shown is packed with ranks 0 and 9 swapped: rank 0 (TP group 0) now sits on
    // node001 and rank 9 (group 1) on node000, so exactly those two groups span two servers.
    QCOMPARE(panel->figureText(QStringLiteral("TP groups across servers"), 2), QStringLiteral("2"));
}

QTEST_MAIN(TestPresentation)
#include "tst_presentation.moc"
