#pragma once

// Runs a GUI suite on an offscreen screen of a chosen size: Qt's offscreen platform gives a
// screen of about 800 px, so windows asked for 1280x720 or 1920x1080 would be clamped. The
// screen is written as the platform's JSON configuration (offscreen:configfile=...) before the
// QApplication exists, and QT_SCALE_FACTOR sets a scale. Used as the suite's main().

#include <QApplication>
#include <QByteArray>
#include <QDir>
#include <QFile>
#include <QSettings>
#include <QString>
#include <QTemporaryDir>
#include <QTest>

#include <cstdio>

#include <unistd.h>

namespace railyard::testscreen {

/// The screen of RAILYARD_LAYOUT_SCREEN ("WxH@scale": native pixels and QT_SCALE_FACTOR),
/// `fallback` when unset.
struct Screen
{
    int width = 1280;
    int height = 720;
    double scale = 1.0;
};

inline bool screenFromEnvironment(const char *fallback, Screen &out)
{
    QByteArray spec = qgetenv("RAILYARD_LAYOUT_SCREEN");
    if (spec.isEmpty())
        spec = fallback;
    if (std::sscanf(spec.constData(), "%dx%d@%lf", &out.width, &out.height, &out.scale) < 2) {
        std::fprintf(
            stderr, "RAILYARD_LAYOUT_SCREEN: expected WxH@scale, got %s\n", spec.constData());
        return false;
    }
    return true;
}

/// Runs `Test` under QTest on `screen`; returns QTest's result (2 when the screen cannot be set).
template<class Test> int runOnScreen(int argc, char *argv[], const Screen &screen)
{
    const QString config
        = QDir::temp().filePath(QStringLiteral("railyard-test-screen-%1.json").arg(::getpid()));
    {
        QFile f(config);
        if (!f.open(QIODevice::WriteOnly))
            return 2;
        f.write(QStringLiteral("{\"windowFrameMargins\": false, \"screens\": [{\"name\": \"test\", "
                               "\"x\": 0, \"y\": 0, \"width\": %1, \"height\": %2, "
                               "\"logicalDpi\": 96, \"logicalBaseDpi\": 96, \"dpr\": 1}]}")
                    .arg(screen.width)
                    .arg(screen.height)
                    .toUtf8());
    }
    // Each run keeps its settings apart: CTest runs a suite on several screens at once (-j2),
    // and one run's QSettings().clear() wiped the geometry another had just saved.
    const QTemporaryDir settings;
    if (!settings.isValid())
        return 2;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settings.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settings.path());
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + config.toUtf8());
    if (screen.scale != 1.0)
        qputenv("QT_SCALE_FACTOR", QByteArray::number(screen.scale));
    int result = 0;
    {
        QApplication app(argc, argv);
        Test test;
        result = QTest::qExec(&test, argc, argv);
    }
    QFile::remove(config);
    return result;
}

} // namespace railyard::testscreen
