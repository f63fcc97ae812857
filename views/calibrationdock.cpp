#include "calibrationdock.h"

#include "document/scenariodocument.h"
#include "io/nccltestslog.h"

#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <map>

namespace railyard {

namespace {

constexpr int kRunsCharted = 6; ///< more runs than this make the chart unreadable

/// nccl-tests busbw, GB/s: S / time x the bus factor (doc/PERFORMANCE.md).
double busbw(const CalibrationRun &r, long long bytes, double us)
{
    Collective op = Collective::AllReduce;
    parseCollective(r.collective, op);
    return us > 0.0 ? static_cast<double>(bytes) / us / 1e3
            * ncclTestsBusFactor(op, static_cast<int>(r.ranks.size()))
                    : 0.0;
}

QString sizeText(long long bytes)
{
    const char *units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
    double v = static_cast<double>(bytes);
    int u = 0;
    while (v >= 1024.0 && u < 4) {
        v /= 1024.0;
        ++u;
    }
    return QStringLiteral("%1 %2").arg(v, 0, 'g', 4).arg(QLatin1String(units[u]));
}

QColor runColor(int i)
{
    static const QColor colors[] = { QColor(0x1f, 0x77, 0xb4), QColor(0xd6, 0x27, 0x28),
        QColor(0x2c, 0xa0, 0x2c), QColor(0x94, 0x67, 0xbd), QColor(0xff, 0x7f, 0x0e),
        QColor(0x8c, 0x56, 0x4b) };
    return colors[i % 6];
}

} // namespace

CalibrationDock::CalibrationDock(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent)
    , m_doc(doc)
{
    setObjectName(QStringLiteral("calibrationPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("calibrationStatus"));
    m_status->setWordWrap(true);
    m_tiers = new QLabel(this);
    m_tiers->setObjectName(QStringLiteral("calibrationTiers"));
    m_tiers->setTextFormat(Qt::RichText);
    // Wrapped: one line of every fitted tier set the dock's minimum width, and opening the
    // dock widened the main window (1680 -> 1717 px).
    m_tiers->setWordWrap(true);
    auto *top = new QHBoxLayout;
    top->addWidget(m_status, 1);
    m_accept = new QPushButton(tr("Accept"), this);
    m_accept->setObjectName(QStringLiteral("calibrationAccept"));
    m_accept->setToolTip(tr("Use the fitted values in the scenario (one undo step)"));
    m_revert = new QPushButton(tr("Revert to Defaults"), this);
    m_revert->setObjectName(QStringLiteral("calibrationRevert"));
    m_revert->setToolTip(tr("Take the calibration out of the scenario (one undo step)"));
    top->addWidget(m_accept);
    top->addWidget(m_revert);
    layout->addLayout(top);
    layout->addWidget(m_tiers);

    auto *split = new QSplitter(Qt::Horizontal, this);
    auto *chart = new QChart;
    chart->setMargins(QMargins(2, 2, 2, 2));
    chart->legend()->setAlignment(Qt::AlignBottom);
    m_chart = new QChartView(chart, split);
    m_chart->setObjectName(QStringLiteral("calibrationChart"));
    m_chart->setRenderHint(QPainter::Antialiasing);
    m_chart->setMinimumSize(320, 200);
    m_table = new QTableWidget(0, 7, split);
    m_table->setObjectName(QStringLiteral("calibrationResiduals"));
    m_table->setHorizontalHeaderLabels({ tr("Run"), tr("Size"), tr("Measured (GB/s)"),
        tr("Default (GB/s)"), tr("Calibrated (GB/s)"), tr("Residual (%)"), tr("Weight (0-1)") });
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setToolTip(tr("busbw in GB/s (nccl-tests); residual = calibrated / measured − 1; "
                           "weight 0 = not used by the fit (between the latency and bandwidth "
                           "limits, or an outlier)"));
    split->addWidget(m_chart);
    split->addWidget(m_table);
    split->setStretchFactor(0, 3);
    split->setStretchFactor(1, 2);
    layout->addWidget(split, 1);

    connect(m_accept, &QPushButton::clicked, this, &CalibrationDock::accept);
    connect(m_revert, &QPushButton::clicked, this, &CalibrationDock::revert);
    connect(m_doc, &ScenarioDocument::scenarioChanged, this, &CalibrationDock::refresh);
    refresh();
}

void CalibrationDock::setPending(const CalibrationSpec &spec, const QString &source)
{
    m_pending = spec;
    m_hasPending = true;
    m_source = source;
    refresh();
}

void CalibrationDock::clearPending()
{
    m_pending = {};
    m_hasPending = false;
    m_source.clear();
    refresh();
}

const CalibrationSpec &CalibrationDock::shown() const
{
    return m_hasPending ? m_pending : m_doc->scenario().calibration;
}

void CalibrationDock::accept()
{
    if (!m_hasPending)
        return;
    Scenario next = m_doc->scenario();
    next.calibration = m_pending;
    m_hasPending = false;
    const QString error = m_doc->editScenario(next, tr("Accept Calibration"));
    if (!error.isEmpty()) {
        m_hasPending = true; // nothing changed: keep offering it
        m_status->setText(tr("Not applied: %1").arg(error));
    }
    refresh();
}

void CalibrationDock::revert()
{
    m_hasPending = false;
    if (!m_doc->scenario().calibration.empty()) {
        Scenario next = m_doc->scenario();
        next.calibration = {};
        m_doc->editScenario(next, tr("Revert Calibration"));
    }
    refresh();
}

void CalibrationDock::refresh()
{
    const CalibrationSpec &spec = shown();
    const bool applied = !m_doc->scenario().calibration.empty();
    m_accept->setEnabled(m_hasPending);
    m_revert->setEnabled(m_hasPending || applied);
    if (m_hasPending)
        m_status->setText(tr("Fitted on %1 run(s) from %2, not applied yet: Accept puts it into "
                             "the scenario.")
                              .arg(spec.runs.size())
                              .arg(m_source));
    else if (applied)
        m_status->setText(tr("The scenario is calibrated (measured %1): TP and DP collectives use "
                             "the fitted values.")
                              .arg(QString::fromStdString(spec.measuredAt)));
    else
        m_status->setText(tr("Not calibrated: every latency and bandwidth is a default. File ▸ "
                             "Import Measurements… reads nccl-tests logs of the exported plan."));
    QString tiers;
    for (const CalibratedTier &t : spec.tiers) {
        tiers += QStringLiteral("<b>%1</b> (%2): ")
                     .arg(QLatin1String(tierName(t.tier).data(), static_cast<qsizetype>(tierName(t.tier).size())),
                         t.algorithm.empty() ? tr("any algorithm") : QString::fromStdString(t.algorithm));
        tiers += t.stepLatencyUs >= 0.0
            ? tr("α %1 µs/step (default %2)").arg(t.stepLatencyUs, 0, 'f', 2).arg(t.defaultStepLatencyUs, 0, 'f', 2)
            : tr("α default");
        tiers += QStringLiteral(", ");
        tiers += t.bandwidthScale > 0.0
            ? tr("bandwidth %1 Gb/s per link (default %2)").arg(t.bandwidthGbps, 0, 'f', 0).arg(t.defaultBandwidthGbps, 0, 'f', 0)
            : tr("bandwidth default");
        tiers += tr(", R² %1 over %2 points<br>").arg(t.rSquared, 0, 'f', 3).arg(t.points);
    }
    m_tiers->setText(tiers);
    m_tiers->setVisible(!tiers.isEmpty());
    fillChart(spec);
    fillTable(spec);
}

void CalibrationDock::fillChart(const CalibrationSpec &spec)
{
    QChart *chart = m_chart->chart();
    chart->removeAllSeries();
    // removeAxis() hands the axis back to the caller (QChart's documentation): without the
    // delete every refresh leaked the two axes it replaced.
    for (QAbstractAxis *a : chart->axes()) {
        chart->removeAxis(a);
        delete a;
    }
    auto *x = new QLogValueAxis(chart);
    // One label per factor 1000 (1e+03 = kB, 1e+06 = MB, ...): a label every decade from 8 B
    // to 8 GB did not fit the dock's width and every label was elided to "1…".
    x->setBase(1000.0);
    x->setTitleText(tr("message size (bytes)"));
    x->setLabelFormat(QStringLiteral("%.0e"));
    x->setMinorTickCount(0);
    auto *y = new QValueAxis(chart);
    y->setTitleText(tr("busbw (GB/s)"));
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    double top = 1.0, lo = 1e300, hi = 0.0;
    int shown = 0;
    for (const CalibrationRun &r : spec.runs) {
        if (shown == kRunsCharted)
            break;
        const QColor c = runColor(shown++);
        auto *measured = new QScatterSeries(chart);
        measured->setName(tr("%1 measured").arg(QString::fromStdString(r.id)));
        measured->setMarkerSize(7.0);
        measured->setColor(c);
        auto *calibrated = new QLineSeries(chart);
        calibrated->setName(tr("calibrated"));
        calibrated->setPen(QPen(c, 2.0));
        auto *defaults = new QLineSeries(chart);
        defaults->setName(tr("default"));
        defaults->setPen(QPen(c, 1.2, Qt::DashLine));
        std::map<long long, const CalibrationPoint *> bySize;
        for (const CalibrationPoint &p : r.points) {
            measured->append(static_cast<double>(p.bytes), busbw(r, p.bytes, p.measuredUs));
            bySize.emplace(p.bytes, &p);
            top = std::max(top, busbw(r, p.bytes, p.measuredUs));
            lo = std::min(lo, static_cast<double>(p.bytes));
            hi = std::max(hi, static_cast<double>(p.bytes));
        }
        for (const auto &[bytes, p] : bySize) {
            calibrated->append(static_cast<double>(bytes), busbw(r, bytes, p->calibratedUs));
            defaults->append(static_cast<double>(bytes), busbw(r, bytes, p->defaultUs));
            top = std::max({ top, busbw(r, bytes, p->calibratedUs), busbw(r, bytes, p->defaultUs) });
        }
        for (QXYSeries *s : { static_cast<QXYSeries *>(measured), static_cast<QXYSeries *>(calibrated),
                 static_cast<QXYSeries *>(defaults) }) {
            chart->addSeries(s);
            s->attachAxis(x);
            s->attachAxis(y);
        }
    }
    if (hi > 0.0) {
        x->setRange(std::max(1.0, lo / 2.0), hi * 2.0);
        y->setRange(0.0, top * 1.1);
    }
}

void CalibrationDock::fillTable(const CalibrationSpec &spec)
{
    int rows = 0;
    for (const CalibrationRun &r : spec.runs)
        rows += static_cast<int>(r.points.size());
    m_table->setRowCount(rows);
    int row = 0;
    for (const CalibrationRun &r : spec.runs)
        for (const CalibrationPoint &p : r.points) {
            const double m = busbw(r, p.bytes, p.measuredUs);
            const double d = busbw(r, p.bytes, p.defaultUs);
            const double c = busbw(r, p.bytes, p.calibratedUs);
            const QStringList cells { QString::fromStdString(r.id), sizeText(p.bytes),
                QString::number(m, 'g', 4), QString::number(d, 'g', 4), QString::number(c, 'g', 4),
                QStringLiteral("%1 %").arg(100.0 * (p.measuredUs / p.calibratedUs - 1.0), 0, 'f', 1),
                QString::number(p.weight, 'f', 2) };
            for (int col = 0; col < cells.size(); ++col) {
                auto *item = new QTableWidgetItem(cells[col]);
                if (col >= 2)
                    item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
                if (p.weight == 0.0)
                    item->setForeground(QColor(0x88, 0x88, 0x88));
                m_table->setItem(row, col, item);
            }
            ++row;
        }
}

} // namespace railyard
