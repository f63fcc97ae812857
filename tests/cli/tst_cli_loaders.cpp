// Every file loader of railyard-cli given a FIFO returns at once, exits non-zero and names the
// path and what it is (a FIFO without a writer used to block 10 of the 11 loaders forever); the
// preflight names its record file and refuses a --mapping-version below 1; import-mapping names
// the record in its messages; a scenario's field error names the file and the field's line.
#include "clirun.h"

#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

/// railyard-cli with `args`, killed after 10 s (exit code -1): the loaders must not block.
CliRun runBriefly(const QStringList &args, const QByteArray &environmentRank = {})
{
    QProcessEnvironment env;
    if (!environmentRank.isEmpty()) {
        env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("RANK"), QString::fromLatin1(environmentRank));
        env.insert(QStringLiteral("LOCAL_RANK"), QStringLiteral("0"));
        env.insert(QStringLiteral("RAILYARD_HOST"), QStringLiteral("node000"));
    }
    return runRailyardCli(args, env, 10000);
}

} // namespace

class TestCliLoaders : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void fifoIsRefused_data();
    void fifoIsRefused();
    void preflightNamesItsRecord();
    void preflightRefusesANegativeVersion();
    void importMappingNamesItsRecord();
    void scenarioFieldErrorsNameFileAndLine();

private:
    QTemporaryDir m_dir;
    QString m_fifo;
    QString m_record;
};

void TestCliLoaders::initTestCase()
{
    QVERIFY(m_dir.isValid());
    m_fifo = m_dir.filePath(QStringLiteral("input.fifo"));
    QCOMPARE(::mkfifo(QFile::encodeName(m_fifo).constData(), 0600), 0);
    m_record = m_dir.filePath(QStringLiteral("record.json"));
    const CliRun exported = runRailyardCli(
        { QStringLiteral("export"), sample("seed-128.json"), QStringLiteral("--format"),
            QStringLiteral("mapping-json"), QStringLiteral("-o"), m_record });
    QVERIFY2(exported.exitCode == 0, exported.err.constData());
}

void TestCliLoaders::fifoIsRefused_data()
{
    QTest::addColumn<QStringList>("args"); // @F@ is the FIFO, @S@ the sample scenario
    QTest::addColumn<QString>("what");
    QTest::newRow("scenario (evaluate)") << QStringList { "evaluate", "@F@" } << "a scenario file";
    QTest::newRow("scenario (compare)")
        << QStringList { "compare", "@S@", "@F@" } << "a scenario file";
    QTest::newRow("hotness") << QStringList { "evaluate", "@S@", "--routing", "hotness:@F@" }
                             << "a hotness file";
    QTest::newRow("hosts") << QStringList { "export", "@S@", "--format", "rankfile", "--hosts",
        "@F@" } << "a hosts file";
    QTest::newRow("run record (import-mapping)")
        << QStringList { "import-mapping", "@S@", "--mapping", "@F@" } << "a run record";
    QTest::newRow("run record (preflight)") << QStringList { "preflight", "@F@" } << "a run record";
    QTest::newRow("nccl-tests log") << QStringList { "calibrate", "@S@", "--measured", "@F@" }
                                    << "an nccl-tests log, training log or profiler trace";
    // --topology is told by its content (NCCL XML, topology.conf, nvidia-smi -q), read first.
    QTest::newRow("topology file")
        << QStringList { "import-topology", "@S@", "--topology", "@F@" } << "a topology file";
    QTest::newRow("cabling CSV") << QStringList { "import-topology", "@S@", "--cabling", "@F@" }
                                 << "a cabling CSV";
    QTest::newRow("search part") << QStringList { "merge", "@F@" } << "a search part";
}

void TestCliLoaders::fifoIsRefused()
{
    QFETCH(QStringList, args);
    QFETCH(QString, what);
    for (QString &a : args)
        a.replace(QStringLiteral("@F@"), m_fifo)
            .replace(QStringLiteral("@S@"), sample("seed-128.json"));
    QElapsedTimer timer;
    timer.start();
    const CliRun run = runBriefly(args);
    QVERIFY2(run.exitCode > 0,
        qPrintable(QStringLiteral("exit %1 after %2 ms: %3")
                       .arg(run.exitCode)
                       .arg(timer.elapsed())
                       .arg(QString::fromUtf8(run.err))));
    QVERIFY2(run.err.contains((m_fifo + "': is a FIFO (named pipe), not " + what).toUtf8())
            || run.err.contains((m_fifo + ": is a FIFO (named pipe), not " + what).toUtf8()),
        run.err.constData());
    QVERIFY(run.out.isEmpty());
}

void TestCliLoaders::preflightNamesItsRecord()
{
    QByteArray text = readTestFile(m_record);
    const QString broken = m_dir.filePath(QStringLiteral("broken.json"));
    writeTestFile(broken, text.left(text.size() / 2));
    const CliRun cut = runBriefly({ QStringLiteral("preflight"), broken }, "0");
    QCOMPARE(cut.exitCode, 1);
    QVERIFY2(
        cut.err.contains((broken + ": not valid JSON: parse error").toUtf8()), cut.err.constData());

    // A record without "ranks" used to end in "internal error: [json.exception...]".
    const QString noRanks = m_dir.filePath(QStringLiteral("noranks.json"));
    writeTestFile(noRanks, text.left(text.indexOf(",\n  \"ranks\"")) + "\n}\n");
    const CliRun missing = runBriefly({ QStringLiteral("preflight"), noRanks }, "0");
    QCOMPARE(missing.exitCode, 1);
    QVERIFY2(missing.err.contains((noRanks + ": ranks: missing required field").toUtf8()),
        missing.err.constData());
}

void TestCliLoaders::preflightRefusesANegativeVersion()
{
    for (const QString &version : { QStringLiteral("-1"), QStringLiteral("0") }) {
        const CliRun run = runBriefly(
            { QStringLiteral("preflight"), m_record, QStringLiteral("--mapping-version"), version },
            "0");
        QVERIFY2(run.exitCode > 0, run.err.constData());
        QVERIFY2(
            run.err.contains(("--mapping-version: must be at least 1, got " + version).toUtf8()),
            run.err.constData());
    }
    // Version 1 passes for rank 0 on node000, GPU 0.
    const CliRun ok = runBriefly({ QStringLiteral("preflight"), m_record,
                                     QStringLiteral("--mapping-version"), QStringLiteral("1") },
        "0");
    QVERIFY2(ok.exitCode == 0, ok.err.constData());
}

void TestCliLoaders::importMappingNamesItsRecord()
{
    QByteArray text = readTestFile(m_record);
    text.replace("\"rank\":0,\"d\":0", "\"rank\":\"0\",\"d\":0");
    const QString bad = m_dir.filePath(QStringLiteral("bad.json"));
    writeTestFile(bad, text);
    const CliRun run = runBriefly({ QStringLiteral("import-mapping"), sample("seed-128.json"),
        QStringLiteral("--mapping"), bad });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains((bad + ": ranks[0].rank: expected an integer, got string").toUtf8()),
        run.err.constData());
}

void TestCliLoaders::scenarioFieldErrorsNameFileAndLine()
{
    // The seed sample with one value made wrong: "servers" is on the line the test finds, and
    // a missing required field points at the object that lacks it.
    QByteArray text = readTestFile(sample("seed-128.json"));
    const int at = text.indexOf("\"servers\": 16");
    QVERIFY(at > 0);
    const int line = static_cast<int>(text.left(at).count('\n')) + 1;
    text.replace("\"servers\": 16", "\"servers\": -16");
    const QString bad = m_dir.filePath(QStringLiteral("servers.json"));
    writeTestFile(bad, text);
    const CliRun run = runBriefly({ QStringLiteral("evaluate"), bad });
    QCOMPARE(run.exitCode, 1);
    QVERIFY2(run.err.contains((bad + ":" + QString::number(line) + ": fabric.servers: ").toUtf8()),
        run.err.constData());

    QByteArray missing = readTestFile(sample("seed-128.json"));
    missing.replace("\"gpus_per_server\": 8,", "");
    const int fabricLine
        = static_cast<int>(missing.left(missing.indexOf("\"fabric\"")).count('\n')) + 1;
    const QString lacking = m_dir.filePath(QStringLiteral("lacking.json"));
    writeTestFile(lacking, missing);
    const CliRun gone = runBriefly({ QStringLiteral("evaluate"), lacking });
    QCOMPARE(gone.exitCode, 1);
    QVERIFY2(gone.err.contains((lacking + ":" + QString::number(fabricLine)
                 + ": fabric.gpus_per_server: missing required field")
                                   .toUtf8()),
        gone.err.constData());
}

QTEST_GUILESS_MAIN(TestCliLoaders)
#include "tst_cli_loaders.moc"
