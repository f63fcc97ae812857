#pragma once

#include "export/exporters.h"

#include <QDialog>
#include <QString>

class QCheckBox;
class QComboBox;
class QFormLayout;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QPushButton;
class QSpinBox;
class QTimer;

namespace railyard {

class ScenarioDocument;
class UserDialogs;

/**
 * File > Export > Mapping / launcher files: one of the engine's exporters
 * (model/export/exporters.h) applied to the document's current mapping. The user picks a format and
 * its options, sees the exporter's warnings (amber) and the first lines of the text it would write,
 * and Export… writes the file atomically. A refused export (an invalid mapping, a bad hosts file)
 * shows the ScenarioError's message in red and writes nothing. The preview follows every edit. A
 * directory format (astra-sim) previews its files one after another and writes them into the
 * directory named in the file chooser. Options a format does not read are disabled; the hosts
 * field says in its tooltip why (chrome-trace, astra-sim, simai-topo and nccl-topo name no
 * hosts), and its file is then not read. nccl-topo on a fabric without PCI bus ids shows the
 * writer's refusal (which fields, and that import-topology fills them) as the inline error.
 */
class ExportDialog : public QDialog
{
    Q_OBJECT

public:
    /// Lines of the export shown in the preview.
    static constexpr int kPreviewLines = 200;

    ExportDialog(ScenarioDocument *doc, UserDialogs *dialogs, const QString &startDirectory,
        QWidget *parent = nullptr);

    ExportFormat format() const;
    void setFormat(ExportFormat format);
    /// The hosts file (empty: the fabric's server names).
    void setHostsFile(const QString &path);

    /// The options the controls describe, hosts file read and checked (throws ScenarioError).
    ExportOptions options() const;

    /// Recomputes warnings and preview now (they otherwise follow edits after a zero timer).
    void refreshPreview();
    /// Asks for a file name and writes the export there. False when refused, cancelled or failed.
    bool exportToFile();

    QString previewText() const;
    QString warningText() const; ///< the warnings shown, one a line; empty when none
    QString errorText() const; ///< the inline error; empty when the export is possible
    /// torchrun / slurm: whether Export also writes the run record (options().record, the
    /// mapping-json export) into the same folder; its checkbox says why.
    QCheckBox *recordCheckBox() const { return m_writeRecord; }
    bool writesRecord() const;

Q_SIGNALS:
    /// A one-line outcome ("Exported …", "Export failed: …") for the status bar.
    void statusMessage(const QString &message);

private:
    void buildOptions(QFormLayout *form);
    void scheduleRefresh();
    void updateEnabledOptions();
    void browseHostsFile();
    void showError(const QString &message);

    ScenarioDocument *m_doc;
    UserDialogs *m_dialogs;
    QString m_startDirectory;
    QComboBox *m_format = nullptr;
    QLabel *m_description = nullptr;
    QLineEdit *m_hostsPath = nullptr;
    QPushButton *m_hostsBrowse = nullptr;
    QSpinBox *m_cpusPerHost = nullptr;
    QSpinBox *m_masterPort = nullptr;
    QLineEdit *m_program = nullptr;
    QLineEdit *m_hcaPrefix = nullptr;
    QCheckBox *m_jsonPlan = nullptr;
    /// torchrun / slurm: also write the run record every rank's preflight reads, beside it.
    QCheckBox *m_writeRecord = nullptr;
    QLabel *m_warnings = nullptr;
    QLabel *m_error = nullptr;
    QPlainTextEdit *m_preview = nullptr;
    QPushButton *m_exportButton = nullptr;
    QTimer *m_refreshTimer = nullptr;
};

} // namespace railyard
