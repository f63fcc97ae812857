// Study ▸ Compare Fabrics… driven through its real widgets (offscreen): the chart holds exactly
// the comparison's points (the front joined, the current fabric marked), hovering names the
// design with the engine's figures, the table lists every design, and choosing one opens the
// job on that design in a new window while the document stays as it was.
#include "document/scenariodocument.h"
#include "fabriccomparedialog.h"
#include "mainwindow.h"
#include "scenario/scenariofile.h"
#include "scriptedwindow.h"
#include "studies/bomreport.h"
#include "studies/fabriccompare.h"
#include "studycontroller.h"

#include <QAction>
#include <QApplication>
#include <QLineSeries>
#include <QPixmap>
#include <QScatterSeries>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QUndoStack>

#include <algorithm>
#include <cmath>

using namespace railyard;

namespace {

MainWindow *otherMainWindow(const MainWindow *except)
{
    for (QWidget *w : QApplication::topLevelWidgets())
        if (auto *m = qobject_cast<MainWindow *>(w); m && m != except && m->isVisible())
            return m;
    return nullptr;
}

int rowNamed(const FabricComparison &c, const std::string &name)
{
    for (std::size_t i = 0; i < c.rows.size(); ++i)
        if (c.rows[i].name == name)
            return static_cast<int>(i);
    return -1;
}

} // namespace

class TestFabricCompareDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void chartHasTheComparisonsPoints();
    void choosingADesignOpensItAside();
    void aMixNamesItsWorstJob();
};

void TestFabricCompareDialog::chartHasTheComparisonsPoints()
{
    ScriptedWindow w;
    auto *action = w.window.findChild<QAction *>(QStringLiteral("actionCompareFabrics"));
    QVERIFY(action);
    QVERIFY(w.window.studies()->menu()->actions().contains(action));
    action->trigger();
    auto *dialog = w.window.findChild<FabricCompareDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QVERIFY2(dialog->errorText().isEmpty(), qPrintable(dialog->errorText()));

    // The same numbers as the engine's comparison of the open job.
    const Scenario &job = w.doc()->scenario();
    const FabricComparison expected = compareFabrics({ job }, standardDesigns(job));
    const FabricComparison &shown = dialog->comparison();
    QCOMPARE(shown.rows.size(), expected.rows.size());
    QCOMPARE(shown.rows.size(), std::size_t(6)); // seed-128: no 3-tier spines, no NVL72
    for (std::size_t i = 0; i < expected.rows.size(); ++i) {
        QCOMPARE(shown.rows[i].iterationSeconds, expected.rows[i].iterationSeconds);
        QCOMPARE(shown.rows[i].capexUsd, expected.rows[i].capexUsd);
    }
    const std::vector<std::size_t> front = paretoFront(expected.rows);
    QCOMPARE(dialog->frontSeries()->count(), static_cast<int>(front.size()));
    QCOMPARE(dialog->frontLine()->count(), static_cast<int>(front.size()));
    QCOMPARE(
        dialog->designSeries()->count(), static_cast<int>(expected.rows.size() - front.size()));
    QCOMPARE(dialog->currentSeries()->count(), 1);
    // The current fabric is the seed's own (non-blocking rail-optimised): the baseline's point.
    QCOMPARE(dialog->currentSeries()->at(0).y(), expected.rows[0].iterationSeconds);
    QCOMPARE(dialog->currentSeries()->at(0).x(), expected.rows[0].capexUsd / 1e6);
    // The seed hides its communication: 2:1 top-of-rack leaves are the cheapest (first on the
    // front); rail-only, as fast as non-blocking, is on the front too.
    const int torTwo = rowNamed(expected, "tor, 2:1 leaves");
    const int railOnly = rowNamed(expected, "rail-only");
    QVERIFY(torTwo >= 0 && railOnly >= 0);
    QCOMPARE(front.front(), std::size_t(torTwo));
    QVERIFY(std::find(front.begin(), front.end(), std::size_t(railOnly)) != front.end());
    QCOMPARE(dialog->rowAtPoint(dialog->frontSeries()->at(0)), torTwo);
    const QPointF p(
        expected.rows[railOnly].capexUsd / 1e6, expected.rows[railOnly].iterationSeconds);
    bool drawn = false;
    for (int i = 0; i < dialog->frontSeries()->count(); ++i)
        drawn = drawn || dialog->frontSeries()->at(i) == p;
    QVERIFY(drawn);
    QCOMPARE(dialog->rowAtPoint(p), railOnly);
    const QString hover = dialog->pointText(railOnly);
    QVERIFY2(hover.startsWith(QStringLiteral("rail-only: ")), qPrintable(hover));
    QVERIFY2(hover.contains(QString::fromStdString(formatUsd(expected.rows[railOnly].capexUsd))),
        qPrintable(hover));
    QVERIFY2(hover.contains(QString::number(expected.rows[railOnly].iterationSeconds, 'f', 3)),
        qPrintable(hover));
    QVERIFY(hover.contains(QStringLiteral("8 switches")));

    // Clicking a point chooses its design (the same as double-clicking its row).
    QSignalSpy opened(dialog, &FabricCompareDialog::designOpened);
    Q_EMIT dialog->frontSeries()->clicked(p);
    QCOMPARE(opened.count(), 1);
    const Scenario chosen = opened.takeFirst().at(0).value<Scenario>();
    QCOMPARE(chosen.fabric.kind, FabricKind::RailOnly);
    for (QWidget *top : QApplication::topLevelWidgets())
        if (auto *m = qobject_cast<MainWindow *>(top); m && m != &w.window)
            m->close();
    QTest::qWait(0);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);

    QCOMPARE(dialog->table()->rowCount(), static_cast<int>(expected.rows.size()));
    // The docs' picture, when asked for.
    const QByteArray dir = qgetenv("RAILYARD_SCREENSHOT_DIR");
    const QPixmap shot = dialog->grab();
    QVERIFY(!shot.isNull());
    if (!dir.isEmpty())
        QVERIFY(shot.save(QString::fromLocal8Bit(dir) + QStringLiteral("/compare-fabrics.png")));
    QVERIFY(dialog->table()->item(railOnly, 0)->text().startsWith(QStringLiteral("rail-only")));
}

void TestFabricCompareDialog::choosingADesignOpensItAside()
{
    ScriptedWindow w;
    const Scenario before = w.doc()->scenario();
    FabricCompareDialog *dialog = w.window.studies()->showFabricCompare();
    QVERIFY(dialog);
    const int tor = rowNamed(dialog->comparison(), "tor");
    QVERIFY(tor >= 0);
    QSignalSpy opened(dialog, &FabricCompareDialog::designOpened);
    const QModelIndex index = dialog->table()->model()->index(tor, 0);
    dialog->table()->scrollTo(index);
    const QPoint centre = dialog->table()->visualRect(index).center();
    QTest::mouseClick(dialog->table()->viewport(), Qt::LeftButton, {}, centre);
    QTest::mouseDClick(dialog->table()->viewport(), Qt::LeftButton, {}, centre);
    QCOMPARE(opened.count(), 1);
    MainWindow *other = otherMainWindow(&w.window);
    QVERIFY(other);
    QCOMPARE(other->document()->scenario().fabric.kind, FabricKind::Tor);
    QCOMPARE(other->document()->scenario().degrees.dp, before.degrees.dp);
    // Its engine gives the figures the table shows.
    const double shown = dialog->comparison().rows[static_cast<std::size_t>(tor)].iterationSeconds;
    QVERIFY(std::abs(other->document()->report().iterationTime - shown) <= 1e-9 * shown);
    // The user's document is untouched.
    QVERIFY(w.doc()->scenario() == before);
    QCOMPARE(w.doc()->undoStack()->count(), 0);
    other->close();
    QTest::qWait(0);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

void TestFabricCompareDialog::aMixNamesItsWorstJob()
{
    // A scenario with jobs: the dialog compares the jobs together (fabricJobsOf()), and the
    // slowdown cell and the tooltip name the job that sets it.
    const Scenario mix = loadScenario(RAILYARD_SOURCE_DIR "/samples/two-jobs.json");
    FabricCompareDialog dialog(mix);
    QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
    const FabricComparison expected = compareFabrics(fabricJobsOf(mix), standardDesigns(mix));
    const FabricComparison &shown = dialog.comparison();
    QCOMPARE(shown.rows.size(), expected.rows.size());
    QCOMPARE(shown.baselineSeconds.size(), std::size_t(2));
    for (std::size_t i = 0; i < expected.rows.size(); ++i) {
        QCOMPARE(shown.rows[i].iterationSeconds, expected.rows[i].iterationSeconds);
        QCOMPARE(shown.rows[i].worstJob, expected.rows[i].worstJob);
    }
    auto *table = dialog.findChild<QTableWidget *>(QStringLiteral("fabricCompareTable"));
    QVERIFY(table);
    const int tor = rowNamed(shown, "tor");
    QVERIFY(tor >= 0);
    // Equal slowdowns: the first job, a, is the worst.
    QCOMPARE(shown.rows[static_cast<std::size_t>(tor)].worstJob, 0);
    QVERIFY2(table->item(tor, 2)->text().endsWith(QStringLiteral(" (a)")),
        qPrintable(table->item(tor, 2)->text()));
    QVERIFY2(table->item(tor, 0)->toolTip().startsWith(QStringLiteral("tor: job a: 1.449 s")),
        qPrintable(table->item(tor, 0)->toolTip()));
}

QTEST_MAIN(TestFabricCompareDialog)
#include "tst_fabriccomparedialog.moc"
