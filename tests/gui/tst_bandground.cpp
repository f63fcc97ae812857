// What lies under each rail band of the fabric view's backdrop (views/bandground.h): the
// frames and domains near a band, found by an index sorted by left edge, give what testing the
// band against every frame and domain gives (FabricItem::batchBands() before the index), on
// the seed fabric, a three-tier fabric of 16 pods and the NVL72 sample's rack-scale domains.
#include "bandground.h"
#include "fabriclayout.h"
#include "fixtures.h"
#include "scenario/scenariofile.h"

#include <QTest>

#include <string>
#include <vector>

Q_DECLARE_METATYPE(railyard::FabricSpec)

using namespace railyard;

namespace {

/// Every band against every frame (pods first, then the groups inside them) and domain.
std::vector<BandGround> everyFrame(const FabricLayout &layout)
{
    std::vector<BandGround> out;
    for (const FabricLayout::Band &band : layout.bands()) {
        BandGround g;
        for (const bool pod : { true, false })
            for (const FabricLayout::Frame &frame : layout.frames()) {
                if (frame.pod != pod)
                    continue;
                if (frame.rect.contains(band.rect))
                    g.below = pod ? BandGround::Below::Pod : BandGround::Below::Group;
                else if (frame.rect.intersects(band.rect))
                    g.uniform = false;
            }
        for (const FabricLayout::Domain &domain : layout.domains()) {
            if (domain.rect.contains(band.rect))
                g.below = BandGround::Below::Domain;
            else if (domain.rect.intersects(band.rect))
                g.uniform = false;
        }
        out.push_back(g);
    }
    return out;
}

} // namespace

class TestBandGround : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void sameAsEveryFrame_data();
    void sameAsEveryFrame();
};

void TestBandGround::sameAsEveryFrame_data()
{
    QTest::addColumn<FabricSpec>("spec");
    QTest::addColumn<int>("pods");
    QTest::addColumn<int>("domains");
    QTest::newRow("seed-128") << fixtures::seed128().fabric << 1 << 0;
    // Radix 8, 4 servers per SU: a rail leaf has 4 ports down and 4 up, a pod one SU.
    QTest::newRow("16 pods") << fixtures::railFabric(64, 8, 4, 8) << 16 << 0;
    QTest::newRow("nvl72")
        << loadScenario(std::string(RAILYARD_SOURCE_DIR "/samples/gb200-nvl72-moe.json")).fabric
        << 1 << 8;
}

void TestBandGround::sameAsEveryFrame()
{
    QFETCH(FabricSpec, spec);
    QFETCH(int, pods);
    QFETCH(int, domains);
    const Fabric fabric = Fabric::build(spec);
    QCOMPARE(fabric.podCount(), pods);
    const FabricLayout layout(fabric);
    QCOMPARE(static_cast<int>(layout.domains().size()), domains);
    QVERIFY(!layout.bands().empty());
    const std::vector<BandGround> want = everyFrame(layout);
    const std::vector<BandGround> got = bandGrounds(layout);
    QCOMPARE(got.size(), want.size());
    int overGroups = 0;
    for (std::size_t b = 0; b < want.size(); ++b) {
        QVERIFY2(got[b].below == want[b].below && got[b].uniform == want[b].uniform,
            qPrintable(QStringLiteral("band %1").arg(b)));
        overGroups += want[b].below == BandGround::Below::Group ? 1 : 0;
    }
    // The bands lie in their scalable units' frames; in NVL72 racks the domains' bands meet
    // them (contain or cross them), so the domains' index is exercised too.
    int meetDomains = 0;
    for (const FabricLayout::Band &band : layout.bands())
        for (const FabricLayout::Domain &domain : layout.domains())
            if (domain.rect.intersects(band.rect) || domain.rect.contains(band.rect)) {
                ++meetDomains;
                break;
            }
    if (domains > 0)
        QVERIFY(meetDomains > 0);
    else
        QCOMPARE(overGroups, static_cast<int>(want.size()));
}

QTEST_MAIN(TestBandGround)
#include "tst_bandground.moc"
