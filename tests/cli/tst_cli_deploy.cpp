// The launcher exports run as a deployment engineer would run them, with stand-ins for the
// cluster's tools on PATH (mpirun, torchrun, srun, the nccl-tests binaries, nvidia-smi, the
// training program): the nccl-tests plan stops at a failed run, hostile strings in every field
// of every format run nothing, and the preflight each launcher calls stops a rank that is not
// where the run record says.
#include "clirun.h"
#include "launcherstubs.h"
#include "scenario/scenariofile.h"

#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

/// seed-128's workload on `servers` x `gpus` with the given degrees; `edit` may change more.
void writeScenario(const QString &path, int servers, int gpus, int tp, int pp, int dp,
    const std::function<void(railyard::Scenario &)> &edit = {})
{
    railyard::Scenario s = railyard::loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    s.name = "small";
    s.fabric.name = "small";
    s.fabric.servers = servers;
    s.fabric.gpusPerServer = gpus;
    s.degrees.tp = tp;
    s.degrees.pp = pp;
    s.degrees.dp = dp;
    if (edit)
        edit(s);
    railyard::saveScenario(s, path.toStdString());
}

} // namespace

class TestCliDeploy : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ncclPlanStopsAtAFailedRun_data();
    void ncclPlanStopsAtAFailedRun();
    void hostileStringsRunNothing_data();
    void hostileStringsRunNothing();
    void hostileStringsRefused_data();
    void hostileStringsRefused();
    void preflightCatchesAMisplacedRank_data();
    void preflightCatchesAMisplacedRank();
    void importMappingAcceptsASlotEdit();
};

void TestCliDeploy::ncclPlanStopsAtAFailedRun_data()
{
    QTest::addColumn<QString>("failVar");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("says");
    QTest::newRow("all pass") << QString() << 0 << QString();
    QTest::newRow("mpirun fails") << QStringLiteral("FAKE_FAIL") << 1
                                  << QStringLiteral(
                                         "run pp-boundary-0-1 failed: mpirun exited with status 1");
    QTest::newRow("wrong values")
        << QStringLiteral("FAKE_WRONG") << 1
        << QStringLiteral("run pp-boundary-0-1 failed: nccl-tests reports 6 wrong values");
}

void TestCliDeploy::ncclPlanStopsAtAFailedRun()
{
    QFETCH(QString, failVar);
    QFETCH(int, exitCode);
    QFETCH(QString, says);
    QTemporaryDir dir;
    const QString bin = installStubs(dir.path());
    const QString scenario = dir.filePath(QStringLiteral("s.json"));
    writeScenario(scenario, 1, 4, 2, 2, 1);
    const QString script = dir.filePath(QStringLiteral("plan.sh"));
    QCOMPARE(runCli({ QStringLiteral("export"), scenario, QStringLiteral("--format"),
                        QStringLiteral("nccl-plan"), QStringLiteral("-o"), script })
                 .exitCode,
        0);
    QProcessEnvironment env = stubEnvironment(bin);
    env.insert(QStringLiteral("NCCL_TESTS_DIR"), bin);
    env.insert(QStringLiteral("RESULTS"), dir.filePath(QStringLiteral("results")));
    if (!failVar.isEmpty())
        env.insert(failVar, QStringLiteral("sendrecv_perf")); // the pipeline boundaries
    // POSIX sh (dash on Debian) has no pipefail: the status must not get lost in the tee.
    const Run run = runProgram(QStringLiteral("sh"), { script }, env, dir.path());
    QCOMPARE(run.exitCode, exitCode);
    if (exitCode == 0) {
        QVERIFY(run.out.contains("== pp-boundary-0-1-all"));
        return;
    }
    QVERIFY2(QString::fromUtf8(run.err).contains(says), run.err.constData());
    // It stopped there: the TP runs before it ran, the DP runs after it did not.
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("results/tp-all-gather-67108864.log"))));
    QVERIFY(QFile::exists(dir.filePath(QStringLiteral("results/pp-boundary-0-1.log"))));
    QVERIFY(!run.out.contains("== pp-boundary-0-1-all"));
}

namespace {
/// Shell metacharacters that would run `touch pwnedN` if pasted unquoted into a script.
const char *const kHostile = "$(touch pwned1) `touch pwned2` a'b\"c ;touch pwned3 |touch pwned4 &";
} // namespace

void TestCliDeploy::hostileStringsRunNothing_data()
{
    QTest::addColumn<QString>("format");
    for (const char *f : { "mapping-json", "csv", "rankfile", "slurm", "torchrun", "hostfile",
             "megatron", "chrome-trace", "nccl-plan", "pytorchjob", "nccl-topo", "simai-topo" })
        QTest::newRow(f) << QString::fromLatin1(f);
}

void TestCliDeploy::hostileStringsRunNothing()
{
    QFETCH(QString, format);
    if (QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
        QSKIP("bash is not installed");
    QTemporaryDir dir;
    const QString bin = installStubs(dir.path());
    const QString scenario = dir.filePath(QStringLiteral("s.json"));
    // The scenario's name and description and the fabric's name (written into comment lines)
    // carry the hostile text; only the description may hold a newline (a name with a control
    // character is refused at load: tst_cli_hostilenames).
    writeScenario(scenario, 2, 4, 2, 2, 2, [](railyard::Scenario &s) {
        // Built with QString: GCC 12 warns falsely (-Warray-bounds) on std::string + here.
        const QString hostile = QLatin1String(kHostile);
        s.name = (hostile + QStringLiteral(" touch pwned5")).toStdString();
        s.description = (QStringLiteral("desc\ntouch pwned6 ") + hostile).toStdString();
        s.fabric.name = (hostile + QStringLiteral(" touch pwned7")).toStdString();
        // Bus ids, so the launchers set NCCL_TOPO_FILE (and nccl-topo can be written).
        for (int g = 0; g < s.fabric.gpusPerServer; ++g) {
            s.fabric.gpuPciBusIds.push_back("0000:1" + std::to_string(g) + ":00.0");
            s.fabric.nicPciBusIds.push_back("0000:2" + std::to_string(g) + ":00.0");
        }
    });
    const QString record = dir.filePath(QStringLiteral("rec ord $(touch pwned8).json"));
    QStringList args { QStringLiteral("export"), scenario, QStringLiteral("--format"), format,
        QStringLiteral("-o"), dir.filePath(QStringLiteral("out")) };
    const bool pod = format == QLatin1String("pytorchjob");
    const bool launcher
        = format == QLatin1String("slurm") || format == QLatin1String("torchrun") || pod;
    if (launcher)
        args << QStringLiteral("--program")
             << bin + QStringLiteral("/train ") + QLatin1String(kHostile)
             << QStringLiteral("--record") << record;
    // The NCCL_TOPO_FILE path too, present so the script takes it.
    const QString topo = dir.filePath(QStringLiteral("topo $(touch pwned10) `touch pwned11`.xml"));
    writeTestFile(topo, QByteArray("<system version=\"1\"/>\n"));
    if (launcher || format == QLatin1String("rankfile"))
        args << QStringLiteral("--nccl-topo") << topo;
    const Run exp = runCli(args);
    QVERIFY2(exp.exitCode == 0, exp.err.constData());
    QVERIFY(runCli({ QStringLiteral("export"), scenario, QStringLiteral("--format"),
                       QStringLiteral("mapping-json"), QStringLiteral("-o"), record })
                .exitCode
        == 0);
    QString out = dir.filePath(QStringLiteral("out"));
    if (pod) {
        // The pod's command is the torchrun script: run it as the container would.
        const nlohmann::json m = nlohmann::json::parse(readTestFile(out).toStdString());
        out = dir.filePath(QStringLiteral("pod.sh"));
        writeTestFile(out,
            QByteArray::fromStdString(m["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]
                                       ["containers"][0]["command"][2]
                                           .get<std::string>()));
    }
    const QByteArray text = readTestFile(out);
    QVERIFY(!text.isEmpty());
    // No line of the file begins with an injected command: newlines stayed inside comments.
    for (const QByteArray &line : text.split('\n'))
        QVERIFY2(!line.trimmed().startsWith("touch"), line.constData());

    QProcessEnvironment env = stubEnvironment(bin);
    env.insert(QStringLiteral("NCCL_TESTS_DIR"), bin);
    env.insert(QStringLiteral("RESULTS"), dir.filePath(QStringLiteral("results")));
    env.insert(QStringLiteral("SLURM_HOSTFILE"), dir.filePath(QStringLiteral("hosts")));
    env.insert(QStringLiteral("RAILYARD_HOST"), QStringLiteral("node001"));
    if (launcher || format == QLatin1String("nccl-plan") || format == QLatin1String("megatron")) {
        const Run syntax
            = runProgram(QStringLiteral("bash"), { QStringLiteral("-n"), out }, env, dir.path());
        QVERIFY2(syntax.exitCode == 0, syntax.err.constData());
        const Run run = format == QLatin1String("megatron")
            ? runProgram(QStringLiteral("bash"),
                { QStringLiteral("-c"),
                    QStringLiteral("source \"$1\"; printf '%s\\n' \"${MEGATRON_MODEL_ARGS[@]}\""),
                    QStringLiteral("x"), out },
                env, dir.path())
            : runProgram(
                format == QLatin1String("slurm") ? QStringLiteral("bash") : QStringLiteral("sh"),
                { out, QStringLiteral("--extra $(touch pwned9)") }, env, dir.path());
        QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
        if (launcher) {
            // The program got the hostile words literally, and the user's argument as one.
            const QString o = QString::fromUtf8(run.out);
            QVERIFY2(o.contains(QLatin1String("\nARG $(touch\n")), run.out.constData());
            QVERIFY(o.contains(QLatin1String("\nARG `touch\n")));
            QVERIFY(o.contains(QLatin1String("\nARG a'b\"c\n")));
            QVERIFY(o.contains(QLatin1String("\nARG --extra $(touch pwned9)\n")));
            QVERIFY(o.startsWith(QLatin1String("TRAIN ")));
            // NCCL_TOPO_FILE reached the program as the literal path.
            QVERIFY2(o.contains(QLatin1String("\nTOPO ") + topo + QLatin1Char('\n')),
                run.out.constData());
        }
    }
    QVERIFY2(pwned(dir.path()).isEmpty(), qPrintable(pwned(dir.path()).join(QLatin1Char(' '))));
}

void TestCliDeploy::hostileStringsRefused_data()
{
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("format");
    QTest::addColumn<QString>("says");
    for (const char *f : { "rankfile", "slurm", "torchrun", "hostfile", "nccl-plan" }) {
        QTest::newRow(qPrintable(QStringLiteral("hosts %1").arg(QLatin1String(f))))
            << QStringLiteral("hosts") << QString::fromLatin1(f)
            << QStringLiteral("--hosts line 1:");
        QTest::newRow(qPrintable(QStringLiteral("server_names %1").arg(QLatin1String(f))))
            << QStringLiteral("servers") << QString::fromLatin1(f)
            << QStringLiteral("fabric.server_names[0]:");
    }
    for (const char *f : { "slurm", "torchrun" }) {
        QTest::newRow(qPrintable(QStringLiteral("program newline %1").arg(QLatin1String(f))))
            << QStringLiteral("program") << QString::fromLatin1(f) << QStringLiteral("--program:");
        QTest::newRow(qPrintable(QStringLiteral("record newline %1").arg(QLatin1String(f))))
            << QStringLiteral("record") << QString::fromLatin1(f) << QStringLiteral("--record:");
    }
    for (const char *f : { "slurm", "torchrun", "nccl-plan", "mapping-json" })
        QTest::newRow(qPrintable(QStringLiteral("hca-prefix %1").arg(QLatin1String(f))))
            << QStringLiteral("hca") << QString::fromLatin1(f) << QStringLiteral("--hca-prefix:");
}

void TestCliDeploy::hostileStringsRefused()
{
    QFETCH(QString, field);
    QFETCH(QString, format);
    QFETCH(QString, says);
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("s.json"));
    writeScenario(scenario, 2, 4, 2, 2, 2, [&](railyard::Scenario &s) {
        if (field == QLatin1String("servers"))
            s.fabric.serverNames = { kHostile, "node001" };
    });
    writeTestFile(dir.filePath(QStringLiteral("hosts")), QByteArray("$(touch pwned1)\nnode001\n"));
    QStringList args { QStringLiteral("export"), scenario, QStringLiteral("--format"), format,
        QStringLiteral("-o"), dir.filePath(QStringLiteral("out")) };
    if (field == QLatin1String("hosts"))
        args << QStringLiteral("--hosts") << dir.filePath(QStringLiteral("hosts"));
    if (field == QLatin1String("program"))
        args << QStringLiteral("--program") << QStringLiteral("train\ntouch pwned2");
    if (field == QLatin1String("record"))
        args << QStringLiteral("--record") << QStringLiteral("rec\ntouch pwned3");
    if (field == QLatin1String("hca"))
        args << QStringLiteral("--hca-prefix") << QStringLiteral("$(touch pwned4)");
    const Run r = runCli(args);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(says), r.err.constData());
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("out"))));
    QVERIFY(pwned(dir.path()).isEmpty());
}

void TestCliDeploy::preflightCatchesAMisplacedRank_data()
{
    QTest::addColumn<QString>("launcher");
    QTest::addColumn<QString>("record");
    QTest::addColumn<QString>("says");
    for (const char *l : { "torchrun", "slurm", "rankfile", "pytorchjob" }) {
        QTest::newRow(qPrintable(QStringLiteral("%1 as recorded").arg(QLatin1String(l))))
            << QString::fromLatin1(l) << QStringLiteral("same") << QString();
        QTest::newRow(qPrintable(QStringLiteral("%1 other mapping").arg(QLatin1String(l))))
            << QString::fromLatin1(l) << QStringLiteral("other") << QStringLiteral(" uses GPU ");
        QTest::newRow(qPrintable(QStringLiteral("%1 stale record").arg(QLatin1String(l))))
            << QString::fromLatin1(l) << QStringLiteral("stale")
            << QStringLiteral("the run record is mapping version 1 but the launcher was written "
                              "for version 2");
    }
}

void TestCliDeploy::preflightCatchesAMisplacedRank()
{
    QFETCH(QString, launcher);
    QFETCH(QString, record);
    QFETCH(QString, says);
    QTemporaryDir dir;
    const QString bin = installStubs(dir.path());
    const QString scenario = dir.filePath(QStringLiteral("s.json"));
    // The rankfile case runs one host's four ranks under a real local mpirun.
    const bool rankfile = launcher == QLatin1String("rankfile");
    if (rankfile)
        writeScenario(scenario, 1, 4, 2, 2, 1,
            [](railyard::Scenario &s) { s.fabric.serverNames = { "localhost" }; });
    else
        writeScenario(scenario, 2, 4, 2, 2, 2);
    // The launcher is written for the mapping with ranks 4 and 6 (0 and 3) swapped: version 2.
    const int a = rankfile ? 0 : 4, b = rankfile ? 3 : 6;
    const QStringList swap { QStringLiteral("--swap"), QStringLiteral("%1:%2").arg(a).arg(b) };
    const QString script = dir.filePath(QStringLiteral("launch"));
    QStringList args { QStringLiteral("export"), scenario, QStringLiteral("--format"), launcher,
        QStringLiteral("-o"), script };
    if (launcher != QLatin1String("rankfile"))
        args << QStringLiteral("--program") << bin + QStringLiteral("/train");
    QCOMPARE(runCli(args + swap).exitCode, 0);
    // The record: the same mapping, the same version with rank 4's and 6's GPUs swapped back
    // (a record of another mapping), or the unswapped version 1 (a stale one).
    const QString rec = dir.filePath(QStringLiteral("railyard.mapping.json"));
    QCOMPARE(runCli(QStringList { QStringLiteral("export"), scenario, QStringLiteral("--format"),
                        QStringLiteral("mapping-json"), QStringLiteral("-o"), rec }
                 + (record == QLatin1String("stale") ? QStringList() : swap))
                 .exitCode,
        0);
    if (record == QLatin1String("other")) {
        nlohmann::json j = nlohmann::json::parse(readTestFile(rec).toStdString());
        std::swap(j["ranks"][a]["gpu"], j["ranks"][b]["gpu"]);
        std::swap(j["ranks"][a]["slot"], j["ranks"][b]["slot"]);
        writeTestFile(rec, QByteArray::fromStdString(j.dump()));
    }
    QProcessEnvironment env = stubEnvironment(bin);
    env.insert(QStringLiteral("SLURM_HOSTFILE"), dir.filePath(QStringLiteral("hosts")));
    Run run;
    if (launcher == QLatin1String("torchrun")) {
        env.insert(QStringLiteral("RAILYARD_HOST"), QStringLiteral("node001"));
        run = runProgram(QStringLiteral("sh"), { script }, env, dir.path());
    } else if (launcher == QLatin1String("pytorchjob")) {
        // The Worker pod on node001: its command, with the node name the downward API gives.
        const nlohmann::json m = nlohmann::json::parse(readTestFile(script).toStdString());
        const nlohmann::json &c
            = m["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]["spec"]["containers"][0];
        QStringList command;
        for (const auto &w : c["command"])
            command << QString::fromStdString(w.get<std::string>());
        QCOMPARE(c["env"][0]["name"].get<std::string>(), std::string("RAILYARD_HOST"));
        env.insert(QStringLiteral("RAILYARD_HOST"), QStringLiteral("node001"));
        env.insert(QStringLiteral("MASTER_ADDR"), QStringLiteral("small-master-0"));
        run = runProgram(command.front(), command.mid(1), env, dir.path());
    } else if (launcher == QLatin1String("slurm")) {
        run = runProgram(QStringLiteral("bash"), { script }, env, dir.path());
    } else {
        // The rankfile is read by mpirun; each process gets its host's CUDA_VISIBLE_DEVICES
        // from the file's header and runs the preflight first, as the header says.
        const QString mpirun = QStandardPaths::findExecutable(QStringLiteral("mpirun"));
        if (mpirun.isEmpty())
            QSKIP("mpirun is not installed (apt-get install openmpi-bin)");
        const QString text = QString::fromUtf8(readTestFile(script));
        QVERIFY(text.contains(QLatin1String("#   localhost: CUDA_VISIBLE_DEVICES=3,1,2,0\n")));
        QVERIFY(text.contains(QLatin1String("rank 0=localhost slot=3\n")));
        env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT"), QStringLiteral("1"));
        env.insert(QStringLiteral("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"), QStringLiteral("1"));
        env.insert(
            QStringLiteral("PATH"), env.value(QStringLiteral("PATH")).section(QLatin1Char(':'), 1));
        // The rankfile's core binding needs four cores; the ranks and their environment are
        // what a local mpirun gives them (OMPI_COMM_WORLD_RANK, _LOCAL_RANK, _SIZE).
        run = runProgram(mpirun,
            { QStringLiteral("--allow-run-as-root"), QStringLiteral("--oversubscribe"),
                QStringLiteral("-np"), QStringLiteral("4"), QStringLiteral("sh"),
                QStringLiteral("-c"),
                QStringLiteral("RAILYARD_HOST=localhost CUDA_VISIBLE_DEVICES=3,1,2,0 "
                               "\"$RAILYARD_CLI\" preflight railyard.mapping.json "
                               "--mapping-version 2 && echo TRAIN $OMPI_COMM_WORLD_RANK") },
            env, dir.path());
        if (run.exitCode != 0 && run.err.contains("There are not enough slots"))
            QSKIP("mpirun has no slots on this machine");
    }
    if (says.isEmpty()) {
        QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
        QCOMPARE(run.out.count("TRAIN "), launcher == QLatin1String("slurm") ? 8 : 4);
        if (launcher == QLatin1String("pytorchjob"))
            QVERIFY(run.out.contains("TRAIN 4 0 2,1,0,3 =mlx5_2 1"));
        return;
    }
    QVERIFY2(run.exitCode != 0, run.out.constData());
    QVERIFY2(QString::fromUtf8(run.err).contains(says), run.err.constData());
    // Under mpirun every misplaced rank fails its own preflight, and mpirun stops the others
    // once one exits: which rank reports first depends on the machine's load, so any of the
    // rankfile's misplaced ranks may be the one that says it (rank 0 on GPU 3, rank 3 on 0).
    if (record == QLatin1String("other") && rankfile)
        QVERIFY2(QString::fromUtf8(run.err).contains(QRegularExpression(QStringLiteral(
                     "preflight: rank (0 on localhost uses GPU 3 but the run record gives it GPU 0"
                     "|[1-3] on localhost uses GPU [0-3] but the run record gives it GPU [0-3])"))),
            run.err.constData());
    else if (record == QLatin1String("other"))
        QVERIFY(run.err.contains(
            "preflight: rank 4 on node001 uses GPU 2 but the run record gives it GPU 0"));
    // The misplaced ranks never reached the program.
    QVERIFY(!run.out.contains("TRAIN 4 ") || launcher == QLatin1String("rankfile"));
}

void TestCliDeploy::importMappingAcceptsASlotEdit()
{
    QTemporaryDir dir;
    const QString scenario = dir.filePath(QStringLiteral("s.json"));
    writeScenario(scenario, 2, 4, 2, 2, 2);
    const Run csv = runCli(
        { QStringLiteral("export"), scenario, QStringLiteral("--format"), QStringLiteral("csv") });
    QCOMPARE(csv.exitCode, 0);
    // Swap ranks 0 and 1 in the slot column only (column 9), saved with a byte order mark.
    QList<QByteArray> rows = csv.out.split('\n');
    for (int row : { 1, 2 }) {
        QList<QByteArray> f = rows[row].split(',');
        f[8] = row == 1 ? "1" : "0";
        rows[row] = f.join(',');
    }
    writeTestFile(dir.filePath(QStringLiteral("edited.csv")), "\xEF\xBB\xBF" + rows.join('\n'));
    const Run imp = runCli({ QStringLiteral("import-mapping"), scenario,
        QStringLiteral("--mapping"), dir.filePath(QStringLiteral("edited.csv")) });
    QVERIFY2(imp.exitCode == 0, imp.err.constData());
    const nlohmann::json s = nlohmann::json::parse(imp.out.toStdString());
    QCOMPARE(s.at("mapping").at("version").get<int>(), 2);
    QCOMPARE(s.at("mapping").at("slots").at(0).get<int>(), 1);
    // An export after --swap is a new mapping: its record says version 2, not 1.
    const Run swapped = runCli({ QStringLiteral("export"), scenario, QStringLiteral("--format"),
        QStringLiteral("mapping-json"), QStringLiteral("--swap"), QStringLiteral("0:1") });
    QCOMPARE(nlohmann::json::parse(swapped.out.toStdString()).at("mapping_version").get<int>(), 2);
}

QTEST_GUILESS_MAIN(TestCliDeploy)
#include "tst_cli_deploy.moc"
