#pragma once

#include <QString>
#include <QStringList>

#include <memory>

class QDateTime;
class QDialog;
class QMessageBox;
class QWidget;

namespace railyard {

/**
 * Every modal question the main window asks: the unsaved-changes prompt, error boxes and the
 * file and template choosers. The window holds one of these, so a test replaces it with a
 * scripted subclass and never blocks on a modal dialog.
 */
class UserDialogs
{
public:
    enum class SaveChoice { Save, Discard, Cancel };
    /// Keep = decide later: the autosave stays where it is for the next start.
    enum class RestoreChoice { Restore, Discard, Keep };

    virtual ~UserDialogs();

    /// A moment as people say it: "today at 14:32", "yesterday at 09:05", else the locale's
    /// date with the time ("Tuesday, 3 June 2025 at 14:32"), never an ISO timestamp.
    static QString friendlyTime(const QDateTime &when, const QDateTime &now);

    /// "Save changes to <name> before <action>?" (SaveChangesPrompt: Save / Don't Save /
    /// Cancel, Enter and Esc cancel, letters need Alt). `action`: "closing", "opening another
    /// file", ...
    virtual SaveChoice askToSaveChanges(QWidget *parent, const QString &documentName,
                                        const QString &action);
    /// An error box; `message` is the loader's or engine's one-line message.
    virtual void showError(QWidget *parent, const QString &title, const QString &message);
    /// An existing scenario file to open, or empty when cancelled.
    virtual QString openFileName(QWidget *parent, const QString &directory);
    /// File > Import Measurements: nccl-tests output files, or none when cancelled.
    virtual QStringList openMeasurementFiles(QWidget *parent, const QString &directory);
    /// File > Import Port Counters: counter files and a port mapping, or none when cancelled.
    virtual QStringList openCounterFiles(QWidget *parent, const QString &directory);
    /// Training logs (Megatron-LM, NeMo, torchtitan) or profiler traces to put beside the
    /// prediction; empty when cancelled.
    virtual QStringList openTrainingFiles(QWidget *parent, const QString &directory);
    /// A file to write, or empty when cancelled. `filter` as for QFileDialog.
    virtual QString saveFileName(QWidget *parent, const QString &title, const QString &suggested,
                                 const QString &filter);
    /// File > New: a template's resource path (NewScenarioDialog), or empty when cancelled.
    virtual QString chooseTemplate(QWidget *parent);
    /// At start-up after a crash: restore the autosave of `originalPath` (empty = an untitled
    /// scenario) made `savedAt` (readable text: "today at 14:32", see friendlyTime())?
    virtual RestoreChoice askRestore(
        QWidget *parent, const QString &savedAt, const QString &originalPath);
    /// The box askRestore() runs: "… autosaved today at 14:32?", Restore (Alt+R, the default),
    /// Discard, Not Now (Alt+N, Esc). Its buttons are found by object name ("restoreButton").
    static std::unique_ptr<QMessageBox> restoreBox(
        QWidget *parent, const QString &savedAt, const QString &originalPath);
    /// One of `items` (e.g. which measurement-plan run a log measured), or empty when cancelled.
    virtual QString chooseItem(
        QWidget *parent, const QString &title, const QString &label, const QStringList &items);
    /// Help > About.
    virtual void showAbout(QWidget *parent);
    /// Runs a prepared dialog modally (e.g. the failure remap) and returns QDialog::exec()'s
    /// result; a script sets the dialog's choices and accepts or rejects it.
    virtual int execDialog(QDialog *dialog);
    /// One line of text (e.g. "server:3, gpu:17"); empty when cancelled.
    virtual QString askText(QWidget *parent, const QString &title, const QString &label,
                            const QString &initial);
};

} // namespace railyard
