#pragma once

#include "studies/trainingcomparison.h"

#include <QWidget>

#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QTableWidget;

namespace railyard {

class ElidedLabel;

/**
 * The "Measured vs Predicted" dock: for the training log or trace picked in its list, a table
 * of the step and its parts (compute, each dimension's exposed communication) with the measured
 * time, the engine's and the engine's error, and the "why is this step slower than predicted"
 * line. Everything it shows is the study's (studies/trainingcomparison.h's MeasuredRunView),
 * composed from the engine's figures; the panel only formats it. "Fit Compute to This Step"
 * asks the application to carry the measured step into a compute calibration.
 */
class MeasuredPanel : public QWidget
{
    Q_OBJECT

public:
    explicit MeasuredPanel(QWidget *parent = nullptr);

    /// Shows `runs` (none: a hint to import a file), keeping the picked file when it is still
    /// there.
    void setRuns(const std::vector<MeasuredRunView> &runs);
    /// No run, and `message` where the file's name goes (the files no longer fit the scenario).
    void showMessage(const QString &message);
    /// The run shown (index into the last setRuns()), -1 when there is none.
    int currentRun() const;

    QComboBox *runBox() const { return m_runs; }
    QTableWidget *table() const { return m_table; }
    QLabel *whyLabel() const { return m_why; }
    /// The file, its format, rank and stage, the step drawn: one line, elided (full in its
    /// tooltip).
    ElidedLabel *headerLabel() const { return m_header; }
    QPushButton *fitButton() const { return m_fit; }

    /// "+12.3 %": the engine's error as the table writes it.
    static QString errorText(double fraction);

Q_SIGNALS:
    /// "Fit Compute to This Step" on run `run`.
    void fitRequested(int run);

private:
    void showRun();

    std::vector<MeasuredRunView> m_data;
    QComboBox *m_runs = nullptr;
    ElidedLabel *m_header = nullptr;
    QTableWidget *m_table = nullptr;
    QLabel *m_why = nullptr;
    QPushButton *m_fit = nullptr;
};

} // namespace railyard
