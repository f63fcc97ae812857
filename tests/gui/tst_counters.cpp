// The Port Counters dock as a user drives it (offscreen): File ▸ Import Port Counters… through
// the scripted file dialog on samples/seed-128.json with tests/data/port-counters/
// seed128-window.csv (one idle NIC), the ranked divergences, the toggle that splits each
// measured cable (predicted colour, then measured colour), a click on a divergence that selects
// its link on the fabric, a counter file with a mapping file beside it, and a malformed file
// that shows an error naming file and line and leaves the dock as it was.
#include "counterscontroller.h"
#include "counterspanel.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "linkitem.h"
#include "mainwindow.h"
#include "scripteddialogs.h"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include <cmath>

using namespace railyard;

namespace {

QString dataFile(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/port-counters/") + QLatin1String(name);
}

void writeFile(const QString &path, const QByteArray &text)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(text);
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
    CountersPanel *panel() const { return window.counters()->panel(); }
    FabricItem *root() const { return window.fabricView()->rootItem(); }
    QAction *importAction() const
    {
        return window.findChild<QAction *>(QStringLiteral("actionImportPortCounters"));
    }
    bool open()
    {
        if (!window.openFile(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json")))
            return false;
        window.document()->waitForEvaluation();
        window.resize(1280, 720);
        window.show();
        return QTest::qWaitForWindowExposed(&window);
    }
};

} // namespace

class TestCounters : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void importRanksAndSelects();
    void mappingFileBesideTheCounters();
    void badFileShowsFileAndLine();
};

void TestCounters::importRanksAndSelects()
{
    Fixture f;
    QVERIFY(f.open());
    QVERIFY(f.importAction());
    f.dialogs->counterFiles = { dataFile("seed128-window.csv") };
    f.importAction()->trigger();
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join(QLatin1Char('\n'))));
    QVERIFY(f.window.counters()->dockWidget()->isVisibleTo(&f.window));
    QTreeWidget *list = f.panel()->divergenceList();
    QVERIFY(list->topLevelItemCount() >= 1);
    // node001's mlx5_5 carries nothing while the job loads it: the first divergence.
    QTreeWidgetItem *first = list->topLevelItem(0);
    QCOMPARE(first->text(1), QStringLiteral("idle-nic"));
    QVERIFY2(first->text(2).contains(QStringLiteral("node001/nic5")), qPrintable(first->text(2)));
    QCOMPARE(first->text(3), QStringLiteral("0.0 %"));
    const int idle = f.panel()->linkOfRow(0);
    const Fabric &fabric = f.root()->fabric();
    QVERIFY(idle >= 0 && idle < fabric.linkCount());

    // Off by default: the cables show the prediction only.
    LinkItem *idleCable = f.root()->linkItem(idle);
    QVERIFY(idleCable);
    QVERIFY(!idleCable->showsMeasured());
    QCheckBox *toggle = f.panel()->measuredToggle();
    QVERIFY(toggle->isEnabled());
    // In front of its tab group once the window has laid it out (MainWindow::showBesidePipeline).
    QTRY_VERIFY(toggle->isVisible());
    // On its box: in a wide panel the check box's middle is past its text, where a click misses.
    QTest::mouseClick(toggle, Qt::LeftButton, {}, QPoint(8, toggle->height() / 2));
    QVERIFY(toggle->isChecked());
    QVERIFY(f.root()->measuredShown());
    QVERIFY(idleCable->showsMeasured());
    QCOMPARE(f.root()->measuredUtilisation(idle), 0.0);
    // Predicted load on one half, nothing measured on the other: two colours.
    QVERIFY(idleCable->lineColour() != idleCable->measuredColour());
    // A server the CSV does not cover keeps one colour.
    const int unmeasured = fabric.linkBetween(fabric.nicVertex(9, 0), fabric.leafVertex(0));
    QVERIFY(unmeasured >= 0);
    QVERIFY(std::isnan(f.root()->measuredUtilisation(unmeasured)));
    QVERIFY(!f.root()->linkItem(unmeasured)->showsMeasured());
    // The split cables paint (raster path) without trouble.
    QVERIFY(!f.window.fabricView()->grab().isNull());

    // A click on a divergence selects its link on the fabric.
    const QRect rowRect = list->visualItemRect(first);
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {}, rowRect.center());
    const std::vector<int> &emphasis = f.root()->emphasis();
    QCOMPARE(emphasis.size(), std::size_t(1));
    QCOMPARE(emphasis.front(), idle);

    // Toggled off: the prediction alone again.
    QTest::mouseClick(toggle, Qt::LeftButton, {}, QPoint(8, toggle->height() / 2));
    QVERIFY(!f.root()->measuredShown());
    QVERIFY(!idleCable->showsMeasured());
}

void TestCounters::mappingFileBesideTheCounters()
{
    Fixture f;
    QVERIFY(f.open());
    QTemporaryDir dir;
    const QString counters = dir.filePath(QStringLiteral("lo.csv"));
    writeFile(counters, "host,device,port,tx_bytes,rx_bytes,seconds\nhead,lo,,5e10,5e10,10\n");
    const QString map = dir.filePath(QStringLiteral("map.csv"));
    writeFile(map,
        "# lo as node002's NIC 4\nhost,device,port,from,to\n*,lo,,node002/nic4,leaf-su0-rail4\n");
    QVERIFY(f.window.counters()->importFiles({ map, counters }));
    QVERIFY2(f.dialogs->errors.isEmpty(), qPrintable(f.dialogs->errors.join(QLatin1Char('\n'))));
    const Fabric &fabric = f.root()->fabric();
    const int link = fabric.linkBetween(fabric.nicVertex(2, 4), fabric.leafVertex(4));
    QVERIFY(link >= 0);
    // 5e10 bytes over 10 s on a 400 Gbit/s (5e10 B/s) link: 10 %.
    QVERIFY(std::abs(f.root()->measuredUtilisation(link) - 0.1) < 1e-12);
}

void TestCounters::badFileShowsFileAndLine()
{
    Fixture f;
    QVERIFY(f.open());
    QVERIFY(f.window.counters()->importFiles({ dataFile("seed128-window.csv") }));
    const int rows = f.panel()->divergenceList()->topLevelItemCount();
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("bad.txt"));
    writeFile(bad, "# Port extended counters: Lid 3 port 1\nPortXmitData:....12q\n");
    QVERIFY(!f.window.counters()->importFiles({ bad }));
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY2(f.dialogs->errors.front().startsWith(QStringLiteral("Import Port Counters|") + bad
                 + QStringLiteral(":2: PortXmitData value")),
        qPrintable(f.dialogs->errors.front()));
    QCOMPARE(f.panel()->divergenceList()->topLevelItemCount(), rows);
}

QTEST_MAIN(TestCounters)
#include "tst_counters.moc"
