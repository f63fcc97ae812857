#pragma once

#include "scenario/calibrationspec.h"

#include <QWidget>

class QChartView;
class QLabel;
class QPushButton;
class QTableWidget;

namespace railyard {

class ScenarioDocument;

/**
 * The Calibration dock: measured nccl-tests busbw against the engine's, per run and size (log
 * size axis: measured points, the engine with its defaults dashed, calibrated solid), the
 * residual of every measurement with the fit's weight, and the fitted α and bandwidth per tier.
 * It shows a fit handed to setPending() (the app reads the logs and runs the fit) or, without
 * one, the document's own calibration; Accept puts the pending fit into the scenario and Revert
 * takes the calibration out, each one undo step through the document. It computes nothing.
 */
class CalibrationDock : public QWidget
{
    Q_OBJECT

public:
    explicit CalibrationDock(ScenarioDocument *doc, QWidget *parent = nullptr);

    /// A fit not applied yet; `source` says where its logs came from (shown).
    void setPending(const CalibrationSpec &spec, const QString &source);
    bool hasPending() const { return m_hasPending; }
    /// Drops the pending fit (it was fitted for a document that was replaced).
    void clearPending();
    /// What the dock shows: the pending fit, else the document's calibration.
    const CalibrationSpec &shown() const;

    void accept(); ///< the pending fit into the scenario (one undo step)
    void revert(); ///< the scenario without calibration (one undo step)

    QChartView *chartView() const { return m_chart; }
    QTableWidget *residualTable() const { return m_table; }
    QLabel *tiersLabel() const { return m_tiers; }
    QLabel *statusLabel() const { return m_status; }
    QPushButton *acceptButton() const { return m_accept; }
    QPushButton *revertButton() const { return m_revert; }

private:
    void refresh();
    void fillChart(const CalibrationSpec &spec);
    void fillTable(const CalibrationSpec &spec);

    ScenarioDocument *m_doc = nullptr;
    CalibrationSpec m_pending;
    bool m_hasPending = false;
    QString m_source;
    QChartView *m_chart = nullptr;
    QTableWidget *m_table = nullptr;
    QLabel *m_tiers = nullptr;
    QLabel *m_status = nullptr;
    QPushButton *m_accept = nullptr;
    QPushButton *m_revert = nullptr;
};

} // namespace railyard
