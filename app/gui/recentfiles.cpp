#include "recentfiles.h"

#include <QDir>
#include <QFileInfo>
#include <QMenu>
#include <QSettings>

namespace railyard {

namespace {

const QString kKey = QStringLiteral("recentFiles");

} // namespace

RecentFiles::RecentFiles(QObject *parent)
    : QObject(parent)
{}

QStringList RecentFiles::files() const
{
    return QSettings().value(kKey).toStringList();
}

void RecentFiles::add(const QString &path)
{
    const QString absolute = QFileInfo(path).absoluteFilePath();
    QStringList list = files();
    list.removeAll(absolute);
    list.prepend(absolute);
    while (list.size() > kMaxFiles)
        list.removeLast();
    store(list);
}

void RecentFiles::remove(const QString &path)
{
    QStringList list = files();
    list.removeAll(QFileInfo(path).absoluteFilePath());
    store(list);
}

void RecentFiles::clear()
{
    store({});
}

void RecentFiles::store(const QStringList &list)
{
    QSettings().setValue(kKey, list);
}

void RecentFiles::populate(QMenu *menu)
{
    menu->clear();
    const QStringList list = files();
    for (int i = 0; i < list.size(); ++i) {
        const QFileInfo info(list[i]);
        // "&1 seed-128.json  (~/designs)": the number is the accelerator, the folder tells
        // two files of one name apart.
        const QString text = QStringLiteral("&%1 %2  (%3)")
                                 .arg(i + 1)
                                 .arg(info.fileName(), QDir::toNativeSeparators(info.path()));
        QAction *action = menu->addAction(text);
        action->setToolTip(list[i]);
        action->setStatusTip(tr("Open %1").arg(QDir::toNativeSeparators(list[i])));
        action->setEnabled(info.exists());
        const QString path = list[i];
        connect(action, &QAction::triggered, this, [this, path] { Q_EMIT fileRequested(path); });
    }
    if (list.isEmpty())
        menu->addAction(tr("No Recent Files"))->setEnabled(false);
    menu->addSeparator();
    QAction *clearAction = menu->addAction(tr("Clear Menu"));
    clearAction->setEnabled(!list.isEmpty());
    connect(clearAction, &QAction::triggered, this, &RecentFiles::clear);
}

} // namespace railyard
