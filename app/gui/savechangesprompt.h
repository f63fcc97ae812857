#pragma once

#include <QDialog>
#include <QString>

class QLabel;
class QPushButton;

namespace railyard {

/**
 * "Save changes to "seed-128.json" before opening another file?" with Save, Don't Save and
 * Cancel. It names the action that would lose the changes. Unlike QMessageBox, it never presses
 * a button on a plain letter key: a user who types a path right after Ctrl+O must not save by
 * accident, so the mnemonics need Alt. Enter and Esc both mean Cancel, the one answer that
 * neither writes nor loses anything.
 */
class SaveChangesPrompt : public QDialog
{
    Q_OBJECT

public:
    enum Answer { Cancel = 0, Save, Discard };

    /// `action` completes "before …": "closing", "opening another file", ...
    SaveChangesPrompt(const QString &documentName, const QString &action, QWidget *parent = nullptr);

    Answer answer() const { return m_answer; }
    QString question() const;
    QPushButton *saveButton() const { return m_save; }
    QPushButton *discardButton() const { return m_discard; }
    QPushButton *cancelButton() const { return m_cancel; }

private:
    void finish(Answer answer);

    QLabel *m_question = nullptr;
    QPushButton *m_save = nullptr;
    QPushButton *m_discard = nullptr;
    QPushButton *m_cancel = nullptr;
    Answer m_answer = Cancel;
};

} // namespace railyard
