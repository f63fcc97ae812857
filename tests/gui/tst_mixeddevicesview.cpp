// Mixed devices in the fabric view (docs/mixed-devices.md): on samples/mixed-h100-h200.json each
// server's bar names its device and the H200 servers' boxes are tinted; a GPU's status line and
// a server's tooltip name the device and its HBM. The seed sample (one device kind) shows none.
#include "fabricinfo.h"
#include "fabricviewfixture.h"

#include <QTest>

using namespace railyard;
using namespace railyard::fabrictest;

class TestMixedDevicesView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void serversShowTheirDevice();
    void oneDeviceKindShowsNone();

private:
    static void open(const char *sample, std::unique_ptr<ScenarioDocument> &doc,
        std::unique_ptr<FabricView> &view);
};

void TestMixedDevicesView::open(
    const char *sample, std::unique_ptr<ScenarioDocument> &doc, std::unique_ptr<FabricView> &view)
{
    doc = std::make_unique<ScenarioDocument>();
    doc->load(loadScenario(std::string(RAILYARD_SOURCE_DIR "/samples/") + sample));
    doc->waitForEvaluation();
    view = std::make_unique<FabricView>(doc.get());
    view->resize(1400, 800);
    view->show();
    QVERIFY(QTest::qWaitForWindowExposed(view.get()));
    view->fitAll();
}

void TestMixedDevicesView::serversShowTheirDevice()
{
    std::unique_ptr<ScenarioDocument> doc;
    std::unique_ptr<FabricView> view;
    open("mixed-h100-h200.json", doc, view);
    // node000-001 hold the scenario's H100, node002-003 the pool's H200.
    std::vector<const ServerItem *> servers;
    for (int server = 0; server < 4; ++server) {
        const ServerItem *item = view->rootItem()->serverItem(server);
        QVERIFY(item);
        QCOMPARE(
            item->deviceName(), server < 2 ? QStringLiteral("h100-sxm") : QStringLiteral("h200"));
        servers.push_back(item);
    }
    const QColor plain = servers[0]->boxColour();
    QCOMPARE(plain, QColor(0xfc, 0xfc, 0xfd)); // the scenario's device: the usual white
    QCOMPARE(servers[1]->boxColour(), plain);
    QCOMPARE(servers[2]->boxColour(), servers[3]->boxColour());
    QVERIFY(servers[2]->boxColour() != plain);
    // The texts name the device; the numbers are the preset's (presets.cpp).
    QVERIFY2(
        FabricInfo::serverToolTip(*doc, 2).contains(QStringLiteral("node002 · h200, 141 GB HBM")),
        qPrintable(FabricInfo::serverToolTip(*doc, 2)));
    QCOMPARE(FabricInfo::slotStatus(*doc, 16),
        QStringLiteral("rank 16 (d=0, p=2, t=0) on node002/gpu0 · rail 0 · h200, 141 GB HBM"));
    QVERIFY(FabricInfo::slotStatus(*doc, 0).endsWith(QStringLiteral(" · h100-sxm, 80 GB HBM")));
}

void TestMixedDevicesView::oneDeviceKindShowsNone()
{
    std::unique_ptr<ScenarioDocument> doc;
    std::unique_ptr<FabricView> view;
    open("seed-128.json", doc, view);
    const ServerItem *item = view->rootItem()->serverItem(4);
    QVERIFY(item);
    QVERIFY(item->deviceName().isEmpty());
    QCOMPARE(item->boxColour(), QColor(0xfc, 0xfc, 0xfd));
    QVERIFY(!FabricInfo::serverToolTip(*doc, 4).contains(QStringLiteral("HBM")));
    QCOMPARE(FabricInfo::slotStatus(*doc, 32),
        QStringLiteral("rank 32 (d=0, p=1, t=0) on node004/gpu0 · rail 0"));
}

QTEST_MAIN(TestMixedDevicesView)
#include "tst_mixeddevicesview.moc"
