// The rank palette: every rank with coordinates and placement, the filter language, the
// placement presets as one undoable command each, and the rows' drag payload.
#include "fabricview.h"
#include "rankfiltermodel.h"
#include "ranklistmodel.h"
#include "rankpalette.h"
#include "document/scenariodocument.h"
#include "scenario/scenariofile.h"

#include <QMimeData>
#include <QPushButton>
#include <QTest>

#include <memory>

using namespace railyard;

class TestRankPalette : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void listsFiltersAndPresets();
    void filterQueries_data();
    void filterQueries();
    void dragPayloadListsRanks();
};

void TestRankPalette::listsFiltersAndPresets()
{
    ScenarioDocument doc;
    doc.load(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json"));
    RankPalette palette(&doc);
    RankListModel *model = palette.rankModel();
    QCOMPARE(model->rowCount(), 128);
    // rank 45 = (d1, p1, t5) on node005, GPU 5, rail 5.
    QCOMPARE(model->value(45, RankListModel::DColumn), 1);
    QCOMPARE(model->value(45, RankListModel::PColumn), 1);
    QCOMPARE(model->value(45, RankListModel::TColumn), 5);
    QCOMPARE(model->index(45, RankListModel::ServerColumn).data().toString(), QStringLiteral("node005"));
    QCOMPARE(model->value(45, RankListModel::RailColumn), 5);
    palette.setFilterText(QStringLiteral("d=1 p=0-1"));
    QCOMPARE(palette.filterModel()->rowCount(), 16); // t 0..7 x p 0..1
    palette.setFilterText(QStringLiteral("node003"));
    QCOMPARE(palette.filterModel()->rowCount(), 8);
    palette.setFilterText(QString());
    QCOMPARE(palette.filterModel()->rowCount(), 128);
    // The placement columns follow the mapping.
    doc.swapRanks(0, 9);
    QCOMPARE(model->value(0, RankListModel::SlotColumn), 9);
    QCOMPARE(model->value(0, RankListModel::RailColumn), 1);
    // Scattered: one undoable preset; rank 1 goes to server 1 (round-robin).
    doc.undoStack()->clear();
    QPushButton *scattered = nullptr;
    for (QPushButton *b : palette.findChildren<QPushButton *>())
        scattered = b->text() == QStringLiteral("Scattered") ? b : scattered;
    QVERIFY(scattered);
    scattered->click();
    QCOMPARE(model->value(1, RankListModel::ServerColumn), 1);
    QCOMPARE(doc.undoStack()->count(), 1);
}

void TestRankPalette::filterQueries_data()
{
    QTest::addColumn<QString>("query");
    QTest::addColumn<int>("rows");
    QTest::addColumn<bool>("valid");
    // seed-128: tp 8, pp 4, dp 4, packed on 16 servers x 8 GPUs.
    QTest::newRow("all") << QString() << 128 << true;
    QTest::newRow("one stage") << QStringLiteral("p=2") << 32 << true;
    QTest::newRow("a DP group") << QStringLiteral("p=0 t=3") << 4 << true;
    QTest::newRow("range") << QStringLiteral("rank=10-19") << 10 << true;
    QTest::newRow("spaces") << QStringLiteral("d = 1, t : 0") << 4 << true;
    QTest::newRow("rail") << QStringLiteral("rail=5") << 16 << true;
    QTest::newRow("server word") << QStringLiteral("node015") << 8 << true;
    QTest::newRow("nothing") << QStringLiteral("d=9") << 0 << true;
    QTest::newRow("bad term") << QStringLiteral("q=1") << 128 << false;
}

void TestRankPalette::filterQueries()
{
    QFETCH(QString, query);
    QFETCH(int, rows);
    QFETCH(bool, valid);
    ScenarioDocument doc;
    doc.load(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json"));
    RankPalette palette(&doc);
    QCOMPARE(palette.filterModel()->setQuery(query), valid);
    QCOMPARE(palette.filterModel()->rowCount(), rows);
}

void TestRankPalette::dragPayloadListsRanks()
{
    ScenarioDocument doc;
    doc.load(loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json"));
    RankListModel model(&doc);
    // Two cells of row 7 and one of row 3: each rank once, ascending.
    std::unique_ptr<QMimeData> mime(
        model.mimeData({model.index(7, 0), model.index(7, 2), model.index(3, 1)}));
    QCOMPARE(model.mimeTypes(), QStringList{QString::fromLatin1(FabricView::kRanksMimeType)});
    QCOMPARE(mime->data(QString::fromLatin1(FabricView::kRanksMimeType)), QByteArray("3,7"));
    QVERIFY(model.flags(model.index(0, 0)) & Qt::ItemIsDragEnabled);
}

QTEST_MAIN(TestRankPalette)
#include "tst_rankpalette.moc"
