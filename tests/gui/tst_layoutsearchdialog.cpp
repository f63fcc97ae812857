// Study ▸ Search Layouts… driven through its real widgets (offscreen): a small search on a
// worker thread fills the table and the Pareto chart with exactly what searchLayouts() returns,
// the table sorts by its columns, a double-click opens the candidate in a new window and leaves
// the document alone, and Stop or closing cancels and joins the search.
#include "document/scenariodocument.h"
#include "layoutcandidatemodel.h"
#include "layoutsearchdialog.h"
#include "mainwindow.h"
#include "optimise/layoutsearch.h"
#include "scenario/scenariofile.h"
#include "scripteddialogs.h"
#include "scriptedwindow.h"
#include "studycontroller.h"

#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QComboBox>
#include <QElapsedTimer>
#include <QHeaderView>
#include <QLabel>
#include <QPixmap>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QScreen>
#include <QSortFilterProxyModel>
#include <QSpinBox>
#include <QTableView>
#include <QTest>
#include <QUndoStack>

#include <set>

using namespace railyard;

namespace {

/// 16 H100s on a rail-optimised fabric, Llama-3 8B: a whole search takes a few seconds.
LayoutSearchOptions smallSearch()
{
    LayoutSearchOptions o;
    o.model = "llama3-8b";
    o.device = "h100-sxm";
    o.fabricKind = FabricKind::RailOptimised;
    o.gpus = 16;
    // 64 sequences, not the search's default 512: each layout's timeline has 8 times fewer
    // micro-batches (0.6 s for the search against 3.3 s; under the sanitizers it ran past the
    // suite's five minutes).
    o.globalBatch = 64;
    o.top = 5;
    return o;
}

/// A search that runs for minutes (cancelled long before).
LayoutSearchOptions largeSearch()
{
    LayoutSearchOptions o;
    o.model = "llama2-70b";
    o.gpus = 4096;
    return o;
}

std::set<std::int64_t> indexesOf(const std::vector<LayoutCandidate> &rows)
{
    std::set<std::int64_t> out;
    for (const LayoutCandidate &c : rows)
        out.insert(c.index);
    return out;
}

MainWindow *otherMainWindow(const MainWindow *except)
{
    for (QWidget *w : QApplication::topLevelWidgets())
        if (auto *m = qobject_cast<MainWindow *>(w); m && m != except && m->isVisible())
            return m;
    return nullptr;
}

} // namespace

class TestLayoutSearchDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void menuShowsTheDialog();
    void formReadsBack();
    void smallSearchFillsTableAndChart();
    void stopCancelsAndCloseJoins();
    void badOptionSaysWhy();
};

void TestLayoutSearchDialog::menuShowsTheDialog()
{
    ScriptedWindow w;
    auto *action = w.window.findChild<QAction *>(QStringLiteral("actionSearchLayouts"));
    QVERIFY(action);
    QVERIFY(w.window.studies()->menu()->actions().contains(action));
    action->trigger();
    auto *dialog = w.window.findChild<LayoutSearchDialog *>();
    QVERIFY(dialog);
    QVERIFY(dialog->isVisible());
    QCOMPARE(dialog->windowTitle(), QStringLiteral("Search Layouts"));
    // It starts from the open file (seed-128: 128 GPUs, rail-optimised, Llama 2 70B, its
    // batch and sequence), not from the search's own 1,024-GPU default.
    const LayoutSearchOptions o = dialog->options();
    QCOMPARE(o.gpus, 128);
    QCOMPARE(o.fabricKind, FabricKind::RailOptimised);
    QCOMPARE(o.model, w.doc()->scenario().model.name);
    QCOMPARE(o.globalBatch, w.doc()->scenario().training.globalBatch);
    QCOMPARE(o.seq, w.doc()->scenario().model.seq);
    // It fits the screen (it was 960x760 whatever the screen: clipped at 1280x720).
    const QRect area = dialog->screen()->availableGeometry();
    QVERIFY2(dialog->width() <= area.width() && dialog->height() <= area.height(),
        qPrintable(QStringLiteral("%1x%2 on %3x%4")
                       .arg(dialog->width())
                       .arg(dialog->height())
                       .arg(area.width())
                       .arg(area.height())));
    // A second trigger raises the same dialog.
    action->trigger();
    QCOMPARE(w.window.findChildren<LayoutSearchDialog *>().size(), qsizetype(1));
}

void TestLayoutSearchDialog::formReadsBack()
{
    LayoutSearchDialog dialog;
    LayoutSearchOptions o = smallSearch();
    o.fabricKind = FabricKind::Tor;
    o.seq = 2048;
    o.maxPp = 2;
    dialog.setOptions(o);
    QCOMPARE(dialog.modelBox()->currentText(), QStringLiteral("llama3-8b"));
    QCOMPARE(dialog.fabricBox()->currentText(), QStringLiteral("tor"));
    const LayoutSearchOptions back = dialog.options();
    QCOMPARE(back.model, std::string("llama3-8b"));
    QCOMPARE(back.device, std::string("h100-sxm"));
    QCOMPARE(back.fabricKind, FabricKind::Tor);
    QCOMPARE(back.gpus, 16);
    QCOMPARE(back.globalBatch, 64);
    QCOMPARE(back.seq, 2048);
    QCOMPARE(back.top, 5);
    QCOMPARE(back.maxPp, 2); // limits that are not on the form are kept
    dialog.gpusBox()->setValue(32);
    QCOMPARE(dialog.options().gpus, 32);
}

void TestLayoutSearchDialog::smallSearchFillsTableAndChart()
{
    ScriptedWindow w;
    const std::string before = scenarioToText(w.doc()->scenario());
    const int steps = w.doc()->undoStack()->count();
    const LayoutSearchResult expected = searchLayouts(smallSearch());
    QVERIFY(!expected.top.empty());
    QVERIFY(!expected.front.empty());

    LayoutSearchDialog *dialog = w.window.studies()->showLayoutSearch();
    dialog->resize(1100, 820);
    QVERIFY(QTest::qWaitForWindowExposed(dialog));
    dialog->setOptions(smallSearch());
    QTest::mouseClick(dialog->runButton(), Qt::LeftButton);
    QVERIFY(dialog->isRunning());
    QVERIFY(!dialog->runButton()->isEnabled());
    QVERIFY(dialog->waitForFinished(300000));
    QVERIFY(dialog->hasResult());
    QVERIFY2(dialog->errorText().isEmpty(), qPrintable(dialog->errorText()));
    QCOMPARE(dialog->progressBar()->value(), 1000);
    QVERIFY2(dialog->statusLabel()->text().startsWith(QStringLiteral("Searched")),
        qPrintable(dialog->statusLabel()->text()));

    // The same result as the engine's, off any GUI (the search is deterministic).
    const LayoutSearchResult &got = dialog->searchResult();
    QCOMPARE(got.enumerated, expected.enumerated);
    QCOMPARE(got.evaluated, expected.evaluated);
    QVERIFY(got.top == expected.top);
    QVERIFY(got.front == expected.front);

    // The table: the top rows and the front, each once, ranked by throughput.
    std::set<std::int64_t> wanted = indexesOf(expected.top);
    for (const LayoutCandidate &c : expected.front)
        wanted.insert(c.index);
    QSortFilterProxyModel *proxy = dialog->proxy();
    QCOMPARE(proxy->rowCount(), static_cast<int>(wanted.size()));
    QCOMPARE(indexesOf(dialog->candidateModel()->candidates()), wanted);
    QCOMPARE(dialog->candidateAt(0)->index, expected.top.front().index);
    for (int row = 1; row < proxy->rowCount(); ++row)
        QVERIFY(dialog->candidateAt(row - 1)->tokensPerSecond
            >= dialog->candidateAt(row)->tokensPerSecond);

    // Sorting by clicking a header: memory headroom, then again for the other order.
    QHeaderView *header = dialog->table()->horizontalHeader();
    const int headroom = LayoutCandidateModel::HeadroomGB;
    QTest::mouseClick(header->viewport(), Qt::LeftButton, {},
        QPoint(header->sectionViewportPosition(headroom) + header->sectionSize(headroom) / 2,
            header->height() / 2));
    const Qt::SortOrder first = header->sortIndicatorOrder();
    QCOMPARE(header->sortIndicatorSection(), headroom);
    double most = -1e300, least = 1e300;
    for (const LayoutCandidate &c : dialog->candidateModel()->candidates()) {
        most = std::max(most, c.memoryHeadroomGB);
        least = std::min(least, c.memoryHeadroomGB);
    }
    QCOMPARE(dialog->candidateAt(0)->memoryHeadroomGB, first == Qt::AscendingOrder ? least : most);
    for (int row = 1; row < proxy->rowCount(); ++row) {
        const double a = dialog->candidateAt(row - 1)->memoryHeadroomGB;
        const double b = dialog->candidateAt(row)->memoryHeadroomGB;
        QVERIFY(first == Qt::AscendingOrder ? a <= b : a >= b);
    }
    dialog->table()->sortByColumn(LayoutCandidateModel::TokensPerSecond, Qt::DescendingOrder);
    // Ties (packed and rail-aligned give the same figures) may come in either order.
    QCOMPARE(dialog->candidateAt(0)->tokensPerSecond, expected.top.front().tokensPerSecond);

    // The chart: every front member highlighted at (headroom, tokens/s), the rest grey.
    QCOMPARE(dialog->frontSeries()->count(), static_cast<int>(expected.front.size()));
    QCOMPARE(
        dialog->otherSeries()->count(), static_cast<int>(wanted.size() - expected.front.size()));
    for (const LayoutCandidate &f : expected.front)
        QVERIFY(dialog->frontSeries()->points().contains(
            QPointF(f.memoryHeadroomGB, f.tokensPerSecond)));

    // Double-click a row: the candidate opens in a new window; this document is untouched.
    const int row = 1;
    const LayoutCandidate chosen = *dialog->candidateAt(row);
    const QModelIndex index = proxy->index(row, LayoutCandidateModel::Tp);
    dialog->table()->scrollTo(index);
    const QPoint centre = dialog->table()->visualRect(index).center();
    QTest::mouseClick(dialog->table()->viewport(), Qt::LeftButton, {}, centre);
    QTest::mouseDClick(dialog->table()->viewport(), Qt::LeftButton, {}, centre);
    MainWindow *opened = otherMainWindow(&w.window);
    QVERIFY(opened);
    // Cascaded, never exactly over the window it came from.
    QVERIFY(opened->pos() != w.window.pos());
    QVERIFY(opened->pos().x() > w.window.pos().x() && opened->pos().y() > w.window.pos().y());
    const Scenario &s = opened->document()->scenario();
    const Scenario wantedScenario = candidateScenario(smallSearch(), chosen);
    QCOMPARE(s.name, wantedScenario.name);
    QCOMPARE(s.degrees.tp, chosen.degrees.tp);
    QCOMPARE(s.degrees.pp, chosen.degrees.pp);
    QCOMPARE(s.degrees.dp, chosen.degrees.dp);
    QVERIFY(opened->document()->filePath().isEmpty()); // untitled
    // Its engine gives the figures the table shows.
    QVERIFY(std::abs(opened->document()->report().iterationTime - chosen.iterationTime)
        <= 1e-9 * chosen.iterationTime);
    QCOMPARE(scenarioToText(w.doc()->scenario()), before);
    QCOMPARE(w.doc()->undoStack()->count(), steps);
    opened->close();
    QTest::qWait(0);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    QVERIFY(!otherMainWindow(&w.window));

    // The README's picture, when asked for.
    const QByteArray dir = qgetenv("RAILYARD_SCREENSHOT_DIR");
    const QPixmap shot = dialog->grab();
    QVERIFY(!shot.isNull());
    if (!dir.isEmpty())
        QVERIFY(shot.save(QString::fromLocal8Bit(dir) + QStringLiteral("/search-layouts.png")));
}

void TestLayoutSearchDialog::stopCancelsAndCloseJoins()
{
    {
        LayoutSearchDialog dialog;
        dialog.show();
        dialog.setOptions(largeSearch());
        QVERIFY(dialog.run());
        QVERIFY(!dialog.run());
        QElapsedTimer clock;
        clock.start();
        while (dialog.statusLabel()->text().contains(QLatin1String("Enumerating"))
            && clock.elapsed() < 60000)
            QTest::qWait(50);
        QVERIFY(dialog.isRunning());
        QVERIFY2(dialog.statusLabel()->text().contains(QLatin1String("candidates")),
            qPrintable(dialog.statusLabel()->text()));
        QTest::mouseClick(dialog.stopButton(), Qt::LeftButton);
        QVERIFY(dialog.waitForFinished(30000));
        QVERIFY(dialog.hasResult());
        QVERIFY(dialog.searchResult().cancelled);
        QVERIFY(dialog.searchResult().considered < dialog.searchResult().enumerated);
        QVERIFY(dialog.statusLabel()->text().startsWith(QStringLiteral("Stopped")));
        QVERIFY(dialog.runButton()->isEnabled());
    }
    {
        // Close (the window's close button) mid-search: cancels and joins.
        LayoutSearchDialog dialog;
        dialog.show();
        dialog.setOptions(largeSearch());
        QVERIFY(dialog.run());
        QTest::qWait(300);
        QElapsedTimer clock;
        clock.start();
        QVERIFY(dialog.close());
        QVERIFY(!dialog.isRunning());
        QVERIFY(clock.elapsed() < 30000);
    }
    // Destroyed mid-search (the main window closing): the destructor joins the thread.
    auto dialog = std::make_unique<LayoutSearchDialog>();
    dialog->setOptions(largeSearch());
    QVERIFY(dialog->run());
    QTest::qWait(200);
    dialog.reset();
}

void TestLayoutSearchDialog::badOptionSaysWhy()
{
    LayoutSearchOptions o = smallSearch();
    o.gpus = 12; // not a whole number of 8-GPU servers
    std::string message;
    try {
        searchLayouts(o);
    } catch (const std::exception &e) {
        message = e.what();
    }
    QVERIFY2(!message.empty(), "the search accepted 12 GPUs on 8-GPU servers");
    LayoutSearchDialog dialog;
    dialog.setOptions(o);
    QVERIFY(dialog.run());
    QVERIFY(dialog.waitForFinished(30000));
    QVERIFY(!dialog.hasResult());
    QCOMPARE(dialog.errorText(), QString::fromStdString(message));
    QVERIFY(dialog.statusLabel()->text().contains(QString::fromStdString(message)));
    QCOMPARE(dialog.proxy()->rowCount(), 0);
}

QTEST_MAIN(TestLayoutSearchDialog)
#include "tst_layoutsearchdialog.moc"
