// The Calibration dock as a user drives it (offscreen): File ▸ Import Measurements… through the
// scripted file dialog with nccl-tests logs of the exported plan (written from a known per-tier
// α and bandwidth through the engine, named RUN.log as the plan's script names them), the chart
// and residual table, Accept as one undo step (undo and redo), the summary bar's "calibrated"
// badge, Revert, and a malformed log that shows an error naming file and line and changes
// nothing.
#include "calibrationcontroller.h"
#include "calibrationdock.h"
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "fixtures.h"
#include "io/measuredruns.h"
#include "io/nccltestslog.h"
#include "mainwindow.h"
#include "scripteddialogs.h"
#include "summarybar.h"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLogValueAxis>
#include <QPointer>
#include <QPushButton>
#include <QStandardPaths>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <cmath>
#include <cstdio>

using namespace railyard;

namespace {

/// One nccl-tests run as its text output: `ranks` rank lines, one row of `bytes` at `us`.
std::string logText(Collective op, int ranks, long long bytes, double us)
{
    char line[256];
    std::snprintf(line, sizeof line, "# nThread 1 nGpus 1 minBytes %lld\n# Using devices\n", bytes);
    std::string out = line;
    for (int r = 0; r < ranks; ++r) {
        std::snprintf(line, sizeof line,
            "#  Rank %2d Group  0 Pid %6d on node%03d device %2d [0000:%02x:00] NVIDIA H100\n", r,
            100 + r, r / 8, r % 8, r);
        out += line;
    }
    out += "#       size         count      type   redop    root     time   algbw   busbw #wrong "
           "    time   algbw   busbw #wrong\n";
    const double alg = static_cast<double>(bytes) / us / 1e3;
    const double bus = alg * ncclTestsBusFactor(op, ranks);
    const bool reduces = op == Collective::AllReduce || op == Collective::ReduceScatter;
    std::snprintf(line, sizeof line,
        "%12lld  %12lld     float  %6s      -1  %7.1f  %6.2f  %6.2f      0  %7.1f  %6.2f  %6.2f    "
        "  0\n",
        bytes, bytes / 4, reduces ? "sum" : "none", us, alg, bus, us, alg, bus);
    return out + line;
}

/// The measurement plan's runs over one group, and the nccl-tests text of run `r` as the engine
/// predicts it (a log whose name and command line say nothing of its run).
std::vector<PlanRun> singleGroupRuns(const CostEngine &engine)
{
    std::vector<PlanRun> single;
    for (const PlanRun &r : ncclPlanRuns(engine))
        if (r.groups == 1)
            single.push_back(r);
    return single;
}

std::string predictedLog(CostEngine &engine, const PlanRun &r)
{
    const double us
        = engine.collective(r.op, r.members.front(), static_cast<double>(r.bytes)).time * 1e6;
    return logText(r.op, static_cast<int>(r.members.front().size()), r.bytes, us);
}

void writeFile(const QString &path, const std::string &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text.data(), static_cast<qint64>(text.size()));
}

struct Fixture
{
    MainWindow window;
    ScriptedDialogs *dialogs;

    Fixture()
    {
        auto owned = std::make_unique<ScriptedDialogs>();
        dialogs = owned.get();
        dialogs->saveChoice = UserDialogs::SaveChoice::Discard;
        window.setDialogs(std::move(owned));
    }
    ScenarioDocument *doc() const { return window.document(); }
    CalibrationDock *dock() const { return window.calibration()->dock(); }
    QAction *importAction() const
    {
        return window.findChild<QAction *>(QStringLiteral("actionImportMeasurements"));
    }
};

} // namespace

class TestCalibrationDock : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void importAcceptUndoRevert();
    void malformedLogChangesNothing();
    void unnamedLogAsksWhichRun();
    void fileOfSeveralTablesIsSeveralRuns();

private:
    QTemporaryDir m_dir;
};

void TestCalibrationDock::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

void TestCalibrationDock::importAcceptUndoRevert()
{
    Fixture f;
    const Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2));
    f.doc()->load(s);
    QVERIFY(f.doc()->scenario().calibration.empty());

    // The plan's single-group runs, "measured" under a known calibration.
    Scenario truth = s;
    CalibratedTier su, leaf;
    su.tier = Tier::ScaleUp;
    su.stepLatencyUs = 0.9;
    su.bandwidthScale = 0.8;
    leaf.tier = Tier::Leaf;
    leaf.stepLatencyUs = 8.0;
    leaf.bandwidthScale = 0.85;
    truth.calibration.tiers = { su, leaf };
    CostEngine measuring(truth);
    CostEngine plain(s);
    QStringList files;
    std::vector<std::pair<PlanRun, double>> measured; // run, busbw (bytes/s)
    for (const PlanRun &r : ncclPlanRuns(plain)) {
        if (r.groups > 1)
            continue;
        const double t
            = measuring.collective(r.op, r.members.front(), static_cast<double>(r.bytes)).time;
        const QString path = m_dir.filePath(QString::fromStdString(r.id) + QStringLiteral(".log"));
        writeFile(
            path, logText(r.op, static_cast<int>(r.members.front().size()), r.bytes, t * 1e6));
        files << path;
        measured.emplace_back(r,
            static_cast<double>(r.bytes) / t
                * ncclTestsBusFactor(r.op, static_cast<int>(r.members.front().size())));
    }
    QVERIFY(files.size() >= 3);

    QVERIFY(f.importAction());
    // A refresh replaces the chart's axes and deletes the old ones (QChart::removeAxis hands
    // them back to the caller; every refresh leaked two).
    QList<QPointer<QAbstractAxis>> oldAxes;
    for (QAbstractAxis *axis : f.dock()->chartView()->chart()->axes())
        oldAxes << axis;
    QCOMPARE(oldAxes.size(), 2);
    f.window.resize(1280, 720);
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    const int width = f.window.width();
    f.dialogs->measurementFiles = files;
    const int steps = f.doc()->undoStack()->count();
    f.importAction()->trigger();
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join(QLatin1Char('\n'))));
    QVERIFY(f.window.calibration()->dockWidget()->isVisibleTo(&f.window));
    QVERIFY(f.dock()->hasPending());
    QCOMPARE(f.doc()->undoStack()->count(), steps); // nothing applied yet
    QVERIFY(f.dock()->acceptButton()->isEnabled());
    // Three series per run (measured, calibrated, default) and one table row per measurement.
    QCOMPARE(f.dock()->chartView()->chart()->series().size(), 3 * files.size());
    QCOMPARE(f.dock()->chartView()->chart()->axes().size(), 2);
    for (const QPointer<QAbstractAxis> &axis : oldAxes)
        QVERIFY(axis.isNull());
    QCOMPARE(f.dock()->residualTable()->rowCount(), 2 * static_cast<int>(files.size()));
    QVERIFY(f.dock()->tiersLabel()->text().contains(QStringLiteral("scale_up")));
    // Opening the dock does not widen the window; the table says its units; the size axis
    // has few enough labels to show them whole.
    QCoreApplication::processEvents();
    QCOMPARE(f.window.width(), width);
    QVERIFY(f.dock()->residualTable()->horizontalHeaderItem(2)->text().contains(
        QStringLiteral("GB/s")));
    QVERIFY(
        f.dock()->residualTable()->horizontalHeaderItem(5)->text().contains(QStringLiteral("%")));
    for (QAbstractAxis *axis : f.dock()->chartView()->chart()->axes(Qt::Horizontal))
        if (auto *log = qobject_cast<QLogValueAxis *>(axis))
            QVERIFY2(log->tickCount() <= 6, qPrintable(QString::number(log->tickCount())));
    QLabel *badge = f.window.findChild<SummaryBar *>()->calibratedBadge();
    QVERIFY(!badge->isVisibleTo(&f.window));

    QTest::mouseClick(f.dock()->acceptButton(), Qt::LeftButton);
    f.doc()->waitForEvaluation();
    QCOMPARE(f.doc()->undoStack()->count(), steps + 1);
    QVERIFY(!f.doc()->scenario().calibration.empty());
    QVERIFY(!f.dock()->hasPending());
    QVERIFY(badge->isVisibleTo(&f.window));
    // The document's engine now predicts every fitted run within 5 % of its measured busbw.
    CostEngine calibrated(f.doc()->scenario());
    for (const auto &[run, busbw] : measured) {
        const CollectiveResult c
            = calibrated.collective(run.op, run.members.front(), static_cast<double>(run.bytes));
        QVERIFY2(std::abs(c.busBandwidth / busbw - 1.0) < 0.05, run.id.c_str());
    }

    f.doc()->undoStack()->undo();
    f.doc()->waitForEvaluation();
    QVERIFY(f.doc()->scenario().calibration.empty());
    QVERIFY(!badge->isVisibleTo(&f.window));
    f.doc()->undoStack()->redo();
    f.doc()->waitForEvaluation();
    QVERIFY(!f.doc()->scenario().calibration.empty());
    QVERIFY(badge->isVisibleTo(&f.window));

    QVERIFY(f.dock()->revertButton()->isEnabled());
    QTest::mouseClick(f.dock()->revertButton(), Qt::LeftButton);
    f.doc()->waitForEvaluation();
    QVERIFY(f.doc()->scenario().calibration.empty());
    QCOMPARE(f.doc()->undoStack()->count(), steps + 2);
    QVERIFY(!f.dock()->revertButton()->isEnabled());
}

void TestCalibrationDock::malformedLogChangesNothing()
{
    Fixture f;
    f.doc()->load(fixtures::smallDense(1, 8, fixtures::degrees(8)));
    const Scenario before = f.doc()->scenario();
    const QString bad = m_dir.filePath(QStringLiteral("bad.log"));
    std::string text = logText(Collective::AllReduce, 8, 1 << 20, 40.0);
    text = text.substr(0, text.rfind("      0")); // the in-place #wrong cut off: a truncated row
    writeFile(bad, text + "\n");
    f.dialogs->measurementFiles = { bad };
    const int steps = f.doc()->undoStack()->count();
    f.importAction()->trigger();
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY2(f.dialogs->errors.front().contains(QStringLiteral("bad.log:12: truncated row")),
        qPrintable(f.dialogs->errors.front()));
    QVERIFY(!f.dock()->hasPending());
    QCOMPARE(f.doc()->undoStack()->count(), steps);
    QVERIFY(f.doc()->scenario() == before);
}

void TestCalibrationDock::unnamedLogAsksWhichRun()
{
    // A real nccl-tests log named by hand says nothing of its run: the import refused it with
    // "name it with --run ID=...", an option the GUI does not have. It now asks which run.
    Fixture f;
    const Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2));
    f.doc()->load(s);
    CostEngine plain(s);
    const std::vector<PlanRun> single = singleGroupRuns(plain);
    QVERIFY(single.size() >= 2);
    QStringList files;
    for (std::size_t i = 0; i < 2; ++i) {
        const PlanRun &r = single[i];
        const QString path = m_dir.filePath(QStringLiteral("by-hand-%1.log").arg(i));
        writeFile(path, predictedLog(plain, r));
        files << path;
        f.dialogs->itemAnswers << QString::fromStdString(r.id);
    }
    f.dialogs->measurementFiles = files;
    f.importAction()->trigger();
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join(QLatin1Char('\n'))));
    QCOMPARE(f.dialogs->itemQuestions.size(), 2); // one question per file nothing names
    QVERIFY(f.dialogs->itemQuestions.front().contains(QStringLiteral("by-hand-0.log")));
    QVERIFY(f.dialogs->itemQuestions.front().contains(QString::fromStdString(single[0].id)));
    QVERIFY(f.dock()->hasPending());
    QCOMPARE(f.dock()->residualTable()->item(0, 0)->text(), QString::fromStdString(single[0].id));

    // Cancelled: nothing imported, no error box.
    Fixture g;
    g.doc()->load(s);
    g.dialogs->measurementFiles = files;
    g.importAction()->trigger();
    QCOMPARE(g.dialogs->itemQuestions.size(), 1);
    QVERIFY(g.dialogs->errors.isEmpty());
    QVERIFY(!g.dock()->hasPending());
}

void TestCalibrationDock::fileOfSeveralTablesIsSeveralRuns()
{
    // One console capture holding two runs' tables one after the other (a script that runs the
    // plan and tees everything to one file): each table is a run of its own; the import asked
    // for the first and refused the second table ("a second table").
    Fixture f;
    const Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(8, 1, 2));
    f.doc()->load(s);
    CostEngine plain(s);
    const std::vector<PlanRun> single = singleGroupRuns(plain);
    QVERIFY(single.size() >= 2);
    std::string text;
    for (std::size_t i = 0; i < 2; ++i) {
        text += predictedLog(plain, single[i]);
        f.dialogs->itemAnswers << QString::fromStdString(single[i].id);
    }
    const QString path = m_dir.filePath(QStringLiteral("console.txt"));
    writeFile(path, text);
    f.dialogs->measurementFiles = { path };
    f.importAction()->trigger();
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join(QLatin1Char('\n'))));
    QCOMPARE(f.dialogs->itemQuestions.size(), 2); // one per table
    QVERIFY(f.dialogs->itemQuestions.at(0).contains(QStringLiteral("console.txt#")));
    QVERIFY(f.dock()->hasPending());
    QCOMPARE(f.dock()->residualTable()->rowCount() >= 2, true);
    QStringList ids;
    for (int row = 0; row < f.dock()->residualTable()->rowCount(); ++row)
        ids << f.dock()->residualTable()->item(row, 0)->text();
    QVERIFY(ids.contains(QString::fromStdString(single[0].id)));
    QVERIFY(ids.contains(QString::fromStdString(single[1].id)));
}

QTEST_MAIN(TestCalibrationDock)
#include "tst_calibrationdock.moc"
