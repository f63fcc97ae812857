#pragma once

#include <QByteArray>
#include <QFile>
#include <QProcess>
#include <QStringList>
#include <QTest>

#include <nlohmann/json.hpp>

/** What one run of the real railyard-cli (path: RAILYARD_CLI) printed, and how it exited. */
struct CliRun
{
    int exitCode = -1; ///< -1 when it crashed or did not finish within a minute
    QByteArray out;
    QByteArray err;
};

/// railyard-cli with `args` (and `environment` when given), killed after `timeoutMs` (exit code
/// -1 then).
inline CliRun runRailyardCli(
    const QStringList &args, const QProcessEnvironment &environment, int timeoutMs)
{
    QProcess process;
    if (!environment.isEmpty())
        process.setProcessEnvironment(environment);
    process.start(QStringLiteral(RAILYARD_CLI), args);
    CliRun run;
    if (!process.waitForFinished(timeoutMs)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}

inline CliRun runRailyardCli(const QStringList &args)
{
    return runRailyardCli(args, QProcessEnvironment(), 60000);
}

/// A file's bytes, empty when it cannot be read.
inline QByteArray readTestFile(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// Writes (truncating) a test input; `executable` for a stub program on PATH.
inline void writeTestFile(const QString &path, const QByteArray &data, bool executable = false)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(data);
    f.close();
    if (executable)
        f.setPermissions(f.permissions() | QFileDevice::ExeOwner | QFileDevice::ExeUser);
}

/// Runs railyard-cli and parses its stdout as JSON (null, with its stderr as a warning, when it
/// failed).
inline nlohmann::json cliJson(const QStringList &args)
{
    const CliRun r = runRailyardCli(args);
    if (r.exitCode != 0) {
        qWarning("%s", r.err.constData());
        return nullptr;
    }
    return nlohmann::json::parse(r.out.toStdString());
}
