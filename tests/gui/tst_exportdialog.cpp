// File > Export: the ExportDialog's preview against the engine's exporters (before and after a
// swap), the written file byte for byte, a bad hosts file refused with nothing written, the
// wait for a background evaluation, the hosts field disabled (and its file unread) for formats
// that name no hosts, the nccl-topo format's refusal without PCI bus ids shown inline (and its
// file written once import-topology's ids are there), and the PDF report (written, or nothing).
#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "export/exporters.h"
#include "export/nccltopofile.h"
#include "exportdialog.h"
#include "io/nccltopology.h"
#include "mainactions.h"
#include "mainwindow.h"
#include "pdfreport.h"
#include "scenario/scenariofile.h"
#include "userdialogs.h"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>

using namespace railyard;

namespace {

/** Answers the file-name question from a script and records what was asked. */
class ScriptedDialogs : public UserDialogs
{
public:
    QString saveName;
    int saveNameQuestions = 0;
    QString lastSuggested;
    QStringList errors;

    void showError(QWidget *, const QString &title, const QString &message) override
    {
        errors << title + QLatin1Char('|') + message;
    }
    QString saveFileName(
        QWidget *, const QString &, const QString &suggested, const QString &) override
    {
        ++saveNameQuestions;
        lastSuggested = suggested;
        return saveName;
    }
};

QString seedPath()
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
}

QStringList lines(const std::string &text)
{
    return QString::fromStdString(text).split(QLatin1Char('\n'));
}

QByteArray readAll(const QString &path)
{
    QFile f(path);
    return f.open(QIODevice::ReadOnly) ? f.readAll() : QByteArray();
}

/// RAILYARD_TEST_ARTIFACTS=DIR keeps the dialog's picture and the PDF there, to look at.
QString artifact(const QString &name)
{
    const QString dir = qEnvironmentVariable("RAILYARD_TEST_ARTIFACTS");
    return dir.isEmpty() ? QString() : QDir(dir).filePath(name);
}

void writeFile(const QString &path, const QByteArray &bytes)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(bytes);
}

} // namespace

class TestExportDialog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void init()
    {
        m_doc = std::make_unique<ScenarioDocument>();
        m_doc->load(loadScenario(seedPath().toStdString()), seedPath());
        m_dialogs = std::make_unique<ScriptedDialogs>();
    }
    void cleanup() { m_doc.reset(); }

    void previewMatchesExporter()
    {
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), QDir::tempPath());
        dialog.setFormat(ExportFormat::Rankfile);
        QCOMPARE(dialog.format(), ExportFormat::Rankfile);
        const QStringList expected = lines(exportText(m_doc->engine(), ExportFormat::Rankfile, {}));
        const QStringList shown = dialog.previewText().split(QLatin1Char('\n'));
        QCOMPARE(
            shown.size(), std::min<qsizetype>(ExportDialog::kPreviewLines, expected.size() - 1));
        QCOMPARE(shown, expected.mid(0, shown.size()));
        QVERIFY(shown.contains(QStringLiteral("rank 0=node000 slot=0")));
        QVERIFY(dialog.errorText().isEmpty());
        if (const QString png = artifact(QStringLiteral("exportdialog.png")); !png.isEmpty()) {
            dialog.setFormat(ExportFormat::Torchrun);
            m_doc->swapRanks(0, 9); // torchrun cannot express it: a warning shows
            dialog.refreshPreview();
            dialog.show();
            QVERIFY(dialog.grab().save(png));
        }
    }

    void previewFollowsSwap()
    {
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), QDir::tempPath());
        dialog.setFormat(ExportFormat::Rankfile);
        const QStringList before = dialog.previewText().split(QLatin1Char('\n'));
        m_doc->swapRanks(0, 9);
        QTRY_VERIFY(dialog.previewText() != before.join(QLatin1Char('\n')));
        const QStringList after = dialog.previewText().split(QLatin1Char('\n'));
        QCOMPARE(after,
            lines(exportText(m_doc->engine(), ExportFormat::Rankfile, {})).mid(0, after.size()));
        QCOMPARE(after.size(), before.size());
        QStringList changed;
        for (qsizetype i = 0; i < after.size(); ++i)
            if (after[i] != before[i])
                changed << after[i];
        // Rank 0 now sits on rank 9's old GPU and the other way round: the lines of ranks 0
        // and 9 change, and so does the CUDA_VISIBLE_DEVICES comment of their two hosts (local
        // rank order follows global rank order); nothing else.
        QStringList rankLines, hostComments;
        for (const QString &line : changed)
            (line.startsWith(QLatin1String("rank ")) ? rankLines : hostComments) << line;
        QCOMPARE(rankLines.size(), 2);
        QVERIFY2(rankLines[0].startsWith(QLatin1String("rank 0=")), qPrintable(rankLines[0]));
        QVERIFY2(rankLines[1].startsWith(QLatin1String("rank 9=")), qPrintable(rankLines[1]));
        QCOMPARE(hostComments.size(), 2);
        QVERIFY2(hostComments[0].startsWith(QLatin1Char('#'))
                && hostComments[0].contains(QLatin1String("node000")),
            qPrintable(hostComments[0]));
        QVERIFY2(hostComments[1].startsWith(QLatin1Char('#'))
                && hostComments[1].contains(QLatin1String("node001")),
            qPrintable(hostComments[1]));
        const QString old9
            = before[before.indexOf(QRegularExpression(QStringLiteral("rank 9=.*")))];
        QCOMPARE(rankLines[0].section(QLatin1Char('='), 1), old9.section(QLatin1Char('='), 1));
    }

    void exportWritesExporterText()
    {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), dir.path());
        QSignalSpy status(&dialog, &ExportDialog::statusMessage);
        dialog.setFormat(ExportFormat::Rankfile);
        m_doc->swapRanks(0, 9);
        m_dialogs->saveName = dir.filePath(QStringLiteral("job.rankfile"));
        dialog.findChild<QPushButton *>(QStringLiteral("exportButton"))->click();
        QCOMPARE(m_dialogs->saveNameQuestions, 1);
        QVERIFY(m_dialogs->lastSuggested.endsWith(
            QString::fromUtf8(exportFormatSuffix(ExportFormat::Rankfile).data())));
        QCOMPARE(readAll(m_dialogs->saveName),
            QByteArray::fromStdString(exportText(m_doc->engine(), ExportFormat::Rankfile, {})));
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files),
            QStringList { QStringLiteral("job.rankfile") });
        QVERIFY(!status.isEmpty()
            && status.last().at(0).toString().startsWith(QLatin1String("Exported rankfile")));
    }

    void slurmExportWritesTheRunRecordItsPreflightReads()
    {
        // The Slurm script runs `railyard-cli preflight railyard.mapping.json` on every rank:
        // the dialog says so and writes that record beside the script (unless unticked).
        QTemporaryDir dir;
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), dir.path());
        dialog.setFormat(ExportFormat::Slurm);
        QCheckBox *record = dialog.recordCheckBox();
        QVERIFY(record && record->isVisibleTo(&dialog) && record->isChecked());
        QVERIFY(record->text().contains(QStringLiteral("railyard.mapping.json")));
        QVERIFY(dialog.previewText().contains(QStringLiteral("railyard.mapping.json")));
        m_doc->swapRanks(0, 9);
        m_dialogs->saveName = dir.filePath(QStringLiteral("job.sbatch"));
        QVERIFY(dialog.exportToFile());
        QCOMPARE(readAll(dir.filePath(QStringLiteral("railyard.mapping.json"))),
            QByteArray::fromStdString(exportText(m_doc->engine(), ExportFormat::MappingJson, {})));
        // Unticked: the script alone.
        QTemporaryDir other;
        record->setChecked(false);
        m_dialogs->saveName = other.filePath(QStringLiteral("job.sbatch"));
        QVERIFY(dialog.exportToFile());
        QCOMPARE(QDir(other.path()).entryList(QDir::Files),
            QStringList { QStringLiteral("job.sbatch") });
        // A format without a preflight does not offer it.
        dialog.setFormat(ExportFormat::Rankfile);
        QVERIFY(!record->isVisibleTo(&dialog));
    }

    void exportWithoutSuffixGetsTheFormats()
    {
        QTemporaryDir dir;
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), dir.path());
        dialog.setFormat(ExportFormat::Hostfile);
        m_dialogs->saveName = dir.filePath(QStringLiteral("hosts"));
        QVERIFY(dialog.exportToFile());
        const QString written = m_dialogs->saveName
            + QString::fromUtf8(exportFormatSuffix(ExportFormat::Hostfile).data());
        QCOMPARE(readAll(written),
            QByteArray::fromStdString(exportText(m_doc->engine(), ExportFormat::Hostfile, {})));
    }

    void badHostsFileWritesNothing_data()
    {
        QTest::addColumn<QByteArray>("hosts"); // empty: no such file
        QTest::newRow("too few hosts") << QByteArray("alpha\nbeta\ngamma\n");
        QTest::newRow("missing file") << QByteArray();
    }
    void badHostsFileWritesNothing()
    {
        QFETCH(QByteArray, hosts);
        QTemporaryDir out;
        QTemporaryDir in;
        const QString hostsPath = in.filePath(QStringLiteral("hosts.txt"));
        if (!hosts.isEmpty())
            writeFile(hostsPath, hosts);
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), out.path());
        dialog.setFormat(ExportFormat::Rankfile);
        dialog.setHostsFile(hostsPath);
        QVERIFY(!dialog.errorText().isEmpty());
        QVERIFY2(
            dialog.errorText().contains(QLatin1String("host")), qPrintable(dialog.errorText()));
        QVERIFY(dialog.previewText().isEmpty());
        m_dialogs->saveName = out.filePath(QStringLiteral("job.rankfile"));
        QVERIFY(!dialog.exportToFile());
        QCOMPARE(m_dialogs->saveNameQuestions, 0);
        QVERIFY(QDir(out.path())
                    .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)
                    .isEmpty());
    }

    void hostsFieldFollowsTheFormat()
    {
        QTemporaryDir in;
        const QString hostsPath = in.filePath(QStringLiteral("hosts.txt"));
        writeFile(hostsPath, "alpha\nbeta\n"); // too few hosts for the seed's 16 servers
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), in.path());
        auto *hosts = dialog.findChild<QLineEdit *>(QStringLiteral("exportHostsFile"));
        auto *browse = dialog.findChild<QPushButton *>(QStringLiteral("exportHostsBrowse"));
        auto *formats = dialog.findChild<QComboBox *>(QStringLiteral("exportFormat"));
        QVERIFY(hosts && browse && formats);
        dialog.setHostsFile(hostsPath);
        const QList<ExportFormat> hostless { ExportFormat::ChromeTrace, ExportFormat::AstraSim,
            ExportFormat::SimAiTopo, ExportFormat::NcclTopo };
        for (int i = 0; i < formats->count(); ++i) {
            formats->setCurrentIndex(i); // as the user picks it
            dialog.refreshPreview();
            const ExportFormat f = dialog.format();
            const QString name = QString::fromUtf8(exportFormatName(f).data());
            const bool usesHosts = !hostless.contains(f);
            QCOMPARE(hosts->isEnabled(), usesHosts);
            QCOMPARE(browse->isEnabled(), usesHosts);
            if (usesHosts) {
                // The bad file is read and refused.
                QVERIFY2(dialog.errorText().contains(QLatin1String("host")), qPrintable(name));
            } else {
                QVERIFY2(hosts->toolTip().contains(QLatin1String("names no hosts")),
                    qPrintable(hosts->toolTip()));
                QVERIFY(hosts->toolTip().contains(name));
                // Not read: the export does not fail on it.
                QVERIFY2(!dialog.errorText().contains(QLatin1String("--hosts")),
                    qPrintable(dialog.errorText()));
            }
        }
        QVERIFY(formats->findText(QStringLiteral("nccl-topo")) >= 0); // the new format is offered
    }

    void ncclTopoWithoutBusIdsIsRefusedInline()
    {
        QTemporaryDir out;
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), out.path());
        auto *formats = dialog.findChild<QComboBox *>(QStringLiteral("exportFormat"));
        formats->setCurrentIndex(formats->findText(QStringLiteral("nccl-topo")));
        dialog.refreshPreview();
        QCOMPARE(dialog.format(), ExportFormat::NcclTopo);
        // The seed has no bus ids: the writer's message, naming the fields and the fix.
        const QString error = dialog.errorText();
        QVERIFY2(error.contains(QLatin1String("fabric.gpu_pci_bus_ids")), qPrintable(error));
        QVERIFY(error.contains(QLatin1String("fabric.nic_pci_bus_ids")));
        QVERIFY(error.contains(QLatin1String("railyard-cli import-topology")));
        QVERIFY(dialog.findChild<QLabel *>(QStringLiteral("exportError"))->isVisibleTo(&dialog));
        QVERIFY(dialog.previewText().isEmpty());
        m_dialogs->saveName = out.filePath(QStringLiteral("server.nccl-topo.xml"));
        dialog.findChild<QPushButton *>(QStringLiteral("exportButton"))->click();
        QCOMPARE(m_dialogs->saveNameQuestions, 0); // refused before the file chooser
        QVERIFY(QDir(out.path())
                    .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)
                    .isEmpty());
    }

    void ncclTopoWithBusIdsIsWritten()
    {
        // The seed after import-topology of the sample server: bus ids and PCIe switches.
        Scenario s = m_doc->scenario();
        QFile xml(QStringLiteral(RAILYARD_SOURCE_DIR "/samples/dgx-h100-topology.xml"));
        QVERIFY(xml.open(QIODevice::ReadOnly));
        applyTopology(s.fabric, parseNcclTopology(xml.readAll().toStdString(), "dgx.xml"));
        m_doc->load(s, seedPath());
        QTemporaryDir out;
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), out.path());
        dialog.setFormat(ExportFormat::NcclTopo);
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        const std::string expected = ncclTopoFileText(s.fabric);
        QCOMPARE(dialog.previewText().split(QLatin1Char('\n')),
            lines(expected).mid(0, dialog.previewText().split(QLatin1Char('\n')).size()));
        QVERIFY(dialog.previewText().contains(QLatin1String("<pci busid=\"0000:18:00.0\"")));
        m_dialogs->saveName = out.filePath(QStringLiteral("server"));
        QVERIFY(dialog.exportToFile());
        QVERIFY(m_dialogs->lastSuggested.endsWith(QLatin1String(".nccl-topo.xml")));
        QCOMPARE(readAll(out.filePath(QStringLiteral("server.nccl-topo.xml"))),
            QByteArray::fromStdString(expected));
    }

    void goodHostsFileNamesTheHosts()
    {
        QTemporaryDir in;
        const int servers = m_doc->engine().fabric().servers();
        QByteArray hosts;
        for (int s = 0; s < servers; ++s)
            hosts += "gpu-host-" + QByteArray::number(s) + '\n';
        writeFile(in.filePath(QStringLiteral("hosts.txt")), hosts);
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), in.path());
        dialog.setFormat(ExportFormat::Rankfile);
        dialog.setHostsFile(in.filePath(QStringLiteral("hosts.txt")));
        QVERIFY2(dialog.errorText().isEmpty(), qPrintable(dialog.errorText()));
        QVERIFY(dialog.previewText().contains(QLatin1String("rank 0=gpu-host-0 slot=0")));
    }

    void exportWaitsForTheBackgroundEvaluation()
    {
        QTemporaryDir dir;
        ExportDialog dialog(m_doc.get(), m_dialogs.get(), dir.path());
        dialog.setFormat(ExportFormat::Csv);
        m_doc->setAsyncThreshold(0); // every rebuild off the UI thread
        m_doc->applyPlacement(Placement::Scattered);
        m_dialogs->saveName = dir.filePath(QStringLiteral("run.csv"));
        QVERIFY(dialog.exportToFile());
        QVERIFY(!m_doc->isEvaluating());
        const CostEngine scattered(m_doc->scenario());
        QCOMPARE(readAll(m_dialogs->saveName),
            QByteArray::fromStdString(exportText(scattered, ExportFormat::Csv, {})));
    }

    void menuOpensTheDialog()
    {
        MainWindow window;
        QAction *action = window.actions()->action(QStringLiteral("actionExportMapping"));
        QVERIFY(action);
        QCOMPARE(action->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_E));
        action->trigger();
        QVERIFY(window.actions()->exportDialog());
        QVERIFY(window.actions()->exportDialog()->isVisible());
        window.actions()->exportDialog()->close();
    }

    void pdfReportIsWritten()
    {
        MainWindow window;
        auto owned = std::make_unique<ScriptedDialogs>();
        ScriptedDialogs *dialogs = owned.get();
        window.setDialogs(std::move(owned));
        QTemporaryDir dir;
        dialogs->saveName = dir.filePath(QStringLiteral("report"));
        window.actions()->action(QStringLiteral("actionExportPdfReport"))->trigger();
        QVERIFY2(dialogs->errors.isEmpty(), qPrintable(dialogs->errors.join(QLatin1Char('\n'))));
        const QByteArray pdf = readAll(dir.filePath(QStringLiteral("report.pdf")));
        QVERIFY(pdf.size() > 10000);
        QVERIFY(pdf.startsWith("%PDF"));
        // Several A4 pages (summary, fabric, timeline, charts): gui_tst_pdfreport reads them back.
        QVERIFY(
            QString::fromLatin1(pdf).count(QRegularExpression(QStringLiteral("/Type\\s*/Page\\b")))
            >= 2);
        QVERIFY(window.statusBar()->currentMessage().contains(QLatin1String("report.pdf")));
        QCOMPARE(
            QDir(dir.path()).entryList(QDir::Files), QStringList { QStringLiteral("report.pdf") });
        if (const QString keep = artifact(QStringLiteral("report.pdf")); !keep.isEmpty()) {
            QFile::remove(keep);
            QVERIFY(QFile::copy(dir.filePath(QStringLiteral("report.pdf")), keep));
        }
    }

    void pdfReportFailureLeavesNothing()
    {
        MainWindow window;
        QTemporaryDir dir;
        const QString path = dir.filePath(QStringLiteral("missing/report.pdf"));
        QString error;
        QVERIFY(!writePdfReport(path, window.document(), window.fabricView(), window.timelineView(),
            window.chartsPanel(), &error));
        QVERIFY(!error.isEmpty());
        QVERIFY(!QFile::exists(path));
        QVERIFY(QDir(dir.path())
                    .entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::Hidden)
                    .isEmpty());
    }

private:
    std::unique_ptr<ScenarioDocument> m_doc;
    std::unique_ptr<ScriptedDialogs> m_dialogs;
};

QTEST_MAIN(TestExportDialog)
#include "tst_exportdialog.moc"
