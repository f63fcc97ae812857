#pragma once

#include "io/computecalibration.h"

#include <optional>

#include <QFrame>

class QLabel;

namespace railyard {

class ScenarioDocument;
struct CostReport;

/** The per-rank memory a summary shows against a device's HBM. */
struct MemoryShown
{
    double used = 0.0; ///< bytes per rank
    double capacity = 0.0; ///< the HBM it must fit
    QString device; ///< " (h100-sxm)" with mixed devices, else empty
};
/// The largest per-rank memory against `deviceHbm`; with mixed devices (docs/mixed-devices.md)
/// the stage closest to its own ranks' smallest HBM, that device named.
MemoryShown memoryShown(const CostReport &report, double deviceHbm);

/**
 * One compact row of the numbers a design review starts from: iteration time, MFU, bubble,
 * the bottleneck link (name, tier, dominant dimension, utilisation), spine share, the largest
 * per-rank memory against the device's HBM, the mapping warnings (count; the list in the
 * tooltip) and which calibrations are active: the network's (fitted on nccl-tests runs, from
 * the scenario's calibration section) and the compute's (fitted on a training run's measured
 * step, setComputeCalibration()), each with where it came from. Straight from the document's
 * report and engine. The columns keep their widths
 * whatever the values (a long bottleneck name is elided, in full in its tooltip).
 */
class SummaryBar : public QFrame
{
    Q_OBJECT

public:
    explicit SummaryBar(ScenarioDocument *doc, QWidget *parent = nullptr);

    QLabel *iterationLabel() const { return m_iteration; }
    QLabel *mfuLabel() const { return m_mfu; }
    QLabel *bubbleLabel() const { return m_bubble; }
    QLabel *bottleneckLabel() const { return m_bottleneck; }
    QLabel *spineLabel() const { return m_spine; }
    QLabel *memoryLabel() const { return m_memory; }
    QLabel *warningsLabel() const { return m_warnings; }
    /// What an inference scenario's KV overlay colours the links by, for the summary to show
    /// instead of the training step's figures (the fabric then shows KV load, not training load).
    struct KvFigures
    {
        double ttft = 0.0, tpot = 0.0, endToEnd = 0.0; ///< seconds
        QString hottestLink; ///< empty when no link carries KV
        double hottestUtilisation = 0.0; ///< busy share, at most 1
        double hottestOffered = 0.0; ///< offered load; above 1 the link cannot keep up
        double requestRate = 0.0;
    };
    void setKvFigures(const KvFigures &figures);
    void clearKvFigures();
    bool showsKvFigures() const { return m_kv.has_value(); }
    /// Several jobs on the fabric (docs/shared-fabric.md): the job on show, in its hue, with its
    /// iteration shared with the others and its slowdown over alone (evaluateJobs()), first in
    /// the row; the other columns are its own (alone). clearJob() hides it (one job).
    void setJob(const QString &name, const QColor &hue, double shared, double alone, int jobs);
    void clearJob();
    QLabel *jobLabel() const { return m_job; }
    /// The bottleneck (or hottest KV) link's name the bar shows, in full.
    QString bottleneckName() const { return m_bottleneckName; }

    /// Shown while the scenario has a network calibration: "network · nccl-tests", its runs and
    /// date (the tooltip lists the calibrated tiers and the logs).
    QLabel *calibratedBadge() const { return m_calibrated; }
    /// The compute calibration fitted on a training run in this session (nullopt: none). Its
    /// badge shows while the scenario's device carries its efficiency (an undo takes it off).
    void setComputeCalibration(const std::optional<ComputeCalibration> &calibration);
    /// "compute · FILE" over "DEVICE · STACK · DATE", while the compute calibration is active.
    QLabel *computeBadge() const { return m_computeBadge; }

protected:
    void resizeEvent(QResizeEvent *event) override;
    void changeEvent(QEvent *event) override;
    void showEvent(QShowEvent *event) override; ///< in its dock now: the dock takes its height
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void refresh();
    /// The name whole, never elided: on one line with its detail when the column has room,
    /// else without the detail (the tooltip keeps it), else broken after its "->" over the
    /// item's two lines (the caption before the first half), the column widened to the
    /// longer line if need be.
    void showBottleneck();
    void fitColumns(); ///< each column's width from the widest value it shows, in this font
    void fitHeight(); ///< the two-line height, in this font
    QLabel *addItem(const QString &objectName);

    ScenarioDocument *m_doc = nullptr;
    QLabel *m_job = nullptr;
    QLabel *m_iteration = nullptr;
    QLabel *m_mfu = nullptr;
    QLabel *m_bubble = nullptr;
    QLabel *m_bottleneck = nullptr;
    QLabel *m_spine = nullptr;
    QLabel *m_memory = nullptr;
    QLabel *m_warnings = nullptr;
    QLabel *m_evaluating = nullptr;
    QLabel *m_calibrated = nullptr;
    QLabel *m_computeBadge = nullptr;
    std::optional<ComputeCalibration> m_compute;
    QString m_bottleneckName;
    QString m_bottleneckDetail;
    int m_bottleneckFull = 0;
    std::optional<KvFigures> m_kv;
    int m_warningCount = 0;
    /// The window width at which "Mapping warnings: 0" made way for the bottleneck's name
    /// (a narrow screen in presentation type); 0 while it shows.
    int m_warningsHiddenAt = 0;
};

} // namespace railyard
