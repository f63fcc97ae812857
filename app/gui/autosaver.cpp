#include "autosaver.h"

#include "document/applyplacement.h"
#include "document/scenariodocument.h"
#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "userdialogs.h"

#include <QCoreApplication>
#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLockFile>
#include <QStandardPaths>
#include <QTimer>

#include <algorithm>

namespace railyard {

namespace {

const QString kPattern = QStringLiteral("autosave-*.json");

QString metaPath(const QString &path) { return path + QStringLiteral(".meta"); }
QString lockPath(const QString &path) { return path + QStringLiteral(".lock"); }

/// A lock that only a dead or absent owner loses: no age-based staleness, since a session
/// may run for days.
std::unique_ptr<QLockFile> makeLock(const QString &path)
{
    auto lock = std::make_unique<QLockFile>(lockPath(path));
    lock->setStaleLockTime(0);
    return lock;
}

} // namespace

AutoSaver::AutoSaver(ScenarioDocument *document, const QString &directory, QObject *parent)
    : QObject(parent)
    , m_document(document)
    , m_directory(directory)
    , m_timer(new QTimer(this))
{
    if (m_directory.isEmpty())
        m_directory = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation)
                      + QStringLiteral("/autosave");
    QDir().mkpath(m_directory);
    // Time and pid: a later session never reuses a crashed one's name even with a reused pid.
    m_path = QDir(m_directory).filePath(
        QStringLiteral("autosave-%1-%2.json")
            .arg(QDateTime::currentDateTime().toString(QStringLiteral("yyyyMMdd-HHmmss-zzz")))
            .arg(QCoreApplication::applicationPid()));
    m_lock = makeLock(m_path);
    if (!m_lock->tryLock(0))
        qWarning("railyard: could not lock %s; autosave continues unlocked", qPrintable(m_path));

    connect(m_timer, &QTimer::timeout, this, &AutoSaver::onTimeout);
    m_timer->start(kDefaultIntervalMs);
    // Only flags here: the stack may emit while the document is being destroyed.
    connect(document->undoStack(), &QUndoStack::indexChanged, this, &AutoSaver::onIndexChanged);
    connect(document, &ScenarioDocument::filePathChanged, this, [this] { m_dirty = true; });
    connect(document, &ScenarioDocument::modifiedChanged, this, [this](bool modified) {
        m_dirty = true;
        if (!modified)
            removeAutosave(); // saved, undone to the saved state, or another file loaded
    });
    // A rebuild off the UI thread is the riskiest thing the application does: write first.
    connect(document, &ScenarioDocument::evaluatingChanged, this, [this](bool evaluating) {
        if (evaluating)
            saveNow();
    });
}

AutoSaver::~AutoSaver() = default; // unlocking removes the lock file; the autosave stays

int AutoSaver::interval() const
{
    return m_timer->interval();
}

void AutoSaver::setInterval(int ms)
{
    m_timer->start(std::max(1, ms));
}

void AutoSaver::onIndexChanged(int index)
{
    m_dirty = true;
    // A preset re-places every rank (and rebuilds the engine): keep the result on disk at once.
    const QUndoStack *stack = m_document ? m_document->undoStack() : nullptr;
    if (stack && index > 0 && index <= stack->count()
        && dynamic_cast<const ApplyPlacement *>(stack->command(index - 1)))
        saveNow();
}

void AutoSaver::onTimeout()
{
    if (m_dirty && m_document && m_document->isModified())
        saveNow();
}

bool AutoSaver::saveNow()
{
    if (!m_document)
        return false;
    if (!m_document->isModified()) {
        removeAutosave();
        return false;
    }
    try {
        // scenario() includes edits whose evaluation still runs: what the user sees and means.
        saveScenario(m_document->fileScenario(), m_path.toStdString());
        QJsonObject meta;
        meta.insert(QStringLiteral("original_path"), m_document->filePath());
        meta.insert(QStringLiteral("saved_at"), QDateTime::currentDateTime().toString(Qt::ISODate));
        writeFileAtomically(metaPath(m_path).toStdString(),
                            QJsonDocument(meta).toJson(QJsonDocument::Indented).toStdString());
    } catch (const std::exception &e) {
        Q_EMIT autosaveFailed(QString::fromUtf8(e.what()));
        return false;
    }
    m_dirty = false;
    Q_EMIT autosaved(m_path);
    return true;
}

void AutoSaver::removeAutosave()
{
    QFile::remove(m_path);
    QFile::remove(metaPath(m_path));
}

QStringList AutoSaver::crashedAutosaves()
{
    QDir dir(m_directory);
    const QFileInfoList files = dir.entryInfoList({kPattern}, QDir::Files, QDir::Time);
    QStringList crashed;
    for (const QFileInfo &info : files) {
        const QString path = info.absoluteFilePath();
        if (path == QFileInfo(m_path).absoluteFilePath() || m_claimed.count(path))
            continue;
        // Free lock = the owner died (QLockFile checks the recorded pid) or exited uncleanly.
        auto lock = makeLock(path);
        if (!lock->tryLock(0))
            continue; // a running instance's
        m_claimed.emplace(path, std::move(lock));
        crashed << path;
    }
    return crashed;
}

AutoSaver::Record AutoSaver::read(const QString &path)
{
    Record record;
    record.path = path;
    record.scenario = loadScenario(path.toStdString()); // the loader's checks and messages
    // The sidecar is a convenience: a missing or broken one only loses the title. It is read
    // through the engine's reader, which refuses a FIFO or device at once instead of blocking.
    QJsonObject object;
    try {
        const std::string text = readFileLimited(
            QFile::encodeName(metaPath(path)).toStdString(), 64 * 1024, "an autosave sidecar");
        object = QJsonDocument::fromJson(QByteArray::fromStdString(text)).object();
    } catch (const ScenarioError &) {
    }
    record.originalPath = object.value(QStringLiteral("original_path")).toString();
    record.savedAt = object.value(QStringLiteral("saved_at")).toString();
    if (record.savedAt.isEmpty())
        record.savedAt = QFileInfo(path).lastModified().toString(Qt::ISODate);
    return record;
}

void AutoSaver::restore(const Record &record)
{
    if (!m_document)
        return;
    m_document->load(record.scenario, record.originalPath); // throws: document untouched
    // Never clean: the file on disk (if any) is not what the user sees, so closing asks.
    m_document->undoStack()->resetClean();
    if (saveNow()) // ours now; the crashed file goes only once the state is safe again
        discard(record.path);
    else
        release(record.path);
}

void AutoSaver::discard(const QString &path)
{
    QFile::remove(path);
    QFile::remove(metaPath(path));
    release(path);
}

QString AutoSaver::moveAside(const QString &path)
{
    QString target = path + QStringLiteral(".corrupt");
    for (int n = 2; QFile::exists(target); ++n)
        target = path + QStringLiteral(".%1.corrupt").arg(n);
    if (!QFile::rename(path, target))
        target = path; // left where it was: still never deleted
    if (QFile::exists(metaPath(path)))
        QFile::rename(metaPath(path), target + QStringLiteral(".meta"));
    release(path);
    return target;
}

void AutoSaver::release(const QString &path)
{
    m_claimed.erase(path); // QLockFile's destructor unlocks and removes the lock file
}

bool AutoSaver::offerRestore(UserDialogs *dialogs, QWidget *parent)
{
    const QStringList crashed = crashedAutosaves();
    bool restored = false;
    for (const QString &path : crashed) {
        if (restored) {
            release(path); // one document per window: the others wait for the next start
            continue;
        }
        try {
            const Record record = read(path);
            // The sidecar keeps ISO 8601 (machine-readable); the question says it like a person.
            const QString when = UserDialogs::friendlyTime(QDateTime::fromString(record.savedAt, Qt::ISODate),
                                                           QDateTime::currentDateTime());
            switch (dialogs->askRestore(parent, when, record.originalPath)) {
            case UserDialogs::RestoreChoice::Restore:
                restore(record);
                restored = true;
                break;
            case UserDialogs::RestoreChoice::Discard:
                discard(path);
                break;
            case UserDialogs::RestoreChoice::Keep:
                release(path);
                break;
            }
        } catch (const std::exception &e) {
            const QString aside = moveAside(path);
            dialogs->showError(parent, tr("Could not restore the autosaved scenario"),
                               tr("%1\nThe file was kept as %2.")
                                   .arg(QString::fromUtf8(e.what()), QDir::toNativeSeparators(aside)));
        }
    }
    return restored;
}

} // namespace railyard
