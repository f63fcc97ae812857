// Where railyard-cli writes and what reaches the terminal (issue #40, items 8, 11 and 12): an
// empty -o and an -o naming a file the command reads are refused before anything is written;
// control characters in messages and text reports are shown escaped (ESC as \x1b, NUL as
// \x00, the message whole past the NUL); a directory export that cannot replace one file leaves
// the directory as it was; stale temporaries of killed writes are swept on the next write.
#include "clirun.h"
#include "scenario/scenariofile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <utime.h>

#include <ctime>

namespace {

QString scenarioIn(const QTemporaryDir &dir, const QString &name = QStringLiteral("s.json"))
{
    const QString path = dir.filePath(name);
    QFile::copy(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json"), path);
    QFile(path).setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return path;
}

} // namespace

class TestCliOutputs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void emptyOutputRefused_data();
    void emptyOutputRefused();
    void outputOverAnInputRefused_data();
    void outputOverAnInputRefused();
    void hostsMessageEscapesControls();
    void logFileNameEscaped();
    void textReportEscapesControls();
    void astraSimIntoADirectoryIsAllOrNothing();
    void staleTemporariesSwept();
};

void TestCliOutputs::emptyOutputRefused_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::newRow("evaluate") << QStringList { QStringLiteral("evaluate"), QStringLiteral("@S") };
    QTest::newRow("export csv") << QStringList { QStringLiteral("export"), QStringLiteral("@S"),
        QStringLiteral("--format"), QStringLiteral("csv") };
    QTest::newRow("compare") << QStringList { QStringLiteral("compare"), QStringLiteral("@S"),
        QStringLiteral("@S") };
}

void TestCliOutputs::emptyOutputRefused()
{
    QFETCH(QStringList, args);
    QTemporaryDir dir;
    const QString s = scenarioIn(dir);
    args.replaceInStrings(QStringLiteral("@S"), s);
    const CliRun r = runRailyardCli(args + QStringList { QStringLiteral("-o"), QString() });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(r.err.contains("-o needs a file name (or - for stdout), got an empty one"),
        r.err.constData());
    QVERIFY(r.out.isEmpty()); // nothing went to stdout instead
}

void TestCliOutputs::outputOverAnInputRefused_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<QString>("output");
    QTest::addColumn<QString>("says");
    QTest::newRow("export csv over the scenario")
        << QStringList { QStringLiteral("export"), QStringLiteral("@S"), QStringLiteral("--format"),
               QStringLiteral("csv") }
        << QStringLiteral("@S")
        << QStringLiteral("is the file FILE names, which this command reads");
    QTest::newRow("through a symbolic link")
        << QStringList { QStringLiteral("export"), QStringLiteral("@S"), QStringLiteral("--format"),
               QStringLiteral("csv") }
        << QStringLiteral("@L") << QStringLiteral("is the file FILE names");
    QTest::newRow("evaluate over the scenario")
        << QStringList { QStringLiteral("evaluate"), QStringLiteral("@S") } << QStringLiteral("@S")
        << QStringLiteral("is the file FILE names");
    QTest::newRow("import-mapping over the record")
        << QStringList { QStringLiteral("import-mapping"), QStringLiteral("@S"),
               QStringLiteral("--mapping"), QStringLiteral("@R") }
        << QStringLiteral("@R") << QStringLiteral("is the file --mapping names");
    QTest::newRow("export over the hosts file")
        << QStringList { QStringLiteral("export"), QStringLiteral("@S"), QStringLiteral("--format"),
               QStringLiteral("hostfile"), QStringLiteral("--hosts"), QStringLiteral("@R") }
        << QStringLiteral("@R") << QStringLiteral("is the file --hosts names");
}

void TestCliOutputs::outputOverAnInputRefused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, output);
    QFETCH(QString, says);
    QTemporaryDir dir;
    const QString s = scenarioIn(dir);
    const QString link = dir.filePath(QStringLiteral("link.json"));
    QVERIFY(QFile::link(s, link));
    const QString record = dir.filePath(QStringLiteral("record.csv"));
    QCOMPARE(runRailyardCli({ QStringLiteral("export"), s, QStringLiteral("--format"),
                                QStringLiteral("csv"), QStringLiteral("-o"), record })
                 .exitCode,
        0);
    const auto expand = [&](QString v) {
        return v.replace(QStringLiteral("@S"), s)
            .replace(QStringLiteral("@L"), link)
            .replace(QStringLiteral("@R"), record);
    };
    for (QString &a : args)
        a = expand(a);
    const QString out = expand(output);
    const QByteArray before = readTestFile(out);
    const CliRun r = runRailyardCli(args + QStringList { QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 2);
    QVERIFY2(QString::fromUtf8(r.err).contains(says), r.err.constData());
    QVERIFY(r.err.contains("it would be replaced; write to another file"));
    QCOMPARE(readTestFile(out), before);
    QVERIFY(QFileInfo(link).isSymLink());
}

void TestCliOutputs::hostsMessageEscapesControls()
{
    QTemporaryDir dir;
    const QString s = scenarioIn(dir);
    // A host name with a colour escape and a NUL: the message shows both and goes on past NUL.
    writeTestFile(dir.filePath(QStringLiteral("hosts")), QByteArray("ho\x1b[31mst\0x\n", 12));
    const CliRun r = runRailyardCli(
        { QStringLiteral("export"), s, QStringLiteral("--format"), QStringLiteral("hostfile"),
            QStringLiteral("--hosts"), dir.filePath(QStringLiteral("hosts")) });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("--hosts line 1: 'ho\\x1b[31mst\\x00x' is not a host name"),
        r.err.constData());
    QVERIFY(!r.err.contains('\x1b'));
    QVERIFY(!r.err.contains('\0'));
}

void TestCliOutputs::logFileNameEscaped()
{
    QTemporaryDir dir;
    const QString s = scenarioIn(dir);
    // An nccl-tests log whose name carries a terminal escape, and whose text is no log.
    const QString log = dir.filePath(QString::fromUtf8("log\x1b]0;owned\x07.txt"));
    writeTestFile(log, "{ not json\n");
    const CliRun r
        = runRailyardCli({ QStringLiteral("calibrate"), s, QStringLiteral("--measured"), log });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("log\\x1b]0;owned\\x07.txt"), r.err.constData());
    QVERIFY(!r.err.contains('\x1b'));
    QVERIFY(!r.err.contains('\x07'));
}

void TestCliOutputs::textReportEscapesControls()
{
    // Names are printable (controls are refused at load); a line separator is printable text
    // for a JSON reader but a line break for others: the text report shows it escaped, the JSON
    // keeps the name.
    QTemporaryDir dir;
    const QString s = dir.filePath(QStringLiteral("s.json"));
    railyard::Scenario sc = railyard::loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    sc.name = "seed\xe2\x80\xa8"
              "128";
    railyard::saveScenario(sc, s.toStdString());
    const CliRun text = runRailyardCli({ QStringLiteral("evaluate"), s });
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("seed\\u2028128"), text.out.left(400).constData());
    QVERIFY(!text.out.contains("\xe2\x80\xa8"));
    const CliRun json = runRailyardCli({ QStringLiteral("evaluate"), s, QStringLiteral("--json") });
    QCOMPARE(json.exitCode, 0);
    QCOMPARE(
        nlohmann::json::parse(json.out.toStdString()).at("scenario").get<std::string>(), sc.name);
}

void TestCliOutputs::astraSimIntoADirectoryIsAllOrNothing()
{
    // The issue's repro: a directory named system.json inside the target.
    QTemporaryDir dir;
    const QString s = scenarioIn(dir);
    const QString out = dir.filePath(QStringLiteral("astra"));
    QVERIFY(QDir().mkpath(out + QStringLiteral("/system.json")));
    for (const char *name : { "topology.txt", "ns3-config.txt", "ns3-trace.txt",
             "logical-topology.json", "network.yml", "replay.txt" })
        writeTestFile(out + QLatin1Char('/') + QLatin1String(name), QByteArray("old ") + name);
    const CliRun r = runRailyardCli({ QStringLiteral("export"), s, QStringLiteral("--format"),
        QStringLiteral("astra-sim"), QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(r.err.contains("/astra/system.json: cannot replace: "), r.err.constData());
    for (const char *name : { "topology.txt", "ns3-config.txt", "ns3-trace.txt",
             "logical-topology.json", "network.yml", "replay.txt" })
        QCOMPARE(
            readTestFile(out + QLatin1Char('/') + QLatin1String(name)), QByteArray("old ") + name);
    QStringList left = QDir(out).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    left.sort();
    QCOMPARE(left,
        QStringList({ QStringLiteral("logical-topology.json"), QStringLiteral("network.yml"),
            QStringLiteral("ns3-config.txt"), QStringLiteral("ns3-trace.txt"),
            QStringLiteral("replay.txt"), QStringLiteral("system.json"),
            QStringLiteral("topology.txt") }));
}

void TestCliOutputs::staleTemporariesSwept()
{
    QTemporaryDir dir;
    const QString s = scenarioIn(dir);
    const QString out = dir.filePath(QStringLiteral("out.csv"));
    // What a kill -9 during an earlier write left: two hours old. And a live writer's.
    const QString stale = out + QStringLiteral(".tmp-AbC123");
    const QString live = out + QStringLiteral(".tmp-XyZ789");
    writeTestFile(stale, "partial");
    writeTestFile(live, "partial");
    const std::time_t then = std::time(nullptr) - 2 * 3600;
    const utimbuf times { then, then };
    QCOMPARE(::utime(QFile::encodeName(stale).constData(), &times), 0);
    const CliRun r = runRailyardCli({ QStringLiteral("export"), s, QStringLiteral("--format"),
        QStringLiteral("csv"), QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 0);
    QVERIFY(!QFile::exists(stale));
    QVERIFY(QFile::exists(live));
    QVERIFY(readTestFile(out).startsWith("rank,"));
}

QTEST_GUILESS_MAIN(TestCliOutputs)
#include "tst_cli_outputs.moc"
