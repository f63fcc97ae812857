// No lost work: the autosave of a modified document (timer, presets, background rebuilds),
// its removal on a clean save or exit, the restore offer after a crash (stale or missing lock),
// Discard / Keep, broken autosaves moved aside, and undo/redo of every edit kind.
#include "autosaver.h"
#include "consoledialogs.h"
#include "cost/costengine.h"
#include "cost/scenariocheck.h"
#include "document/scenariodocument.h"
#include "documentfiles.h"
#include "mainwindow.h"
#include "scenario/scenariofile.h"
#include "userdialogs.h"

#include <QApplication>
#include <QCloseEvent>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QMessageBox>
#include <QPushButton>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QLocale>
#include <QTest>
#include <QUndoStack>

#include <memory>

using namespace railyard;

namespace {

Scenario seed128()
{
    return loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

/// Answers every question from a script and records what was asked.
class ScriptedDialogs : public UserDialogs
{
public:
    RestoreChoice restoreAnswer = RestoreChoice::Restore;
    SaveChoice saveAnswer = SaveChoice::Discard;
    QStringList restoreQuestions; ///< "savedAt|originalPath"
    QStringList errors;

    RestoreChoice askRestore(QWidget *, const QString &savedAt, const QString &originalPath) override
    {
        restoreQuestions << savedAt + QLatin1Char('|') + originalPath;
        return restoreAnswer;
    }
    SaveChoice askToSaveChanges(QWidget *, const QString &, const QString &) override { return saveAnswer; }
    void showError(QWidget *, const QString &, const QString &message) override { errors << message; }
};

/// What a crashed session leaves: a modified scenario, its sidecar and (optionally) a lock
/// whose owner pid no longer runs.
Scenario writeCrashedAutosave(const QString &dir, bool staleLock, const QString &originalPath)
{
    Scenario s = seed128();
    s.training.globalBatch = 256;
    s.slots = CostEngine(s).mapping().slots(); // the sample leaves them to the placement
    std::swap(s.slots[0], s.slots[9]);
    const QString path = QDir(dir).filePath(QStringLiteral("autosave-20000101-000000-000-1.json"));
    saveScenario(s, path.toStdString());
    QJsonObject meta;
    meta.insert(QStringLiteral("original_path"), originalPath);
    meta.insert(QStringLiteral("saved_at"), QStringLiteral("2000-01-01T00:00:00"));
    QFile m(path + QStringLiteral(".meta"));
    if (m.open(QIODevice::WriteOnly))
        m.write(QJsonDocument(meta).toJson());
    if (staleLock) {
        // QLockFile's own format; a pid above any pid_max is certainly not running.
        QFile lock(path + QStringLiteral(".lock"));
        if (lock.open(QIODevice::WriteOnly))
            lock.write("1073741000\n" + QCoreApplication::applicationName().toUtf8() + '\n'
                       + QSysInfo::machineHostName().toUtf8() + '\n' + QSysInfo::machineUniqueId()
                       + '\n' + QSysInfo::bootUniqueId() + '\n');
    }
    return s;
}

QString crashedPath(const QString &dir)
{
    return QDir(dir).filePath(QStringLiteral("autosave-20000101-000000-000-1.json"));
}

void verifyMatchesFreshEngine(const ScenarioDocument &doc)
{
    QVERIFY(!doc.isEvaluating());
    QCOMPARE(doc.mapping().slots(), doc.scenario().slots);
    const CostEngine fresh(doc.scenario());
    QVERIFY(qAbs(doc.report().iterationTime - fresh.report().iterationTime)
            <= 1e-9 * fresh.report().iterationTime);
    QCOMPARE(doc.report().links.size(), fresh.report().links.size());
}

} // namespace

class TestAutoSave : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void modifiedDocumentIsAutosavedWithinInterval();
    void saveNowBeforeRiskySteps();
    void cleanSaveAndCleanExitRemoveAutosave();
    void crashedSessionIsOffered_data();
    void crashedSessionIsOffered();
    void discardRemovesCrashedAutosave();
    void consoleKeepsCrashedAutosave();
    void runningInstanceIsNotOffered();
    void corruptAutosaveIsMovedAside_data();
    void corruptAutosaveIsMovedAside();
    void undoRedoEveryEditKind_data();
    void undoRedoEveryEditKind();
    void restoreTimeInWords_data();
    void restoreTimeInWords();
    void nextFileAfterRestoreIsUnmodified();
    void restoreBoxReadsAndAnswersAltR();
};

void TestAutoSave::restoreTimeInWords_data()
{
    QTest::addColumn<QDateTime>("when");
    QTest::addColumn<QString>("expected");
    const QDateTime now(QDate(2025, 6, 3), QTime(15, 0));
    QTest::newRow("today") << QDateTime(QDate(2025, 6, 3), QTime(14, 32)) << QStringLiteral("today at 14:32");
    QTest::newRow("yesterday") << QDateTime(QDate(2025, 6, 2), QTime(9, 5)) << QStringLiteral("yesterday at 09:05");
    QTest::newRow("earlier") << QDateTime(QDate(2025, 5, 27), QTime(8, 0)) << QStringLiteral("27 May 2025 at 08:00");
    QTest::newRow("unknown") << QDateTime() << QStringLiteral("an unknown time");
}

void TestAutoSave::restoreTimeInWords()
{
    QFETCH(QDateTime, when);
    QFETCH(QString, expected);
    QLocale::setDefault(QLocale(QLocale::English, QLocale::UnitedKingdom));
    const QString text = UserDialogs::friendlyTime(when, QDateTime(QDate(2025, 6, 3), QTime(15, 0)));
    QLocale::setDefault(QLocale::system());
    QVERIFY2(text.contains(expected), qPrintable(text + QStringLiteral(" lacks ") + expected));
}

void TestAutoSave::modifiedDocumentIsAutosavedWithinInterval()
{
    QTemporaryDir dir;
    ScenarioDocument doc;
    doc.load(seed128(), QStringLiteral("/projects/seed.json"));
    AutoSaver saver(&doc, dir.path());
    saver.setInterval(50);
    QCOMPARE(saver.interval(), 50);
    QTest::qWait(150);
    QVERIFY(!QFile::exists(saver.filePath())); // a clean document is never autosaved

    doc.swapRanks(0, 9);
    QTRY_VERIFY_WITH_TIMEOUT(QFile::exists(saver.filePath()), 2000);
    const Scenario back = loadScenario(saver.filePath().toStdString());
    QVERIFY(sameScenario(back, doc.scenario()));
    QCOMPARE(back.slots, doc.scenario().slots);
    const AutoSaver::Record record = AutoSaver::read(saver.filePath());
    QCOMPARE(record.originalPath, QStringLiteral("/projects/seed.json"));
    QVERIFY(!record.savedAt.isEmpty());

    // The next edit reaches the file within the interval too.
    doc.moveRanks({{3, 40}}, QStringLiteral("Move rank 3"));
    QTRY_COMPARE_WITH_TIMEOUT(loadScenario(saver.filePath().toStdString()).slots, doc.scenario().slots, 2000);
}

void TestAutoSave::saveNowBeforeRiskySteps()
{
    QTemporaryDir dir;
    ScenarioDocument doc;
    doc.load(seed128());
    AutoSaver saver(&doc, dir.path());
    saver.setInterval(3'600'000); // only the explicit triggers write here
    QVERIFY(!saver.saveNow());     // nothing to protect yet
    doc.swapRanks(0, 9);
    QVERIFY(saver.saveNow());
    QCOMPARE(loadScenario(saver.filePath().toStdString()).slots, doc.scenario().slots);

    // A preset is written the moment it is pushed, without waiting for the timer.
    doc.applyPlacement(Placement::Scattered);
    Scenario onDisk = loadScenario(saver.filePath().toStdString());
    QCOMPARE(onDisk.placement, Placement::Scattered);
    QCOMPARE(onDisk.slots, doc.scenario().slots);

    // A background rebuild starting writes the edit before the worker runs.
    doc.setAsyncThreshold(0);
    Scenario next = doc.scenario();
    next.training.globalBatch = 128;
    QCOMPARE(doc.editScenario(next, QStringLiteral("Change global batch")), QString());
    QVERIFY(doc.isEvaluating());
    QCOMPARE(loadScenario(saver.filePath().toStdString()).training.globalBatch, 128);
    doc.waitForEvaluation();
}

void TestAutoSave::cleanSaveAndCleanExitRemoveAutosave()
{
    QTemporaryDir dir;
    MainWindow window;
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs *script = dialogs.get();
    window.setDialogs(std::move(dialogs));
    AutoSaver *saver = window.enableAutoSave(dir.filePath(QStringLiteral("autosave")));
    QCOMPARE(window.enableAutoSave(), saver); // one per window
    ScenarioDocument *doc = window.document();

    doc->swapRanks(0, 9);
    QVERIFY(saver->saveNow());
    QVERIFY(QFile::exists(saver->filePath()));
    const QString file = dir.filePath(QStringLiteral("mine.json"));
    QVERIFY(window.files()->saveTo(file)); // atomic save; the document is clean again
    QVERIFY(!doc->isModified());
    QVERIFY(!QFile::exists(saver->filePath()));
    QVERIFY(!QFile::exists(saver->filePath() + QStringLiteral(".meta")));

    // Undoing back to the saved state is clean too.
    doc->swapRanks(1, 2);
    QVERIFY(saver->saveNow());
    doc->undoStack()->undo();
    QVERIFY(!QFile::exists(saver->filePath()));

    // A clean exit after Discard leaves nothing behind.
    doc->swapRanks(3, 4);
    QVERIFY(saver->saveNow());
    script->saveAnswer = UserDialogs::SaveChoice::Discard;
    QCloseEvent close;
    QApplication::sendEvent(&window, &close);
    QVERIFY(close.isAccepted());
    QVERIFY(!QFile::exists(saver->filePath()));
}

void TestAutoSave::crashedSessionIsOffered_data()
{
    QTest::addColumn<bool>("staleLock");
    QTest::addColumn<QString>("originalPath");
    QTest::newRow("stale lock, saved file") << true << QStringLiteral("/projects/big-job.json");
    QTest::newRow("no lock, untitled") << false << QString();
}

void TestAutoSave::crashedSessionIsOffered()
{
    QFETCH(bool, staleLock);
    QFETCH(QString, originalPath);
    QTemporaryDir dir;
    const Scenario saved = writeCrashedAutosave(dir.path(), staleLock, originalPath);

    MainWindow window;
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs *script = dialogs.get();
    window.setDialogs(std::move(dialogs));
    AutoSaver *saver = window.enableAutoSave(dir.path());
    QVERIFY(window.restoreCrashedSession());
    // The question says when in words (the sidecar's ISO 8601 is for machines).
    QCOMPARE(script->restoreQuestions.size(), 1);
    const QString when = script->restoreQuestions.front().section(QLatin1Char('|'), 0, 0);
    QVERIFY2(!when.contains(QStringLiteral("2000-01-01T")), qPrintable(when));
    QVERIFY2(when.contains(QStringLiteral("2000")) && when.contains(QStringLiteral(" at ")), qPrintable(when));
    QCOMPARE(script->restoreQuestions.front().section(QLatin1Char('|'), 1), originalPath);
    QVERIFY(script->errors.isEmpty());

    ScenarioDocument *doc = window.document();
    QVERIFY(doc->isModified()); // the user must save it
    QCOMPARE(doc->filePath(), originalPath);
    QVERIFY(sameScenario(doc->scenario(), saved));
    QCOMPARE(doc->scenario().slots, saved.slots);
    doc->waitForEvaluation();
    verifyMatchesFreshEngine(*doc);
    QVERIFY(window.isWindowModified());
    // The crashed autosave became this session's.
    QVERIFY(!QFile::exists(crashedPath(dir.path())));
    QVERIFY(!QFile::exists(crashedPath(dir.path()) + QStringLiteral(".lock")));
    QVERIFY(QFile::exists(saver->filePath()));
    QVERIFY(sameScenario(loadScenario(saver->filePath().toStdString()), saved));
    // Nothing left to offer.
    QVERIFY(!window.restoreCrashedSession());
    QCOMPARE(script->restoreQuestions.size(), 1);
}

void TestAutoSave::nextFileAfterRestoreIsUnmodified()
{
    // A restored session is never clean (closing asks); the file opened next is: it showed as
    // modified with nothing to undo, and quitting asked to save an unchanged file.
    QTemporaryDir dir;
    writeCrashedAutosave(dir.path(), true, QString());
    MainWindow window;
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs *script = dialogs.get();
    window.setDialogs(std::move(dialogs));
    window.enableAutoSave(dir.path());
    QVERIFY(window.restoreCrashedSession());
    QVERIFY(window.document()->isModified());
    script->saveAnswer = UserDialogs::SaveChoice::Discard;
    QVERIFY(window.files()->openFile(
        QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128-tor.json"), false));
    QCOMPARE(window.document()->undoStack()->count(), 0);
    QVERIFY(!window.document()->isModified());
    QVERIFY(!window.isWindowModified());
    // Closing does not ask.
    script->saveAnswer = UserDialogs::SaveChoice::Cancel;
    QVERIFY(window.files()->maybeSave(QStringLiteral("closing")));
}

void TestAutoSave::restoreBoxReadsAndAnswersAltR()
{
    // "autosaved at today at 14:32" read twice "at"; Alt+R did not press Restore.
    const std::unique_ptr<QMessageBox> box
        = UserDialogs::restoreBox(nullptr, QStringLiteral("today at 14:32"), QString());
    QVERIFY2(!box->text().contains(QStringLiteral("at today")), qPrintable(box->text()));
    QVERIFY(box->text().contains(QStringLiteral("autosaved today at 14:32")));
    auto *restore = box->findChild<QPushButton *>(QStringLiteral("restoreButton"));
    QVERIFY(restore);
    box->show();
    box->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(box.get()));
    QTest::keyClick(box.get(), Qt::Key_R, Qt::AltModifier);
    QTRY_COMPARE(box->clickedButton(), restore); // a mnemonic animates the click
}

void TestAutoSave::discardRemovesCrashedAutosave()
{
    QTemporaryDir dir;
    writeCrashedAutosave(dir.path(), true, QString());
    MainWindow window;
    auto dialogs = std::make_unique<ScriptedDialogs>();
    dialogs->restoreAnswer = UserDialogs::RestoreChoice::Discard;
    ScriptedDialogs *script = dialogs.get();
    window.setDialogs(std::move(dialogs));
    window.enableAutoSave(dir.path());
    QVERIFY(!window.restoreCrashedSession());
    QCOMPARE(script->restoreQuestions.size(), 1);
    QVERIFY(!window.document()->isModified());
    QVERIFY(!QFile::exists(crashedPath(dir.path())));
    QVERIFY(!QFile::exists(crashedPath(dir.path()) + QStringLiteral(".meta")));
    QVERIFY(!QFile::exists(crashedPath(dir.path()) + QStringLiteral(".lock")));
}

void TestAutoSave::consoleKeepsCrashedAutosave()
{
    QTemporaryDir dir;
    writeCrashedAutosave(dir.path(), false, QString());
    QFile file(crashedPath(dir.path()));
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QByteArray before = file.readAll();
    file.close();
    MainWindow window;
    window.setDialogs(std::make_unique<ConsoleDialogs>());
    window.enableAutoSave(dir.path());
    QVERIFY(!window.restoreCrashedSession());
    QVERIFY(!window.document()->isModified());
    QVERIFY(file.open(QIODevice::ReadOnly));
    QCOMPARE(file.readAll(), before); // untouched, offered again at the next start
    QVERIFY(!QFile::exists(crashedPath(dir.path()) + QStringLiteral(".lock")));
    AutoSaver next(window.document(), dir.path());
    QCOMPARE(next.crashedAutosaves(), QStringList{QFileInfo(crashedPath(dir.path())).absoluteFilePath()});
}

void TestAutoSave::runningInstanceIsNotOffered()
{
    QTemporaryDir dir;
    ScenarioDocument other;
    other.load(seed128());
    AutoSaver running(&other, dir.path());
    other.swapRanks(0, 9);
    QVERIFY(running.saveNow());

    ScenarioDocument doc;
    doc.load(seed128());
    AutoSaver saver(&doc, dir.path());
    QVERIFY(saver.filePath() != running.filePath());
    QVERIFY(saver.crashedAutosaves().isEmpty()); // locked by a live session
    QVERIFY(running.crashedAutosaves().isEmpty()); // its own is never "crashed"
    QVERIFY(QFile::exists(running.filePath()));
}

void TestAutoSave::corruptAutosaveIsMovedAside_data()
{
    QTest::addColumn<QByteArray>("content");
    QTest::newRow("truncated") << QByteArray("{\"format_version\": 1, \"fabric\": {");
    QTest::newRow("binary") << QByteArray("\x00\x01\xff garbage", 12);
    QTest::newRow("bad field") << QByteArray("{\"format_version\": 1, \"fabric\": 7}");
    QTest::newRow("deep nesting") << QByteArray(100000, '[');
}

void TestAutoSave::corruptAutosaveIsMovedAside()
{
    QFETCH(QByteArray, content);
    QTemporaryDir dir;
    writeCrashedAutosave(dir.path(), true, QStringLiteral("/projects/x.json"));
    QFile broken(crashedPath(dir.path()));
    QVERIFY(broken.open(QIODevice::WriteOnly | QIODevice::Truncate));
    broken.write(content);
    broken.close();

    MainWindow window;
    auto dialogs = std::make_unique<ScriptedDialogs>();
    ScriptedDialogs *script = dialogs.get();
    window.setDialogs(std::move(dialogs));
    window.enableAutoSave(dir.path());
    const Scenario before = window.document()->scenario();
    QVERIFY(!window.restoreCrashedSession());
    QVERIFY(script->restoreQuestions.isEmpty()); // nothing worth asking about
    QCOMPARE(script->errors.size(), 1);
    QVERIFY2(script->errors.first().contains(QStringLiteral(".corrupt")), qPrintable(script->errors.first()));
    QVERIFY(!window.document()->isModified());
    QVERIFY(sameScenario(window.document()->scenario(), before));
    QVERIFY(!QFile::exists(crashedPath(dir.path())));
    QFile aside(crashedPath(dir.path()) + QStringLiteral(".corrupt"));
    QVERIFY(aside.open(QIODevice::ReadOnly));
    QCOMPARE(aside.readAll(), content); // kept byte for byte
    // Not offered again.
    QVERIFY(!window.restoreCrashedSession());
    QCOMPARE(script->errors.size(), 1);
}

void TestAutoSave::undoRedoEveryEditKind_data()
{
    QTest::addColumn<int>("asyncThreshold");
    QTest::newRow("on the UI thread") << 2048;
    QTest::newRow("background rebuilds") << 0;
}

void TestAutoSave::undoRedoEveryEditKind()
{
    QFETCH(int, asyncThreshold);
    ScenarioDocument doc;
    doc.load(seed128());
    doc.setAsyncThreshold(asyncThreshold);
    std::vector<Scenario> states{doc.scenario()};
    auto step = [&] {
        doc.waitForEvaluation();
        states.push_back(doc.scenario());
    };
    doc.swapRanks(0, 9); // swap
    step();
    doc.moveRanks({{5, 100}, {6, 101}}, QStringLiteral("Move ranks")); // move
    step();
    doc.applyPlacement(Placement::RailAligned); // preset
    step();
    Scenario next = doc.scenario();
    next.training.globalBatch = 128; // inspector-style parameter edit
    QCOMPARE(doc.editScenario(next, QStringLiteral("Change global batch")), QString());
    step();
    next = doc.scenario();
    next.fabric.nic.gbps = 200.0; // a new fabric, same layout
    QCOMPARE(doc.editScenario(next, QStringLiteral("Change NIC bandwidth")), QString());
    step();
    doc.swapRanks(2, 70); // a swap on top of rebuilt engines
    step();
    const int commands = int(states.size()) - 1;
    QCOMPARE(doc.undoStack()->count(), commands);

    for (int i = commands - 1; i >= 0; --i) {
        doc.undoStack()->undo();
        doc.waitForEvaluation();
        QVERIFY2(sameScenario(doc.scenario(), states[std::size_t(i)]), qPrintable(QString::number(i)));
        QCOMPARE(doc.scenario().slots, states[std::size_t(i)].slots);
        verifyMatchesFreshEngine(doc);
    }
    QVERIFY(!doc.isModified());
    for (int i = 1; i <= commands; ++i) {
        doc.undoStack()->redo();
        doc.waitForEvaluation();
        QVERIFY2(sameScenario(doc.scenario(), states[std::size_t(i)]), qPrintable(QString::number(i)));
        QCOMPARE(doc.scenario().slots, states[std::size_t(i)].slots);
        verifyMatchesFreshEngine(doc);
    }
}

QTEST_MAIN(TestAutoSave)
#include "tst_autosave.moc"
