#pragma once
// The stand-ins for a cluster's tools that the deployment tests run the launcher exports with
// (tst_cli_deploy, tst_cli_hostilenames): mpirun, torchrun, srun, the nccl-tests binaries and a
// training program, each a small shell script on PATH.
#include "clirun.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QString>
#include <QStringList>

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

inline Run runProgram(const QString &program, const QStringList &args,
    const QProcessEnvironment &env, const QString &workDir)
{
    QProcess p;
    p.setProcessEnvironment(env);
    p.setWorkingDirectory(workDir);
    p.start(program, args);
    if (!p.waitForFinished(120000))
        p.kill();
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

inline Run runCli(const QStringList &args)
{
    const CliRun r = runRailyardCli(args);
    return { r.exitCode, r.out, r.err };
}

/**
 * Stand-ins on PATH: mpirun (runs the command once per process with OMPI_COMM_WORLD_RANK and
 * the -x variables, like --map-by seq), torchrun (nproc processes with RANK, LOCAL_RANK,
 * WORLD_SIZE), srun (one task per SLURM_HOSTFILE line with SLURM_PROCID; the host name goes to
 * the preflight as RAILYARD_HOST), the nccl-tests binaries (a result table; FAKE_FAIL=<binary>
 * makes that one exit 1, FAKE_WRONG=<binary> report wrong values) and `train`, which prints its
 * rank's view and its arguments one per line.
 */
inline QString installStubs(const QString &dir)
{
    const QString bin = dir + QStringLiteral("/bin");
    QDir().mkpath(bin);
    writeTestFile(bin + QStringLiteral("/mpirun"),
        "#!/bin/sh\nnp=1\n"
        "while [ $# -gt 0 ]; do case \"$1\" in\n"
        "  -np) np=$2; shift 2 ;;\n  -x) export \"$2\"; shift 2 ;;\n"
        "  --hostfile|--map-by|--bind-to) shift 2 ;;\n  --*) shift ;;\n  *) break ;;\nesac; done\n"
        "r=0; st=0\nwhile [ $r -lt $np ]; do OMPI_COMM_WORLD_RANK=$r OMPI_COMM_WORLD_SIZE=$np "
        "\"$@\" || st=$?; r=$((r + 1)); done\nexit $st\n",
        true);
    writeTestFile(bin + QStringLiteral("/torchrun"),
        "#!/bin/sh\nfor a in \"$@\"; do case \"$a\" in --nnodes=*) nn=${a#*=} ;; "
        "--node-rank=*) nr=${a#*=} ;; --nproc-per-node=*) np=${a#*=} ;; esac; done\n"
        "while [ \"${1#--}\" != \"$1\" ]; do shift; done\n"
        "i=0; st=0\nwhile [ $i -lt $np ]; do RANK=$((nr * np + i)) LOCAL_RANK=$i "
        "WORLD_SIZE=$((nn * np)) \"$@\" || st=$?; i=$((i + 1)); done\nexit $st\n",
        true);
    writeTestFile(bin + QStringLiteral("/srun"),
        "#!/bin/bash\nwhile [ \"${1#-}\" != \"$1\" ]; do shift; done\n"
        "n=$(wc -l < \"$SLURM_HOSTFILE\"); i=0; st=0\n"
        "for h in $(cat \"$SLURM_HOSTFILE\"); do\n"
        "  SLURM_PROCID=$i SLURM_NTASKS=$n RAILYARD_HOST=$h \"$@\" < /dev/null || st=$?\n"
        "  i=$((i + 1))\ndone\nexit $st\n",
        true);
    for (const char *b : { "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
             "sendrecv_perf", "alltoall_perf" })
        writeTestFile(bin + QLatin1Char('/') + QLatin1String(b),
            QByteArray("#!/bin/sh\nme=") + b
                + "\n[ \"$FAKE_FAIL\" = \"$me\" ] && { echo \"$me: NCCL failure\" >&2; exit 1; }\n"
                  "w=0; [ \"$FAKE_WRONG\" = \"$me\" ] && w=3\n"
                  "echo '#'\necho '#       size         count      type   redop    root     "
                  "time   algbw   busbw  #wrong     time   algbw   busbw  #wrong'\n"
                  "echo '#        (B)    (elements)                               (us)  (GB/s)  "
                  "(GB/s)             (us)  (GB/s)  (GB/s)'\n"
                  "echo \"    67108864      16777216     float     sum      -1   1000.0   67.11   "
                  "58.72       0   1000.0   67.11   58.72       $w\"\n"
                  "echo \"# Out of bounds values : $w $( [ $w = 0 ] && echo OK || echo FAILED)\"\n"
                  "echo '# Avg bus bandwidth    : 58.72'\n",
            true);
    writeTestFile(bin + QStringLiteral("/train"),
        "#!/bin/sh\necho \"TRAIN $RANK $LOCAL_RANK $CUDA_VISIBLE_DEVICES $NCCL_IB_HCA "
        "$NCCL_PXN_DISABLE\"\necho \"TOPO ${NCCL_TOPO_FILE:-unset}\"\n"
        "for a in \"$@\"; do echo \"ARG $a\"; done\n",
        true);
    return bin;
}

inline QProcessEnvironment stubEnvironment(const QString &bin)
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATH"), bin + QLatin1Char(':') + env.value(QStringLiteral("PATH")));
    env.insert(QStringLiteral("RAILYARD_CLI"), QStringLiteral(RAILYARD_CLI));
    env.remove(QStringLiteral("RANK"));
    env.remove(QStringLiteral("LOCAL_RANK"));
    env.remove(QStringLiteral("NCCL_IB_HCA"));
    return env;
}

/// Files whose name starts with "pwned" anywhere under `dir`.
inline QStringList pwned(const QString &dir)
{
    QStringList out;
    QDirIterator it(dir, QDir::Files | QDir::Hidden, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString f = it.next();
        if (QFileInfo(f).fileName().startsWith(QLatin1String("pwned")))
            out << f;
    }
    return out;
}
