// The Lessons dock: every built-in lesson reads, starts on its scenario with its goal unmet,
// and is solved by driving the real widgets (a preset button, a chip dragged with the mouse,
// an inspector field, the micro-batch spin box, the fabric's failure menu and the remap
// dialog); the check then holds, from the engine's figures, and the explanation shows them.
// A teacher's lesson file loads; malformed ones are refused naming the file and the field.
// Every solved lesson's explanation opens with the engine's attribution of the change and its
// framing names the cause that dominates it (the dimension whose exposed time changed most, or
// whose bytes moved most between tiers when no time changed): a lesson cannot teach a
// mechanism the engine does not show.
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "fabricview.h"
#include "inspectorpanel.h"
#include "lesson.h"
#include "lessoncontroller.h"
#include "lessonfigures.h"
#include "lessonspanel.h"
#include "mainwindow.h"
#include "rankpalette.h"
#include "remapdialog.h"
#include "scripteddialogs.h"
#include "scriptedwindow.h"
#include "slotitem.h"
#include "studies/changeattribution.h"
#include "studycontroller.h"
#include "timelineview.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QGraphicsScene>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>
#include <memory>
#include <utility>

using namespace railyard;

namespace {

struct Fixture : ScriptedWindow
{
    Fixture() : ScriptedWindow(QSize(1600, 1000)) {}
    LessonController *lessons() const { return window.lessons(); }
    LessonsPanel *panel() const { return window.lessons()->panel(); }
    void settle()
    {
        doc()->waitForEvaluation();
        for (int i = 0; i < 4; ++i)
            QCoreApplication::processEvents();
    }
    int lesson(const char *id) const
    {
        const auto &all = lessons()->lessons();
        for (std::size_t i = 0; i < all.size(); ++i)
            if (all[i].id == QLatin1String(id))
                return static_cast<int>(i);
        return -1;
    }
    /// Starts a lesson by its panel: pick it in the list, press Start.
    void start(const char *id)
    {
        const int index = lesson(id);
        QVERIFY2(index >= 0, id);
        panel()->lessonList()->setCurrentRow(index);
        QTest::mouseClick(panel()->startButton(), Qt::LeftButton);
        settle();
        QCOMPARE(lessons()->activeLesson(), index);
        QVERIFY2(!lessons()->state().met, "the goal holds before anything was done");
        QVERIFY(!panel()->explanationLabel()->isVisible());
        startReport = doc()->report();
    }
    /// The cause dominating the change since start(), from the two reports (the rule
    /// attributeChange() documents): the largest change of a dimension's exposed time or of
    /// the rest of the iteration (compute and bubble) when one reaches 0.1 % of the iteration,
    /// else the dimension whose bytes moved most between tiers. "TP", "DP", ..., or "bubble".
    QString expectedDominant() const
    {
        const CostReport &a = startReport, &b = doc()->report();
        double largest = 0.0, rest = b.iterationTime - a.iterationTime;
        QString name;
        for (Dim d : kAllDims) {
            const double delta = b.dimExposed[static_cast<std::size_t>(index(d))]
                - a.dimExposed[static_cast<std::size_t>(index(d))];
            rest -= delta;
            if (std::abs(delta) > largest) {
                largest = std::abs(delta);
                name = QString::fromLatin1(dimName(d).data(), 2).toUpper();
            }
        }
        if (std::abs(rest) > largest) {
            largest = std::abs(rest);
            name = QStringLiteral("bubble");
        }
        if (largest >= 1e-3 * std::max(a.iterationTime, b.iterationTime))
            return name;
        double moved = 0.0;
        for (Dim d : kAllDims) {
            double sum = 0.0;
            for (Tier t : kAllTiers)
                sum += std::abs(b.tierBytes[static_cast<std::size_t>(index(t))]
                                           [static_cast<std::size_t>(index(d))]
                    - a.tierBytes[static_cast<std::size_t>(index(t))]
                                 [static_cast<std::size_t>(index(d))]);
            if (sum > moved) {
                moved = sum;
                name = QString::fromLatin1(dimName(d).data(), 2).toUpper();
            }
        }
        return name;
    }
    /// The explanation shown opens with the engine's attribution, and the lesson's own framing
    /// names the dominant cause.
    void verifyExplanationNamesTheCause()
    {
        const QString dominant = expectedDominant();
        QVERIFY(!dominant.isEmpty());
        const ChangeAttribution &why = lessons()->attribution();
        const QString engineName = QString::fromStdString(why.dominantName());
        QVERIFY2(engineName == dominant
                || (dominant == QLatin1String("bubble") && engineName.contains(dominant)),
            qPrintable(engineName + QStringLiteral(" vs ") + dominant));
        const QString shown = panel()->explanationLabel()->text();
        QVERIFY2(shown.startsWith(QString::fromStdString(describeChange(why))), qPrintable(shown));
        const QRegularExpression word(QStringLiteral("\\b%1\\b").arg(dominant));
        QVERIFY2(shown.contains(word), qPrintable(shown));
        const Lesson &lesson
            = lessons()->lessons()[static_cast<std::size_t>(lessons()->activeLesson())];
        QVERIFY2(lesson.explanation.contains(word),
            qPrintable(QStringLiteral("lesson %1: the engine attributes the change to %2, its "
                                      "explanation never names it: %3")
                           .arg(lesson.id, dominant, lesson.explanation)));
    }
    void verifyMet()
    {
        settle();
        lessons()->refresh();
        QString why;
        for (const ConditionState &c : lessons()->state().conditions)
            why += c.text + QLatin1Char('\n');
        QVERIFY2(lessons()->state().met, qPrintable(why));
        QVERIFY(panel()->explanationLabel()->isVisible());
        QVERIFY(
            !panel()->explanationLabel()->text().contains(QLatin1Char('{'))); // figures filled in
        verifyExplanationNamesTheCause();
    }
    QPoint chip(int rank) const
    {
        FabricView *view = window.fabricView();
        for (QGraphicsItem *item : view->scene()->items())
            if (item->type() == SlotItem::Type && item->data(SlotItem::kRankKey).toInt() == rank)
                return view->mapFromScene(item->sceneBoundingRect().center());
        return QPoint(-1, -1);
    }
    void drag(int from, int to)
    {
        QWidget *vp = window.fabricView()->viewport();
        const QPoint a = chip(from), b = chip(to);
        QVERIFY(vp->rect().contains(a) && vp->rect().contains(b));
        QTest::mousePress(vp, Qt::LeftButton, {}, a);
        QTest::mouseMove(vp, a + QPoint(20, 20));
        QTest::mouseMove(vp, b);
        QTest::mouseRelease(vp, Qt::LeftButton, {}, b);
    }
    QPushButton *paletteButton(const QString &text) const
    {
        for (QPushButton *b : window.rankPalette()->findChildren<QPushButton *>())
            if (b->text() == text)
                return b;
        return nullptr;
    }
    CostReport startReport;
};

} // namespace

class TestLessons : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void builtInLessonsAreOffered();
    void tpInsideTheScaleUpDomain();
    void tpSplitByOneSwap();
    void dpLeavesItsRail();
    void ppBoundaryOnToRWiring();
    void bubbleVersusMicrobatches();
    void epDispatchOntoTheSpine();
    void failureRemapAndItsBaseline();
    void hintsOneAtATime();
    void startAsksBeforeLosingChanges();
    void teacherLessonFile();
    void malformedLessons_data();
    void malformedLessons();
};

void TestLessons::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_lessons"));
}

void TestLessons::init()
{
    QSettings().clear();
}

void TestLessons::builtInLessonsAreOffered()
{
    Fixture f;
    const auto &all = f.lessons()->lessons();
    QVERIFY(all.size() >= 6);
    // Every built-in lesson is solved below (its asked steps through the real widgets).
    const QStringList solved = { QStringLiteral("tp-scale-up"), QStringLiteral("tp-split-by-swap"),
        QStringLiteral("dp-leaves-its-rail"), QStringLiteral("pp-boundary-wiring"),
        QStringLiteral("bubble-microbatches"), QStringLiteral("ep-dispatch-spine"),
        QStringLiteral("failure-remap") };
    QStringList ids;
    for (const Lesson &l : all)
        ids << l.id;
    QCOMPARE(ids, solved);
    QCOMPARE(f.panel()->lessonList()->count(), static_cast<int>(all.size()));
    for (const Lesson &l : all) {
        QVERIFY(!l.goal.isEmpty());
        QVERIFY(!l.check.empty());
        QVERIFY(!l.hints.isEmpty());
        QVERIFY(!l.explanation.isEmpty());
    }
}

void TestLessons::tpInsideTheScaleUpDomain()
{
    Fixture f;
    f.start("tp-scale-up");
    QCOMPARE(f.doc()->scenario().placement, Placement::Scattered);
    QVERIFY(f.doc()->filePath().isEmpty()); // untitled: nothing is written over a sample
    QTest::mouseClick(f.paletteButton(QStringLiteral("Rail-aligned")), Qt::LeftButton);
    f.verifyMet();
    QCOMPARE(LessonFigures::value(QStringLiteral("tp_groups_across_servers"), {f.doc(), false, nullptr}).number.value(), 0.0);
}

void TestLessons::tpSplitByOneSwap()
{
    Fixture f;
    f.start("tp-split-by-swap");
    QCOMPARE(f.doc()->report().spineBytesShare, 0.0);
    f.window.fabricView()->fitAll();
    f.drag(1, 8); // t1 on node000 onto t0 on node001: two TP groups split, both ranks change rails
    QCOMPARE(f.doc()->undoStack()->count(), 1);
    f.verifyMet();
    // The engine's figures (railyard-cli evaluate seed-128.json --swap 1:8): TP dominates.
    const CostReport &r = f.doc()->report();
    const auto spine = static_cast<std::size_t>(index(Tier::Spine));
    QVERIFY(r.tierBytes[spine][static_cast<std::size_t>(index(Dim::Tp))]
        > 10.0 * r.tierBytes[spine][static_cast<std::size_t>(index(Dim::Dp))]);
    QCOMPARE(
        QString::fromStdString(f.lessons()->attribution().dominantName()), QStringLiteral("TP"));
    QVERIFY(f.panel()->explanationLabel()->text().contains(QStringLiteral("on TP")));
    // The picture of the explanation, when asked for.
    if (const QByteArray dir = qgetenv("RAILYARD_SCREENSHOT_DIR"); !dir.isEmpty())
        QVERIFY(f.window.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/lesson-explanation.png")));
}

void TestLessons::dpLeavesItsRail()
{
    Fixture f;
    f.start("dp-leaves-its-rail");
    f.window.fabricView()->fitAll();
    // GPU 0 <-> GPU 1 inside each server of pipeline d = 0: TP groups stay whole, each
    // pipeline stays on one rail, only the DP groups of shards 0 and 1 change rails.
    for (const auto &[a, b] :
        { std::pair { 0, 1 }, std::pair { 32, 33 }, std::pair { 64, 65 }, std::pair { 96, 97 } }) {
        f.drag(a, b);
        f.settle();
    }
    QCOMPARE(f.doc()->undoStack()->count(), 4);
    f.verifyMet();
    const CostReport &r = f.doc()->report();
    const auto spine = static_cast<std::size_t>(index(Tier::Spine));
    QVERIFY(r.tierBytes[spine][static_cast<std::size_t>(index(Dim::Dp))] > 0.0);
    for (Dim d : { Dim::Tp, Dim::Pp, Dim::Ep, Dim::Cp })
        QCOMPARE(r.tierBytes[spine][static_cast<std::size_t>(index(d))], 0.0);
    QCOMPARE(
        QString::fromStdString(f.lessons()->attribution().dominantName()), QStringLiteral("DP"));
}

void TestLessons::ppBoundaryOnToRWiring()
{
    Fixture f;
    f.start("pp-boundary-wiring");
    const auto spinePp = [&f] {
        return f.doc()->report().tierBytes[static_cast<std::size_t>(index(Tier::Spine))][static_cast<std::size_t>(index(Dim::Pp))];
    };
    QVERIFY(spinePp() > 0.0);
    // Inspector > order: stages before replicas.
    f.window.showPanel(f.window.findChild<QDockWidget *>(QStringLiteral("inspectorDock")));
    QWidget *editor = f.window.inspector()->editor(QStringLiteral("parallel.order"));
    QVERIFY(editor);
    if (auto *combo = qobject_cast<QComboBox *>(editor)) {
        const int i = combo->findData(QStringLiteral("tp-cp-ep-pp-dp"));
        QVERIFY(i >= 0);
        combo->setCurrentIndex(i);
    } else {
        auto *line = qobject_cast<QLineEdit *>(editor);
        QVERIFY(line);
        line->setFocus();
        line->selectAll();
        QTest::keyClicks(line, QStringLiteral("tp-cp-ep-pp-dp"));
        QTest::keyClick(line, Qt::Key_Return);
    }
    QCOMPARE(f.doc()->scenario().order, std::string("tp-cp-ep-pp-dp"));
    f.verifyMet();
    QCOMPARE(spinePp(), 0.0);
}

void TestLessons::bubbleVersusMicrobatches()
{
    Fixture f;
    f.start("bubble-microbatches");
    QCOMPARE(f.doc()->engine().plan().microbatches, 4);
    auto *spin = f.window.timelineView()->findChild<QSpinBox *>(QStringLiteral("microbatchSpin"));
    QVERIFY(spin);
    spin->setValue(16);
    QCOMPARE(f.doc()->engine().plan().microbatches, 16);
    f.verifyMet();
    QVERIFY(f.panel()->explanationLabel()->text().contains(QStringLiteral("16 micro-batches")));
}

void TestLessons::epDispatchOntoTheSpine()
{
    Fixture f;
    f.start("ep-dispatch-spine");
    const auto spineEp = [&f] {
        return f.doc()->report().tierBytes[static_cast<std::size_t>(index(Tier::Spine))][static_cast<std::size_t>(index(Dim::Ep))];
    };
    QCOMPARE(spineEp(), 0.0);
    f.window.fabricView()->fitAll();
    f.drag(0, 9);
    f.verifyMet();
    QVERIFY(spineEp() > 0.0);
}

void TestLessons::failureRemapAndItsBaseline()
{
    Fixture f;
    f.start("failure-remap");
    f.dialogs->onDialog = [](QDialog *d) {
        auto *remap = qobject_cast<RemapDialog *>(d);
        return remap && remap->setStrategy(RemapStrategy::DropDp) ? QDialog::Accepted : QDialog::Rejected;
    };
    // The fabric's right-click menu on node003.
    QMenu *menu = f.window.studies()->serverMenu(3);
    QAction *fail = menu->findChild<QAction *>(QStringLiteral("actionFailServer"));
    QVERIFY(fail);
    fail->trigger();
    QCOMPARE(f.dialogs->dialogsShown, 1);
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join(QLatin1Char('\n'))));
    QCOMPARE(f.lessons()->activeLesson(), f.lesson("failure-remap")); // an edit, not a new file
    f.verifyMet();
    QVERIFY(f.panel()->explanationLabel()->text().contains(QStringLiteral("96 ranks")));
}

void TestLessons::hintsOneAtATime()
{
    Fixture f;
    f.panel()->lessonList()->setCurrentRow(f.lesson("bubble-microbatches"));
    const QStringList hints = f.lessons()->lessons()[static_cast<std::size_t>(f.lesson("bubble-microbatches"))].hints;
    QVERIFY(hints.size() >= 2);
    QVERIFY(!f.panel()->hintsLabel()->isVisible());
    QTest::mouseClick(f.panel()->hintButton(), Qt::LeftButton);
    QVERIFY(f.panel()->hintsLabel()->text().contains(hints[0].toHtmlEscaped()));
    QVERIFY(!f.panel()->hintsLabel()->text().contains(hints[1].toHtmlEscaped()));
    for (int i = 1; i < hints.size(); ++i)
        QTest::mouseClick(f.panel()->hintButton(), Qt::LeftButton);
    QVERIFY(f.panel()->hintsLabel()->text().contains(hints.back().toHtmlEscaped()));
    QVERIFY(!f.panel()->hintButton()->isEnabled());
}

void TestLessons::startAsksBeforeLosingChanges()
{
    Fixture f;
    f.doc()->swapRanks(0, 9);
    f.dialogs->saveChoice = UserDialogs::SaveChoice::Cancel;
    const Scenario before = f.doc()->scenario();
    QVERIFY(!f.lessons()->startLesson(f.lesson("tp-scale-up")));
    QVERIFY(f.doc()->scenario() == before);
    QCOMPARE(f.lessons()->activeLesson(), -1);
}

void TestLessons::teacherLessonFile()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("my-lesson.json"));
    QFile file(path);
    QVERIFY(file.open(QIODevice::WriteOnly));
    file.write(R"({
      "lesson_format": 1, "id": "mine", "title": "Four stages, fewer bubbles",
      "scenario": "sample:seed-128.json", "start": {"global_batch": 16},
      "goal": "Halve the bubble.", "check": [{"figure": "bubble", "below": 0.5, "of_start": true}],
      "hints": ["More micro-batches."], "explanation": "From {start:bubble} to {bubble}."
    })");
    file.close();
    Fixture f;
    f.dialogs->openName = path;
    QTest::mouseClick(f.panel()->openButton(), Qt::LeftButton);
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join(QLatin1Char('\n'))));
    const int index = f.lesson("mine");
    QCOMPARE(index, static_cast<int>(f.lessons()->lessons().size()) - 1);
    QVERIFY(f.lessons()->startLesson(index));
    f.settle();
    QVERIFY(!f.lessons()->state().met);
    auto *spin = f.window.timelineView()->findChild<QSpinBox *>(QStringLiteral("microbatchSpin"));
    spin->setValue(32);
    f.verifyMet();
    // The engine's attribution first, then the teacher's framing with its figures.
    QVERIFY(f.panel()->explanationLabel()->text().startsWith(
        QStringLiteral("The iteration went from ")));
    QVERIFY(f.panel()->explanationLabel()->text().contains(QStringLiteral("\n\nFrom ")));
}

void TestLessons::malformedLessons_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("message");
    const QByteArray good = R"("lesson_format": 1, "id": "x", "title": "T", "scenario": "sample:seed-128.json", "goal": "G")";
    QTest::newRow("misspelt figure") << QByteArray("{" + good + R"(, "check": [{"figure": "spine_shar", "below": 1}]})")
                                     << QStringLiteral("bad.json: check[0].figure: unknown figure 'spine_shar' (did you mean 'spine_share'?)");
    QTest::newRow("no operator") << QByteArray("{" + good + R"(, "check": [{"figure": "bubble"}]})")
                                 << QStringLiteral("bad.json: check[0]: needs one of below");
    QTest::newRow("two operators") << QByteArray("{" + good + R"(, "check": [{"figure": "bubble", "below": 1, "above": 0}]})")
                                   << QStringLiteral("bad.json: check[0]: has more than one");
    QTest::newRow("empty check") << QByteArray("{" + good + R"(, "check": []})") << QStringLiteral("bad.json: check: needs at least one");
    QTest::newRow("no goal") << QByteArray(R"({"lesson_format": 1, "id": "x", "title": "T", "scenario": "s.json", "check": [{"figure": "bubble", "below": 1}]})")
                             << QStringLiteral("bad.json: goal: missing required field");
    QTest::newRow("unknown key") << QByteArray("{" + good + R"(, "check": [{"figure": "bubble", "below": 1}], "hint": []})")
                                 << QStringLiteral("bad.json: hint: unknown field");
    QTest::newRow("bad placement") << QByteArray("{" + good + R"(, "start": {"placement": "diagonal"}, "check": [{"figure": "bubble", "below": 1}]})")
                                   << QStringLiteral("bad.json: start.placement: expected packed, rail-aligned or scattered");
    QTest::newRow("placeholder") << QByteArray("{" + good + R"(, "check": [{"figure": "bubble", "below": 1}], "explanation": "{bubbel}"})")
                                 << QStringLiteral("bad.json: explanation: {bubbel} names no figure");
    QTest::newRow("newer format") << QByteArray(R"({"lesson_format": 7})") << QStringLiteral("bad.json: lesson_format: lesson format 7 is newer");
    QTest::newRow("not JSON") << QByteArray("{ lesson") << QStringLiteral("bad.json");
}

void TestLessons::malformedLessons()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, message);
    try {
        Lesson::fromJson(text, QStringLiteral("/somewhere/bad.json"), &LessonFigures::isKnown, LessonFigures::names());
        QFAIL("accepted");
    } catch (const std::exception &e) {
        QVERIFY2(QString::fromUtf8(e.what()).startsWith(message), e.what());
    }
}

QTEST_MAIN(TestLessons)
#include "tst_lessons.moc"
