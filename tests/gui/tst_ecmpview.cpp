// Hashed ECMP in the explorer (docs/ecmp.md): the fabric view outlines the links hot by
// collision apart from those hot by design, and a collided cable's tooltip names the flows
// hashed onto it and what its siblings carry, from the engine's EcmpReport; under ideal routing
// nothing is outlined or said, and a drag preview shows the ideal split.
#include "document/scenariodocument.h"
#include "fabricinfo.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "linkitem.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <algorithm>
#include <memory>

using namespace railyard;

namespace {

/// The ToR sample: its DP and pipeline traffic crosses the spines, where hashing collides.
Scenario torScenario(EcmpMode mode)
{
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128-tor.json");
    s.fabric.routing.mode = mode;
    s.fabric.routing.seeds = 32;
    return s;
}

} // namespace

class TestEcmpView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void collisionsAreOutlinedAndExplained();
    void idealRoutingSaysNothing();
    void previewShowsTheIdealSplit();
};

void TestEcmpView::collisionsAreOutlinedAndExplained()
{
    ScenarioDocument doc;
    doc.load(torScenario(EcmpMode::Hashed));
    FabricView view(&doc);
    view.resize(1400, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.fitAll();

    const EcmpReport *e = doc.ecmpReport();
    QVERIFY(e);
    QCOMPARE(e->routing.seeds, 32);
    std::vector<int> collided, byDesign;
    for (const EcmpLinkFigure &f : e->links)
        (f.collision ? collided : byDesign).push_back(f.link);
    QVERIFY2(!collided.empty(), "one QP per connection over the ToR sample's spines collides");
    QVERIFY(!byDesign.empty());

    // The outline: exactly the collided links, with a caption that says why.
    QCOMPARE(view.showEcmpCollisions(), static_cast<int>(collided.size()));
    std::vector<int> shown = view.rootItem()->emphasis();
    std::sort(shown.begin(), shown.end());
    std::sort(collided.begin(), collided.end());
    QCOMPARE(shown, collided);
    QVERIFY(view.rootItem()->emphasisCaption().startsWith("hot by collision"));
    QVERIFY(view.rootItem()->emphasisCaption().contains("32 hashed seeds"));
    LinkItem *item = view.rootItem()->linkItem(collided.front());
    QVERIFY(item && item->isEmphasised());

    // The tooltip of a collided cable: the engine's figures for it, composed into one line.
    const auto figure = std::find_if(e->links.begin(), e->links.end(),
        [&](const EcmpLinkFigure &f) { return f.link == collided.front(); });
    QVERIFY(figure != e->links.end());
    const QString tip = FabricInfo::cableToolTip(doc, collided.front() / 2);
    const QString dir = collided.front() % 2 == 0 ? "uplink" : "downlink";
    QVERIFY2(tip.contains(QStringLiteral("%1 flows hashed onto this %2 while its %3 siblings carry")
                              .arg(figure->flows)
                              .arg(dir)
                              .arg(figure->siblings)),
        qPrintable(tip));
    QVERIFY(tip.contains("hot by collision"));
    QVERIFY(figure->worstBytes > figure->siblingMeanBytes);
    QVERIFY(figure->worstBytes >= EcmpLinkFigure::kCollisionRatio * figure->idealBytes);

    // A link that hashing did not crowd says so instead (hot only by design, if at all).
    const int calm = byDesign.front();
    const QString calmTip = FabricInfo::cableToolTip(doc, calm / 2);
    QVERIFY2(calmTip.contains("no collision") || calmTip.contains("hot by collision"),
        qPrintable(calmTip)); // its reverse direction may have collided
}

void TestEcmpView::idealRoutingSaysNothing()
{
    ScenarioDocument doc;
    doc.load(torScenario(EcmpMode::Ideal));
    FabricView view(&doc);
    view.resize(1400, 800);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(!doc.ecmpReport());
    QCOMPARE(view.showEcmpCollisions(), 0);
    QVERIFY(view.rootItem()->emphasis().empty());
    const Fabric &f = doc.engine().fabric();
    for (int id = 0; id < f.linkCount(); id += 2)
        if (f.link(id).tier == Tier::Spine) {
            const QString tip = FabricInfo::cableToolTip(doc, id / 2);
            QVERIFY(!tip.contains("hashed") && !tip.contains("collision"));
            break;
        }
}

void TestEcmpView::previewShowsTheIdealSplit()
{
    ScenarioDocument doc;
    doc.load(torScenario(EcmpMode::Hashed));
    const EcmpReport *before = doc.ecmpReport();
    QVERIFY(before);
    const double p99 = before->p99IterationTime;
    doc.previewSwap(0, 9);
    QVERIFY(doc.isPreviewing());
    QVERIFY(!doc.ecmpReport()); // the preview is the ideal split's, at drag speed
    doc.endPreview();
    const EcmpReport *after = doc.ecmpReport();
    QVERIFY(after);
    QCOMPARE(after->p99IterationTime, p99); // the same mapping, the same seeds
    // A swap that lands changes the mapping: the report follows it.
    doc.swapRanks(0, 9);
    const EcmpReport *moved = doc.ecmpReport();
    QVERIFY(moved);
    QCOMPARE(moved->idealIterationTime, doc.report().iterationTime);
}

QTEST_MAIN(TestEcmpView)
#include "tst_ecmpview.moc"
