// Names that reach the exports (issue #40, item 1). Two layers, each tested on its own:
//  - the loader refuses a name with a control character, naming the field (so the issue's
//    repro, server names "n%d\ntouch PWNED\n" into an nccl-tests plan, stops at load);
//  - the quoting layer (export/quoting.h): scenarios built in code, past the loader, carry
//    every shell, YAML, XML, CSV and JSON metacharacter and every kind of line break in every
//    name; each format is written, each script passes `sh -n` / `bash -n` and runs with
//    stand-in launchers on PATH without a side effect, each JSON parses back to the same name,
//    the CSV imports back, the XML is well-formed.
#include "launcherstubs.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exportdirectory.h"
#include "export/exporters.h"
#include "export/runrecord.h"
#include "scenario/scenariofile.h"

#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <nlohmann/json.hpp>

using namespace railyard;

namespace {

/// Every character a shell, YAML, XML, CSV or JSON reader gives a meaning to, line breaks of
/// every kind (LF, CR, NEL U+0085, LINE SEPARATOR U+2028) each followed by a command, terminal
/// escape sequences (ESC, BEL) and XML comment and CDATA ends.
const std::string kHostile = "x'\"$(touch pwned1)`touch pwned2`;touch pwned3&touch pwned4|touch "
                             "pwned5 <in >pwned6 \\\ntouch pwned7\n\r\ntouch pwned8\r\x1b[2J"
                             "\x1b]0;title\x07\xc2\x85touch pwned9\xe2\x80\xa8touch pwned10 -- "
                             "--> ]]> </x> # ,\"";

/// seed-128's workload on 2 servers of 4 GPUs (tp 2, pp 2, dp 2), every name hostile.
Scenario hostileScenario()
{
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    s.fabric.servers = 2;
    s.fabric.gpusPerServer = 4;
    s.degrees.tp = 2;
    s.degrees.pp = 2;
    s.degrees.dp = 2;
    s.name = kHostile;
    s.description = kHostile;
    s.fabric.name = kHostile;
    s.fabric.serverNames = { kHostile + "0", kHostile + "1" };
    s.model.name = kHostile;
    s.device.name = kHostile;
    // Bus ids, so the launchers set NCCL_TOPO_FILE and nccl-topo can be written.
    for (int g = 0; g < s.fabric.gpusPerServer; ++g) {
        s.fabric.gpuPciBusIds.push_back("0000:1" + std::to_string(g) + ":00.0");
        s.fabric.nicPciBusIds.push_back("0000:2" + std::to_string(g) + ":00.0");
    }
    return s;
}

bool isScript(const QString &format)
{
    return format == QLatin1String("nccl-plan") || format == QLatin1String("slurm")
        || format == QLatin1String("torchrun") || format == QLatin1String("megatron")
        || format == QLatin1String("pytorchjob");
}

/// The formats that need plain host names (a launcher file, a script that matches hosts).
bool takesHosts(const QString &format)
{
    return (isScript(format) && format != QLatin1String("megatron"))
        || format == QLatin1String("rankfile") || format == QLatin1String("hostfile")
        || format == QLatin1String("slurm-topology")
        || format == QLatin1String("slurm-topology-block") || format == QLatin1String("kueue");
}

/// Lines (trimmed) that begin with an injected command.
QStringList injectedLines(const QByteArray &text)
{
    QStringList out;
    for (const QByteArray &line : text.split('\n'))
        if (line.trimmed().startsWith("touch"))
            out << QString::fromUtf8(line);
    return out;
}

/// Writes a scenario as the file a user might hand the CLI: JSON escapes keep every byte.
void saveHostileFile(const QString &path, const std::function<void(nlohmann::json &)> &edit)
{
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    nlohmann::json j = scenarioToJson(s);
    edit(j);
    writeTestFile(path, QByteArray::fromStdString(j.dump(2)));
}

} // namespace

class TestCliHostileNames : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void controlCharactersRefusedAtLoad_data();
    void controlCharactersRefusedAtLoad();
    void descriptionKeepsLineBreaks();
    void issueReproStopsAtLoad();
    void everyFormatQuotesHostileNames_data();
    void everyFormatQuotesHostileNames();
};

void TestCliHostileNames::controlCharactersRefusedAtLoad_data()
{
    QTest::addColumn<QString>("pointer");
    QTest::addColumn<QByteArray>("value");
    QTest::addColumn<QString>("says");
    const QByteArray nl("n0\ntouch PWNED\n");
    QTest::newRow("name LF") << QStringLiteral(
        "/name") << nl << QStringLiteral("name: holds the control character U+000A at byte 2");
    QTest::newRow("description ESC")
        << QStringLiteral("/description") << QByteArray("a\x1b[2Jb")
        << QStringLiteral("description: holds the control character U+001B at byte 1");
    QTest::newRow("fabric.name CR") << QStringLiteral("/fabric/name") << QByteArray("f\r")
                                    << QStringLiteral("fabric.name: holds the control character "
                                                      "U+000D at byte 1");
    QTest::newRow("server name LF")
        << QStringLiteral("/fabric/server_names/3") << nl
        << QStringLiteral("fabric.server_names[3]: holds the control character U+000A at byte 2");
    QTest::newRow("server name NUL")
        << QStringLiteral("/fabric/server_names/0") << QByteArray("n\0x", 3)
        << QStringLiteral("fabric.server_names[0]: holds the control character U+0000 at byte 1");
    QTest::newRow("model.name DEL") << QStringLiteral("/model/name") << QByteArray("m\x7f")
                                    << QStringLiteral("model.name: holds the control character "
                                                      "U+007F at byte 1");
    QTest::newRow("device.name C1")
        << QStringLiteral("/device/name") << QByteArray("h100\xc2\x85x")
        << QStringLiteral("device.name: holds the control character U+0085 at byte 4");
    // Bytes that are not UTF-8 never reach the readers: the JSON parser refuses them first.
    QTest::newRow("name not UTF-8") << QStringLiteral("/name") << QByteArray("ab\xff")
                                    << QStringLiteral("ill-formed UTF-8 byte");
}

void TestCliHostileNames::controlCharactersRefusedAtLoad()
{
    QFETCH(QString, pointer);
    QFETCH(QByteArray, value);
    QFETCH(QString, says);
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("s.json"));
    if (value.contains('\xff')) {
        // nlohmann will not write bytes that are not UTF-8: put them into the text itself.
        saveHostileFile(file, [](nlohmann::json &j) { j["name"] = "@@NAME@@"; });
        QByteArray text = readTestFile(file);
        text.replace("@@NAME@@", value);
        writeTestFile(file, text);
    } else {
        saveHostileFile(file, [&](nlohmann::json &j) {
            if (pointer == QLatin1String("/model/name")
                || pointer == QLatin1String("/device/name")) {
                // Presets by name in the sample: give the object with the name.
                const std::string section = pointer.section(QLatin1Char('/'), 1, 1).toStdString();
                if (!j[section].is_object())
                    j[section] = nlohmann::json::object({ { "preset", j[section] } });
            }
            if (pointer.startsWith(QLatin1String("/fabric/server_names/"))) {
                // One name per server: the others plain.
                nlohmann::json names = nlohmann::json::array();
                for (int k = 0; k < j["fabric"]["servers"].get<int>(); ++k)
                    names.push_back("node" + std::to_string(k));
                j["fabric"]["server_names"] = names;
            }
            j[nlohmann::json::json_pointer(pointer.toStdString())] = value.toStdString();
        });
    }
    const CliRun r = runRailyardCli({ QStringLiteral("evaluate"), file });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(says), r.err.constData());
    // The message shows no byte of the name: nothing for a terminal to act on.
    QVERIFY(!r.err.contains('\x1b'));
    QVERIFY(!r.err.contains('\0'));
}

void TestCliHostileNames::descriptionKeepsLineBreaks()
{
    // A description is multi-line text: tabs and line breaks load; the text report shows them.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("s.json"));
    saveHostileFile(
        file, [](nlohmann::json &j) { j["description"] = "first line\n\tsecond line\r\nthird"; });
    const CliRun r = runRailyardCli({ QStringLiteral("evaluate"), file });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(QString::fromStdString(loadScenario(file.toStdString()).description),
        QStringLiteral("first line\n\tsecond line\r\nthird"));
}

void TestCliHostileNames::issueReproStopsAtLoad()
{
    // The issue's repro: server names 'n%d\ntouch PWNED\n', hosts host0..host15.
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("s.json"));
    saveHostileFile(file, [](nlohmann::json &j) {
        nlohmann::json names = nlohmann::json::array();
        for (int s = 0; s < 16; ++s)
            names.push_back("n" + std::to_string(s) + "\ntouch PWNED\n");
        j["fabric"]["server_names"] = names;
    });
    QByteArray hosts;
    for (int s = 0; s < 16; ++s)
        hosts += "host" + QByteArray::number(s) + "\n";
    writeTestFile(dir.filePath(QStringLiteral("hosts.txt")), hosts);
    const QString plan = dir.filePath(QStringLiteral("plan.sh"));
    const CliRun r = runRailyardCli({ QStringLiteral("export"), file, QStringLiteral("--format"),
        QStringLiteral("nccl-plan"), QStringLiteral("--hosts"),
        dir.filePath(QStringLiteral("hosts.txt")), QStringLiteral("-o"), plan });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("fabric.server_names[0]: holds the control character U+000A at byte 2"),
        r.err.constData());
    QVERIFY(!QFile::exists(plan));
}

void TestCliHostileNames::everyFormatQuotesHostileNames_data()
{
    QTest::addColumn<QString>("format");
    QTest::addColumn<bool>("jsonPlan");
    for (const ExportFormat f : allExportFormats())
        QTest::newRow(std::string(exportFormatName(f)).c_str()) << QString::fromLatin1(
            exportFormatName(f).data(), static_cast<int>(exportFormatName(f).size()))
                                                                << false;
    QTest::newRow("nccl-plan --json-plan") << QStringLiteral("nccl-plan") << true;
}

void TestCliHostileNames::everyFormatQuotesHostileNames()
{
    QFETCH(QString, format);
    QFETCH(bool, jsonPlan);
    if (QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty())
        QSKIP("bash is not installed");
    QTemporaryDir dir;
    const QString bin = installStubs(dir.path());
    // The preflight is the CLI's own business (tst_cli_deploy); here it is a stand-in.
    writeTestFile(bin + QStringLiteral("/railyard-stub"), "#!/bin/sh\nexit 0\n", true);

    ExportFormat f {};
    QVERIFY(parseExportFormat(format.toStdString(), f));
    const Scenario scenario = hostileScenario();
    const CostEngine engine(scenario);
    ExportOptions options;
    options.jsonPlan = jsonPlan;
    // Launchers need plain host names (--hosts); the plan's link names and comments still
    // carry the hostile server names, as in the issue's repro.
    if (takesHosts(format))
        options.hosts = { "host0", "host1" };
    options.program
        = (bin + QStringLiteral("/train $(touch pwned20) `touch pwned21` a'b\"c")).toStdString();
    options.record = "rec ord $(touch pwned22).json";
    options.ncclTopoFile = "topo $(touch pwned23) `touch pwned24`.xml";

    if (exportWritesDirectory(f)) {
        const std::vector<ExportFile> files = exportFiles(engine, f, options);
        const QString out = dir.filePath(QStringLiteral("out"));
        writeExportDirectory(out.toStdString(), files);
        for (const ExportFile &file : files) {
            const QByteArray text
                = readTestFile(out + QLatin1Char('/') + QString::fromStdString(file.name));
            QVERIFY2(injectedLines(text).isEmpty(), file.name.c_str());
            QVERIFY2(!text.contains('\x1b'), file.name.c_str());
            if (file.name.size() > 5 && file.name.substr(file.name.size() - 5) == ".json")
                QVERIFY2(nlohmann::json::accept(text.toStdString()), file.name.c_str());
            if (file.name == "network.yml")
                for (const QByteArray &line : text.split('\n'))
                    QVERIFY2(line.isEmpty() || line.startsWith('#')
                            || QRegularExpression(
                                QStringLiteral("^(topology|npus_count|bandwidth|latency): \\["))
                                   .match(QString::fromUtf8(line))
                                   .hasMatch(),
                        line.constData());
        }
        QVERIFY(pwned(dir.path()).isEmpty());
        return;
    }

    std::string text;
    try {
        text = exportText(engine, f, options);
    } catch (const ScenarioError &e) {
        QFAIL(e.what());
    }
    const QByteArray bytes = QByteArray::fromStdString(text);
    QVERIFY(!bytes.isEmpty());
    if (f != ExportFormat::Csv) // CSV keeps a field's bytes inside its quotes (RFC 4180)
        QVERIFY2(!bytes.contains('\x1b'), "a raw ESC reached the output");

    QString script;
    if (f == ExportFormat::MappingJson || f == ExportFormat::ChromeTrace
        || f == ExportFormat::PyTorchJob || jsonPlan) {
        // JSON (the manifest is JSON too): parses, and the name comes back byte for byte.
        const nlohmann::json j = nlohmann::json::parse(text);
        if (f == ExportFormat::MappingJson || jsonPlan)
            QCOMPARE(j.at("scenario").get<std::string>(), kHostile);
        if (f == ExportFormat::MappingJson)
            QCOMPARE(j.at("ranks").at(0).at("host").get<std::string>(), kHostile + "0");
        if (f == ExportFormat::ChromeTrace)
            QCOMPARE(j.at("otherData").at("scenario").get<std::string>(), kHostile);
        if (f == ExportFormat::PyTorchJob) {
            script = dir.filePath(QStringLiteral("pod.sh"));
            writeTestFile(script,
                QByteArray::fromStdString(j["spec"]["pytorchReplicaSpecs"]["Worker"]["template"]
                                           ["spec"]["containers"][0]["command"][2]
                                               .get<std::string>()));
        }
    } else if (f == ExportFormat::Csv) {
        // RFC 4180: the quoted names import back to the same mapping.
        const ImportedMapping back = importMappingCsv(text, engine);
        QVERIFY(back.mapping == engine.mapping());
    } else if (f == ExportFormat::NcclTopo) {
        QXmlStreamReader xml(bytes);
        while (!xml.atEnd())
            xml.readNext();
        QVERIFY2(!xml.hasError(), qPrintable(xml.errorString()));
    } else if (f == ExportFormat::SlurmTopology || f == ExportFormat::SlurmTopologyBlock) {
        // topology.conf(5): every line a comment or a SwitchName / BlockName / BlockSizes line.
        const QRegularExpression grammar(QStringLiteral(
            "^((SwitchName|BlockName)=[A-Za-z0-9._-]+ (Nodes|Switches)=[][A-Za-z0-9._,-]+"
            "|BlockSizes=[0-9,]+)$"));
        for (const QByteArray &line : bytes.split('\n'))
            QVERIFY2(line.isEmpty() || line.startsWith('#')
                    || grammar.match(QString::fromUtf8(line)).hasMatch(),
                line.constData());
    } else if (f == ExportFormat::Kueue) {
        // "---"-separated JSON documents; the name comes back, the Job's command runs below.
        std::vector<nlohmann::json> docs;
        std::string doc;
        for (const QByteArray &line : bytes.split('\n')) {
            if (line == "---" || line.startsWith('#')) {
                if (!doc.empty())
                    docs.push_back(nlohmann::json::parse(doc));
                doc.clear();
            } else {
                doc += line.toStdString() + "\n";
            }
        }
        if (!doc.empty())
            docs.push_back(nlohmann::json::parse(doc));
        QCOMPARE(docs.size(), std::size_t(4));
        const nlohmann::json &job = docs.back();
        QVERIFY(job["metadata"]["annotations"].contains("railyard/scenario"));
        script = dir.filePath(QStringLiteral("pod.sh"));
        writeTestFile(script,
            QByteArray::fromStdString(
                job["spec"]["template"]["spec"]["containers"][0]["command"][2].get<std::string>()));
    } else if (f == ExportFormat::Rankfile || f == ExportFormat::Hostfile) {
        // Every line is a comment or the launcher's grammar: no name escaped a comment.
        const QRegularExpression grammar(f == ExportFormat::Rankfile
                ? QStringLiteral("^rank [0-9]+=host[01] slot=[0-9-]+$")
                : QStringLiteral("^host[01] slots=[0-9]+$"));
        for (const QByteArray &line : bytes.split('\n'))
            QVERIFY2(line.isEmpty() || line.startsWith('#')
                    || grammar.match(QString::fromUtf8(line)).hasMatch(),
                line.constData());
    } else if (isScript(format)) {
        script = dir.filePath(QStringLiteral("out.sh"));
        writeTestFile(script, bytes);
    }
    if (f != ExportFormat::Csv) // a quoted CSV field may span lines; it imported back above
        QVERIFY2(injectedLines(bytes).isEmpty(),
            qPrintable(injectedLines(bytes).join(QLatin1Char('\n'))));

    if (!script.isEmpty()) {
        QProcessEnvironment env = stubEnvironment(bin);
        env.insert(QStringLiteral("RAILYARD_CLI"), bin + QStringLiteral("/railyard-stub"));
        env.insert(QStringLiteral("NCCL_TESTS_DIR"), bin);
        env.insert(QStringLiteral("RESULTS"), dir.filePath(QStringLiteral("results")));
        env.insert(QStringLiteral("SLURM_HOSTFILE"), dir.filePath(QStringLiteral("hosts")));
        env.insert(QStringLiteral("RAILYARD_HOST"), QStringLiteral("host1"));
        env.insert(QStringLiteral("JOB_COMPLETION_INDEX"), QStringLiteral("1")); // kueue's pod
        const bool bashOnly = f == ExportFormat::Slurm || f == ExportFormat::Megatron;
        for (const QString &shell : bashOnly
                ? QStringList { QStringLiteral("bash") }
                : QStringList { QStringLiteral("sh"), QStringLiteral("bash") }) {
            const Run syntax = runProgram(shell, { QStringLiteral("-n"), script }, env, dir.path());
            QVERIFY2(syntax.exitCode == 0,
                qPrintable(shell + QLatin1String(": ") + QString::fromUtf8(syntax.err)));
        }
        const Run run = f == ExportFormat::Megatron
            ? runProgram(QStringLiteral("bash"),
                { QStringLiteral("-c"),
                    QStringLiteral("source \"$1\"; printf '%s\\n' \"${MEGATRON_MODEL_ARGS[@]}\""),
                    QStringLiteral("x"), script },
                env, dir.path())
            : runProgram(bashOnly ? QStringLiteral("bash") : QStringLiteral("sh"), { script }, env,
                dir.path());
        QVERIFY2(run.exitCode == 0, (run.out + run.err).constData());
        if (f == ExportFormat::Slurm || f == ExportFormat::Torchrun || f == ExportFormat::PyTorchJob
            || f == ExportFormat::Kueue) {
            // The program ran, with the hostile words as literal arguments.
            QVERIFY2(run.out.contains("TRAIN "), run.out.constData());
            QVERIFY(run.out.contains("\nARG $(touch\n"));
            QVERIFY(run.out.contains("\nARG a'b\"c\n"));
        }
        if (f == ExportFormat::NcclPlan)
            QVERIFY2(run.out.contains("== tp-"), run.out.constData());
    }
    QVERIFY2(pwned(dir.path()).isEmpty(), qPrintable(pwned(dir.path()).join(QLatin1Char(' '))));
}

QTEST_GUILESS_MAIN(TestCliHostileNames)
#include "tst_cli_hostilenames.moc"
