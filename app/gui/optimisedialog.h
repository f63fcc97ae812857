#pragma once

#include "backgroundrun.h"
#include "optimise/optimiseresult.h"
#include "scenario/scenario.h"

#include <QDialog>
#include <QElapsedTimer>
#include <QString>

#include <memory>
#include <vector>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QTimer;

namespace railyard {

/**
 * Study ▸ Optimise Placement…: the placement optimiser (model/optimise/optimiser.h) on a copy of
 * the document's scenario. The form sets the objective, the constraint, the start, the seed and
 * a budget (seconds or evaluated moves; moves alone make the run the same on every machine).
 * Run starts optimise() on a thread of its own with its own copy of the scenario (the engine is
 * not thread-safe and the dialog never touches a document); a timer at 5 Hz reads what the
 * search monitor left behind and shows the progress, the moves per second and the best value so
 * far, and announces the best mapping so far (bestMappingChanged) for the caller to preview on
 * the fabric. Stop ends the search early and keeps its best mapping as the result; Cancel (Esc,
 * the window's close button) stops the search, waits for its thread and rejects; Apply accepts
 * once a search has finished. The caller applies optimiseResult().
 */
class OptimiseDialog : public QDialog
{
    Q_OBJECT

public:
    /// The announcement of the best mapping so far is at most this often (ms).
    static constexpr int kRefreshMs = 200;

    explicit OptimiseDialog(const Scenario &scenario, QWidget *parent = nullptr);
    /// Stops the search and waits for its thread.
    ~OptimiseDialog() override;

    /// The settings the form shows now (a budget in moves sets seconds to 0, one in seconds
    /// sets maxMoves to 0).
    OptimiseOptions options() const;
    /// Fills the form (a script, the tests): maxMoves > 0 selects a budget in moves, else one in
    /// seconds.
    void setOptions(const OptimiseOptions &options);

    /// Starts the search with the form's settings (the Run button). False when one runs.
    bool run();
    /// Asks the running search to stop; its best mapping becomes the result (the Stop button).
    void stop();
    bool isRunning() const;
    /// Processes events until the search has finished and its result is shown; false on
    /// timeout (tests, the screenshot tool).
    bool waitForFinished(int timeoutMs);

    /// A search finished (stopped or not) and its result can be applied.
    bool hasResult() const { return static_cast<bool>(m_result); }
    /// The last finished search (meaningful when hasResult()).
    const OptimiseResult &optimiseResult() const { return *m_result; }
    /// The engine's message when the last search was refused (a constraint the layout cannot
    /// meet, a preset without enough healthy slots); empty otherwise.
    QString errorText() const { return m_error; }
    /// "1.234 s" for the time objectives, "12.3 GB" for spine bytes.
    static QString objectiveValueText(Objective objective, double value);

    QComboBox *objectiveBox() const { return m_objective; }
    QComboBox *keepBox() const { return m_keep; }
    QComboBox *startBox() const { return m_start; }
    QSpinBox *seedBox() const { return m_seed; }
    QComboBox *budgetKindBox() const { return m_budgetKind; }
    QDoubleSpinBox *secondsBox() const { return m_seconds; }
    QSpinBox *movesBox() const { return m_moves; }
    QPushButton *runButton() const { return m_run; }
    QPushButton *stopButton() const { return m_stop; }
    QPushButton *applyButton() const { return m_apply; }
    QPushButton *cancelButton() const { return m_cancel; }
    QProgressBar *progressBar() const { return m_progress; }
    QLabel *statusLabel() const { return m_status; }
    QPlainTextEdit *reportView() const { return m_report; }

public Q_SLOTS:
    void accept() override; ///< only with a result and no search running
    void reject() override; ///< stops and joins a running search first

Q_SIGNALS:
    /// The best mapping so far (rank -> slot), at most every kRefreshMs while a search runs,
    /// and the result's when it finishes.
    void bestMappingChanged(const std::vector<int> &slots);
    void runningChanged(bool running);

private:
    struct Shared;

    void poll();
    void onWorkerFinished();
    void stopAndJoin();
    void updateButtons();
    void showBudgetKind();

    Scenario m_scenario;
    std::shared_ptr<Shared> m_shared; ///< the progress the worker writes and poll() reads
    BackgroundRun<OptimiseResult> m_worker;
    QTimer *m_timer = nullptr;
    QElapsedTimer m_clock;
    OptimiseOptions m_running; ///< the options of the search running or last run
    std::unique_ptr<OptimiseResult> m_result;
    QString m_error;

    QComboBox *m_objective = nullptr;
    QComboBox *m_keep = nullptr;
    QComboBox *m_start = nullptr;
    QSpinBox *m_seed = nullptr;
    QComboBox *m_budgetKind = nullptr;
    QDoubleSpinBox *m_seconds = nullptr;
    QSpinBox *m_moves = nullptr;
    QPushButton *m_run = nullptr;
    QPushButton *m_stop = nullptr;
    QPushButton *m_apply = nullptr;
    QPushButton *m_cancel = nullptr;
    QProgressBar *m_progress = nullptr;
    QLabel *m_status = nullptr;
    QPlainTextEdit *m_report = nullptr;
};

} // namespace railyard
