// Directory exports are all or nothing (model/export/exportdirectory.cpp, issue #40 item 8):
// into an existing directory where one file cannot be replaced (a directory of its name), the
// export fails naming that file and leaves every file as it was - the ones renamed before the
// failure get their old content back, the new ones are removed, no staging is left behind.
#include "base/scenarioerror.h"
#include "export/exportdirectory.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <unistd.h>

using namespace railyard;

namespace {

QByteArray contentOf(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray("<missing>");
}

void put(const QString &path, const QByteArray &data)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly | QIODevice::Truncate));
    f.write(data);
}

QStringList entries(const QString &dir)
{
    QStringList out = QDir(dir).entryList(QDir::AllEntries | QDir::Hidden | QDir::NoDotAndDotDot);
    out.sort();
    return out;
}

} // namespace

class TestExportDirectory : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void failedReplaceLeavesTheDirectoryAsItWas();
    void replacesAndKeepsOtherFiles();
};

void TestExportDirectory::failedReplaceLeavesTheDirectoryAsItWas()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath(QStringLiteral("astra"));
    QDir().mkpath(dir + QStringLiteral("/system.json")); // the repro
    put(dir + QStringLiteral("/topology.txt"), "old topology");
    put(dir + QStringLiteral("/network.yml"), "old network");
    put(dir + QStringLiteral("/keep.txt"), "mine");
    // The ASTRA-sim export's order: five files are renamed before system.json fails.
    const std::vector<ExportFile> files { { "topology.txt", "new\n" },
        { "ns3-config.txt", "new\n" }, { "ns3-trace.txt", "0\n" },
        { "logical-topology.json", "{}\n" }, { "network.yml", "new\n" }, { "system.json", "{}\n" },
        { "replay.txt", "new\n" } };
    QString message;
    try {
        writeExportDirectory(dir.toStdString(), files);
    } catch (const ScenarioError &e) {
        message = QString::fromStdString(e.what());
    }
    QVERIFY2(message.startsWith(dir + QStringLiteral("/system.json: cannot replace: ")),
        qPrintable(message));
    QVERIFY2(message.endsWith(QStringLiteral("; nothing was changed")), qPrintable(message));
    QCOMPARE(contentOf(dir + QStringLiteral("/topology.txt")), QByteArray("old topology"));
    QCOMPARE(contentOf(dir + QStringLiteral("/network.yml")), QByteArray("old network"));
    QCOMPARE(contentOf(dir + QStringLiteral("/keep.txt")), QByteArray("mine"));
    QVERIFY(QFileInfo(dir + QStringLiteral("/system.json")).isDir());
    // Nothing new, no staging directory, no backup.
    QCOMPARE(entries(dir),
        QStringList({ QStringLiteral("keep.txt"), QStringLiteral("network.yml"),
            QStringLiteral("system.json"), QStringLiteral("topology.txt") }));
    QCOMPARE(entries(tmp.path()), QStringList({ QStringLiteral("astra") }));
}

void TestExportDirectory::replacesAndKeepsOtherFiles()
{
    QTemporaryDir tmp;
    const QString dir = tmp.filePath(QStringLiteral("astra"));
    QDir().mkpath(dir);
    put(dir + QStringLiteral("/a.txt"), "old a");
    put(dir + QStringLiteral("/keep.txt"), "mine");
    // A hard link to a.txt elsewhere keeps the old content: a.txt is replaced by rename, not
    // rewritten in place.
    QVERIFY(::link(QFile::encodeName(dir + QStringLiteral("/a.txt")).constData(),
                QFile::encodeName(tmp.filePath(QStringLiteral("a-link"))).constData())
        == 0);
    writeExportDirectory(dir.toStdString(), { { "a.txt", "new a" }, { "b.txt", "new b" } });
    QCOMPARE(contentOf(dir + QStringLiteral("/a.txt")), QByteArray("new a"));
    QCOMPARE(contentOf(dir + QStringLiteral("/b.txt")), QByteArray("new b"));
    QCOMPARE(contentOf(dir + QStringLiteral("/keep.txt")), QByteArray("mine"));
    QCOMPARE(contentOf(tmp.filePath(QStringLiteral("a-link"))), QByteArray("old a"));
    QCOMPARE(entries(dir),
        QStringList(
            { QStringLiteral("a.txt"), QStringLiteral("b.txt"), QStringLiteral("keep.txt") }));
}

QTEST_GUILESS_MAIN(TestExportDirectory)
#include "tst_exportdirectory.moc"
