// railyard-cli export / import-mapping, run as a user would: the real binary, the goldens of
// tests/golden, failures that must leave nothing behind, and the launcher files run for real:
// the rankfile and the nccl-tests plan under Open MPI's mpirun, the torchrun and Slurm scripts
// with stand-ins for torchrun and srun that print where each rank would land.
#include "clirun.h"
#include "scenario/scenariofile.h"

#include <QDir>
#include <QFile>
#include <QHash>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QSysInfo>
#include <QTemporaryDir>
#include <QTest>
#include <QThread>

#include <nlohmann/json.hpp>

namespace {

struct Run
{
    int exitCode = -1;
    QByteArray out;
    QByteArray err;
};

Run runProgram(const QString &program, const QStringList &args,
    const QProcessEnvironment &env = QProcessEnvironment::systemEnvironment(),
    const QString &workDir = {})
{
    QProcess p;
    p.setProcessEnvironment(env);
    if (!workDir.isEmpty())
        p.setWorkingDirectory(workDir);
    p.start(program, args);
    if (!p.waitForFinished(120000))
        p.kill();
    return { p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, p.readAllStandardOutput(),
        p.readAllStandardError() };
}

Run runCli(const QStringList &args)
{
    const CliRun r = runRailyardCli(args);
    return { r.exitCode, r.out, r.err };
}

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

/// seed-128's workload on `servers` x `gpus` with the given degrees, written to `path`.
void writeSmallScenario(const QString &path, int servers, int gpus, int tp, int pp, int dp)
{
    railyard::Scenario s = railyard::loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    s.name = "small";
    s.fabric.name = "small-" + std::to_string(servers) + "x" + std::to_string(gpus);
    s.fabric.servers = servers;
    s.fabric.gpusPerServer = gpus;
    s.degrees.tp = tp;
    s.degrees.pp = pp;
    s.degrees.dp = dp;
    railyard::saveScenario(s, path.toStdString());
}

/// rank -> {host, gpu, nic} from a mapping-json export.
struct Place
{
    QString host;
    int gpu = -1;
    int nic = -1;
};
QList<Place> placesOf(const QByteArray &mappingJson)
{
    QList<Place> out;
    const nlohmann::json j = nlohmann::json::parse(mappingJson.toStdString());
    for (const auto &r : j.at("ranks"))
        out.append({ QString::fromStdString(r.at("host").get<std::string>()),
            r.at("gpu").get<int>(), r.at("nic").get<int>() });
    return out;
}

QProcessEnvironment mpiEnvironment()
{
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    // Open MPI refuses to run as root (CI's user) without both variables.
    env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"));
    env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QStringLiteral("1"));
    return env;
}

} // namespace

class TestCliExport : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void exportMatchesGoldens_data();
    void exportMatchesGoldens();
    void swapFlagMovesExactlyTwoRanks();
    void failuresWriteNothing_data();
    void failuresWriteNothing();
    void importMappingRoundTrip();
    void mpirunAcceptsTheRankfile();
    void ncclPlanRunsUnderMpirun();
    void torchrunScriptPlacesEveryRank();
    void slurmScriptPlacesEveryRank();
};

void TestCliExport::exportMatchesGoldens_data()
{
    QTest::addColumn<QStringList>("extra");
    QTest::addColumn<QString>("golden");
    const std::pair<const char *, const char *> files[] = { { "mapping-json", "mapping-json.json" },
        { "csv", "csv.csv" }, { "rankfile", "rankfile.txt" }, { "slurm", "slurm.sh" },
        { "torchrun", "torchrun.sh" }, { "hostfile", "hostfile.txt" },
        { "megatron", "megatron.sh" }, { "chrome-trace", "chrome-trace.json" },
        { "nccl-plan", "nccl-plan.sh" }, { "pytorchjob", "pytorchjob.json" } };
    for (const auto &[format, file] : files)
        QTest::newRow(format) << QStringList { QStringLiteral("--format"),
            QString::fromLatin1(format) }
                              << QString::fromLatin1(file);
    QTest::newRow("nccl-plan json") << QStringList { QStringLiteral("--format"),
        QStringLiteral("nccl-plan"), QStringLiteral("--json-plan") }
                                    << QStringLiteral("nccl-plan.json");
}

void TestCliExport::exportMatchesGoldens()
{
    QFETCH(QStringList, extra);
    QFETCH(QString, golden);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out"));
    const Run r = runCli(
        QStringList { QStringLiteral("export"), sample("seed-128.json"), QStringLiteral("-o"), out }
        + extra);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QByteArray got = readTestFile(out);
    QByteArray want = readTestFile(QStringLiteral(RAILYARD_SOURCE_DIR "/tests/golden/") + golden);
    QVERIFY(!want.isEmpty());
    // The CLI names itself as the generator; the engine's default is "railyard".
    static const QRegularExpression generator(QStringLiteral("\"generator\": \"[^\"]*\""));
    got = QString::fromUtf8(got)
              .replace(generator, QStringLiteral("\"generator\": \"-\""))
              .toUtf8();
    want = QString::fromUtf8(want)
               .replace(generator, QStringLiteral("\"generator\": \"-\""))
               .toUtf8();
    QCOMPARE(got, want);
    // stdout gets the same text.
    const Run toStdout
        = runCli(QStringList { QStringLiteral("export"), sample("seed-128.json") } + extra);
    QCOMPARE(toStdout.exitCode, 0);
    QCOMPARE(QString::fromUtf8(toStdout.out)
                 .replace(generator, QStringLiteral("\"generator\": \"-\""))
                 .toUtf8(),
        got);
}

void TestCliExport::swapFlagMovesExactlyTwoRanks()
{
    const Run before = runCli({ QStringLiteral("export"), sample("seed-128.json"),
        QStringLiteral("--format"), QStringLiteral("rankfile") });
    const Run after
        = runCli({ QStringLiteral("export"), sample("seed-128.json"), QStringLiteral("--format"),
            QStringLiteral("rankfile"), QStringLiteral("--swap"), QStringLiteral("0:9") });
    QCOMPARE(after.exitCode, 0);
    const auto records = [](const QByteArray &text) {
        QSet<QString> out;
        for (const QString &l : QString::fromUtf8(text).split(QLatin1Char('\n')))
            if (l.startsWith(QStringLiteral("rank ")))
                out.insert(l);
        return out;
    };
    const QSet<QString> old = records(before.out), now = records(after.out);
    QCOMPARE(old.size(), 128);
    // Sorted lists, not QSet literals: GCC 12 flags Qt's QSet(first, last) with a false
    // -Wnull-dereference in some build paths.
    const auto sorted = [](const QSet<QString> &set) {
        QStringList list = set.values();
        list.sort();
        return list;
    };
    QCOMPARE(sorted(old - now),
        (QStringList {
            QStringLiteral("rank 0=node000 slot=0"), QStringLiteral("rank 9=node001 slot=1") }));
    QCOMPARE(sorted(now - old),
        (QStringList {
            QStringLiteral("rank 0=node001 slot=1"), QStringLiteral("rank 9=node000 slot=0") }));
    // torchrun cannot express it: a warning on stderr, the script refuses to launch.
    const Run torchrun
        = runCli({ QStringLiteral("export"), sample("seed-128.json"), QStringLiteral("--format"),
            QStringLiteral("torchrun"), QStringLiteral("--swap"), QStringLiteral("0:9") });
    QCOMPARE(torchrun.exitCode, 0);
    QVERIFY(torchrun.err.contains("warning: torchrun: node000 holds ranks 1-7, 9"));
    QVERIFY(torchrun.out.contains("torchrun cannot express this mapping"));
}

void TestCliExport::failuresWriteNothing_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message");
    QTest::newRow("duplicate slot") << QStringLiteral(
        "dup") << 1 << QStringLiteral("mapping.slots[1]: slot 0 is already taken by rank 0");
    QTest::newRow("missing rank")
        << QStringLiteral("missing") << 1
        << QStringLiteral("mapping.slots: has 127 entries but the layout has 128 ranks");
    QTest::newRow("hosts count") << QStringLiteral(
        "hosts") << 1 << QStringLiteral("--hosts: lists 2 hosts but the fabric has 16 servers");
    QTest::newRow("swap out of range")
        << QStringLiteral("swap") << 1 << QStringLiteral("swap: rank 500 is outside 0..127");
    QTest::newRow("unknown format")
        << QStringLiteral("format") << 2 << QStringLiteral("--format: unknown format 'pdf'");
    QTest::newRow("import duplicate slot") << QStringLiteral(
        "import") << 1 << QStringLiteral("ranks: ranks 0 and 1 are both on slot 0");
}

void TestCliExport::failuresWriteNothing()
{
    QFETCH(QString, kind);
    QFETCH(int, exitCode);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("scenario.json"));
    nlohmann::json s = nlohmann::json::parse(readTestFile(sample("seed-128.json")).toStdString());
    std::vector<int> slots(128);
    for (int r = 0; r < 128; ++r)
        slots[static_cast<std::size_t>(r)] = r;
    if (kind == QLatin1String("dup"))
        slots[1] = 0;
    if (kind == QLatin1String("missing"))
        slots.pop_back();
    s["mapping"]["slots"] = slots;
    writeTestFile(scenario, QByteArray::fromStdString(s.dump(2)));
    // The output directory holds a file from an earlier export that must stay as it is.
    const QString outDir = dir.filePath(QStringLiteral("out"));
    QVERIFY(QDir().mkpath(outDir));
    const QString out = outDir + QStringLiteral("/export.txt");
    writeTestFile(out, "earlier export\n");

    QStringList args { QStringLiteral("export"), scenario, QStringLiteral("--format"),
        QStringLiteral("rankfile"), QStringLiteral("-o"), out };
    if (kind == QLatin1String("hosts")) {
        writeTestFile(dir.filePath(QStringLiteral("hosts")), "a\nb\n");
        args << QStringLiteral("--hosts") << dir.filePath(QStringLiteral("hosts"));
    }
    if (kind == QLatin1String("swap"))
        args << QStringLiteral("--swap") << QStringLiteral("0:500");
    if (kind == QLatin1String("format"))
        args[3] = QStringLiteral("pdf");
    if (kind == QLatin1String("import")) {
        nlohmann::json record = nlohmann::json::parse(
            runCli({ QStringLiteral("export"), sample("seed-128.json"), QStringLiteral("--format"),
                       QStringLiteral("mapping-json") })
                .out.toStdString());
        record["ranks"][1]["slot"] = 0;
        record["ranks"][1]["gpu"] = 0;
        writeTestFile(
            dir.filePath(QStringLiteral("record.json")), QByteArray::fromStdString(record.dump()));
        args = QStringList { QStringLiteral("import-mapping"), sample("seed-128.json"),
            QStringLiteral("--mapping"), dir.filePath(QStringLiteral("record.json")),
            QStringLiteral("-o"), out };
    }
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, exitCode);
    const QString err = QString::fromUtf8(r.err);
    QVERIFY2(
        err.startsWith(QStringLiteral("railyard-cli: ")) && err.contains(message), qPrintable(err));
    QCOMPARE(err.count(QLatin1Char('\n')), 1);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(QDir(outDir).entryList(QDir::Files | QDir::Hidden | QDir::System),
        QStringList { QStringLiteral("export.txt") });
    QCOMPARE(readTestFile(out), QByteArray("earlier export\n"));
}

void TestCliExport::importMappingRoundTrip()
{
    QTemporaryDir dir;
    const QString record = dir.filePath(QStringLiteral("record.json"));
    const QString csv = dir.filePath(QStringLiteral("record.csv"));
    const QStringList swaps { QStringLiteral("--swap"), QStringLiteral("0:9"),
        QStringLiteral("--swap"), QStringLiteral("3:120") };
    QCOMPARE(runCli(QStringList { QStringLiteral("export"), sample("seed-128.json"),
                        QStringLiteral("--format"), QStringLiteral("mapping-json"),
                        QStringLiteral("-o"), record }
                 + swaps)
                 .exitCode,
        0);
    QCOMPARE(
        runCli(QStringList { QStringLiteral("export"), sample("seed-128.json"),
                   QStringLiteral("--format"), QStringLiteral("csv"), QStringLiteral("-o"), csv }
            + swaps)
            .exitCode,
        0);
    for (const QString &input : { record, csv }) {
        const QString applied = dir.filePath(QStringLiteral("applied.json"));
        const Run imp = runCli({ QStringLiteral("import-mapping"), sample("seed-128.json"),
            QStringLiteral("--mapping"), input, QStringLiteral("-o"), applied });
        QVERIFY2(imp.exitCode == 0, imp.err.constData());
        const nlohmann::json scenario = nlohmann::json::parse(readTestFile(applied).toStdString());
        QCOMPARE(scenario["mapping"]["slots"].size(), std::size_t(128));
        QCOMPARE(scenario["mapping"]["slots"][0].get<int>(), 9);
        // The applied scenario exports the same record as the swapped one.
        const Run again = runCli({ QStringLiteral("export"), applied, QStringLiteral("--format"),
            input == csv ? QStringLiteral("csv") : QStringLiteral("mapping-json") });
        QCOMPARE(again.out, readTestFile(input));
    }
}

void TestCliExport::mpirunAcceptsTheRankfile()
{
    const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
    if (mpirun.isEmpty())
        QSKIP("mpirun is not installed (apt-get install openmpi-bin)");
    if (QThread::idealThreadCount() < 2)
        QSKIP("the rankfile test binds ranks to two cores; this machine has one");
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("local.json"));
    writeSmallScenario(scenario, 1, 2, 2, 1, 1);
    writeTestFile(dir.filePath(QStringLiteral("hosts")), "0 localhost\n");
    const QString rankfile = dir.filePath(QStringLiteral("ranks.rf"));
    // Ranks 0 and 1 exchange GPUs 0 and 1; 2 cores over 2 GPUs on two NUMA nodes (GPU 0 on
    // node 0, GPU 1 on node 1): GPU g is bound to core g, so rank 0 must land on core 1.
    const Run exp = runCli({ QStringLiteral("export"), scenario, QStringLiteral("--format"),
        QStringLiteral("rankfile"), QStringLiteral("--hosts"),
        dir.filePath(QStringLiteral("hosts")), QStringLiteral("--cpus-per-host"),
        QStringLiteral("2"), QStringLiteral("--swap"), QStringLiteral("0:1"), QStringLiteral("-o"),
        rankfile });
    QVERIFY2(exp.exitCode == 0, exp.err.constData());
    QVERIFY(readTestFile(rankfile).contains("rank 0=localhost slot=1\n"));

    const Run run = runProgram(mpirun,
        { QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"),
            QStringLiteral("-np"), QStringLiteral("2"), QStringLiteral("--rankfile"), rankfile,
            QStringLiteral("sh"), QStringLiteral("-c"),
            QStringLiteral("echo RANK $OMPI_COMM_WORLD_RANK $(hostname) "
                           "$(grep Cpus_allowed_list /proc/self/status | cut -f2)") },
        mpiEnvironment());
    if (run.exitCode != 0 && run.err.contains("There are not enough slots"))
        QSKIP("mpirun has no slots on this machine");
    QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
    QHash<int, QString> cores;
    for (const QString &line : QString::fromUtf8(run.out).split(QLatin1Char('\n'))) {
        const QStringList w = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (w.size() == 4 && w[0] == QLatin1String("RANK"))
            cores.insert(w[1].toInt(), w[3]);
    }
    qInfo("mpirun placed: %s", run.out.simplified().constData());
    QCOMPARE(cores.size(), 2);
    // Packed before the swap: rank r on GPU r; after it 0 <-> 1.
    const int gpuOf[] = { 1, 0 };
    for (int r = 0; r < 2; ++r)
        QCOMPARE(cores.value(r), QString::number(gpuOf[r]));
}

void TestCliExport::ncclPlanRunsUnderMpirun()
{
    const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
    if (mpirun.isEmpty())
        QSKIP("mpirun is not installed (apt-get install openmpi-bin)");
    // Open MPI's sequential mapper wants the node's own name, not "localhost".
    const QString host = QSysInfo::machineHostName().section(QLatin1Char('.'), 0, 0);
    if (!QRegularExpression(QStringLiteral("^[A-Za-z0-9_][A-Za-z0-9._-]*$")).match(host).hasMatch())
        QSKIP("this machine's host name cannot go into a hostfile");
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("local.json"));
    writeSmallScenario(scenario, 1, 4, 2, 2, 1);
    writeTestFile(dir.filePath(QStringLiteral("hosts")), host.toUtf8() + "\n");
    const QStringList common { QStringLiteral("export"), scenario, QStringLiteral("--format"),
        QStringLiteral("nccl-plan"), QStringLiteral("--hosts"),
        dir.filePath(QStringLiteral("hosts")), QStringLiteral("--swap"), QStringLiteral("0:3") };
    const QString script = dir.filePath(QStringLiteral("plan.sh"));
    QCOMPARE(runCli(common + QStringList { QStringLiteral("-o"), script }).exitCode, 0);
    const Run json = runCli(common + QStringList { QStringLiteral("--json-plan") });
    QCOMPARE(json.exitCode, 0);
    const nlohmann::json plan = nlohmann::json::parse(json.out.toStdString());

    // Stand-ins for the nccl-tests binaries print what each process was given.
    const QString bin = dir.filePath(QStringLiteral("bin"));
    QVERIFY(QDir().mkpath(bin));
    for (const char *b : { "all_reduce_perf", "all_gather_perf", "reduce_scatter_perf",
             "sendrecv_perf", "alltoall_perf" })
        writeTestFile(bin + QLatin1Char('/') + QLatin1String(b),
            "#!/bin/sh\necho \"FAKE $OMPI_COMM_WORLD_RANK $(hostname -s) $CUDA_VISIBLE_DEVICES "
            "$NCCL_TESTS_DEVICE $NCCL_IB_HCA $NCCL_TESTS_SPLIT | $*\"\n",
            true);
    QProcessEnvironment env = mpiEnvironment();
    env.insert(QStringLiteral("NCCL_TESTS_DIR"), bin);
    env.insert(QStringLiteral("RESULTS"), dir.filePath(QStringLiteral("results")));
    env.insert(QStringLiteral("MPIRUN"), mpirun);
    env.insert(
        QStringLiteral("MPIRUN_ARGS"), QStringLiteral("--allow-run-as-root --oversubscribe"));
    const Run run = runProgram(QStringLiteral("sh"), { script }, env, dir.path());
    QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());

    int checked = 0;
    for (const auto &t : plan.at("tests")) {
        const QString name = QString::fromStdString(t.at("name").get<std::string>());
        const QString log = QString::fromUtf8(
            readTestFile(dir.filePath(QStringLiteral("results/") + name + ".log")));
        const auto gpus = t.at("gpus").get<std::vector<int>>();
        const auto nics = t.at("nics").get<std::vector<int>>();
        const QString bytes = QString::number(t.at("bytes").get<long long>());
        for (std::size_t r = 0; r < gpus.size(); ++r) {
            const QString want
                = QStringLiteral("FAKE %1 %2 %3 0 =mlx5_%4 %5 | -g 1 -b %6 -e %6 -d %7")
                      .arg(r)
                      .arg(QString::fromStdString(QSysInfo::machineHostName().toStdString())
                               .section(QLatin1Char('.'), 0, 0))
                      .arg(gpus[r])
                      .arg(nics[r])
                      .arg(QString::fromStdString(t.at("split").get<std::string>()))
                      .arg(bytes)
                      .arg(QString::fromStdString(t.at("dtype").get<std::string>()));
            QVERIFY2(log.contains(want), qPrintable(name + ": no line '" + want + "' in\n" + log));
            ++checked;
        }
    }
    QVERIFY(checked >= 10);
    // With rank 0 <-> 3 swapped, the first TP group (ranks 0, 1) runs on GPUs 3 and 1.
    QCOMPARE(
        plan.at("tests").at(0).at("gpus").get<std::vector<int>>(), (std::vector<int> { 3, 1 }));
}

void TestCliExport::torchrunScriptPlacesEveryRank()
{
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("two.json"));
    writeSmallScenario(scenario, 2, 4, 2, 2, 2);
    const QString script = dir.filePath(QStringLiteral("torchrun.sh"));
    // A swap inside node001 (ranks 4 and 6) keeps the mapping node-major.
    QCOMPARE(runCli({ QStringLiteral("export"), scenario, QStringLiteral("--format"),
                        QStringLiteral("torchrun"), QStringLiteral("--swap"), QStringLiteral("4:6"),
                        QStringLiteral("-o"), script })
                 .exitCode,
        0);
    const QString bin = dir.filePath(QStringLiteral("bin"));
    QVERIFY(QDir().mkpath(bin));
    writeTestFile(bin + QStringLiteral("/torchrun"),
        "#!/bin/sh\necho \"CVD=$CUDA_VISIBLE_DEVICES $*\"\n", true);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATH"), bin + QLatin1Char(':') + env.value(QStringLiteral("PATH")));
    env.insert(QStringLiteral("RAILYARD_HOST"), QStringLiteral("node001"));
    const Run run = runProgram(QStringLiteral("sh"), { script, QStringLiteral("--extra") }, env);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    // node001 holds ranks 4-7: rank 4 on GPU 2, rank 6 on GPU 0.
    // torchrun runs a per-rank shell (--no-python) that picks the NIC and runs the preflight
    // before the program, which a .py script gets python for.
    QVERIFY2(run.out.startsWith("CVD=2,1,0,3 --nnodes=2 --node-rank=1 --nproc-per-node=4 "
                                "--master-addr=node000 --master-port=29500 --no-python sh -c "),
        run.out.constData());
    QVERIFY(run.out.endsWith(" railyard-rank python3 -u pretrain_gpt.py --extra\n"));
    QVERIFY(run.out.contains("preflight"));
    env.insert(QStringLiteral("RAILYARD_HOST"), QStringLiteral("elsewhere"));
    QCOMPARE(runProgram(QStringLiteral("sh"), { script }, env).exitCode, 1);
}

void TestCliExport::slurmScriptPlacesEveryRank()
{
    if (QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
        QSKIP("bash is not installed");
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("two.json"));
    writeSmallScenario(scenario, 2, 4, 2, 2, 2);
    const QStringList swaps { QStringLiteral("--swap"), QStringLiteral("0:5"),
        QStringLiteral("--swap"), QStringLiteral("2:3") };
    const QString script = dir.filePath(QStringLiteral("job.sh"));
    const QString bin = dir.filePath(QStringLiteral("bin"));
    QVERIFY(QDir().mkpath(bin));
    // The stand-in program prints where the task runs; srun's runs it once per hostfile line.
    writeTestFile(bin + QStringLiteral("/train"),
        "#!/bin/sh\necho \"TASK $RANK $FAKE_HOST $CUDA_VISIBLE_DEVICES $LOCAL_RANK $WORLD_SIZE "
        "$*\"\n",
        true);
    writeTestFile(bin + QStringLiteral("/srun"),
        "#!/bin/bash\nwhile [ \"${1#-}\" != \"$1\" ]; do shift; done\n"
        "n=$(wc -l < \"$SLURM_HOSTFILE\"); i=0\n"
        "for h in $(cat \"$SLURM_HOSTFILE\"); do\n"
        "  SLURM_PROCID=$i SLURM_NTASKS=$n FAKE_HOST=$h RAILYARD_HOST=$h \"$@\" < /dev/null; "
        "i=$((i + 1))\n"
        "done\n",
        true);
    QCOMPARE(runCli(QStringList { QStringLiteral("export"), scenario, QStringLiteral("--format"),
                        QStringLiteral("slurm"), QStringLiteral("--program"),
                        bin + QStringLiteral("/train"), QStringLiteral("-o"), script }
                 + swaps)
                 .exitCode,
        0);
    const QList<Place> places
        = placesOf(runCli(QStringList { QStringLiteral("export"), scenario,
                              QStringLiteral("--format"), QStringLiteral("mapping-json") }
            + swaps)
                       .out);
    QCOMPARE(places.size(), 8);
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATH"), bin + QLatin1Char(':') + env.value(QStringLiteral("PATH")));
    env.insert(QStringLiteral("SLURM_HOSTFILE"), dir.filePath(QStringLiteral("hosts")));
    // Each task runs the preflight against the run record of the same mapping first.
    env.insert(QStringLiteral("RAILYARD_CLI"), QStringLiteral(RAILYARD_CLI));
    const QString record = dir.filePath(QStringLiteral("record.json"));
    QCOMPARE(runCli(QStringList { QStringLiteral("export"), scenario, QStringLiteral("--format"),
                        QStringLiteral("mapping-json"), QStringLiteral("-o"), record }
                 + swaps)
                 .exitCode,
        0);
    env.insert(QStringLiteral("RAILYARD_RECORD"), record);
    const Run run = runProgram(QStringLiteral("bash"), { script, QStringLiteral("--x") }, env);
    QVERIFY2(run.exitCode == 0, run.err.constData());
    int tasks = 0;
    for (const QString &line : QString::fromUtf8(run.out).split(QLatin1Char('\n'))) {
        const QStringList w = line.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        if (w.size() != 7 || w[0] != QLatin1String("TASK"))
            continue;
        const int rank = w[1].toInt();
        const QStringList visible = w[3].split(QLatin1Char(','));
        QCOMPARE(w[2], places[rank].host);
        QCOMPARE(visible.value(w[4].toInt()).toInt(), places[rank].gpu);
        QCOMPARE(w[5], QStringLiteral("8"));
        QCOMPARE(w[6], QStringLiteral("--x"));
        ++tasks;
    }
    QCOMPARE(tasks, 8);
}

QTEST_GUILESS_MAIN(TestCliExport)
#include "tst_cli_export.moc"
