// The failure-remap dialog driven through its real widgets (offscreen): strategies side by side,
// impossible ones greyed, the comparison table and moved-rank tree of the chosen strategy, and
// the degraded scenario it hands back on Accept.
#include "remapdialog.h"
#include "scenario/scenariofile.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QLabel>
#include <QPushButton>
#include <QRadioButton>
#include <QSignalSpy>
#include <QTableWidget>
#include <QTest>
#include <QTreeWidget>

using namespace railyard;

namespace {

Scenario seed()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

std::vector<FailedComponent> fail(const char *text)
{
    return { parseFailure(text, "test") };
}

/// The table cell in the row labelled `row`, column headed `column`.
QString cell(QTableWidget *table, const QString &row, const QString &column)
{
    for (int r = 0; r < table->rowCount(); ++r) {
        if (table->verticalHeaderItem(r)->text() != row)
            continue;
        for (int c = 0; c < table->columnCount(); ++c)
            if (table->horizontalHeaderItem(c)->text() == column)
                return table->item(r, c)->text();
    }
    return QStringLiteral("(no cell)");
}

QPushButton *okButton(RemapDialog &dialog)
{
    return dialog.findChild<QDialogButtonBox *>()->button(QDialogButtonBox::Ok);
}

} // namespace

class TestRemapDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void dropDpAccepted();
    void shrinkPpSelected();
    void nothingPossible();
    void badFailure();
    void planThatDoesNotFitIsNeverPreselected();
};

void TestRemapDialog::planThatDoesNotFitIsNeverPreselected()
{
    // mixtral-ep8-zipf without server 0: every possible plan needs more HBM than the 80 GB
    // the device has (the engine's memory ledger, shown per strategy).
    const Scenario healthy = loadScenario(RAILYARD_SOURCE_DIR "/samples/mixtral-ep8-zipf.json");
    RemapDialog dialog(healthy, fail("server:0"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));
    QVERIFY(dialog.hasPossibleStrategy());
    const RemapResult &dropDp = dialog.resultFor(RemapStrategy::DropDp);
    QVERIFY(dropDp.possible);
    QVERIFY(!dropDp.result.memoryFits);
    QVERIFY(dropDp.result.maxMemoryPerRank > dropDp.result.deviceMemory);
    for (const RemapResult &r : dialog.results())
        QVERIFY(!r.possible || !r.result.memoryFits);

    // Nothing is selected and Apply is off.
    QVERIFY(!dialog.hasSelection());
    for (QRadioButton *radio : dialog.findChildren<QRadioButton *>())
        QVERIFY2(!radio->isChecked(), qPrintable(radio->objectName()));
    QVERIFY(!okButton(dialog)->isEnabled());
    QVERIFY(!dialog.fitBanner()->isVisible());

    // The radio button says it does not fit, with the numbers.
    auto *radio = dialog.findChild<QRadioButton *>(QStringLiteral("strategy-drop-dp"));
    const QString needs = RemapDialog::memoryText(dropDp);
    QVERIFY2(radio->text().contains(QStringLiteral("DOES NOT FIT")) && radio->text().contains(needs),
             qPrintable(radio->text()));
    QVERIFY(needs.contains(QString::number(dropDp.result.maxMemoryPerRank / 1e9, 'f', 1)));

    // Chosen knowingly: a red banner at the top, Apply still off until the box is ticked.
    QTest::mouseClick(radio, Qt::LeftButton, {}, QPoint(8, radio->height() / 2));
    QVERIFY(dialog.hasSelection());
    QCOMPARE(dialog.strategy(), RemapStrategy::DropDp);
    QVERIFY(dialog.fitBanner()->isVisible());
    QVERIFY(dialog.fitBanner()->text().contains(QStringLiteral("DOES NOT FIT")));
    QVERIFY(dialog.fitBanner()->geometry().bottom() < radio->mapTo(&dialog, QPoint(0, 0)).y());
    QVERIFY(!okButton(dialog)->isEnabled());
    QVERIFY(!dialog.canApply());
    QVERIFY(dialog.overrideBox()->isVisible());
    dialog.overrideBox()->click();
    QVERIFY(dialog.canApply());
    QVERIFY(okButton(dialog)->isEnabled());
    QCOMPARE(okButton(dialog)->text(), QStringLiteral("Apply Anyway"));
}

void TestRemapDialog::dropDpAccepted()
{
    RemapDialog dialog(seed(), fail("server:3"));
    dialog.show();
    QVERIFY(QTest::qWaitForWindowExposed(&dialog));

    auto *dropDp = dialog.findChild<QRadioButton *>(QStringLiteral("strategy-drop-dp"));
    auto *spares = dialog.findChild<QRadioButton *>(QStringLiteral("strategy-spares"));
    auto *shrink = dialog.findChild<QRadioButton *>(QStringLiteral("strategy-shrink-pp"));
    QVERIFY(dropDp && spares && shrink);
    // No spare slot on the sample's 16 servers: spares is greyed with its reason.
    QVERIFY(!spares->isEnabled());
    QVERIFY(spares->text().contains(QStringLiteral("short by 8")));
    QVERIFY(dropDp->isEnabled());

    // Start on shrink-pp, then click drop-dp as a user would.
    QVERIFY(dialog.setStrategy(RemapStrategy::ShrinkPp));
    QSignalSpy changed(&dialog, &RemapDialog::strategyChanged);
    QTest::mouseClick(dropDp, Qt::LeftButton, {}, QPoint(8, dropDp->height() / 2));
    QVERIFY(dropDp->isChecked());
    QCOMPARE(changed.count(), 1);
    QCOMPARE(dialog.strategy(), RemapStrategy::DropDp);

    auto *table = dialog.findChild<QTableWidget *>(QStringLiteral("comparisonTable"));
    QCOMPARE(
        cell(table, QStringLiteral("ranks"), QStringLiteral("healthy")), QStringLiteral("128"));
    QCOMPARE(cell(table, QStringLiteral("ranks"), QStringLiteral("drop-dp")), QStringLiteral("96"));
    QCOMPARE(cell(table, QStringLiteral("ranks"), QStringLiteral("spares")), QStringLiteral("-"));
    QCOMPARE(
        cell(table, QStringLiteral("ranks"), QStringLiteral("shrink-pp")), QStringLiteral("96"));
    QCOMPARE(cell(table, QStringLiteral("TP groups across servers"), QStringLiteral("drop-dp")),
        QStringLiteral("0"));
    QCOMPARE(cell(table, QStringLiteral("status"), QStringLiteral("spares")),
        QStringLiteral("impossible"));

    // The moved-rank diff: replica d = 3 dropped, 32 rows.
    auto *moves = dialog.findChild<QTreeWidget *>(QStringLiteral("movesTree"));
    QCOMPARE(moves->topLevelItemCount(), 32);
    QCOMPARE(moves->topLevelItem(0)->text(0), QStringLiteral("(d 3, p 0, t 0)"));
    QCOMPARE(moves->topLevelItem(0)->text(1), QStringLiteral("24 (node003/gpu0) [failed]"));
    QCOMPARE(moves->topLevelItem(0)->text(2), QStringLiteral("dropped"));
    QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("movesSummary"))
                ->text()
                .contains(QStringLiteral("0 moved, 0 renumbered, 32 dropped, 96 unchanged")));

    QPushButton *ok = okButton(dialog);
    QVERIFY(ok->isEnabled());
    QTest::mouseClick(ok, Qt::LeftButton);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    const Scenario &s = dialog.degradedScenario();
    QCOMPARE(s.degrees.dp, 3);
    QCOMPARE(s.degrees.tp, 8);
    QCOMPARE(s.degrees.pp, 4);
    QCOMPARE(s.mappingVersion, 2);
    QCOMPARE(static_cast<int>(s.slots.size()), 96);
    QCOMPARE(s.failures, fail("server:3"));
}

void TestRemapDialog::shrinkPpSelected()
{
    RemapDialog dialog(seed(), fail("server:3"));
    dialog.show();
    auto *shrink = dialog.findChild<QRadioButton *>(QStringLiteral("strategy-shrink-pp"));
    QTest::mouseClick(shrink, Qt::LeftButton, {}, QPoint(8, shrink->height() / 2));
    QCOMPARE(dialog.strategy(), RemapStrategy::ShrinkPp);
    // 120 usable slots hold tp 8 x dp 4 x pp 3 = 96 ranks: the 32 ranks of the last stage are
    // dropped, the 8 on server 3 (one TP group) move, the other 88 stay.
    QCOMPARE(
        dialog.findChild<QTreeWidget *>(QStringLiteral("movesTree"))->topLevelItemCount(), 40);
    QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("remapNotes"))
                ->text()
                .contains(QStringLiteral("pp 4 -> 3: 27, 27, 26 layers per stage instead of 20")));
    QTest::mouseClick(okButton(dialog), Qt::LeftButton);
    QCOMPARE(dialog.result(), int(QDialog::Accepted));
    QCOMPARE(dialog.degradedScenario().degrees.pp, 3);
}

void TestRemapDialog::nothingPossible()
{
    // leaf:2 takes GPU 2 of every server: no strategy keeps whole TP groups.
    RemapDialog dialog(seed(), fail("leaf:2"));
    QVERIFY(!dialog.hasPossibleStrategy());
    for (QRadioButton *radio : dialog.findChildren<QRadioButton *>())
        QVERIFY(!radio->isEnabled());
    QVERIFY(!okButton(dialog)->isEnabled());
    QVERIFY(!dialog.setStrategy(RemapStrategy::DropDp));
    QCOMPARE(dialog.degradedScenario().mappingVersion, 1); // the empty scenario, not a result
}

void TestRemapDialog::badFailure()
{
    RemapDialog dialog(seed(), fail("server:99"));
    QCOMPARE(dialog.errorText(),
        QStringLiteral("failure: server:99 does not exist (the fabric has 16 servers, 0..15)"));
    QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("remapHeader"))
                ->text()
                .startsWith(QStringLiteral("Cannot remap: failure: server:99")));
    QVERIFY(!okButton(dialog)->isEnabled());
}

QTEST_MAIN(TestRemapDialog)
#include "tst_remapdialog.moc"
