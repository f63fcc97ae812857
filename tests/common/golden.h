#pragma once

#include "base/fileio.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QString>
#include <QStringList>
#include <QTest>

#include <algorithm>
#include <string>

namespace railyard::fixtures {

/// Compares `text` with tests/golden/<name> line by line, failing at the first difference; with
/// RAILYARD_UPDATE_GOLDEN=1 it rewrites the golden file instead (review the diff).
inline void compareWithGolden(const QString &name, const std::string &text)
{
    const QString path = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/golden/") + name;
    if (qEnvironmentVariableIntValue("RAILYARD_UPDATE_GOLDEN") == 1) {
        QDir().mkpath(QFileInfo(path).path());
        writeFileAtomically(path.toStdString(), text);
        qInfo("rewrote %s", qPrintable(path));
        return;
    }
    QFile golden(path);
    QVERIFY2(golden.open(QIODevice::ReadOnly),
        qPrintable(path + " is missing; run with RAILYARD_UPDATE_GOLDEN=1"));
    const QStringList want = QString::fromUtf8(golden.readAll()).split(QLatin1Char('\n'));
    const QStringList now = QString::fromStdString(text).split(QLatin1Char('\n'));
    for (int i = 0; i < std::min(want.size(), now.size()); ++i)
        if (want[i] != now[i])
            QFAIL(qPrintable(name
                + QStringLiteral(
                    " line %1: golden '%2', now '%3' (RAILYARD_UPDATE_GOLDEN=1 regenerates it)")
                      .arg(i + 1)
                      .arg(want[i].left(160), now[i].left(160))));
    QCOMPARE(now.size(), want.size());
}

} // namespace railyard::fixtures
