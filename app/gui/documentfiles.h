#pragma once

#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

class QWidget;

namespace railyard {

class RecentFiles;
struct Scenario;
class ScenarioDocument;
class UserDialogs;

/**
 * The file side of the main window: New, Open, Open Recent, Save, Save As and the
 * unsaved-changes prompt, over one ScenarioDocument. A file the loader refuses is reported
 * with the loader's message and leaves the open document exactly as it was; saving is atomic
 * (railyard::saveScenario). Shipped samples and read-only files are never overwritten: Save
 * asks for a new name. Every outcome is announced through statusMessage().
 */
class DocumentFiles : public QObject
{
    Q_OBJECT

public:
    DocumentFiles(ScenarioDocument *document, QWidget *window, QObject *parent = nullptr);
    ~DocumentFiles() override;

    UserDialogs *dialogs() const { return m_dialogs.get(); }
    void setDialogs(std::unique_ptr<UserDialogs> dialogs);
    RecentFiles *recentFiles() const { return m_recent; }

    /// "seed-128.json", or "Untitled (<scenario name>)" before the first save.
    QString displayName() const;

    /// Opens an embedded scenario as a new untitled document (no prompt; see newScenario()).
    bool loadTemplate(const QString &resource);
    /// Opens `scenario` as a new untitled document (no prompt): a lesson's start. `what` names
    /// it in the messages.
    bool loadUntitled(const Scenario &scenario, const QString &what);
    /// File > New: prompt for unsaved changes, choose a template, open it untitled.
    bool newScenario();
    /// File > Open: prompt, ask for a file, open it.
    bool open();
    /// Opens `path` (prompting first when `prompt` and the document is modified). On a bad
    /// file shows the loader's message and returns false; the document is untouched.
    bool openFile(const QString &path, bool prompt = true);
    bool save();
    bool saveAs();
    /// Writes the document to `path` and makes it the document's file. False on I/O errors.
    bool saveTo(const QString &path);
    /// The unsaved-changes prompt, naming what the caller is about to do ("closing", "opening
    /// another file"): true when the caller may go on (saved, discarded, or not modified),
    /// false when the user cancelled or the save failed.
    bool maybeSave(const QString &action);

    /// True when Save must not write `path` in place: a shipped sample (a file in one of
    /// sampleDirectories()) or a file nobody may write. Save then goes through Save As.
    bool isProtected(const QString &path) const;
    /// The folders of the shipped samples (the source tree's samples/ and an installed
    /// share/railyard/samples); tests may replace them.
    QStringList sampleDirectories() const { return m_sampleDirs; }
    void setSampleDirectories(const QStringList &directories);

    /// The folder the file dialogs start in (the document's, else the last used one).
    QString startDirectory() const;

Q_SIGNALS:
    void statusMessage(const QString &message);
    /// Another scenario replaced the document (New, Open, a template, a lesson's start): what
    /// belonged to the last one (a pinned baseline, a comparison, overlays, study results)
    /// must make way.
    void documentReplaced();

private:
    void announce(const QString &message);

    ScenarioDocument *m_document;
    QWidget *m_window;
    std::unique_ptr<UserDialogs> m_dialogs;
    RecentFiles *m_recent;
    QStringList m_sampleDirs; ///< canonical paths
};

} // namespace railyard
