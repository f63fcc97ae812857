/**
 * Every `railyard-cli` command the README and the docs show runs as written. The suite reads
 * the ```sh code blocks of README.md and the docs/ pages, joins continued lines, and runs each line
 * that starts with `railyard-cli` through sh in a scratch directory per page (with copies of the
 * repository's samples/ and tests/data/, railyard-cli first on PATH), in page order, so a
 * later command may read what an earlier one wrote. Each must exit 0.
 *
 * A block that needs what a test machine lacks (GPUs, nccl-tests, a cluster's environment) is
 * marked in the Markdown by the comment line `<!-- doc-test: skip (REASON) -->` just above it;
 * the suite prints every block it skipped, with its reason.
 */
#include "clirun.h"

#include <QDir>
#include <QDirIterator>
#include <QFileInfo>
#include <QProcess>
#include <QProcessEnvironment>
#include <QRegularExpression>
#include <QTemporaryDir>
#include <QTest>

namespace {

/// One command found in a page.
struct DocCommand
{
    int line = 0; ///< where it starts in the page, 1-based
    QString text;
};

/// One ```sh block skipped by its marker.
struct SkippedBlock
{
    int line = 0;
    QString reason;
};

struct PageCommands
{
    QList<DocCommand> commands;
    QList<SkippedBlock> skipped;
};

const QString kSkipMarker = QStringLiteral("<!-- doc-test: skip");

/// The commands of `markdown`: lines starting with `railyard-cli` in ```sh blocks, continued
/// lines joined, a trailing `# comment` removed.
PageCommands extractCommands(const QString &markdown)
{
    PageCommands page;
    const QStringList lines = markdown.split(QLatin1Char('\n'));
    bool inBlock = false;
    bool shellBlock = false;
    bool skipBlock = false;
    QString skipReason;
    QString pending;
    int pendingLine = 0;
    for (int i = 0; i < lines.size(); ++i) {
        const QString trimmed = lines[i].trimmed();
        if (trimmed.startsWith(QLatin1String("```"))) {
            if (!inBlock) {
                inBlock = true;
                shellBlock = trimmed == QLatin1String("```sh");
                // The marker is the last non-blank line before the fence.
                int j = i - 1;
                while (j >= 0 && lines[j].trimmed().isEmpty())
                    --j;
                skipBlock = shellBlock && j >= 0 && lines[j].trimmed().startsWith(kSkipMarker);
                if (skipBlock) {
                    skipReason = lines[j].trimmed().mid(kSkipMarker.size());
                    skipReason.chop(skipReason.endsWith(QLatin1String("-->")) ? 3 : 0);
                    page.skipped.append({ i + 1, skipReason.trimmed() });
                }
            } else {
                inBlock = false;
            }
            continue;
        }
        if (!inBlock || !shellBlock || skipBlock)
            continue;
        QString line = lines[i].trimmed();
        if (pending.isEmpty()) {
            if (!line.startsWith(QLatin1String("railyard-cli ")))
                continue;
            pendingLine = i + 1;
        }
        const bool continued = line.endsWith(QLatin1Char('\\'));
        if (continued)
            line.chop(1);
        pending += line + QLatin1Char(' ');
        if (continued)
            continue;
        // A comment after the command: "  # text" (the docs never put '#' inside a command).
        static const QRegularExpression comment(QStringLiteral("\\s+#.*$"));
        pending.remove(comment);
        page.commands.append({ pendingLine, pending.simplified() });
        pending.clear();
    }
    return page;
}

/// Copies the directory tree `from` to `to` (a page's commands may write beside the samples).
bool copyTree(const QString &from, const QString &to)
{
    QDirIterator it(from, QDir::Files | QDir::NoDotAndDotDot, QDirIterator::Subdirectories);
    while (it.hasNext()) {
        const QString file = it.next();
        const QString target = to + QLatin1Char('/') + QDir(from).relativeFilePath(file);
        if (!QDir().mkpath(QFileInfo(target).absolutePath()) || !QFile::copy(file, target))
            return false;
    }
    return true;
}

QStringList documentationPages()
{
    const QDir top(QStringLiteral(RAILYARD_SOURCE_DIR));
    QStringList pages { top.filePath(QStringLiteral("README.md")) };
    const QDir docs(top.filePath(QStringLiteral("docs")));
    for (const QString &name : docs.entryList({ QStringLiteral("*.md") }, QDir::Files, QDir::Name))
        pages << docs.filePath(name);
    return pages;
}

} // namespace

class TestCliDocCommands : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void extractsCommandsAndMarkers();
    void everyPageHasItsCommandsRun_data();
    void everyPageHasItsCommandsRun();
    void docsShowCommands();
};

/// The extraction itself, on a page written for it: continued lines, comments, text blocks
/// and the skip marker.
void TestCliDocCommands::extractsCommandsAndMarkers()
{
    const QString page = QStringLiteral("Text railyard-cli evaluate x\n"
                                        "```sh\n"
                                        "railyard-cli evaluate a.json   # readable\n"
                                        "railyard-cli generate --tp 8 \\\n"
                                        "    --pp 4 -o b.json\n"
                                        "./railyard.sh test\n"
                                        "```\n"
                                        "```text\n"
                                        "railyard-cli export FILE --format F\n"
                                        "```\n"
                                        "<!-- doc-test: skip (needs GPUs) -->\n"
                                        "\n"
                                        "```sh\n"
                                        "railyard-cli calibrate job.json --measured x.log\n"
                                        "```\n");
    const PageCommands found = extractCommands(page);
    QCOMPARE(found.commands.size(), 2);
    QCOMPARE(found.commands[0].text, QStringLiteral("railyard-cli evaluate a.json"));
    QCOMPARE(found.commands[0].line, 3);
    QCOMPARE(
        found.commands[1].text, QStringLiteral("railyard-cli generate --tp 8 --pp 4 -o b.json"));
    QCOMPARE(found.commands[1].line, 4);
    QCOMPARE(found.skipped.size(), 1);
    QCOMPARE(found.skipped[0].line, 13);
    QCOMPARE(found.skipped[0].reason, QStringLiteral("(needs GPUs)"));
}

void TestCliDocCommands::everyPageHasItsCommandsRun_data()
{
    QTest::addColumn<QString>("path");
    const QDir top(QStringLiteral(RAILYARD_SOURCE_DIR));
    for (const QString &path : documentationPages())
        QTest::newRow(qPrintable(top.relativeFilePath(path))) << path;
}

void TestCliDocCommands::everyPageHasItsCommandsRun()
{
    QFETCH(QString, path);
    const QByteArray text = readTestFile(path);
    QVERIFY2(!text.isEmpty(), qPrintable(path + QStringLiteral(": cannot read")));
    const PageCommands page = extractCommands(QString::fromUtf8(text));
    const QString name = QDir(QStringLiteral(RAILYARD_SOURCE_DIR)).relativeFilePath(path);
    for (const SkippedBlock &s : page.skipped)
        qInfo("%s:%d: skipped %s", qPrintable(name), s.line, qPrintable(s.reason));
    if (page.commands.isEmpty())
        return;

    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QDir top(QStringLiteral(RAILYARD_SOURCE_DIR));
    for (const char *copied : { "samples", "tests/data" })
        QVERIFY(copyTree(top.filePath(QLatin1String(copied)), dir.filePath(QLatin1String(copied))));
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.insert(QStringLiteral("PATH"),
        QFileInfo(QStringLiteral(RAILYARD_CLI)).absolutePath() + QLatin1Char(':')
            + env.value(QStringLiteral("PATH")));
    for (const DocCommand &c : page.commands) {
        QProcess sh;
        sh.setWorkingDirectory(dir.path());
        sh.setProcessEnvironment(env);
        sh.start(QStringLiteral("sh"), { QStringLiteral("-c"), c.text });
        const bool finished = sh.waitForFinished(120000);
        if (!finished)
            sh.kill();
        const QString where = QStringLiteral("%1:%2: %3").arg(name).arg(c.line).arg(c.text);
        QVERIFY2(finished, qPrintable(where + QStringLiteral(": did not finish in 120 s")));
        QVERIFY2(sh.exitStatus() == QProcess::NormalExit && sh.exitCode() == 0,
            qPrintable(where + QStringLiteral(": exit ") + QString::number(sh.exitCode())
                + QStringLiteral(": ") + QString::fromUtf8(sh.readAllStandardError()).left(600)));
    }
    qInfo(
        "%s: %lld command(s) ran", qPrintable(name), static_cast<long long>(page.commands.size()));
}

/// The pages the newcomer follows really show commands, so the suite cannot pass by finding
/// none (a changed fence or prefix would otherwise make it vacuous).
void TestCliDocCommands::docsShowCommands()
{
    const QDir top(QStringLiteral(RAILYARD_SOURCE_DIR));
    for (const char *page :
        { "docs/getting-started.md", "docs/deployment.md", "docs/commands.md" }) {
        const PageCommands found
            = extractCommands(QString::fromUtf8(readTestFile(top.filePath(QLatin1String(page)))));
        QVERIFY2(found.commands.size() >= 2, page);
    }
}

QTEST_GUILESS_MAIN(TestCliDocCommands)
#include "tst_cli_doccommands.moc"
