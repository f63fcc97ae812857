/**
 * The command line itself, run as a newcomer would meet it: the real railyard-cli (and the
 * railyard GUI for --version). Usage without arguments, suggestions for misspelt commands and
 * options, options that do not apply, the help of every command, versions, a JSON syntax error
 * that names its file, "format_version" in every --json output and errors as JSON under --json.
 */
#include "clirun.h"

#include "workload/presets.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QProcess>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

/// The command names the top-level help lists under "Commands:".
QStringList listedCommands()
{
    const CliRun r = runRailyardCli({ QStringLiteral("--help") });
    QStringList names;
    bool inCommands = false;
    for (const QString &line : QString::fromUtf8(r.out).split(QLatin1Char('\n'))) {
        if (line == QLatin1String("Commands:")) {
            inCommands = true;
            continue;
        }
        if (inCommands && line.isEmpty())
            break;
        // "  evaluate   Predict ..." (continuation lines start with more spaces).
        static const QRegularExpression entry(QStringLiteral("^  ([a-z-]+) "));
        const QRegularExpressionMatch m = entry.match(line);
        if (inCommands && m.hasMatch())
            names << m.captured(1);
    }
    return names;
}

/// The JSON object `text` holds, or a discarded value (no exception) when it is not JSON.
nlohmann::json parsed(const QByteArray &text)
{
    return nlohmann::json::parse(text.toStdString(), nullptr, false);
}

/// error.code and error.message of a JSON error object, or -1 and "" when it has none.
std::pair<int, QString> jsonError(const nlohmann::json &j)
{
    if (!j.is_object() || !j.contains("error") || !j["error"].is_object()
        || !j["error"].contains("code") || !j["error"]["code"].is_number_integer()
        || !j["error"].contains("message") || !j["error"]["message"].is_string())
        return { -1, QString() };
    return { j["error"]["code"].get<int>(),
        QString::fromStdString(j["error"]["message"].get<std::string>()) };
}

QByteArray writeTemp(QTemporaryDir &dir, const char *name, const QByteArray &text)
{
    const QString path = dir.filePath(QLatin1String(name));
    QFile f(path);
    if (f.open(QIODevice::WriteOnly))
        f.write(text);
    return path.toUtf8();
}

} // namespace

class TestCliUsage : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void noArgumentsPrintsUsageOnStderr();
    void unknownNamesGetASuggestion_data();
    void unknownNamesGetASuggestion();
    void optionsThatDoNotApplyAreRefused_data();
    void optionsThatDoNotApplyAreRefused();
    void optionsStillWorkWhereTheyApply();
    void everyCommandsHelpShowsItsUsage_data();
    void everyCommandsHelpShowsItsUsage();
    void generateHelpListsTheEnginePresets();
    void exportHelpListsEveryFormat();
    void versions();
    void jsonSyntaxErrorNamesTheFile();
    void everyJsonOutputHasFormatVersion_data();
    void everyJsonOutputHasFormatVersion();
    void errorsUnderJsonAreJson_data();
    void errorsUnderJsonAreJson();
};

void TestCliUsage::noArgumentsPrintsUsageOnStderr()
{
    const CliRun r = runRailyardCli({});
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.contains("Usage: railyard-cli [OPTIONS] COMMAND\n"), r.err.constData());
    // The list is the subcommand table's, so every command is in it, and --version too.
    const QStringList commands = listedCommands();
    QCOMPARE(commands,
        (QStringList { "generate", "evaluate", "groups", "pipeline", "collective", "export",
            "import-mapping", "import-topology", "preflight", "compare", "remap", "optimise",
            "search", "merge", "compose", "place-job", "calibrate", "rail-audit", "nccl-log", "bom",
            "fabric-search", "counters" }));
    for (const QString &c : commands)
        QVERIFY2(r.err.contains("\n  " + c.toUtf8() + ' '), qPrintable(c));
    QVERIFY(r.err.contains("--version"));
}

void TestCliUsage::unknownNamesGetASuggestion_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message");
    const QString seed = sample("seed-128.json");
    QTest::newRow("option of export")
        << QStringList { "export", seed, "--formt", "csv" }
        << "railyard-cli export: unknown option '--formt'; did you mean '--format'? (try "
           "'railyard-cli export --help')";
    QTest::newRow("option with =")
        << QStringList { "export", seed, "--formt=csv" }
        << "railyard-cli export: unknown option '--formt'; did you mean '--format'? (try "
           "'railyard-cli export --help')";
    QTest::newRow("option of evaluate")
        << QStringList { "evaluate", seed, "--jsno" }
        << "railyard-cli evaluate: unknown option '--jsno'; did "
           "you mean '--json'? (try 'railyard-cli evaluate --help')";
    // export's --format is not an option of evaluate: no suggestion from another command.
    QTest::newRow("no close option")
        << QStringList { "evaluate", seed, "--formt" }
        << "railyard-cli evaluate: unknown option '--formt' (try 'railyard-cli evaluate --help')";
    QTest::newRow("before a missing FILE")
        << QStringList { "evaluate", "--jsn" }
        << "railyard-cli evaluate: unknown option '--jsn'; did you mean '--json'? (try "
           "'railyard-cli evaluate --help')";
    QTest::newRow("unique prefix")
        << QStringList { "remap", seed, "--fail", "server:3", "--strat", "all" }
        << "railyard-cli remap: unknown option '--strat'; did you mean "
           "'--strategy'? (try 'railyard-cli remap --help')";
    QTest::newRow("command") << QStringList { "evalute", seed }
                             << "railyard-cli: unknown command 'evalute'; did you mean "
                                "'evaluate'? (try 'railyard-cli --help')";
    QTest::newRow("command swap") << QStringList { "gorups" }
                                  << "railyard-cli: unknown command 'gorups'; did you mean "
                                     "'groups'? (try 'railyard-cli --help')";
    QTest::newRow("no close command")
        << QStringList { "frobnicate" }
        << "railyard-cli: unknown command 'frobnicate' (try 'railyard-cli --help')";
    QTest::newRow("top-level option") << QStringList { "--verison" }
                                      << "railyard-cli: unknown option '--verison'; did you mean "
                                         "'--version'? (try 'railyard-cli --help')";
}

void TestCliUsage::unknownNamesGetASuggestion()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    const CliRun r = runRailyardCli(args);
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(QString::fromUtf8(r.err), message + QLatin1Char('\n'));
}

void TestCliUsage::optionsThatDoNotApplyAreRefused_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("message"); // the line after "railyard-cli <command>: "
    const QString seed = sample("seed-128.json");
    const auto exportAs = [&seed](const char *format, const QStringList &extra) {
        return QStringList { "export", seed, "--format", format } + extra;
    };
    QTest::newRow("--links without --json")
        << QStringList { "evaluate", seed, "--links" } << "evaluate: --links requires --json";
    // Each exporter option where model/export/ does not read it.
    QTest::newRow("--cpus-per-host with csv") << exportAs("csv", { "--cpus-per-host", "64" })
                                              << "export: --cpus-per-host applies only to --format "
                                                 "rankfile, slurm or nccl-topo, not to csv";
    QTest::newRow("--cpus-per-host with torchrun")
        << exportAs("torchrun", { "--cpus-per-host", "64" })
        << "export: --cpus-per-host applies only to --format rankfile, slurm or nccl-topo, not to "
           "torchrun";
    QTest::newRow("--master-port with rankfile")
        << exportAs("rankfile", { "--master-port", "29600" })
        << "export: --master-port applies only to --format torchrun, slurm or kueue, not to "
           "rankfile";
    QTest::newRow("--program with megatron")
        << exportAs("megatron", { "--program", "train.py" })
        << "export: --program applies only to --format torchrun, slurm, pytorchjob or kueue, "
           "not to megatron";
    QTest::newRow("--image with slurm-topology")
        << exportAs("slurm-topology", { "--image", "img:1" })
        << "export: --image applies only to --format pytorchjob or kueue, not to slurm-topology";
    QTest::newRow("--hca-prefix with hostfile")
        << exportAs("hostfile", { "--hca-prefix", "mlx5_" })
        << "export: --hca-prefix applies only to --format nccl-plan, slurm, torchrun, "
           "pytorchjob, mapping-json, csv or nccl-topo, not to hostfile";
    QTest::newRow("--nccl-topo with csv")
        << exportAs("csv", { "--nccl-topo", "topo.xml" })
        << "export: --nccl-topo applies only to --format rankfile, slurm, torchrun or "
           "pytorchjob, not to csv";
    QTest::newRow("--record with rankfile")
        << exportAs("rankfile", { "--record", "r.json" })
        << "export: --record applies only to --format torchrun, slurm or pytorchjob, not to "
           "rankfile";
    QTest::newRow("--record with --no-preflight")
        << exportAs("slurm", { "--record", "r.json", "--no-preflight" })
        << "export: --record names the preflight's run record; --no-preflight turns the "
           "preflight off";
    QTest::newRow("--json-plan with torchrun")
        << exportAs("torchrun", { "--json-plan" })
        << "export: --json-plan applies only to --format nccl-plan, not to torchrun";
    QTest::newRow("--hosts with chrome-trace")
        << exportAs("chrome-trace", { "--hosts", seed })
        << "export: --hosts does not apply to --format chrome-trace, which names no hosts";
    QTest::newRow("--hosts with nccl-topo")
        << exportAs("nccl-topo", { "--hosts", seed })
        << "export: --hosts does not apply to --format nccl-topo, which names no hosts";
    QTest::newRow("--chunks without interleaving") << QStringList { "pipeline", "--stages", "4",
        "--microbatches", "8", "--tf", "1", "--tb", "2", "--schedule", "gpipe", "--chunks",
        "2" } << "pipeline: --chunks applies only to --schedule interleaved, not to gpipe";
    QTest::newRow("--moves with --json")
        << QStringList { "remap", seed, "--fail", "server:3", "--json", "--moves" }
        << "remap: --moves applies only to the text report: the JSON lists every move";
    QTest::newRow("--top outside compare")
        << QStringList { "evaluate", seed, "--top", "5" } << "evaluate: unknown option '--top'";
}

void TestCliUsage::optionsThatDoNotApplyAreRefused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("out"));
    const bool remap = args.front() == QLatin1String("remap");
    const bool pipeline = args.front() == QLatin1String("pipeline");
    // remap -o writes the degraded scenario; pipeline has no -o.
    const CliRun r = runRailyardCli(pipeline ? args : args + QStringList { "-o", out });
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    const QString err = QString::fromUtf8(r.err);
    const QString command = args.front();
    // One line: the command, the message (naming the option and what it needs), the hint.
    const QString expected = QStringLiteral("railyard-cli ") + message;
    const bool json = args.contains(QStringLiteral("--json"));
    if (json) {
        const auto [code, text] = jsonError(parsed(r.err));
        QCOMPARE(code, 2);
        QVERIFY2(text.startsWith(message.mid(command.size() + 2)), r.err.constData());
    } else {
        QVERIFY2(err.startsWith(expected), qPrintable(err));
        QVERIFY2(err.endsWith(" (try 'railyard-cli " + command + " --help')\n"), qPrintable(err));
    }
    QCOMPARE(err.count(QLatin1Char('\n')), 1);
    QVERIFY(!QFile::exists(out));
    QVERIFY(remap || QDir(dir.path()).isEmpty());
}

void TestCliUsage::optionsStillWorkWhereTheyApply()
{
    const QString seed = sample("seed-128.json");
    const CliRun rankfile
        = runRailyardCli({ "export", seed, "--format", "rankfile", "--cpus-per-host", "64" });
    QVERIFY2(rankfile.exitCode == 0, rankfile.err.constData());
    // 64 cores over 8 GPUs: GPU 1 of node000 (rank 1) gets cores 8..15.
    QVERIFY(rankfile.out.contains("rank 1=node000 slot=8-15\n"));
    const CliRun torchrun = runRailyardCli({ "export", seed, "--format", "torchrun",
        "--master-port", "29600", "--program", "train.py" });
    QVERIFY2(torchrun.exitCode == 0, torchrun.err.constData());
    QVERIFY(torchrun.out.contains("29600"));
    QVERIFY(torchrun.out.contains("train.py"));
    const CliRun links = runRailyardCli({ "evaluate", seed, "--json", "--links" });
    QVERIFY2(links.exitCode == 0, links.err.constData());
    QVERIFY(parsed(links.out).contains("link_loads"));
    const CliRun chunks = runRailyardCli({ "pipeline", "--schedule", "interleaved", "--stages", "4",
        "--microbatches", "8", "--chunks", "2", "--tf", "1", "--tb", "2", "--json" });
    QVERIFY2(chunks.exitCode == 0, chunks.err.constData());
}

void TestCliUsage::everyCommandsHelpShowsItsUsage_data()
{
    QTest::addColumn<QString>("command");
    QTest::addColumn<QString>("usage");
    const std::pair<const char *, const char *> expected[] = {
        { "generate", "Usage: railyard-cli generate [OPTIONS]\n" },
        { "evaluate", "Usage: railyard-cli evaluate [OPTIONS] FILE\n" },
        { "groups", "Usage: railyard-cli groups [OPTIONS]\n" },
        { "pipeline", "Usage: railyard-cli pipeline [OPTIONS]\n" },
        { "collective", "Usage: railyard-cli collective [OPTIONS] FILE\n" },
        { "export", "Usage: railyard-cli export [OPTIONS] FILE\n" },
        { "import-mapping", "Usage: railyard-cli import-mapping [OPTIONS] FILE\n" },
        { "compare", "Usage: railyard-cli compare [OPTIONS] A B\n" },
        { "remap", "Usage: railyard-cli remap [OPTIONS] FILE\n" },
        { "optimise", "Usage: railyard-cli optimise [OPTIONS] FILE\n" },
        { "search", "Usage: railyard-cli search [OPTIONS]\n" },
        { "merge", "Usage: railyard-cli merge [OPTIONS] PART...\n" },
        { "fabric-search", "Usage: railyard-cli fabric-search [OPTIONS] SCENARIO\n" },
        { "compose", "Usage: railyard-cli compose [OPTIONS] FABRIC JOB@SERVERS...\n" },
        { "place-job", "Usage: railyard-cli place-job [OPTIONS] SHARED JOB\n" },
    };
    for (const auto &[command, usage] : expected)
        QTest::newRow(command) << QString::fromLatin1(command) << QString::fromLatin1(usage);
}

void TestCliUsage::everyCommandsHelpShowsItsUsage()
{
    QFETCH(QString, command);
    QFETCH(QString, usage);
    QVERIFY(listedCommands().contains(command));
    for (const char *help : { "--help", "-h" }) {
        const CliRun r = runRailyardCli({ command, QString::fromLatin1(help) });
        QCOMPARE(r.exitCode, 0);
        QVERIFY(r.err.isEmpty());
        const QString text = QString::fromUtf8(r.out);
        QVERIFY2(text.contains(usage), qPrintable(text));
        QVERIFY(!text.contains(QLatin1String("help-all")));
        QVERIFY(text.contains(QLatin1String("-h,--help")));
        // Help wins over anything else wrong on the line.
        const CliRun alsoBad = runRailyardCli(
            { command, QStringLiteral("--no-such-option"), QString::fromLatin1(help) });
        QCOMPARE(alsoBad.exitCode, 0);
        QVERIFY(QString::fromUtf8(alsoBad.out).contains(usage));
    }
}

void TestCliUsage::exportHelpListsEveryFormat()
{
    // The format list pads each name to the longest one: a name longer than the old fixed
    // 14-column field (slurm-topology-block, 20) made the padding std::string(14 - 20, ' '),
    // a length_error that stopped railyard-cli before any command ran.
    const CliRun r = runRailyardCli({ QStringLiteral("export"), QStringLiteral("--help") });
    QCOMPARE(r.exitCode, 0);
    for (const char *line : { "  slurm-topology-block  Slurm topology.conf, topology/block",
             "  kueue                 Kueue Topology-Aware Scheduling",
             "  mapping-json          run record" })
        QVERIFY2(r.out.contains(line), r.out.constData());
}

void TestCliUsage::generateHelpListsTheEnginePresets()
{
    const CliRun r = runRailyardCli({ QStringLiteral("generate"), QStringLiteral("--help") });
    QCOMPARE(r.exitCode, 0);
    // The help wraps lines: compare against the words, not the layout.
    const QString text = QString::fromUtf8(r.out).simplified();
    QStringList models;
    for (const std::string &m : railyard::modelPresetNames())
        models << QString::fromStdString(m);
    QStringList devices;
    for (const std::string &d : railyard::devicePresetNames())
        devices << QString::fromStdString(d);
    QVERIFY(models.size() >= 6);
    QVERIFY(devices.size() >= 4);
    QVERIFY2(text.contains("One of: " + models.join(QStringLiteral(", ")) + "."), qPrintable(text));
    QVERIFY2(
        text.contains("One of: " + devices.join(QStringLiteral(", ")) + "."), qPrintable(text));
}

void TestCliUsage::versions()
{
    const CliRun cli = runRailyardCli({ QStringLiteral("--version") });
    QCOMPARE(cli.exitCode, 0);
    const QRegularExpression form(QStringLiteral("^railyard-cli (\\d+\\.\\d+\\.\\d+)\n$"));
    const QRegularExpressionMatch m = form.match(QString::fromUtf8(cli.out));
    QVERIFY2(m.hasMatch(), cli.out.constData());
    const CliRun help = runRailyardCli({ QStringLiteral("--help") });
    QVERIFY(help.out.contains("--version"));

    // The GUI answers without a display: no platform plugin may be needed.
    QProcess gui;
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    for (const char *name : { "DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM" })
        env.remove(QLatin1String(name));
    gui.setProcessEnvironment(env);
    gui.start(QFileInfo(QStringLiteral(RAILYARD_CLI)).dir().filePath(QStringLiteral("railyard")),
        { QStringLiteral("--version") });
    QVERIFY(gui.waitForFinished(30000));
    QCOMPARE(gui.exitStatus(), QProcess::NormalExit);
    QCOMPARE(gui.exitCode(), 0);
    QCOMPARE(QString::fromUtf8(gui.readAllStandardOutput()),
        QStringLiteral("railyard ") + m.captured(1) + QLatin1Char('\n'));
}

void TestCliUsage::jsonSyntaxErrorNamesTheFile()
{
    QTemporaryDir dir;
    // The second comma of line 4 is column 18: 4 spaces, "servers" (9), ':', ' ', '2', ','.
    const QByteArray path = writeTemp(dir, "x.json",
        "{\n  \"format_version\": 1,\n  \"fabric\": {\n"
        "    \"servers\": 2,,\n");
    const CliRun text = runRailyardCli({ QStringLiteral("evaluate"), QString::fromUtf8(path) });
    QCOMPARE(text.exitCode, 1);
    QVERIFY2(text.err.startsWith(
                 "railyard-cli: " + path + ": not valid JSON: parse error at line 4, column 18: "),
        text.err.constData());
    QCOMPARE(text.err.count('\n'), 1);

    const CliRun json = runRailyardCli(
        { QStringLiteral("evaluate"), QString::fromUtf8(path), QStringLiteral("--json") });
    QCOMPARE(json.exitCode, 1);
    const auto [code, message] = jsonError(parsed(json.err));
    QCOMPARE(code, 1);
    QVERIFY2(
        message.toUtf8().startsWith(path + ": not valid JSON: parse error at line 4, column 18: "),
        json.err.constData());

    // compare names which of its two files is broken.
    const CliRun compare = runRailyardCli(
        { QStringLiteral("compare"), sample("seed-128.json"), QString::fromUtf8(path) });
    QCOMPARE(compare.exitCode, 1);
    QVERIFY2(compare.err.startsWith("railyard-cli: " + path + ": not valid JSON"),
        compare.err.constData());
}

void TestCliUsage::everyJsonOutputHasFormatVersion_data()
{
    QTest::addColumn<QStringList>("args");
    const QString seed = sample("seed-128.json");
    QTest::newRow("evaluate") << QStringList { "evaluate", seed, "--json" };
    QTest::newRow("evaluate jobs") << QStringList { "evaluate", sample("two-jobs.json"), "--json" };
    QTest::newRow("evaluate jobs duty-cycle")
        << QStringList { "evaluate", sample("two-jobs.json"), "--overlap", "duty-cycle", "--json" };
    QTest::newRow("evaluate inference")
        << QStringList { "evaluate", sample("inference-minimal.json"), "--json" };
    QTest::newRow("collective") << QStringList { "collective", seed, "--op", "all-reduce",
        "--ranks", "0,8", "--bytes", "1e6", "--json" };
    QTest::newRow("groups") << QStringList { "groups", "--tp", "2", "--dp", "2", "--json" };
    QTest::newRow("pipeline") << QStringList { "pipeline", "--stages", "2", "--microbatches", "2",
        "--tf", "1", "--tb", "1", "--json" };
    QTest::newRow("compare") << QStringList { "compare", seed, seed, "--json" };
    QTest::newRow("remap") << QStringList { "remap", seed, "--fail", "server:3", "--json" };
    QTest::newRow("rail-audit") << QStringList { "rail-audit", seed, "--json" };
    QTest::newRow("bom") << QStringList { "bom", seed, "--json" };
    QTest::newRow("fabric-search") << QStringList { "fabric-search", seed, "--kinds",
        "rail-optimised,rail-only", "--oversubscription", "1", "--planes", "1", "--json" };
    QTest::newRow("counters") << QStringList { "counters", seed,
        QStringLiteral(RAILYARD_SOURCE_DIR "/tests/data/port-counters/seed128-window.csv"),
        "--json" };
    QTest::newRow("evaluate slow nic") << QStringList { "evaluate", seed, "--slow-nic", "10=50%",
        "--slow-gpu", "32=0.8", "--json" };
    QTest::newRow("evaluate hashed") << QStringList { "evaluate", sample("seed-128-tor.json"),
        "--ecmp", "hashed", "--seeds", "4", "--json" };
    QTest::newRow("collective hashed")
        << QStringList { "collective", sample("seed-128-tor.json"), "--op", "all-reduce", "--ranks",
               "0,8", "--bytes", "1e6", "--ecmp", "hashed", "--seeds", "4", "--json" };
}

void TestCliUsage::everyJsonOutputHasFormatVersion()
{
    QFETCH(QStringList, args);
    const CliRun r = runRailyardCli(args);
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = parsed(r.out);
    QVERIFY(j.is_object());
    QVERIFY(j.contains("format_version"));
    QVERIFY2(j["format_version"] == 1, r.out.left(200).constData());
}

void TestCliUsage::errorsUnderJsonAreJson_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    const QString seed = sample("seed-128.json");
    QTest::newRow("missing file") << QStringList { "evaluate", "/nonexistent/x.json",
        "--json" } << 1 << "/nonexistent/x.json: cannot open: No such file or directory";
    QTest::newRow("bad swap") << QStringList { "evaluate", seed, "--json", "--swap", "0-9" } << 1
                              << "--swap: expected two global ranks as A:B, got '0-9'";
    QTest::newRow("unknown option") << QStringList { "evaluate", seed, "--json",
        "--bogus" } << 2 << "unknown option '--bogus' (try 'railyard-cli evaluate --help')";
    QTest::newRow("pipeline value") << QStringList { "pipeline", "--stages", "0", "--microbatches",
        "2", "--tf", "1", "--tb", "1", "--json" }
                                    << 1 << "--stages: a pipeline needs at least 1 stage, got 0";
    QTest::newRow("compare missing B") << QStringList { "compare", seed, "--json" } << 2
                                       << "B is required (try 'railyard-cli compare --help')";
    QTest::newRow("remap strategy")
        << QStringList { "remap", seed, "--fail", "server:3", "--strategy", "pray", "--json" } << 2
        << "--strategy: unknown strategy 'pray' (drop-dp, spares, shrink-pp, all)";
    QTest::newRow("fabric-search planes") << QStringList { "fabric-search", seed, "--planes", "0",
        "--json" } << 1 << "--planes: each count must be 1 to 16, got 0";
    QTest::newRow("unknown command") << QStringList { "evalute", seed, "--json" } << 2
                                     << "unknown command 'evalute'; did you mean 'evaluate'? "
                                        "(try 'railyard-cli --help')";
}

void TestCliUsage::errorsUnderJsonAreJson()
{
    QFETCH(QStringList, args);
    QFETCH(int, code);
    QFETCH(QString, message);
    const CliRun r = runRailyardCli(args);
    QCOMPARE(r.exitCode, code);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1);
    const nlohmann::json j = parsed(r.err);
    QVERIFY2(j.is_object(), r.err.constData());
    // Exactly {"error": {"code": N, "message": M}}.
    QCOMPARE(j.size(), std::size_t { 1 });
    QCOMPARE(j.contains("error") ? j["error"].size() : std::size_t { 0 }, std::size_t { 2 });
    const auto [gotCode, gotMessage] = jsonError(j);
    QCOMPARE(gotCode, code);
    QCOMPARE(gotMessage, message);

    // The same run without --json: one plain line that ends with the same message.
    QStringList plain = args;
    plain.removeAll(QStringLiteral("--json"));
    const CliRun t = runRailyardCli(plain);
    QCOMPARE(t.exitCode, code);
    QVERIFY2(QString::fromUtf8(t.err).trimmed().endsWith(message), t.err.constData());
    QVERIFY(t.err.startsWith("railyard-cli"));
}

QTEST_GUILESS_MAIN(TestCliUsage)
#include "tst_cli_usage.moc"
