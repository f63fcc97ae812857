#pragma once

#include "optimise/jobplacement.h"

#include <QDialog>

#include <optional>

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QTableWidget;

namespace railyard {

class ScenarioDocument;

/**
 * Study ▸ Place a New Job Here… (docs/shared-fabric.md): where a new job goes on the free
 * servers so that it slows the running jobs least (placeNewJob(): windows of free servers,
 * then the optimiser with the other jobs fixed). One row per candidate, the least harmful first:
 * its servers, each running job's slowdown, the new job's iteration shared and alone, and the
 * free servers and jobs of its size that would still fit; under it the fragmentation the
 * chosen row leaves, per leaf and NVLink domain. Apply adds the job on the chosen row's slots
 * (ScenarioDocument::addJob(), one undo step). The search runs when the dialog is given its
 * template; the document is not changed until Apply.
 */
class PlaceJobDialog : public QDialog
{
    Q_OBJECT

public:
    enum Column {
        ServersColumn,
        HowColumn,
        AddedColumn,
        NewJobColumn,
        FreeColumn,
        FitColumn,
        FixedColumns
    };

    PlaceJobDialog(ScenarioDocument *document, QWidget *parent = nullptr);

    /// Searches for `job` (from placeJobTemplate() or a file) and shows the candidates; on an
    /// error the message instead. Returns false on an error.
    bool search(const JobSpec &job, const PlaceJobOptions &options = {});
    /// The document's active job as the new job's template (a copy named after it, "-2").
    static JobSpec activeJobTemplate(const ScenarioDocument &document);

    const std::optional<NewJobPlacement> &placement() const { return m_placement; }
    QTableWidget *table() const { return m_table; }
    QPlainTextEdit *fragmentationText() const { return m_fragmentation; }
    QLabel *summaryLabel() const { return m_summary; }
    QPushButton *applyButton() const { return m_apply; }
    /// Adds the job on the selected row: one undo step. The document's message when refused.
    QString apply();

private:
    void showRow(int row);

    ScenarioDocument *m_document;
    QLabel *m_summary = nullptr;
    QTableWidget *m_table = nullptr;
    QPlainTextEdit *m_fragmentation = nullptr;
    QPushButton *m_apply = nullptr;
    std::optional<NewJobPlacement> m_placement;
};

} // namespace railyard
