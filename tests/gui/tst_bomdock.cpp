// The Bill of Materials dock as a user drives it (offscreen) on the seed scenario: the priced
// lines with their illustrative markers and sources, a unit price edited in the table moving
// the capital by count x difference as ONE undo step (undo and redo), Load Catalogue… through
// the scripted file dialog as one undo step, Defaults, and a bad catalogue file that shows an
// error naming the file and the field and changes nothing.
#include "bomcontroller.h"
#include "bomdock.h"
#include "document/scenariodocument.h"
#include "mainwindow.h"
#include "scenario/cataloguesection.h"
#include "scripteddialogs.h"
#include "studies/bomcost.h"

#include <QDockWidget>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <fstream>

using namespace railyard;

namespace {

int rowOf(QTableWidget *t, const QString &prefix)
{
    for (int r = 0; r < t->rowCount(); ++r)
        if (t->item(r, BomDock::ItemColumn)->text().startsWith(prefix))
            return r;
    return -1;
}

/// The fabric's capital as the figures table shows it (row "Capital, $", fabric column).
double shownCapital(BomDock *dock)
{
    QTableWidget *t = dock->figuresTable();
    if (t->item(1, 0)->text() != QStringLiteral("Capital, $"))
        return -1.0;
    return t->item(1, 2)->text().toDouble();
}

} // namespace

class TestBomDock : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void editLoadAndReset();
};

void TestBomDock::editLoadAndReset()
{
    QTemporaryDir dir;
    MainWindow window;
    auto owned = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs *dialogs = owned.get();
    window.setDialogs(std::move(owned));
    window.resize(1400, 900);
    window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&window));
    ScenarioDocument *doc = window.document();
    doc->waitForEvaluation();
    QDockWidget *dockWidget = window.bom()->dockWidget();
    QCOMPARE(dockWidget->windowTitle(), QStringLiteral("Bill of Materials"));
    dockWidget->show();
    BomDock *dock = window.bom()->dock();
    QTableWidget *lines = dock->linesTable();

    // The seed: 16 DGX-style servers on one SU's 8 rail leaves (64 x 400G) and their spines.
    const int leaf = rowOf(lines, QStringLiteral("leaf switch, 64 x 400G"));
    QVERIFY2(leaf >= 0, "no leaf switch line");
    QCOMPARE(lines->item(leaf, BomDock::QuantityColumn)->text(), QStringLiteral("8"));
    QVERIFY(lines->item(leaf, BomDock::ItemColumn)
                ->text()
                .endsWith(QStringLiteral(" *"))); // illustrative
    QVERIFY(lines->item(leaf, BomDock::SourceColumn)
                ->text()
                .startsWith(QStringLiteral("illustrative")));
    const int gpu = rowOf(lines, QStringLiteral("GPU, h100-sxm"));
    QVERIFY(gpu >= 0);
    QVERIFY(lines->item(gpu, BomDock::SourceColumn)->text().contains(QStringLiteral("700 W")));
    QVERIFY(dock->summaryLabel()->text().contains(QStringLiteral("illustrative")));
    const double before = shownCapital(dock);
    QCOMPARE(before, doc->pricedBom().cost.capexUsd);
    QVERIFY(before > 0.0);

    // Edit the leaf's unit price: 30,000 -> 40,000. One part (switch-64x400) prices the 8 leaves
    // and the 2 spines alike: ten switches.
    QUndoStack *stack = doc->undoStack();
    const int steps = stack->count();
    lines->item(leaf, BomDock::UnitPriceColumn)->setText(QStringLiteral("40000"));
    QTRY_COMPARE(stack->count(), steps + 1); // the dock pushes it once the edit has returned
    QVERIFY(doc->scenario().catalogue.has_value());
    QCOMPARE(shownCapital(dock), before + 10 * 10000.0);
    const int edited = rowOf(lines, QStringLiteral("leaf switch, 64 x 400G"));
    QVERIFY(!lines->item(edited, BomDock::ItemColumn)->text().endsWith(QStringLiteral(" *")));
    QCOMPARE(
        lines->item(edited, BomDock::SourceColumn)->text(), QStringLiteral("edited in Railyard"));
    stack->undo();
    QVERIFY(!doc->scenario().catalogue.has_value());
    QCOMPARE(shownCapital(dock), before);
    stack->redo();
    QCOMPARE(shownCapital(dock), before + 100000.0);
    stack->undo();

    // Load Catalogue…: the defaults with every price doubled, one undo step.
    PartsCatalogue doubled = defaultCatalogue();
    doubled.name = "doubled";
    for (CataloguePart &p : doubled.parts)
        p.priceUsd *= 2;
    const QString good = dir.filePath(QStringLiteral("doubled.json"));
    std::ofstream(good.toStdString()) << cataloguesection::catalogueToText(doubled);
    dialogs->openName = good;
    dock->loadButton()->click();
    QCOMPARE(stack->count(), steps + 1);
    QCOMPARE(shownCapital(dock), 2 * before);
    QVERIFY(dock->summaryLabel()->text().contains(QStringLiteral("doubled")));

    // A bad file: an error naming the file and the field; nothing changes.
    const QString bad = dir.filePath(QStringLiteral("bad.json"));
    std::ofstream(bad.toStdString())
        << R"({"version": 1, "parts": [{"id": "r", "kind": "rack", "price_usd": -5, "illustrative": true}]})";
    QVERIFY(!window.bom()->loadCatalogue(bad));
    QCOMPARE(dialogs->errors.size(), 1);
    QVERIFY2(dialogs->errors.front().contains(bad + QStringLiteral(": parts[0].price_usd")),
        qPrintable(dialogs->errors.front()));
    QCOMPARE(stack->count(), steps + 1);
    QCOMPARE(shownCapital(dock), 2 * before);

    // Defaults: back to the embedded catalogue, one more undo step.
    dock->defaultsButton()->click();
    QCOMPARE(stack->count(), steps + 2);
    QVERIFY(!doc->scenario().catalogue.has_value());
    QCOMPARE(shownCapital(dock), before);
}

QTEST_MAIN(TestBomDock)
#include "tst_bomdock.moc"
