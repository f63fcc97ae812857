#pragma once

#include "scenario/scenario.h"

#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include <map>
#include <memory>

class QLockFile;
class QTimer;
class QWidget;

namespace railyard {

class ScenarioDocument;
class UserDialogs;

/**
 * Crash insurance for one ScenarioDocument. While the document is modified, its scenario is
 * written to this session's autosave file every interval() ms and right before the risky steps
 * (a background re-evaluation starting, a placement preset, MainWindow's file drops). The file
 * is an ordinary scenario file (railyard::saveScenario: temp file + rename, so a crash never
 * leaves half a file); a small sidecar `<file>.meta` holds the original path and the time.
 * The autosave goes away when the document becomes clean (saved, undone to the saved state,
 * another file loaded) and on a clean exit (removeAutosave()).
 *
 * Each session holds a QLockFile next to its autosave. At the next start, an autosave whose
 * lock is free (its process is gone, or no lock at all) is a crashed session's: offerRestore()
 * asks the user, restores it as a modified document, discards it, or keeps it for later.
 * Another running instance's autosave is locked, so two instances never take each other's.
 */
class AutoSaver : public QObject
{
    Q_OBJECT

public:
    static constexpr int kDefaultIntervalMs = 60'000;

    /// What a crashed session left behind.
    struct Record
    {
        QString path;         ///< the autosave file
        QString originalPath; ///< the document's file then; empty when untitled
        QString savedAt;      ///< ISO 8601 local time of the write
        Scenario scenario;
    };

    /// `directory` empty: QStandardPaths::AppDataLocation + "/autosave".
    explicit AutoSaver(ScenarioDocument *document, const QString &directory = QString(),
                       QObject *parent = nullptr);
    ~AutoSaver() override;

    QString directory() const { return m_directory; }
    QString filePath() const { return m_path; } ///< this session's autosave file
    int interval() const;
    void setInterval(int ms);

    /// Writes the document now when it is modified (else removes the autosave). Never throws;
    /// false when nothing was written (clean document, I/O error: see autosaveFailed()).
    bool saveNow();
    /// Removes this session's autosave and its sidecar (clean save, clean exit).
    void removeAutosave();

    /// Autosaves of sessions that ended without a clean exit, newest first. Their locks are
    /// held by this session until restore(), discard(), moveAside() or release().
    QStringList crashedAutosaves();
    /// Reads an autosave. Throws ScenarioError with the loader's message.
    static Record read(const QString &path);
    /// Loads `record` into the document as a modified document (file path = the original
    /// one), writes it as this session's autosave and removes the crashed one. Throws
    /// ScenarioError when the engine refuses it (the document is then untouched).
    void restore(const Record &record);
    void discard(const QString &path);
    /// Renames a broken autosave to `*.corrupt` (never deleted); returns the new name.
    QString moveAside(const QString &path);
    void release(const QString &path);

    /// The start-up question: for each crashed autosave (newest first) ask `dialogs`;
    /// a broken one is reported with the loader's message and moved aside. True when one
    /// was restored (the rest stay for the next start).
    bool offerRestore(UserDialogs *dialogs, QWidget *parent);

Q_SIGNALS:
    void autosaved(const QString &path);
    void autosaveFailed(const QString &message);

private:
    void onIndexChanged(int index);
    void onTimeout();

    QPointer<ScenarioDocument> m_document;
    QString m_directory;
    QString m_path;
    std::unique_ptr<QLockFile> m_lock;
    std::map<QString, std::unique_ptr<QLockFile>> m_claimed; ///< crashed autosaves being offered
    QTimer *m_timer = nullptr;
    bool m_dirty = false; ///< changed since the last write
};

} // namespace railyard
