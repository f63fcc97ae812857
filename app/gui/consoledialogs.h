#pragma once

#include "userdialogs.h"

namespace railyard {

/**
 * The dialogs of a window nobody is looking at (`railyard --screenshot`): errors go to
 * stderr, questions get the answer that changes nothing on disk (Discard, Cancel; an autosave
 * is kept for the next interactive start).
 */
class ConsoleDialogs : public UserDialogs
{
public:
    SaveChoice askToSaveChanges(QWidget *parent, const QString &documentName,
                                const QString &action) override;
    void showError(QWidget *parent, const QString &title, const QString &message) override;
    QString openFileName(QWidget *parent, const QString &directory) override;
    QString saveFileName(QWidget *parent, const QString &title, const QString &suggested,
                         const QString &filter) override;
    QString chooseTemplate(QWidget *parent) override;
    RestoreChoice askRestore(QWidget *parent, const QString &savedAt, const QString &originalPath) override;
    void showAbout(QWidget *parent) override;
};

} // namespace railyard
