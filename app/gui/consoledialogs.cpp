#include "consoledialogs.h"

#include <cstdio>

namespace railyard {

UserDialogs::SaveChoice ConsoleDialogs::askToSaveChanges(QWidget *, const QString &, const QString &)
{
    return SaveChoice::Discard;
}

void ConsoleDialogs::showError(QWidget *, const QString &title, const QString &message)
{
    std::fprintf(stderr, "railyard: %s: %s\n", qPrintable(title), qPrintable(message));
}

QString ConsoleDialogs::openFileName(QWidget *, const QString &)
{
    return QString();
}

QString ConsoleDialogs::saveFileName(QWidget *, const QString &, const QString &, const QString &)
{
    return QString();
}

QString ConsoleDialogs::chooseTemplate(QWidget *)
{
    return QString();
}

UserDialogs::RestoreChoice ConsoleDialogs::askRestore(QWidget *, const QString &, const QString &)
{
    return RestoreChoice::Keep;
}

void ConsoleDialogs::showAbout(QWidget *)
{
}

} // namespace railyard
