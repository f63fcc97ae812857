#include "exportdialog.h"

#include "base/scenarioerror.h"
#include "document/scenariodocument.h"
#include "scenario/scenariofile.h"
#include "userdialogs.h"

#include <QCheckBox>
#include <QComboBox>
#include <QCoreApplication>
#include <QDialogButtonBox>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

namespace railyard {

namespace {

QString qs(std::string_view s)
{
    return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

/// The first `lines` lines of `text` (without a trailing newline).
QString firstLines(const std::string &text, int lines)
{
    std::size_t end = 0;
    for (int i = 0; i < lines && end < text.size(); ++i) {
        const std::size_t nl = text.find('\n', end);
        end = nl == std::string::npos ? text.size() : nl + 1;
    }
    QString head = QString::fromStdString(text.substr(0, end));
    if (head.endsWith(QLatin1Char('\n')))
        head.chop(1);
    return head;
}

} // namespace

ExportDialog::ExportDialog(
    ScenarioDocument *doc, UserDialogs *dialogs, const QString &startDirectory, QWidget *parent)
    : QDialog(parent)
    , m_doc(doc)
    , m_dialogs(dialogs)
    , m_startDirectory(startDirectory)
{
    setObjectName(QStringLiteral("ExportDialog"));
    setWindowTitle(tr("Export Mapping"));
    auto *layout = new QVBoxLayout(this);

    auto *form = new QFormLayout;
    m_format = new QComboBox;
    m_format->setObjectName(QStringLiteral("exportFormat"));
    for (ExportFormat f : allExportFormats()) {
        m_format->addItem(qs(exportFormatName(f)), static_cast<int>(f));
        m_format->setItemData(
            m_format->count() - 1, qs(exportFormatDescription(f)), Qt::ToolTipRole);
    }
    form->addRow(tr("&Format:"), m_format);
    m_description = new QLabel;
    m_description->setObjectName(QStringLiteral("exportDescription"));
    m_description->setWordWrap(true);
    form->addRow(QString(), m_description);
    buildOptions(form);
    layout->addLayout(form);

    m_warnings = new QLabel;
    m_warnings->setObjectName(QStringLiteral("exportWarnings"));
    m_warnings->setWordWrap(true);
    m_warnings->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_warnings->setStyleSheet(QStringLiteral("QLabel { color: #8a5a00; background: #fff4d6; "
                                             "border: 1px solid #e0b050; padding: 4px; }"));
    m_warnings->hide();
    layout->addWidget(m_warnings);
    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("exportError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("QLabel { color: #b00020; }"));
    m_error->hide();
    layout->addWidget(m_error);

    m_preview = new QPlainTextEdit;
    m_preview->setObjectName(QStringLiteral("exportPreview"));
    m_preview->setReadOnly(true);
    m_preview->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_preview->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_preview->setToolTip(
        tr("The first %1 lines of the file, for the mapping shown now").arg(kPreviewLines));
    layout->addWidget(m_preview, 1);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close);
    m_exportButton = buttons->addButton(tr("&Export…"), QDialogButtonBox::ActionRole);
    m_exportButton->setObjectName(QStringLiteral("exportButton"));
    m_exportButton->setDefault(true);
    connect(m_exportButton, &QPushButton::clicked, this, [this] { exportToFile(); });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);

    // Coalesce bursts (a drag preview, typing a program name) into one re-export.
    m_refreshTimer = new QTimer(this);
    m_refreshTimer->setSingleShot(true);
    m_refreshTimer->setInterval(0);
    connect(m_refreshTimer, &QTimer::timeout, this, &ExportDialog::refreshPreview);
    connect(m_format, &QComboBox::currentIndexChanged, this, [this] {
        updateEnabledOptions();
        scheduleRefresh();
    });
    connect(m_doc, &ScenarioDocument::reportChanged, this, &ExportDialog::scheduleRefresh);
    connect(m_doc, &ScenarioDocument::mappingChanged, this, &ExportDialog::scheduleRefresh);
    connect(m_doc, &ScenarioDocument::scenarioChanged, this, &ExportDialog::scheduleRefresh);

    resize(860, 640);
    updateEnabledOptions();
    refreshPreview();
}

void ExportDialog::buildOptions(QFormLayout *form)
{
    m_hostsPath = new QLineEdit;
    m_hostsPath->setObjectName(QStringLiteral("exportHostsFile"));
    m_hostsPath->setPlaceholderText(tr("the fabric's server names"));
    m_hostsBrowse = new QPushButton(tr("&Browse…"));
    m_hostsBrowse->setObjectName(QStringLiteral("exportHostsBrowse"));
    connect(m_hostsBrowse, &QPushButton::clicked, this, &ExportDialog::browseHostsFile);
    auto *hostsRow = new QHBoxLayout;
    hostsRow->addWidget(m_hostsPath, 1);
    hostsRow->addWidget(m_hostsBrowse);
    // A row holding a layout gets no buddy from addRow(QString, …): name it here so & works.
    auto *hostsLabel = new QLabel(tr("&Hosts file:"));
    hostsLabel->setBuddy(m_hostsPath);
    form->addRow(hostsLabel, hostsRow);

    m_cpusPerHost = new QSpinBox;
    m_cpusPerHost->setObjectName(QStringLiteral("exportCpusPerHost"));
    m_cpusPerHost->setRange(0, 4096);
    m_cpusPerHost->setSpecialValueText(tr("one core per GPU"));
    m_cpusPerHost->setToolTip(tr("rankfile / slurm / nccl-topo: logical CPU cores per host, shared "
                                 "out over its GPUs by NUMA node"));
    form->addRow(tr("&CPUs per host:"), m_cpusPerHost);

    const ExportOptions defaults;
    m_masterPort = new QSpinBox;
    m_masterPort->setObjectName(QStringLiteral("exportMasterPort"));
    m_masterPort->setRange(1, 65535);
    m_masterPort->setValue(defaults.masterPort);
    m_masterPort->setToolTip(tr("torchrun / slurm: the rendezvous port"));
    form->addRow(tr("Master &port:"), m_masterPort);

    m_program = new QLineEdit(QString::fromStdString(defaults.program));
    m_program->setObjectName(QStringLiteral("exportProgram"));
    m_program->setToolTip(tr("torchrun / slurm: the training program and its fixed arguments"));
    form->addRow(tr("P&rogram:"), m_program);

    m_hcaPrefix = new QLineEdit(QString::fromStdString(defaults.hcaPrefix));
    m_hcaPrefix->setObjectName(QStringLiteral("exportHcaPrefix"));
    m_hcaPrefix->setToolTip(tr("NIC i of a server is the RDMA device <prefix><i> (NCCL_IB_HCA) "
                               "unless the fabric names its NICs"));
    form->addRow(tr("HCA pre&fix:"), m_hcaPrefix);

    m_jsonPlan = new QCheckBox(tr("Write the plan as &JSON"));
    m_jsonPlan->setObjectName(QStringLiteral("exportJsonPlan"));
    form->addRow(QString(), m_jsonPlan);

    // The launcher scripts run `railyard-cli preflight <record>` on every rank: without the
    // record beside them every rank stops at start-up.
    m_writeRecord = new QCheckBox(tr("Also &write the run record %1 beside it (every rank's "
                                     "preflight reads it)")
                                      .arg(QString::fromStdString(defaults.record)));
    m_writeRecord->setObjectName(QStringLiteral("exportWriteRecord"));
    m_writeRecord->setChecked(true);
    m_writeRecord->setToolTip(tr("The script runs \"railyard-cli preflight %1\" on every rank "
                                 "before the program: that file (File > Export, mapping-json) "
                                 "must be in the job's working directory")
                                  .arg(QString::fromStdString(defaults.record)));
    form->addRow(QString(), m_writeRecord);

    for (QLineEdit *edit : { m_hostsPath, m_program, m_hcaPrefix })
        connect(edit, &QLineEdit::textChanged, this, &ExportDialog::scheduleRefresh);
    for (QSpinBox *spin : { m_cpusPerHost, m_masterPort })
        connect(spin, &QSpinBox::valueChanged, this, &ExportDialog::scheduleRefresh);
    connect(m_jsonPlan, &QCheckBox::toggled, this, &ExportDialog::scheduleRefresh);
}

ExportFormat ExportDialog::format() const
{
    return static_cast<ExportFormat>(m_format->currentData().toInt());
}

void ExportDialog::setFormat(ExportFormat f)
{
    m_format->setCurrentIndex(m_format->findData(static_cast<int>(f)));
    refreshPreview();
}

void ExportDialog::setHostsFile(const QString &path)
{
    m_hostsPath->setText(path);
    refreshPreview();
}

void ExportDialog::updateEnabledOptions()
{
    const ExportFormat f = format();
    const bool launcher = f == ExportFormat::Torchrun || f == ExportFormat::Slurm;
    // The options each exporter reads, as the CLI's export command accepts them.
    const bool hosts = exportUsesHosts(f);
    m_hostsPath->setEnabled(hosts);
    m_hostsBrowse->setEnabled(hosts);
    const QString hostsTip
        = tr("One host name per line (line i = server i), or \"index hostname\" lines");
    m_hostsPath->setToolTip(hosts ? hostsTip
                                  : tr("%1 names no hosts: the hosts file does not apply to it")
                                        .arg(qs(exportFormatName(f))));
    m_hostsBrowse->setToolTip(m_hostsPath->toolTip());
    m_cpusPerHost->setEnabled(
        f == ExportFormat::Rankfile || f == ExportFormat::Slurm || f == ExportFormat::NcclTopo);
    m_masterPort->setEnabled(launcher || f == ExportFormat::Kueue);
    m_program->setEnabled(launcher || f == ExportFormat::PyTorchJob || f == ExportFormat::Kueue);
    m_hcaPrefix->setEnabled(f == ExportFormat::NcclPlan || launcher || f == ExportFormat::PyTorchJob
        || f == ExportFormat::MappingJson || f == ExportFormat::Csv || f == ExportFormat::NcclTopo);
    m_jsonPlan->setEnabled(f == ExportFormat::NcclPlan);
    m_writeRecord->setVisible(launcher);
    m_description->setText(qs(exportFormatDescription(f)));
}

ExportOptions ExportDialog::options() const
{
    ExportOptions o;
    o.cpusPerHost = m_cpusPerHost->value();
    o.masterPort = m_masterPort->value();
    o.program = m_program->text().toStdString();
    o.hcaPrefix = m_hcaPrefix->text().toStdString();
    o.jsonPlan = m_jsonPlan->isChecked();
    // Like the CLI's "railyard-cli <version>": the record names what wrote it.
    const QString version = QCoreApplication::applicationVersion();
    o.generator = version.isEmpty() ? "railyard" : "railyard " + version.toStdString();
    const QString hosts = m_hostsPath->text().trimmed();
    if (!hosts.isEmpty() && exportUsesHosts(format())) {
        // The CLI's --hosts limit: a hosts file is a few kilobytes even at 2,048 servers. The
        // engine's reader refuses a FIFO, directory or device at once (base/fileio.h).
        std::string text;
        try {
            text = readFileLimited(QFile::encodeName(hosts).toStdString(), 1 << 20, "a hosts file");
        } catch (const ScenarioError &e) {
            throw ScenarioError(
                "hosts file", QDir::toNativeSeparators(hosts).toStdString() + ": " + e.reason());
        }
        o.hosts = parseHostsFile(text, m_doc->engine().fabric().servers());
    }
    return o;
}

void ExportDialog::scheduleRefresh()
{
    m_refreshTimer->start();
}

void ExportDialog::refreshPreview()
{
    m_refreshTimer->stop();
    const ExportFormat f = format();
    try {
        const ExportOptions o = options();
        const std::string text = exportText(m_doc->engine(), f, o);
        QStringList warnings;
        for (const std::string &w : exportWarnings(m_doc->engine(), f, o))
            warnings << QString::fromStdString(w);
        m_warnings->setText(warnings.join(QLatin1Char('\n')));
        m_warnings->setVisible(!warnings.isEmpty());
        m_error->clear();
        m_error->hide();
        m_preview->setPlainText(firstLines(text, kPreviewLines));
    } catch (const std::exception &e) {
        m_warnings->hide();
        m_warnings->clear();
        m_preview->clear();
        showError(QString::fromUtf8(e.what()));
    }
}

void ExportDialog::showError(const QString &message)
{
    m_error->setText(message);
    m_error->show();
}

bool ExportDialog::exportToFile()
{
    // The file must show the mapping on screen, not one a background rebuild is replacing.
    m_doc->waitForEvaluation();
    refreshPreview();
    if (!errorText().isEmpty()) {
        Q_EMIT statusMessage(tr("Export refused: %1").arg(errorText()));
        return false;
    }
    const ExportFormat f = format();
    const QString suffix = qs(exportFormatSuffix(f));
    const QString suggested
        = QDir(m_startDirectory).filePath(QString::fromStdString(m_doc->scenario().name) + suffix);
    QString path = m_dialogs->saveFileName(this, tr("Export %1").arg(qs(exportFormatName(f))),
        suggested, tr("%1 (*%2);;All files (*)").arg(qs(exportFormatDescription(f)), suffix));
    if (path.isEmpty()) {
        Q_EMIT statusMessage(tr("Export cancelled"));
        return false;
    }
    if (QFileInfo(path).suffix().isEmpty())
        path += suffix;
    try {
        m_doc->waitForEvaluation(); // an edit may have landed while the file chooser was open
        if (exportWritesDirectory(f)) {
            // The chosen name is the directory the files go into (created when new).
            writeExportDirectory(
                QFile::encodeName(path).toStdString(), exportFiles(m_doc->engine(), f, options()));
        } else {
            const ExportOptions o = options();
            const std::string text = exportText(m_doc->engine(), f, o);
            writeFileAtomically(QFile::encodeName(path).toStdString(), text);
            if (writesRecord()) {
                const QString record
                    = QFileInfo(path).dir().filePath(QString::fromStdString(o.record));
                writeFileAtomically(QFile::encodeName(record).toStdString(),
                    exportText(m_doc->engine(), ExportFormat::MappingJson, o));
                Q_EMIT statusMessage(
                    tr("Exported %1 to %2 and its run record to %3")
                        .arg(qs(exportFormatName(f)), QDir::toNativeSeparators(path),
                            QDir::toNativeSeparators(record)));
                return true;
            }
        }
    } catch (const std::exception &e) {
        showError(QString::fromUtf8(e.what()));
        Q_EMIT statusMessage(tr("Export failed: %1").arg(QString::fromUtf8(e.what())));
        return false;
    }
    Q_EMIT statusMessage(
        tr("Exported %1 to %2").arg(qs(exportFormatName(f)), QDir::toNativeSeparators(path)));
    return true;
}

void ExportDialog::browseHostsFile()
{
    // A plain file chooser: the hosts file is optional and typed paths work as well.
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Hosts File"), m_startDirectory, tr("Host lists (*.txt *.hosts);;All files (*)"));
    if (!path.isEmpty())
        m_hostsPath->setText(path);
}

bool ExportDialog::writesRecord() const
{
    const ExportFormat f = format();
    return (f == ExportFormat::Torchrun || f == ExportFormat::Slurm) && m_writeRecord->isChecked()
        && options().preflight;
}

QString ExportDialog::previewText() const
{
    return m_preview->toPlainText();
}

QString ExportDialog::warningText() const
{
    return m_warnings->isHidden() ? QString() : m_warnings->text();
}

QString ExportDialog::errorText() const
{
    return m_error->isHidden() ? QString() : m_error->text();
}

} // namespace railyard
