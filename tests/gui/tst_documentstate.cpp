// One document, one state: a baseline pinned in Compare A/B on one file, its outlines on the
// fabric, the Compare tab raised over the Pipeline panel and a pending calibration fit belong
// to that file. Opening another file or starting a lesson starts clean: lesson 7's
// baseline_pinned check is not ticked before the student pins anything.
#include "comparepanel.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "lessoncontroller.h"
#include "mainwindow.h"
#include "scriptedwindow.h"
#include "studycontroller.h"

#include <QDockWidget>
#include <QSettings>
#include <QStandardPaths>
#include <QTest>

using namespace railyard;

namespace {

struct Fixture : ScriptedWindow
{
    Fixture()
        : ScriptedWindow(QSize(1600, 1000))
    {
    }
    StudyController *studies() const { return window.studies(); }
    QDockWidget *timeline() const
    {
        return window.findChild<QDockWidget *>(QStringLiteral("timelineDock"));
    }
    void settle()
    {
        doc()->waitForEvaluation();
        for (int i = 0; i < 4; ++i)
            QCoreApplication::processEvents();
    }
    /// Pins the document as A (the panel's button), moves two ranks: the comparison is up, its
    /// changed links outlined, its tab in front.
    void pinAndSwap()
    {
        window.showPanel(studies()->compareDock());
        QTest::mouseClick(
            studies()->comparePanel()->findChild<QWidget *>(QStringLiteral("comparePin")),
            Qt::LeftButton);
        settle();
        QVERIFY(studies()->hasBaseline());
        doc()->swapRanks(1, 8);
        settle();
        QVERIFY(studies()->comparePanel()->hasComparison());
        QVERIFY(!window.fabricView()->rootItem()->emphasis().empty());
        QVERIFY(studies()->compareDock()->isVisible());
    }
    /// Nothing of the last document's comparison is left.
    void verifyClean()
    {
        settle();
        QVERIFY(!studies()->hasBaseline());
        QVERIFY(!studies()->comparePanel()->hasComparison());
        QVERIFY(window.fabricView()->rootItem()->emphasis().empty()); // no violet outlines
        QVERIFY(!studies()->compareDock()->isVisible());
        QVERIFY(timeline()->isVisible()); // the Pipeline tab back in front
    }
    int lesson(const char *id) const
    {
        const auto &all = window.lessons()->lessons();
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].id == QLatin1String(id))
                return static_cast<int>(i);
        return -1;
    }
};

} // namespace

class TestDocumentState : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void baselineDoesNotFollowIntoALesson();
    void baselineDoesNotFollowIntoAnotherFile();
    void editsKeepTheBaseline();
};

void TestDocumentState::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_documentstate"));
}

void TestDocumentState::init()
{
    QSettings().clear();
}

void TestDocumentState::baselineDoesNotFollowIntoALesson()
{
    Fixture f;
    f.pinAndSwap();
    f.dialogs->saveChoice = UserDialogs::SaveChoice::Discard;
    const int remap = f.lesson("failure-remap");
    QVERIFY(remap >= 0);
    QVERIFY(f.window.lessons()->startLesson(remap));
    f.verifyClean();
    // The lesson's last condition is baseline_pinned: not ticked before the student pins.
    f.window.lessons()->refresh();
    const LessonState &state = f.window.lessons()->state();
    bool found = false;
    for (const ConditionState &c : state.conditions)
        if (c.text.startsWith(QLatin1String("baseline_pinned"))) {
            found = true;
            QVERIFY2(!c.met, qPrintable(c.text));
        }
    QVERIFY(found);
}

void TestDocumentState::baselineDoesNotFollowIntoAnotherFile()
{
    Fixture f;
    f.pinAndSwap();
    f.dialogs->saveChoice = UserDialogs::SaveChoice::Discard;
    QVERIFY(f.window.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128-tor.json")));
    f.verifyClean();
    // A new pin compares with the new file, not the old one.
    QTest::mouseClick(
        f.studies()->comparePanel()->findChild<QWidget *>(QStringLiteral("comparePin")),
        Qt::LeftButton);
    f.settle();
    QCOMPARE(f.studies()->baseline()->scenario().name, f.doc()->scenario().name);
}

void TestDocumentState::editsKeepTheBaseline()
{
    // What belongs to the document stays with it: an edit of the scenario (micro-batches, a
    // parameter) is not another document.
    Fixture f;
    f.pinAndSwap();
    Scenario next = f.doc()->scenario();
    next.training.globalBatch *= 2;
    QVERIFY(f.doc()->editScenario(next, QStringLiteral("Global batch")).isEmpty());
    f.settle();
    QVERIFY(f.studies()->hasBaseline());
    QVERIFY(f.studies()->compareDock()->isVisible());
}

QTEST_MAIN(TestDocumentState)
#include "tst_documentstate.moc"
