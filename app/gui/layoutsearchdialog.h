#pragma once

#include "backgroundrun.h"
#include "optimise/layoutsearch.h"
#include "scenario/scenario.h"

#include <QDialog>
#include <QString>

#include <memory>

class QChartView;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QScatterSeries;
class QSortFilterProxyModel;
class QSpinBox;
class QTableView;
class QTimer;

namespace railyard {

class LayoutCandidateModel;

/**
 * Study ▸ Search Layouts…: the parallel-layout search (model/optimise/layoutsearch.h) for a
 * model, a device, a generated fabric of N GPUs, a global batch and a sequence length. Run
 * starts searchLayouts() on a thread of its own (it builds its own scenarios; the dialog never
 * touches a document); a timer at 5 Hz shows the candidates done, the evaluations per second and
 * the best throughput so far. Stop (or closing the dialog) cancels the search and waits for its
 * thread. The result fills a sortable table (QTableView over a QSortFilterProxyModel) of the top
 * rows and the Pareto front, and a Qt Charts scatter of throughput against memory headroom with
 * the front highlighted. Double-clicking a row asks for that candidate's scenario to be opened
 * as a new document (candidateOpened).
 */
class LayoutSearchDialog : public QDialog
{
    Q_OBJECT

public:
    static constexpr int kRefreshMs = 200;

    explicit LayoutSearchDialog(QWidget *parent = nullptr);
    ~LayoutSearchDialog() override; ///< cancels the search and waits for its thread

    /// The form's settings over the limits last set by setOptions() (the form holds model,
    /// device, fabric, GPUs, batch, sequence and rows kept).
    LayoutSearchOptions options() const;
    void setOptions(const LayoutSearchOptions &options);

    bool run(); ///< the Run button; false when a search runs
    void stop(); ///< the Stop button: cancels; what was evaluated is kept
    bool isRunning() const { return m_worker.isRunning(); }
    /// Processes events until the search has finished and its result is shown (tests).
    bool waitForFinished(int timeoutMs);

    bool hasResult() const { return static_cast<bool>(m_result); }
    const LayoutSearchResult &searchResult() const { return *m_result; }
    QString errorText() const { return m_error; }

    /// The candidate shown in row `viewRow` of the (sorted) table; nullptr when out of range.
    const LayoutCandidate *candidateAt(int viewRow) const;
    /// That candidate applied to the search's base scenario (what a double-click opens).
    Scenario scenarioAt(int viewRow) const;
    /// Double-click on a table row: announces scenarioAt(row).
    void openRow(int viewRow);

    QComboBox *modelBox() const { return m_model; }
    QComboBox *deviceBox() const { return m_device; }
    QComboBox *fabricBox() const { return m_fabric; }
    QSpinBox *gpusBox() const { return m_gpus; }
    QSpinBox *batchBox() const { return m_batch; }
    QSpinBox *seqBox() const { return m_seq; }
    QSpinBox *topBox() const { return m_top; }
    QPushButton *runButton() const { return m_run; }
    QPushButton *stopButton() const { return m_stop; }
    QProgressBar *progressBar() const { return m_progress; }
    QLabel *statusLabel() const { return m_status; }
    QTableView *table() const { return m_table; }
    QSortFilterProxyModel *proxy() const { return m_proxy; }
    LayoutCandidateModel *candidateModel() const { return m_rows; }
    QChartView *chartView() const { return m_chart; }
    QScatterSeries *frontSeries() const { return m_frontSeries; }
    QScatterSeries *otherSeries() const { return m_otherSeries; }

public Q_SLOTS:
    void reject() override; ///< cancels and joins a running search first

Q_SIGNALS:
    /// A candidate was double-clicked: its scenario, to open as a new document.
    void candidateOpened(const railyard::Scenario &scenario);
    void runningChanged(bool running);

private:
    struct Shared;

    void poll();
    void onWorkerFinished();
    void stopAndJoin();
    void showResult();
    void updateButtons();

    LayoutSearchOptions m_limits; ///< the enumeration limits (not on the form)
    LayoutSearchOptions m_running;
    std::shared_ptr<Shared> m_shared; ///< the progress the worker writes and poll() reads
    BackgroundRun<LayoutSearchResult> m_worker;
    QTimer *m_timer = nullptr;
    std::unique_ptr<LayoutSearchResult> m_result;
    QString m_error;

    QComboBox *m_model = nullptr;
    QComboBox *m_device = nullptr;
    QComboBox *m_fabric = nullptr;
    QSpinBox *m_gpus = nullptr;
    QSpinBox *m_batch = nullptr;
    QSpinBox *m_seq = nullptr;
    QSpinBox *m_top = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_stop = nullptr;
    QPushButton *m_close = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QTableView *m_table = nullptr;
    LayoutCandidateModel *m_rows = nullptr;
    QSortFilterProxyModel *m_proxy = nullptr;
    QChartView *m_chart = nullptr;
    QScatterSeries *m_frontSeries = nullptr;
    QScatterSeries *m_otherSeries = nullptr;
};

} // namespace railyard
