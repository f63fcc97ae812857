#pragma once

#include <QByteArray>
#include <QProcess>
#include <QStringList>

/** What one run of the real railyard-cli (path: RAILYARD_CLI) printed, and how it exited. */
struct CliRun
{
    int exitCode = -1; ///< -1 when it crashed or did not finish within a minute
    QByteArray out;
    QByteArray err;
};

inline CliRun runRailyardCli(const QStringList &args)
{
    QProcess process;
    process.start(QStringLiteral(RAILYARD_CLI), args);
    CliRun run;
    if (!process.waitForFinished(60000)) {
        process.kill();
        process.waitForFinished();
        return run;
    }
    run.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
    run.out = process.readAllStandardOutput();
    run.err = process.readAllStandardError();
    return run;
}
