#pragma once

#include "userdialogs.h"

#include <QDialog>
#include <QString>
#include <QStringList>

#include <functional>

namespace railyard {

/** Answers the window's modal questions from a script and records what was asked. */
class ScriptedDialogs : public UserDialogs
{
public:
    SaveChoice saveChoice = SaveChoice::Discard;
    QStringList actions; ///< what each unsaved-changes prompt said the user was doing
    QString openName;
    QStringList measurementFiles; ///< openMeasurementFiles' answer (empty = cancelled)
    QStringList counterFiles; ///< openCounterFiles' answer (empty = cancelled)
    QStringList trainingFiles; ///< openTrainingFiles' answer (empty = cancelled)
    QString saveName;         ///< saveFileName's answer (empty = cancelled)
    QString templateResource; ///< chooseTemplate's answer (empty = cancelled)
    int saveNameQuestions = 0;
    QString textAnswer; ///< askText's answer (empty = cancelled)
    QStringList itemAnswers; ///< chooseItem's answers in turn (none left = cancelled)
    QStringList itemQuestions; ///< "label|item, item, ..." per chooseItem question
    QStringList errors; ///< "title|message"
    /// execDialog: sets the dialog's choices and returns its result (default: rejects).
    std::function<int(QDialog *)> onDialog;
    int dialogsShown = 0;

    int saveQuestionCount() const { return static_cast<int>(actions.size()); }

    SaveChoice askToSaveChanges(QWidget *, const QString &, const QString &action) override
    {
        actions << action;
        return saveChoice;
    }
    void showError(QWidget *, const QString &title, const QString &message) override
    {
        errors << title + QLatin1Char('|') + message;
    }
    QString openFileName(QWidget *, const QString &) override { return openName; }
    QStringList openMeasurementFiles(QWidget *, const QString &) override { return measurementFiles; }
    QStringList openCounterFiles(QWidget *, const QString &) override { return counterFiles; }
    QStringList openTrainingFiles(QWidget *, const QString &) override { return trainingFiles; }
    QString saveFileName(QWidget *, const QString &, const QString &, const QString &) override
    {
        ++saveNameQuestions;
        return saveName;
    }
    QString chooseTemplate(QWidget *) override { return templateResource; }
    void showAbout(QWidget *) override { }
    int execDialog(QDialog *dialog) override
    {
        ++dialogsShown;
        return onDialog ? onDialog(dialog) : QDialog::Rejected;
    }
    QString askText(QWidget *, const QString &, const QString &, const QString &) override
    {
        return textAnswer;
    }
    QString chooseItem(
        QWidget *, const QString &, const QString &label, const QStringList &items) override
    {
        itemQuestions << label + QLatin1Char('|') + items.join(QStringLiteral(", "));
        return itemAnswers.isEmpty() ? QString() : itemAnswers.takeFirst();
    }
};

} // namespace railyard
