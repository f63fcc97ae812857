// The main window as a user drives it: files (open errors, Save As round trip, the
// unsaved-changes prompt), undo/redo and preset actions, exports, and `railyard --screenshot`.
// Modal dialogs are replaced by a scripted UserDialogs, so nothing blocks.
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "cost/scenariocheck.h"
#include "document/scenariodocument.h"
#include "documentfiles.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "legenditem.h"
#include "mainactions.h"
#include "mainwindow.h"
#include "recentfiles.h"
#include "scenario/scenariofile.h"
#include "scripteddialogs.h"
#include "scriptedwindow.h"

#include <QAction>
#include <QDockWidget>
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

using namespace railyard;

namespace {


/** A window with scripted dialogs. */
struct Fixture : ScriptedWindow
{
    Fixture() : ScriptedWindow(QSize(), false)
    {
        dialogs->saveChoice = UserDialogs::SaveChoice::Cancel; // nothing is lost by accident
    }
    QAction *action(const char *name) const { return window.actions()->action(QString::fromLatin1(name)); }
};

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

/// The loader's (or, for a well-formed but impossible file, the engine's) own message: what
/// the window must show.
QString loaderMessage(const QString &path)
{
    try {
        CostEngine engine(loadScenario(path.toStdString()));
    } catch (const ScenarioError &e) {
        return QString::fromUtf8(e.what());
    }
    return QString();
}

} // namespace

class TestMainWindow : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void init();
    void startsWithTheDefaultScenario();
    void openMalformedFileKeepsDocument_data();
    void openMalformedFileKeepsDocument();
    void openActionPromptsThenReportsError();
    void saveAsThenReloadGivesEqualScenario();
    void saveWritesTheCurrentFile();
    void undoRedoActions();
    void keyboardUndoRedo();
    void relativeLoadScaleIsRemembered();
    void presetsAreUndoable();
    void closeAsksWhenModified();
    void closeWithSaveChoiceSaves();
    void newFromTemplate();
    void exportViews_data();
    void exportViews();
    void screenshotWritesPng();
    void screenshotOfBadFileFails();
    void panelAskedAtStartKeepsTheAskedSize_data();
    void panelAskedAtStartKeepsTheAskedSize();

private:
    QTemporaryDir m_dir;
};

void TestMainWindow::initTestCase()
{
    QStandardPaths::setTestModeEnabled(true); // QSettings (recent files) go to a test location
    QCoreApplication::setOrganizationName(QStringLiteral("RailyardTest"));
    QCoreApplication::setApplicationName(QStringLiteral("tst_mainwindow"));
    QVERIFY(m_dir.isValid());
}

void TestMainWindow::init()
{
    QSettings().clear();
}

void TestMainWindow::startsWithTheDefaultScenario()
{
    Fixture f;
    QCOMPARE(f.doc()->scenario().name, std::string("seed-128"));
    QCOMPARE(int(f.doc()->scenario().slots.size()), 128);
    QVERIFY(!f.doc()->isModified());
    QVERIFY(f.window.windowTitle().contains(QStringLiteral("Untitled (seed-128)")));
    QVERIFY(f.window.windowTitle().contains(QStringLiteral("[*]")));
    QVERIFY(!f.window.isWindowModified());
    for (const char *dock : {"ranksDock", "inspectorDock", "chartsDock", "timelineDock"})
        QVERIFY2(f.window.findChild<QDockWidget *>(QString::fromLatin1(dock)), dock);
    QVERIFY(f.window.fabricView());
    QVERIFY(f.window.timelineView());

    f.doc()->swapRanks(0, 9);
    QVERIFY(f.window.isWindowModified());
}

void TestMainWindow::openMalformedFileKeepsDocument_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::newRow("not JSON") << QByteArray("{ \"format_version\": 1, ");
    QTest::newRow("wrong type") << QByteArray(R"({"format_version": 1, "fabric": "big"})");
    QTest::newRow("impossible degrees") << [] {
        Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
        std::string text = scenarioToText(s);
        const auto at = text.find("\"tp\": 8");
        text.replace(at, 7, "\"tp\": 3");
        return QByteArray::fromStdString(text);
    }();
    QTest::newRow("missing file") << QByteArray();
}

void TestMainWindow::openMalformedFileKeepsDocument()
{
    QFETCH(QByteArray, content);
    const QString path = m_dir.filePath(QStringLiteral("bad-%1.json").arg(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('-')));
    if (!content.isEmpty())
        writeFile(path, content);
    const QString expected = loaderMessage(path);
    QVERIFY(!expected.isEmpty());

    Fixture f;
    f.doc()->swapRanks(0, 9);
    const Scenario before = f.doc()->scenario();
    const QString title = f.window.windowTitle();

    QVERIFY(!f.window.openFile(path));
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY2(f.dialogs->errors.first().endsWith(QLatin1Char('|') + expected), qPrintable(f.dialogs->errors.first()));
    QVERIFY(sameScenario(f.doc()->scenario(), before));
    QCOMPARE(f.doc()->undoStack()->count(), 1);
    QVERIFY(f.doc()->isModified());
    QVERIFY(f.doc()->filePath().isEmpty());
    QCOMPARE(f.window.windowTitle(), title);
    QVERIFY(f.window.statusBar()->currentMessage().contains(QStringLiteral("Could not open")));
    QVERIFY(!f.window.files()->recentFiles()->files().contains(path));
}

void TestMainWindow::openActionPromptsThenReportsError()
{
    const QString path = m_dir.filePath(QStringLiteral("garbage.json"));
    writeFile(path, "garbage");
    Fixture f;
    f.doc()->swapRanks(0, 9);
    const Scenario before = f.doc()->scenario();
    f.dialogs->openName = path;

    f.dialogs->saveChoice = UserDialogs::SaveChoice::Cancel;
    f.action("actionOpen")->trigger();
    QCOMPARE(f.dialogs->saveQuestionCount(), 1);
    QVERIFY(f.dialogs->errors.isEmpty()); // cancelled before the file was read

    f.dialogs->saveChoice = UserDialogs::SaveChoice::Discard;
    f.action("actionOpen")->trigger();
    QCOMPARE(f.dialogs->saveQuestionCount(), 2);
    QCOMPARE(f.dialogs->errors.size(), 1);
    QVERIFY(sameScenario(f.doc()->scenario(), before)); // "discard" applies only to a successful open
    QVERIFY(f.doc()->isModified());
}

void TestMainWindow::saveAsThenReloadGivesEqualScenario()
{
    const QString path = m_dir.filePath(QStringLiteral("saved.json"));
    Fixture f;
    f.action("actionPlacementRailAligned")->trigger();
    f.doc()->swapRanks(3, 40);
    Scenario edited = f.doc()->scenario();
    edited.training.globalBatch = 128;
    QCOMPARE(f.doc()->editScenario(edited, QStringLiteral("Change global batch")), QString());
    QVERIFY(f.doc()->isModified());

    f.dialogs->saveName = path;
    f.action("actionSaveAs")->trigger();
    QVERIFY(QFile::exists(path));
    QVERIFY(!f.doc()->isModified());
    QCOMPARE(f.doc()->filePath(), path);
    QVERIFY(f.window.windowTitle().startsWith(QStringLiteral("saved.json")));
    QVERIFY(f.window.statusBar()->currentMessage().contains(QStringLiteral("Saved")));
    QCOMPARE(f.window.files()->recentFiles()->files().value(0), path);

    Fixture g;
    QVERIFY(g.window.openFile(path));
    QVERIFY(g.dialogs->errors.isEmpty());
    QVERIFY(sameScenario(g.doc()->scenario(), f.doc()->scenario()));
    QCOMPARE(g.doc()->report().iterationTime, f.doc()->report().iterationTime);
}

void TestMainWindow::saveWritesTheCurrentFile()
{
    const QString path = m_dir.filePath(QStringLiteral("current.json"));
    Fixture f;
    f.dialogs->saveName = path;
    f.action("actionSave")->trigger(); // untitled: Save asks for a name
    QCOMPARE(f.dialogs->saveNameQuestions, 1);
    f.doc()->swapRanks(0, 127);
    f.action("actionSave")->trigger();
    QCOMPARE(f.dialogs->saveNameQuestions, 1); // no second question
    QVERIFY(!f.doc()->isModified());
    QCOMPARE(loadScenario(path.toStdString()).slots, f.doc()->scenario().slots);
}

void TestMainWindow::undoRedoActions()
{
    Fixture f;
    QAction *undo = f.action("actionUndo");
    QAction *redo = f.action("actionRedo");
    QVERIFY(undo && redo);
    QVERIFY(undo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::Key_Z)));
    QVERIFY(redo->shortcuts().contains(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_Z)));
    QVERIFY(!undo->isEnabled());

    const std::vector<int> before = f.doc()->scenario().slots;
    f.doc()->swapRanks(0, 9);
    QVERIFY(undo->isEnabled());
    QVERIFY(undo->text().contains(QStringLiteral("Swap")));
    undo->trigger();
    QCOMPARE(f.doc()->scenario().slots, before);
    QVERIFY(redo->isEnabled());
    QVERIFY(f.window.statusBar()->currentMessage().startsWith(QStringLiteral("Undone: Swap")));
    redo->trigger();
    QCOMPARE(f.doc()->scenario().slots[0], before[9]);
    QVERIFY(f.window.statusBar()->currentMessage().startsWith(QStringLiteral("Redone: Swap")));
}

void TestMainWindow::relativeLoadScaleIsRemembered()
{
    {
        Fixture f;
        f.window.show(); // a hidden window's close() sends no close event
        QAction *relative = f.action("actionRelativeLoadScale");
        QVERIFY(relative && relative->isCheckable() && !relative->isChecked());
        QCOMPARE(f.window.fabricView()->rootItem()->loadScale(), LoadScale::Absolute);
        QCOMPARE(f.window.fabricView()->legendItem()->maxUtilisation(), 1.0);
        relative->trigger();
        const CostReport &r = f.doc()->report();
        QCOMPARE(f.window.fabricView()->rootItem()->loadScale(), LoadScale::Relative);
        QCOMPARE(f.window.fabricView()->legendItem()->maxUtilisation(),
                 r.utilisation(r.bottleneckLink));
        QVERIFY(f.window.close()); // unmodified: no prompt; writes the settings
    }
    Fixture g; // the next launch (main() reads the settings) keeps the choice
    g.window.readSettings();
    QVERIFY(g.action("actionRelativeLoadScale")->isChecked());
    QCOMPARE(g.window.fabricView()->rootItem()->loadScale(), LoadScale::Relative);
}

void TestMainWindow::keyboardUndoRedo()
{
    Fixture f;
    f.window.show();
    QVERIFY(QTest::qWaitForWindowActive(&f.window));
    QWidget *view = f.window.fabricView();
    view->setFocus();
    const std::vector<int> before = f.doc()->scenario().slots;
    f.doc()->swapRanks(0, 9);
    QTest::keyClick(view, Qt::Key_Z, Qt::ControlModifier);
    QCOMPARE(f.doc()->scenario().slots, before);
    QTest::keyClick(view, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
    QCOMPARE(f.doc()->scenario().slots[0], before[9]);
    f.doc()->undoStack()->setClean(); // no prompt on close
}

void TestMainWindow::presetsAreUndoable()
{
    Fixture f;
    const std::vector<int> packed = f.doc()->scenario().slots;
    const double spineBefore = f.doc()->report().spineBytesShare;
    const double iterationBefore = f.doc()->report().iterationTime;
    const auto tpLeafBytes = [&f] {
        return f.doc()->report().tierBytes[static_cast<std::size_t>(index(Tier::Leaf))]
                                          [static_cast<std::size_t>(index(Dim::Tp))];
    };
    QCOMPARE(tpLeafBytes(), 0.0); // packed: every TP group inside one server
    f.action("actionPlacementScattered")->trigger();
    QCOMPARE(f.doc()->scenario().placement, Placement::Scattered);
    // Scattered puts each TP group's members on one local GPU index of different servers: their
    // rings leave the servers on one rail (so no spine share) and the iteration gets longer.
    QVERIFY(tpLeafBytes() > 0.0);
    QVERIFY(f.doc()->report().iterationTime > iterationBefore);
    QVERIFY(f.window.statusBar()->currentMessage().contains(QStringLiteral("Scattered")));
    QCOMPARE(f.doc()->undoStack()->count(), 1);
    f.action("actionUndo")->trigger();
    QCOMPARE(f.doc()->scenario().slots, packed);
    QCOMPARE(f.doc()->report().spineBytesShare, spineBefore);
}

void TestMainWindow::closeAsksWhenModified()
{
    Fixture f;
    f.window.show();
    f.doc()->swapRanks(0, 9);
    f.dialogs->saveChoice = UserDialogs::SaveChoice::Cancel;
    QVERIFY(!f.window.close());
    QCOMPARE(f.dialogs->saveQuestionCount(), 1);
    QVERIFY(f.window.isVisible());

    f.dialogs->saveChoice = UserDialogs::SaveChoice::Discard;
    QVERIFY(f.window.close());
    QCOMPARE(f.dialogs->saveQuestionCount(), 2);

    Fixture clean;
    clean.window.show();
    QVERIFY(clean.window.close());
    QCOMPARE(clean.dialogs->saveQuestionCount(), 0); // nothing to lose: no question
}

void TestMainWindow::closeWithSaveChoiceSaves()
{
    const QString path = m_dir.filePath(QStringLiteral("on-close.json"));
    Fixture f;
    f.window.show();
    f.doc()->swapRanks(1, 2);
    f.dialogs->saveChoice = UserDialogs::SaveChoice::Save;
    f.dialogs->saveName = path;
    QVERIFY(f.window.close());
    QVERIFY(QFile::exists(path));
    QCOMPARE(loadScenario(path.toStdString()).slots, f.doc()->scenario().slots);

    // Save chosen but the name dialog cancelled: the window stays open.
    Fixture g;
    g.window.show();
    g.doc()->swapRanks(1, 2);
    g.dialogs->saveChoice = UserDialogs::SaveChoice::Save;
    g.dialogs->saveName.clear();
    QVERIFY(!g.window.close());
}

void TestMainWindow::newFromTemplate()
{
    Fixture f;
    f.doc()->swapRanks(0, 9);
    const QString resource = QFile::exists(QStringLiteral(":/samples/seed-128-tor.json"))
                                 ? QStringLiteral(":/samples/seed-128-tor.json")
                                 : QStringLiteral(":/scenarios/default-scenario.json");
    f.dialogs->templateResource = resource;
    f.dialogs->saveChoice = UserDialogs::SaveChoice::Discard;
    f.action("actionNew")->trigger();
    QCOMPARE(f.dialogs->saveQuestionCount(), 1);
    QVERIFY(!f.doc()->isModified());
    QVERIFY(f.doc()->filePath().isEmpty());
    QCOMPARE(f.doc()->undoStack()->count(), 0);
    QFile file(resource);
    QVERIFY(file.open(QIODevice::ReadOnly));
    QVERIFY(sameScenario(f.doc()->scenario(), [&] {
        Scenario s = parseScenario(file.readAll().toStdString());
        s.slots = f.doc()->scenario().slots;
        return s;
    }()));
    QVERIFY(f.window.windowTitle().startsWith(QStringLiteral("Untitled")));
}

void TestMainWindow::exportViews_data()
{
    QTest::addColumn<QString>("what");
    QTest::addColumn<QString>("file");
    QTest::newRow("fabric png") << "fabric" << "fabric.png";
    QTest::newRow("fabric svg") << "fabric" << "fabric.svg";
    QTest::newRow("timeline png") << "timeline" << "timeline.png";
    QTest::newRow("timeline svg") << "timeline" << "timeline.svg";
}

void TestMainWindow::exportViews()
{
    QFETCH(QString, what);
    QFETCH(QString, file);
    Fixture f;
    f.window.show();
    const QString path = m_dir.filePath(file);
    QFile::remove(path);
    f.dialogs->saveName = path;
    QVERIFY(f.window.actions()->exportView(what));
    QVERIFY(QFileInfo(path).size() > 0);
    if (file.endsWith(QLatin1String(".png")))
        QVERIFY(!QImage(path).isNull());
    else
        QVERIFY(QFile(path).open(QIODevice::ReadOnly));
    QVERIFY(f.window.statusBar()->currentMessage().startsWith(QStringLiteral("Exported")));
    QVERIFY(f.dialogs->errors.isEmpty());
}

void TestMainWindow::screenshotWritesPng()
{
    const QString out = m_dir.filePath(QStringLiteral("shot.png"));
    const QString railyard = QCoreApplication::applicationDirPath() + QStringLiteral("/railyard");
    QVERIFY2(QFile::exists(railyard), "the railyard executable is built next to this test");
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(env);
    process.start(railyard,
                  {QStringLiteral("--screenshot"), out, QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128-tor.json")});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitStatus(), QProcess::NormalExit);
    QCOMPARE(process.exitCode(), 0);
    const QImage image(out);
    QVERIFY(!image.isNull());
    QVERIFY(image.width() >= 800 && image.height() >= 600);
}

void TestMainWindow::panelAskedAtStartKeepsTheAskedSize_data()
{
    QTest::addColumn<QString>("panel");
    for (const char *panel :
        { "ranks", "inspector", "lessons", "timeline", "charts", "compare", "experts", "inference",
            "calibration", "ncclView", "bom", "jobs", "counters", "measured" })
        QTest::newRow(panel) << QString::fromLatin1(panel);
}

void TestMainWindow::panelAskedAtStartKeepsTheAskedSize()
{
    // `railyard --size 1280x720 --panel NAME` on a 1920x1080 screen: the window opens at the
    // size asked for whatever panel is in front (Experts made it 1403 pixels wide, Compare A/B
    // 1289, Port Counters 1290).
    QFETCH(QString, panel);
    const QString screen = m_dir.filePath(QStringLiteral("screen-1920x1080.json"));
    writeFile(screen,
        "{\"windowFrameMargins\": false, \"screens\": [{\"name\": \"wide\", \"x\": 0, "
        "\"y\": 0, \"width\": 1920, \"height\": 1080, \"logicalDpi\": 96, "
        "\"logicalBaseDpi\": 96, \"dpr\": 1}]}");
    const QString out = m_dir.filePath(QStringLiteral("panel-%1.png").arg(panel));
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen:configfile=") + screen);
    process.setProcessEnvironment(env);
    process.start(QCoreApplication::applicationDirPath() + QStringLiteral("/railyard"),
        { QStringLiteral("--size"), QStringLiteral("1280x720"), QStringLiteral("--panel"), panel,
            QStringLiteral("--screenshot"), out });
    QVERIFY(process.waitForFinished(60000));
    QVERIFY2(process.exitCode() == 0, process.readAllStandardError().constData());
    const QImage image(out);
    QCOMPARE(image.size(), QSize(1280, 720));
}

void TestMainWindow::screenshotOfBadFileFails()
{
    const QString bad = m_dir.filePath(QStringLiteral("bad-for-shot.json"));
    writeFile(bad, "{");
    const QString out = m_dir.filePath(QStringLiteral("never.png"));
    QProcess process;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
    process.setProcessEnvironment(env);
    process.start(QCoreApplication::applicationDirPath() + QStringLiteral("/railyard"),
                  {QStringLiteral("--screenshot"), out, bad});
    QVERIFY(process.waitForFinished(60000));
    QCOMPARE(process.exitCode(), 1);
    QVERIFY(!QFile::exists(out));
    const QString err = QString::fromLocal8Bit(process.readAllStandardError());
    QVERIFY2(err.contains(loaderMessage(bad)), qPrintable(err));
}

QTEST_MAIN(TestMainWindow)
#include "tst_mainwindow.moc"
