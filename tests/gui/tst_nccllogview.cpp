// "NCCL's view" as a user drives it (offscreen): File ▸ Open NCCL Log… on a log written here in
// NCCL's INFO format (2.27) of DP group 0 of a tp 4 x dp 4 job on 2 x 8 GPUs (slots 0, 4 on one
// server, 8, 12 on the other), whose one ring 0 -> 1 -> 2 -> 3 crosses from NIC 4 to NIC 0 twice;
// the dock names the group and the three ranks whose hop differs from the engine's ring, the
// overlay draws the channel's four hops with the crossing one through a spine, "Use What NCCL
// Did" puts the rings into the scenario as one undo step (DP bytes then reach the spine), undo
// and redo, "Use the Prediction", and a malformed log that shows an error naming file and line.
// On tests/data/nccl-logs/dp-group-misbound-nic.log (the same group on the engine's rings, its
// GPU 4 of hostA on NIC 5): "Use What NCCL Did" records the hops' NICs, and the link loads move
// that GPU's bytes from NIC 4's leaf port to NIC 5's.
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "fabric/fabric.h"
#include "fixtures.h"
#include "mainwindow.h"
#include "nccllogcontroller.h"
#include "ncclviewpanel.h"
#include "scripteddialogs.h"

#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QPushButton>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>
#include <QUndoStack>

using namespace railyard;

namespace {

/// NCCL 2.27's lines (init.cc, rings.cc, net.cc, p2p.cc) for the 4 ranks of DP group 0.
QByteArray dpGroupLog()
{
    QByteArray out;
    const char *hosts[] = { "hostA", "hostA", "hostB", "hostB" };
    const int gpus[] = { 0, 4, 0, 4 };
    const auto pre = [&](int r) {
        return QByteArray(hosts[r]) + ":" + QByteArray::number(500 + r) + ":"
            + QByteArray::number(500 + r) + " [" + QByteArray::number(gpus[r]) + "] NCCL INFO ";
    };
    for (int r = 0; r < 4; ++r)
        out += pre(r) + "comm 0x" + QByteArray::number(r + 1) + "0 rank " + QByteArray::number(r)
            + " nRanks 4 nNodes 2 localRanks 2 localRank " + QByteArray::number(r % 2)
            + " MNNVL 0\n";
    out += pre(0) + "Channel 00/01 :    0   1   2   3\n";
    out += pre(0) + "Channel 00/0 : 0[0] -> 1[4] via P2P/CUMEM/read\n";
    out += pre(1) + "Channel 00/0 : 1[4] -> 2[0] [send] via NET/IB/4/GDRDMA\n";
    out += pre(2) + "Channel 00/0 : 1[4] -> 2[0] [receive] via NET/IB/0/GDRDMA\n";
    out += pre(2) + "Channel 00/0 : 2[0] -> 3[4] via P2P/CUMEM/read\n";
    out += pre(3) + "Channel 00/0 : 3[4] -> 0[0] [send] via NET/IB/4/GDRDMA\n";
    out += pre(0) + "Channel 00/0 : 3[4] -> 0[0] [receive] via NET/IB/0/GDRDMA\n";
    for (int r = 0; r < 4; ++r)
        out += pre(r) + "ncclCommInitRankConfig comm 0x" + QByteArray::number(r + 1) + "0 rank "
            + QByteArray::number(r) + " nranks 4 cudaDev " + QByteArray::number(gpus[r])
            + " nvmlDev " + QByteArray::number(gpus[r]) + " busId 18000 commId 0xd0 - Init "
            + "COMPLETE\n";
    return out;
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
};

} // namespace

class TestNcclLogView : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void overlayAndUseWhatNcclDid();
    void useWhatNcclDidCarriesTheNics();
    void malformedLogChangesNothing();

private:
    QString writeLog(const QString &name, const QByteArray &text);
    QTemporaryDir m_dir;
};

void TestNcclLogView::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(m_dir.isValid());
}

QString TestNcclLogView::writeLog(const QString &name, const QByteArray &text)
{
    const QString path = m_dir.filePath(name);
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(text);
    return path;
}

void TestNcclLogView::overlayAndUseWhatNcclDid()
{
    Fixture f;
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4));
    s.collectives.algorithm = CollectiveAlgorithm::Ring;
    f.doc()->load(s);
    f.doc()->waitForEvaluation();
    QCOMPARE(fixtures::tierDimBytes(f.doc()->engine(), Tier::Spine, Dim::Dp), 0.0);
    NcclLogController *c = f.window.findChild<NcclLogController *>();
    QVERIFY(c != nullptr);
    QVERIFY(c->openAction() != nullptr);
    QVERIFY(!c->dockWidget()->isVisibleTo(&f.window));

    QVERIFY(c->openFiles({ writeLog(QStringLiteral("dp.log"), dpGroupLog()) }));
    QVERIFY(f.dialogs->errors.isEmpty());
    QVERIFY(c->dockWidget()->isVisibleTo(&f.window));
    NcclViewPanel *p = c->panel();
    QCOMPARE(p->commBox()->count(), 1);
    QCOMPARE(p->commBox()->itemText(0), QStringLiteral("0xd0 (dp 0)"));
    QCOMPARE(p->channelBox()->count(), 1);
    QCOMPARE(p->channelBox()->itemText(0), QStringLiteral("0 (differs)"));
    // The engine's channel 0 runs 0 -> 1 -> 3 -> 2 (each server left on the NIC the next one
    // is entered on): NCCL's hops from ranks 1, 2 and 3 differ.
    QCOMPARE(p->hopList()->topLevelItemCount(), 3);
    QCOMPARE(p->hopList()->topLevelItem(0)->text(0), QStringLiteral("1"));
    QVERIFY(p->hopList()->topLevelItem(0)->text(1).contains(
        QStringLiteral("over NIC 4 → NIC 0, leaves its rail, reaches a spine")));
    QVERIFY(p->hopList()->topLevelItem(0)->text(2).contains(
        QStringLiteral("1 (hostA GPU 4) → 3 (hostB GPU 4) over NIC 4 → NIC 4")));

    // The overlay: four hops, three marked; rank 1's hop runs up to a spine and down.
    NcclRingOverlayItem *overlay = c->overlay();
    QVERIFY(overlay != nullptr);
    QCOMPARE(overlay->hops().size(), std::size_t(4));
    QVERIFY(!overlay->hops()[0].differs);
    QVERIFY(overlay->hops()[1].differs);
    const Fabric &fabric = f.doc()->engine().fabric();
    int spineLinks = 0;
    for (const int link : overlay->hops()[1].links)
        spineLinks += fabric.link(link).tier == Tier::Spine;
    QCOMPARE(spineLinks, 2); // leaf -> spine -> leaf
    QVERIFY(overlay->hops()[1].links.size() >= 4); // NIC up, spine up and down, NIC down
    QVERIFY(!overlay->boundingRect().isEmpty());

    // Use what NCCL did: one undo step, and the DP bytes of group 0 reach the spine.
    const int steps = f.doc()->undoStack()->count();
    QVERIFY(p->useButton()->isEnabled());
    QTest::mouseClick(p->useButton(), Qt::LeftButton);
    f.doc()->waitForEvaluation();
    QCOMPARE(f.doc()->undoStack()->count(), steps + 1);
    QCOMPARE(f.doc()->scenario().ncclObserved.comms.size(), std::size_t(1));
    QCOMPARE(f.doc()->scenario().ncclObserved.comms[0].slots, (std::vector<int> { 0, 4, 8, 12 }));
    QVERIFY(fixtures::tierDimBytes(f.doc()->engine(), Tier::Spine, Dim::Dp) > 0.0);
    QVERIFY(!p->useButton()->isEnabled());
    QVERIFY(p->stopButton()->isEnabled());

    f.doc()->undoStack()->undo();
    f.doc()->waitForEvaluation();
    QVERIFY(f.doc()->scenario().ncclObserved.empty());
    QCOMPARE(fixtures::tierDimBytes(f.doc()->engine(), Tier::Spine, Dim::Dp), 0.0);
    QVERIFY(p->useButton()->isEnabled());
    f.doc()->undoStack()->redo();
    f.doc()->waitForEvaluation();
    QVERIFY(!f.doc()->scenario().ncclObserved.empty());

    QTest::mouseClick(p->stopButton(), Qt::LeftButton);
    f.doc()->waitForEvaluation();
    QVERIFY(f.doc()->scenario().ncclObserved.empty());
    QCOMPARE(f.doc()->undoStack()->count(), steps + 2);
    QCOMPARE(fixtures::tierDimBytes(f.doc()->engine(), Tier::Spine, Dim::Dp), 0.0);

    // Closing the dock takes the channel off the fabric; opening it puts it back.
    f.window.show();
    QVERIFY(QTest::qWaitForWindowExposed(&f.window));
    QVERIFY(overlay->isVisible());
    c->dockWidget()->close();
    QVERIFY(!overlay->isVisible());
    c->dockWidget()->show();
    QVERIFY(overlay->isVisible());
    // The pipeline brought in front of it (the two share a tab group where they do not fit
    // side by side) leaves the channel on the fabric: only closing the dock takes it off.
    f.window.showPanel(f.window.findChild<QDockWidget *>(QStringLiteral("timelineDock")));
    QCoreApplication::processEvents();
    QVERIFY(overlay->isVisible());
}

void TestNcclLogView::useWhatNcclDidCarriesTheNics()
{
    Fixture f;
    Scenario s = fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4));
    s.collectives.algorithm = CollectiveAlgorithm::Ring;
    f.doc()->load(s);
    f.doc()->waitForEvaluation();
    // Server 0's NIC 4 and NIC 5 -> their leaves, as link ids: the fabric stays the same
    // through the edit, the engine that holds it does not.
    int nic4 = -1, nic5 = -1;
    {
        const Fabric &fabric = f.doc()->engine().fabric();
        const auto nicUp = [&](int server, int nic) {
            return fabric.linkBetween(
                fabric.nicVertex(server, nic), fabric.leafVertex(fabric.leafOfNic(server, nic)));
        };
        nic4 = nicUp(0, 4);
        nic5 = nicUp(0, 5);
    }
    const auto dp = [&](int link) {
        return f.doc()
            ->engine()
            .report()
            .links.at(static_cast<std::size_t>(link))
            .dimBytes[index(Dim::Dp)];
    };
    const double hop = dp(nic4); // slot 4 -> 12 on the engine's ring 0
    QVERIFY(hop > 0.0);
    QCOMPARE(dp(nic5), hop); // DP group 1's slot 5 -> 13

    NcclLogController *c = f.window.findChild<NcclLogController *>();
    QVERIFY(c->openFiles(
        { QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/nccl-logs/dp-group-misbound-nic.log") }));
    QVERIFY(f.dialogs->errors.isEmpty());
    QTest::mouseClick(c->panel()->useButton(), Qt::LeftButton);
    f.doc()->waitForEvaluation();
    const NcclObservedSpec &o = f.doc()->scenario().ncclObserved;
    QCOMPARE(o.comms.size(), std::size_t(1));
    const std::vector<NcclObservedNics> nics { { 0, 1, 5, 4, false }, { 0, 2, 0, 0, false },
        { 1, 0, 0, 0, false }, { 1, 3, 4, 5, false } };
    QVERIFY(o.comms[0].nics == nics);
    QCOMPARE(dp(nic4), 0.0);
    QCOMPARE(dp(nic5), 2.0 * hop);
    QVERIFY(fixtures::tierDimBytes(f.doc()->engine(), Tier::Spine, Dim::Dp) > 0.0);
    f.doc()->undoStack()->undo();
    f.doc()->waitForEvaluation();
    QCOMPARE(dp(nic4), hop);
}

void TestNcclLogView::malformedLogChangesNothing()
{
    Fixture f;
    f.doc()->load(fixtures::smallDense(2, 8, fixtures::degrees(4, 1, 4)));
    const Scenario before = f.doc()->scenario();
    const QString bad = writeLog(QStringLiteral("bad.log"),
        "h:1:1 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 1\n"
        "h:1:1 [0] NCCL INFO Channel 00/02 : 0 1 1 3\n");
    NcclLogController *c = f.window.findChild<NcclLogController *>();
    QVERIFY(!c->openFiles({ bad }));
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY2(f.dialogs->errors.front().contains(QStringLiteral("bad.log:2: ring of channel 0")),
        qPrintable(f.dialogs->errors.front()));
    QVERIFY(f.doc()->scenario() == before);
    QVERIFY(!c->dockWidget()->isVisibleTo(&f.window));
}

QTEST_MAIN(TestNcclLogView)
#include "tst_nccllogview.moc"
