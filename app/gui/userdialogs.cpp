#include "userdialogs.h"

#include "newscenariodialog.h"
#include "savechangesprompt.h"

#include <QApplication>
#include <QDateTime>
#include <QDialog>
#include <QFileDialog>
#include <QInputDialog>
#include <QLineEdit>
#include <QLocale>
#include <QMessageBox>
#include <QPushButton>

namespace railyard {

UserDialogs::~UserDialogs() = default;

UserDialogs::SaveChoice UserDialogs::askToSaveChanges(QWidget *parent, const QString &documentName,
                                                      const QString &action)
{
    SaveChangesPrompt prompt(documentName, action, parent);
    prompt.exec();
    switch (prompt.answer()) {
    case SaveChangesPrompt::Save:
        return SaveChoice::Save;
    case SaveChangesPrompt::Discard:
        return SaveChoice::Discard;
    case SaveChangesPrompt::Cancel:
        break;
    }
    return SaveChoice::Cancel;
}

QString UserDialogs::friendlyTime(const QDateTime &when, const QDateTime &now)
{
    if (!when.isValid())
        return QObject::tr("an unknown time");
    const QDate day = when.date();
    const QString time = QLocale().toString(when.time(), QLocale::ShortFormat);
    if (day == now.date())
        return QObject::tr("today at %1").arg(time);
    if (day == now.date().addDays(-1))
        return QObject::tr("yesterday at %1").arg(time);
    return QObject::tr("%1 at %2").arg(QLocale().toString(day, QLocale::LongFormat), time);
}

std::unique_ptr<QMessageBox> UserDialogs::restoreBox(
    QWidget *parent, const QString &savedAt, const QString &originalPath)
{
    const QString name = originalPath.isEmpty() ? QObject::tr("an untitled scenario")
                                                : QStringLiteral("\"%1\"").arg(originalPath);
    // savedAt reads "today at 14:32" (friendlyTime()): no "at" before it.
    auto box = std::make_unique<QMessageBox>(QMessageBox::Question, QApplication::applicationName(),
        QObject::tr("Railyard did not close normally. Restore the unsaved changes to %1 "
                    "autosaved %2?")
            .arg(name, savedAt),
        QMessageBox::NoButton, parent);
    // Mnemonics: Alt+R restores, Alt+N decides later (Discard is the platform's button).
    QPushButton *restore = box->addButton(QObject::tr("&Restore"), QMessageBox::AcceptRole);
    restore->setObjectName(QStringLiteral("restoreButton"));
    box->addButton(QMessageBox::Discard)->setObjectName(QStringLiteral("discardButton"));
    QPushButton *later = box->addButton(QObject::tr("&Not Now"), QMessageBox::RejectRole);
    later->setObjectName(QStringLiteral("notNowButton"));
    box->setDefaultButton(restore);
    box->setEscapeButton(later); // closing the box never loses the autosave
    return box;
}

UserDialogs::RestoreChoice UserDialogs::askRestore(
    QWidget *parent, const QString &savedAt, const QString &originalPath)
{
    const std::unique_ptr<QMessageBox> box = restoreBox(parent, savedAt, originalPath);
    box->exec();
    const QAbstractButton *clicked = box->clickedButton();
    if (clicked && clicked->objectName() == QLatin1String("restoreButton"))
        return RestoreChoice::Restore;
    if (!clicked || clicked->objectName() == QLatin1String("notNowButton"))
        return RestoreChoice::Keep;
    return RestoreChoice::Discard;
}

QString UserDialogs::chooseItem(
    QWidget *parent, const QString &title, const QString &label, const QStringList &items)
{
    bool ok = false;
    const QString item = QInputDialog::getItem(parent, title, label, items, 0, false, &ok);
    return ok ? item : QString();
}

void UserDialogs::showError(QWidget *parent, const QString &title, const QString &message)
{
    QMessageBox::critical(parent, title, message);
}

QString UserDialogs::openFileName(QWidget *parent, const QString &directory)
{
    return QFileDialog::getOpenFileName(parent, QObject::tr("Open Scenario"), directory,
                                        QObject::tr("Scenario files (*.json);;All files (*)"));
}

QStringList UserDialogs::openMeasurementFiles(QWidget *parent, const QString &directory)
{
    return QFileDialog::getOpenFileNames(parent, QObject::tr("Import Measurements"), directory,
        QObject::tr("nccl-tests output (*.log *.txt *.json);;All files (*)"));
}

QStringList UserDialogs::openCounterFiles(QWidget *parent, const QString &directory)
{
    return QFileDialog::getOpenFileNames(parent, QObject::tr("Import Port Counters"), directory,
        QObject::tr("Port counters and mapping (*.txt *.prom *.csv *.log);;All files (*)"));
}

QStringList UserDialogs::openTrainingFiles(QWidget *parent, const QString &directory)
{
    return QFileDialog::getOpenFileNames(parent, QObject::tr("Import Training Log or Trace"),
        directory,
        QObject::tr("Training logs and profiler traces (*.log *.txt *.out *.json);;All files (*)"));
}

QString UserDialogs::saveFileName(QWidget *parent, const QString &title, const QString &suggested,
                                  const QString &filter)
{
    return QFileDialog::getSaveFileName(parent, title, suggested, filter);
}

QString UserDialogs::chooseTemplate(QWidget *parent)
{
    NewScenarioDialog dialog(parent);
    return dialog.exec() == QDialog::Accepted ? dialog.selectedTemplate() : QString();
}

void UserDialogs::showAbout(QWidget *parent)
{
    QMessageBox::about(
        parent, QObject::tr("About Railyard"),
        QObject::tr("<h3>Railyard %1</h3>"
                    "<p>Explore how the parallel layout of a training job (ranks with "
                    "coordinates d, p, t) lands on a datacenter fabric: drag ranks onto GPU "
                    "slots and see the predicted link load, the bottleneck, the cost of each "
                    "parallel dimension and the pipeline bubble.</p>"
                    "<p>Every number comes from the same analytical cost engine as "
                    "<tt>railyard-cli</tt>, so the GUI and the CLI agree on any scenario "
                    "file.</p>")
            .arg(QApplication::applicationVersion()));
}

} // namespace railyard

namespace railyard {

int UserDialogs::execDialog(QDialog *dialog)
{
    return dialog->exec();
}

QString UserDialogs::askText(QWidget *parent, const QString &title, const QString &label,
                             const QString &initial)
{
    bool ok = false;
    const QString text = QInputDialog::getText(parent, title, label, QLineEdit::Normal, initial, &ok);
    return ok ? text : QString();
}

} // namespace railyard
