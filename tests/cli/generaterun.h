#pragma once

// Running `railyard-cli generate` from a suite (tst_cli_generate, tst_cli_generatemodel): one
// run's exit code and output as std::string, and the seed's 128-GPU arguments.

#include "clirun.h"

#include <QStringList>

#include <string>

namespace {

/** What one run of `railyard-cli generate ARGS` produced. */
struct Run
{
    int exitCode = -1;
    std::string out;
    std::string err;
};

inline Run runCli(const QStringList &args)
{
    const CliRun r = runRailyardCli(QStringList { QStringLiteral("generate") } + args);
    return { r.exitCode, r.out.toStdString(), r.err.toStdString() };
}

/// The seed's 128-GPU example: 16 servers of 8, TP=8, PP=4 (DP=4 derived).
inline QStringList seedArgs()
{
    return { "--fabric", "rail-optimised", "--servers", "16", "--gpus-per-server", "8", "--tp", "8",
        "--pp", "4" };
}

} // namespace
