#include "documentfiles.h"

#include "recentfiles.h"
#include "document/scenariodocument.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "scenariotemplates.h"
#include "userdialogs.h"

#include <QCoreApplication>
#include <QCursor>
#include <QDir>
#include <QFileInfo>
#include <QGuiApplication>
#include <QSettings>

namespace railyard {

namespace {

const QString kLastDirKey = QStringLiteral("lastDirectory");
const QString kLastSaveDirKey = QStringLiteral("lastSaveDirectory");

/// Loading a large file builds its fabric and engine on the UI thread: show it is busy.
class BusyCursor
{
public:
    BusyCursor() { QGuiApplication::setOverrideCursor(QCursor(Qt::WaitCursor)); }
    ~BusyCursor() { QGuiApplication::restoreOverrideCursor(); }
    BusyCursor(const BusyCursor &) = delete;
    BusyCursor &operator=(const BusyCursor &) = delete;
};

} // namespace

DocumentFiles::DocumentFiles(ScenarioDocument *document, QWidget *window, QObject *parent)
    : QObject(parent)
    , m_document(document)
    , m_window(window)
    , m_dialogs(std::make_unique<UserDialogs>())
    , m_recent(new RecentFiles(this))
{
    connect(m_recent, &RecentFiles::fileRequested, this, [this](const QString &path) { openFile(path); });
    QStringList samples;
#ifdef RAILYARD_SAMPLES_DIR
    samples << QStringLiteral(RAILYARD_SAMPLES_DIR);
#endif
    samples << QDir(QCoreApplication::applicationDirPath()).filePath(QStringLiteral("../share/railyard/samples"));
    setSampleDirectories(samples);
}

void DocumentFiles::setSampleDirectories(const QStringList &directories)
{
    m_sampleDirs.clear();
    for (const QString &d : directories) {
        const QString canonical = QFileInfo(d).canonicalFilePath(); // empty when missing
        if (!canonical.isEmpty())
            m_sampleDirs << canonical;
    }
}

bool DocumentFiles::isProtected(const QString &path) const
{
    const QFileInfo info(path);
    if (m_sampleDirs.contains(QFileInfo(info.absolutePath()).canonicalFilePath()))
        return true;
    if (!info.exists())
        return false;
    // isWritable() asks access(2), which says yes to root for any file: the mode bits decide too.
    constexpr auto anyWrite = QFileDevice::WriteOwner | QFileDevice::WriteGroup | QFileDevice::WriteOther;
    return !info.isWritable() || !(info.permissions() & anyWrite);
}

DocumentFiles::~DocumentFiles() = default;

void DocumentFiles::setDialogs(std::unique_ptr<UserDialogs> dialogs)
{
    m_dialogs = std::move(dialogs);
}

QString DocumentFiles::displayName() const
{
    if (!m_document->filePath().isEmpty())
        return QFileInfo(m_document->filePath()).fileName();
    return tr("Untitled (%1)").arg(QString::fromStdString(m_document->scenario().name));
}

void DocumentFiles::announce(const QString &message)
{
    Q_EMIT statusMessage(message);
}

bool DocumentFiles::loadTemplate(const QString &resource)
{
    try {
        const BusyCursor busy;
        m_document->load(loadResourceScenario(resource));
    } catch (const std::exception &e) {
        m_dialogs->showError(m_window, tr("New Scenario"), QString::fromUtf8(e.what()));
        announce(tr("Could not create the scenario"));
        return false;
    }
    announce(
        tr("New scenario from \"%1\"").arg(QString::fromStdString(m_document->scenario().name)));
    Q_EMIT documentReplaced();
    return true;
}

bool DocumentFiles::loadUntitled(const Scenario &scenario, const QString &what)
{
    try {
        const BusyCursor busy;
        m_document->load(scenario);
    } catch (const std::exception &e) {
        m_dialogs->showError(m_window, tr("Could not open %1").arg(what), QString::fromUtf8(e.what()));
        announce(tr("Could not open %1; the document was left as it was").arg(what));
        return false;
    }
    announce(tr("Opened %1 as a new scenario").arg(what));
    Q_EMIT documentReplaced();
    return true;
}

bool DocumentFiles::newScenario()
{
    if (!maybeSave(tr("starting a new scenario")))
        return false;
    const QString resource = m_dialogs->chooseTemplate(m_window);
    if (resource.isEmpty()) {
        announce(tr("New scenario cancelled"));
        return false;
    }
    return loadTemplate(resource);
}

bool DocumentFiles::open()
{
    if (!maybeSave(tr("opening another file")))
        return false;
    const QString path = m_dialogs->openFileName(m_window, startDirectory());
    if (path.isEmpty())
        return false;
    return openFile(path, false);
}

bool DocumentFiles::openFile(const QString &path, bool prompt)
{
    if (prompt && !maybeSave(tr("opening %1").arg(QFileInfo(path).fileName())))
        return false;
    const QString absolute = QFileInfo(path).absoluteFilePath();
    try {
        const BusyCursor busy;
        // Parse and build first: document.load() throws before touching anything.
        m_document->load(loadScenario(absolute.toStdString()), absolute);
    } catch (const std::exception &e) {
        m_dialogs->showError(m_window, tr("Could not open %1").arg(QFileInfo(path).fileName()),
                             QString::fromUtf8(e.what()));
        announce(tr("Could not open %1; the document was left as it was").arg(QDir::toNativeSeparators(absolute)));
        return false;
    }
    m_recent->add(absolute);
    QSettings().setValue(kLastDirKey, QFileInfo(absolute).absolutePath());
    announce(tr("Opened %1: %2")
                 .arg(QFileInfo(absolute).fileName(), scenarioSummary(m_document->scenario())));
    Q_EMIT documentReplaced();
    return true;
}

bool DocumentFiles::save()
{
    const QString path = m_document->filePath();
    if (path.isEmpty())
        return saveAs();
    if (isProtected(path)) {
        announce(tr("%1 is a shipped sample or read-only: choose where to save your version")
                     .arg(QFileInfo(path).fileName()));
        return saveAs();
    }
    return saveTo(path);
}

bool DocumentFiles::saveAs()
{
    QString suggested = m_document->filePath();
    if (suggested.isEmpty() || isProtected(suggested)) {
        // Never suggest writing over a sample: the last folder the user saved to, else home.
        QString folder = startDirectory();
        if (isProtected(QDir(folder).filePath(QStringLiteral("x.json"))))
            folder = QSettings().value(kLastSaveDirKey, QDir::homePath()).toString();
        const QString base = suggested.isEmpty() ? QString::fromStdString(m_document->scenario().name)
                                                 : QFileInfo(suggested).completeBaseName();
        suggested = QDir(folder).filePath(base + QStringLiteral(".json"));
    }
    QString path = m_dialogs->saveFileName(m_window, tr("Save Scenario As"), suggested,
                                           tr("Scenario files (*.json)"));
    if (path.isEmpty()) {
        announce(tr("Save cancelled"));
        return false;
    }
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    if (isProtected(path)) {
        m_dialogs->showError(m_window, tr("Could not save %1").arg(QFileInfo(path).fileName()),
                             tr("%1 is one of the shipped samples or a read-only file; save your version "
                                "under another name or in another folder.")
                                 .arg(QDir::toNativeSeparators(QFileInfo(path).absoluteFilePath())));
        announce(tr("Save refused: %1 is protected").arg(QFileInfo(path).fileName()));
        return false;
    }
    return saveTo(path);
}

bool DocumentFiles::saveTo(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    try {
        m_document->waitForEvaluation(); // a queued edit belongs in the file too
        saveScenario(m_document->fileScenario(), absolute.toStdString());
    } catch (const std::exception &e) {
        m_dialogs->showError(m_window, tr("Could not save %1").arg(QFileInfo(path).fileName()),
                             QString::fromUtf8(e.what()));
        announce(tr("Save failed"));
        return false;
    }
    m_document->setFilePath(absolute);
    m_recent->add(absolute);
    QSettings().setValue(kLastDirKey, QFileInfo(absolute).absolutePath());
    QSettings().setValue(kLastSaveDirKey, QFileInfo(absolute).absolutePath());
    announce(tr("Saved %1").arg(QDir::toNativeSeparators(absolute)));
    return true;
}

bool DocumentFiles::maybeSave(const QString &action)
{
    if (!m_document->isModified())
        return true;
    switch (m_dialogs->askToSaveChanges(m_window, displayName(), action)) {
    case UserDialogs::SaveChoice::Save:
        return save();
    case UserDialogs::SaveChoice::Discard:
        return true;
    case UserDialogs::SaveChoice::Cancel:
        break;
    }
    announce(tr("Cancelled"));
    return false;
}

QString DocumentFiles::startDirectory() const
{
    if (!m_document->filePath().isEmpty())
        return QFileInfo(m_document->filePath()).absolutePath();
    return QSettings().value(kLastDirKey, QDir::homePath()).toString();
}

} // namespace railyard
