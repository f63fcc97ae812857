#pragma once

#include <QObject>
#include <QStringList>

class QMenu;

namespace railyard {

/**
 * File > Open Recent: the last few scenario files (absolute paths, newest first), kept in
 * QSettings under "recentFiles". The menu is refilled each time it opens; files that have
 * disappeared are shown disabled.
 */
class RecentFiles : public QObject
{
    Q_OBJECT

public:
    static constexpr int kMaxFiles = 8;

    explicit RecentFiles(QObject *parent = nullptr);

    QStringList files() const;
    void add(const QString &path);
    void remove(const QString &path);
    void clear();

    /// Fills `menu` with one action per file (numbered accelerators) and a
    /// "Clear Menu" action; an action's trigger emits fileRequested().
    void populate(QMenu *menu);

Q_SIGNALS:
    void fileRequested(const QString &path);

private:
    void store(const QStringList &files);
};

} // namespace railyard
