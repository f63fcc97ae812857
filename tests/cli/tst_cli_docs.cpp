/**
 * The bash completion and the man page railyard-cli prints from its option table (the files the
 * build installs): the script parses, and sourcing it then calling its function with
 * COMP_WORDS completes commands, options and option values as a shell would; the man page has
 * its title, a subsection per command and every option the help of evaluate lists.
 */
#include "clirun.h"

#include <QFile>
#include <QProcess>
#include <QRegularExpression>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>

namespace {

/// The names the help of `command` lists before each option's description ("-o", "--output").
QStringList helpOptions(const QString &command)
{
    const CliRun r = runRailyardCli({ command, QStringLiteral("--help") });
    QStringList names;
    static const QRegularExpression name(QStringLiteral("(?:^|,)(--?[a-z][a-z0-9-]*)"));
    for (const QString &line : QString::fromUtf8(r.out).split(QLatin1Char('\n'))) {
        if (!line.startsWith(QLatin1String("  -")))
            continue;
        const QString spec = line.trimmed().section(QLatin1Char(' '), 0, 0); // "-o,--output"
        QRegularExpressionMatchIterator it = name.globalMatch(spec);
        while (it.hasNext())
            names << it.next().captured(1);
    }
    return names;
}

/// Runs the completion function as bash would for the command line `words`, the cursor on the
/// last word; returns the candidates, one per element.
QStringList complete(const QString &script, const QStringList &words)
{
    QProcess bash;
    QString array;
    for (const QString &w : words)
        array += QLatin1Char('\'') + w + QStringLiteral("' ");
    const QString program = QStringLiteral("source \"$1\" || exit 3; COMP_WORDS=(") + array
        + QStringLiteral("); COMP_CWORD=") + QString::number(words.size() - 1)
        + QStringLiteral("; _railyard_cli; printf '%s\\n' \"${COMPREPLY[@]}\"");
    bash.start(QStringLiteral("bash"),
        { QStringLiteral("--norc"), QStringLiteral("-c"), program, QStringLiteral("bash"),
            script });
    if (!bash.waitForFinished(30000) || bash.exitCode() != 0)
        return { QStringLiteral("<bash failed: ") + QString::fromUtf8(bash.readAllStandardError())
            + QLatin1Char('>') };
    QStringList out = QString::fromUtf8(bash.readAllStandardOutput()).split(QLatin1Char('\n'));
    out.removeAll(QString());
    return out;
}

/// The commands `railyard-cli --help` lists under "Commands:", in its order.
QStringList helpCommands()
{
    const CliRun help = runRailyardCli({ QStringLiteral("--help") });
    QStringList commands;
    bool inCommands = false;
    for (const QString &line : QString::fromUtf8(help.out).split(QLatin1Char('\n'))) {
        if (line == QLatin1String("Commands:"))
            inCommands = true;
        else if (inCommands && line.isEmpty())
            break;
        else if (inCommands && line.startsWith(QLatin1String("  "))
            && line.at(2) != QLatin1Char(' '))
            commands << line.trimmed().section(QLatin1Char(' '), 0, 0);
    }
    return commands;
}

} // namespace

class TestCliDocs : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void initTestCase();
    void completionParses();
    void completionCompletes_data();
    void completionCompletes();
    void manPageCoversEveryCommandAndOption();
    void unknownShellIsRefused();
    void cliReferenceIsCurrent();
    void cliReferenceCoversEveryOption();

private:
    QTemporaryDir m_dir;
    QString m_completion;
    QString m_man;
};

void TestCliDocs::initTestCase()
{
    QVERIFY(m_dir.isValid());
    QVERIFY2(!QStandardPaths::findExecutable(QStringLiteral("bash")).isEmpty(), "bash is needed");
    m_completion = m_dir.filePath(QStringLiteral("railyard-cli.bash"));
    m_man = m_dir.filePath(QStringLiteral("railyard-cli.1"));
    const CliRun c = runRailyardCli({ QStringLiteral("completion"), QStringLiteral("bash"),
        QStringLiteral("-o"), m_completion });
    QVERIFY2(c.exitCode == 0, c.err.constData());
    const CliRun m = runRailyardCli({ QStringLiteral("man"), QStringLiteral("-o"), m_man });
    QVERIFY2(m.exitCode == 0, m.err.constData());
}

void TestCliDocs::completionParses()
{
    QProcess bash;
    bash.start(QStringLiteral("bash"), { QStringLiteral("-n"), m_completion });
    QVERIFY(bash.waitForFinished(30000));
    QVERIFY2(bash.exitCode() == 0, bash.readAllStandardError().constData());
    // Sourcing registers the function for railyard-cli.
    QProcess registered;
    registered.start(QStringLiteral("bash"),
        { QStringLiteral("--norc"), QStringLiteral("-c"),
            QStringLiteral("source \"$1\" && complete -p railyard-cli"), QStringLiteral("bash"),
            m_completion });
    QVERIFY(registered.waitForFinished(30000));
    QCOMPARE(registered.readAllStandardOutput(),
        QByteArray("complete -o filenames -F _railyard_cli railyard-cli\n"));
}

void TestCliDocs::completionCompletes_data()
{
    QTest::addColumn<QStringList>("words");
    QTest::addColumn<QStringList>("expected");
    QTest::newRow("command") << QStringList { "railyard-cli", "eval" }
                             << QStringList { "evaluate" };
    QTest::newRow("two commands") << QStringList { "railyard-cli", "g" }
                                  << QStringList { "generate", "groups" };
    QTest::newRow("hidden commands stay hidden")
        << QStringList { "railyard-cli", "ma" } << QStringList {};
    QTest::newRow("top-level option")
        << QStringList { "railyard-cli", "--v" } << QStringList { "--version" };
    QTest::newRow("option") << QStringList { "railyard-cli", "evaluate", "--j" }
                            << QStringList { "--json" };
    QTest::newRow("option after FILE")
        << QStringList { "railyard-cli", "evaluate", "x.json", "--l" } << QStringList { "--links" };
    QTest::newRow("format value") << QStringList { "railyard-cli", "export", "x.json", "--format",
        "r" } << QStringList { "rankfile" };
    QTest::newRow("model preset") << QStringList { "railyard-cli", "generate", "--model",
        "llama3-" } << QStringList { "llama3-8b", "llama3-70b", "llama3-405b" };
    QTest::newRow("strategy") << QStringList { "railyard-cli", "remap", "x.json", "--strategy",
        "s" } << QStringList { "spares", "shrink-pp" };
    QTest::newRow("free value") << QStringList { "railyard-cli", "evaluate", "--swap", "0" }
                                << QStringList {};
    QTest::newRow("options of generate")
        << QStringList { "railyard-cli", "generate", "--no-" }
        << QStringList { "--no-gated-mlp", "--no-sequence-parallel", "--no-distributed-optimizer" };
}

void TestCliDocs::completionCompletes()
{
    QFETCH(QStringList, words);
    QFETCH(QStringList, expected);
    QCOMPARE(complete(m_completion, words), expected);
}

void TestCliDocs::manPageCoversEveryCommandAndOption()
{
    QFile file(m_man);
    QVERIFY(file.open(QIODevice::ReadOnly));
    const QString man = QString::fromUtf8(file.readAll());
    QVERIFY(man.contains(QRegularExpression(
        QStringLiteral("^\\.TH RAILYARD\\\\-CLI 1 "), QRegularExpression::MultilineOption)));
    for (const char *section :
        { ".SH NAME\n", ".SH SYNOPSIS\n", ".SH COMMANDS\n", ".SH EXIT STATUS\n" })
        QVERIFY2(man.contains(QLatin1String(section)), section);

    // One subsection per command the help lists, in its order, and none for hidden ones.
    const QStringList commands = helpCommands();
    // The help's parsing found the commands (at least these; others land over time).
    for (const char *name : { "generate", "evaluate", "groups", "pipeline", "collective", "export",
             "import-mapping", "import-topology", "preflight", "compare", "remap", "optimise",
             "search", "merge", "calibrate" })
        QVERIFY2(commands.contains(QLatin1String(name)), name);
    QStringList subsections;
    static const QRegularExpression ss(
        QStringLiteral("^\\.SS (\\S+)$"), QRegularExpression::MultilineOption);
    for (QRegularExpressionMatchIterator it = ss.globalMatch(man); it.hasNext();)
        subsections << it.next().captured(1);
    QCOMPARE(subsections, commands);

    // Every option of evaluate, as its help lists them and as written here by hand.
    const int start = static_cast<int>(man.indexOf(QLatin1String(".SS evaluate\n")));
    const int end = static_cast<int>(man.indexOf(QLatin1String(".SS "), start + 1));
    QVERIFY(start >= 0 && end > start);
    const QString evaluate = man.mid(start, end - start);
    QStringList options = helpOptions(QStringLiteral("evaluate"));
    QCOMPARE(options,
        (QStringList { "-h", "--help", "--swap", "--json", "--links", "--routing", "--calibration",
            "--measured", "--ecmp", "--qps-per-connection", "--seeds", "--slow-gpu", "--slow-host",
            "--slow-nic", "--slow-link", "--overlap", "-o", "--output" }));
    for (const QString &o : options) {
        QString roff = o;
        roff.replace(QLatin1Char('-'), QStringLiteral("\\-"));
        QVERIFY2(evaluate.contains(QStringLiteral("\\fB") + roff + QStringLiteral("\\fR")),
            qPrintable(o));
    }
    QVERIFY(evaluate.contains(QLatin1String("\\fIFILE\\fR")));
    QVERIFY(evaluate.contains(QLatin1String("Needs \\-\\-json.")));

    // groff renders it without a warning, when it is installed (railyard.sh installs it).
    if (QStandardPaths::findExecutable(QStringLiteral("groff")).isEmpty())
        QSKIP("groff is not installed (apt-get install groff-base)");
    QProcess groff;
    groff.start(QStringLiteral("groff"),
        { QStringLiteral("-man"), QStringLiteral("-Tutf8"), QStringLiteral("-ww"),
            QStringLiteral("-z"), m_man });
    QVERIFY(groff.waitForFinished(30000));
    QCOMPARE(groff.exitCode(), 0);
    QCOMPARE(groff.readAllStandardError(), QByteArray());
}

void TestCliDocs::unknownShellIsRefused()
{
    const CliRun r = runRailyardCli({ QStringLiteral("completion"), QStringLiteral("zsh") });
    QCOMPARE(r.exitCode, 2);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.startsWith("railyard-cli completion: only bash is supported, not 'zsh'"),
        r.err.constData());
}

/// docs/cli.md is what `railyard-cli markdown` prints from the option table: an option added,
/// renamed or described anew without regenerating the page fails here.
void TestCliDocs::cliReferenceIsCurrent()
{
    const CliRun r = runRailyardCli({ QStringLiteral("markdown") });
    QCOMPARE(r.exitCode, 0);
    const QString committed
        = QString::fromUtf8(readTestFile(QStringLiteral(RAILYARD_SOURCE_DIR "/docs/cli.md")));
    QVERIFY2(!committed.isEmpty(), "docs/cli.md is missing");
    const QStringList want = QString::fromUtf8(r.out).split(QLatin1Char('\n'));
    const QStringList have = committed.split(QLatin1Char('\n'));
    for (int i = 0; i < std::max(want.size(), have.size()); ++i) {
        const QString w = i < want.size() ? want[i] : QStringLiteral("<end of file>");
        const QString h = i < have.size() ? have[i] : QStringLiteral("<end of file>");
        QVERIFY2(w == h,
            qPrintable(QStringLiteral(
                "docs/cli.md:%1 differs from the option table:\n  page: %2\n  "
                "binary: %3\nregenerate it: build/bin/railyard-cli markdown -o docs/cli.md")
                           .arg(i + 1)
                           .arg(h, w)));
    }
}

/// Every option every command's --help lists is in its section of docs/cli.md, and every
/// command the help lists has a section: the generated page and --help agree.
void TestCliDocs::cliReferenceCoversEveryOption()
{
    const QString page
        = QString::fromUtf8(readTestFile(QStringLiteral(RAILYARD_SOURCE_DIR "/docs/cli.md")));
    const QStringList commands = helpCommands();
    QVERIFY(commands.size() >= 15);
    for (const QString &command : commands) {
        const qsizetype start = page.indexOf(QStringLiteral("\n## ") + command + QLatin1Char('\n'));
        QVERIFY2(start >= 0, qPrintable(command + QStringLiteral(": no section in docs/cli.md")));
        const qsizetype end = page.indexOf(QStringLiteral("\n## "), start + 1);
        const QString section = page.mid(start, end < 0 ? -1 : end - start);
        const QStringList options = helpOptions(command);
        QVERIFY2(!options.isEmpty(), qPrintable(command));
        for (const QString &o : options)
            QVERIFY2(section.contains(QLatin1Char('`') + o + QLatin1Char('`')),
                qPrintable(command + QLatin1Char(' ') + o));
    }
}

QTEST_GUILESS_MAIN(TestCliDocs)
#include "tst_cli_docs.moc"
