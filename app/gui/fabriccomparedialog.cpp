#include "fabriccomparedialog.h"

#include "base/scenarioerror.h"
#include "chartstyle.h"
#include "studies/bomreport.h"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineSeries>
#include <QPushButton>
#include <QScatterSeries>
#include <QSplitter>
#include <QTableWidget>
#include <QToolTip>
#include <QVBoxLayout>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <limits>

namespace railyard {

namespace {

/// Capital on the chart's x axis, in millions of dollars.
constexpr double kFabricCompareUsdPerUnit = 1e6;

QString fabricCompareText(const std::string &s)
{
    return QString::fromStdString(s);
}

/// The figures of a row; `who` names the worst job of a mix ("job b: "), empty for one job.
QString fabricCompareFigures(const FabricDesignResult &r, const QString &who)
{
    // `who` is prepended, not a %9: "%9%1" would read the iteration's first digit as "%92".
    return who
        + FabricCompareDialog::tr("%1 s per iteration (%2 % against non-blocking "
                                  "rail-optimised), %3 switches, capital %4 (network %5), "
                                  "network power %6, %7 and %8 kWh per iteration")
              .arg(r.iterationSeconds, 0, 'f', 3)
              .arg(100.0 * r.slowdown, 0, 'f', 1)
              .arg(r.switches)
              .arg(fabricCompareText(formatUsd(r.capexUsd)),
                  fabricCompareText(formatUsd(r.networkCapexUsd)),
                  fabricCompareText(formatWatts(r.networkPowerW)),
                  fabricCompareText(formatUsd(r.usdPerIteration)))
              .arg(r.kwhPerIteration, 0, 'f', 3);
}

} // namespace

FabricCompareDialog::FabricCompareDialog(const Scenario &job, QWidget *parent)
    : QDialog(parent)
    , m_jobs { job }
{
    setObjectName(QStringLiteral("fabricCompareDialog"));
    setWindowTitle(tr("Compare Fabrics"));
    auto *layout = new QVBoxLayout(this);
    const QString what = job.jobs.empty()
        ? tr("The open job on each fabric design, re-placed by its placement the way generate "
             "places ranks, evaluated with the cost engine and priced with the bill of "
             "materials.")
        : tr("The open scenario's %1 jobs on each fabric design, each on its own slots, "
             "evaluated sharing the fabric (phases overlap: worst, as in the Jobs dock) and "
             "priced with the bill of materials; a design's slowdown is its worst job's, "
             "against that job in the mix on the non-blocking rail-optimised fabric.")
              .arg(job.jobs.size());
    auto *intro = new QLabel(what
            + tr(" The document is not touched; double-click a row or click a point to open "
                 "that design as a new one."),
        this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("fabricCompareStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    auto *split = new QSplitter(Qt::Vertical, this);
    m_table = new QTableWidget(split);
    m_table->setObjectName(QStringLiteral("fabricCompareTable"));
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->setVisible(false);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip(tr("Double-click a row to open the job on that design as a new document"));
    connect(
        m_table, &QTableWidget::cellDoubleClicked, this, [this](int row, int) { openRow(row); });

    m_chart = new QChartView(split);
    m_chart->setObjectName(QStringLiteral("fabricCompareChart"));
    m_chart->setMinimumHeight(220);
    split->addWidget(m_table);
    split->addWidget(m_chart);
    layout->addWidget(split, 1);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    auto *close = new QPushButton(tr("Close"), this);
    close->setObjectName(QStringLiteral("fabricCompareClose"));
    close->setToolTip(tr("Close the comparison; the document is unchanged"));
    connect(close, &QPushButton::clicked, this, &QDialog::reject);
    buttons->addWidget(close);
    layout->addLayout(buttons);

    QApplication::setOverrideCursor(Qt::WaitCursor);
    try {
        m_jobs = fabricJobsOf(job);
        m_comparison = compareFabrics(m_jobs, standardDesigns(m_jobs.scenario));
    } catch (const ScenarioError &e) {
        m_error = fabricCompareText(e.field().empty() ? e.reason() : e.field() + ": " + e.reason());
    }
    QApplication::restoreOverrideCursor();
    fillTable();
    fillChart();
    if (!m_error.isEmpty())
        m_status->setText(tr("No comparison: %1").arg(m_error));
    else
        m_status->setText(tr("Current fabric: %1. Catalogue: %2.")
                              .arg(currentText(), fabricCompareText(m_comparison.catalogueName)));
    resize(900, 640);
}

Scenario FabricCompareDialog::scenarioAt(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_comparison.rows.size()))
        return {};
    return jobOnDesign(m_jobs.scenario, m_comparison.rows[static_cast<std::size_t>(row)].design);
}

void FabricCompareDialog::openRow(int row)
{
    if (row < 0 || row >= static_cast<int>(m_comparison.rows.size()))
        return;
    if (!m_comparison.rows[static_cast<std::size_t>(row)].evaluated)
        return; // nothing to open: the builder or the engine refused it (the table says why)
    Q_EMIT designOpened(scenarioAt(row));
}

int FabricCompareDialog::rowAtPoint(const QPointF &point) const
{
    int best = -1;
    double bestDistance = std::numeric_limits<double>::infinity();
    for (std::size_t i = 0; i < m_comparison.rows.size(); ++i) {
        const FabricDesignResult &r = m_comparison.rows[i];
        if (!r.evaluated)
            continue;
        // Relative distance: the axes' units differ by orders of magnitude.
        const double dx = (r.capexUsd / kFabricCompareUsdPerUnit - point.x())
            / std::max(1e-12, std::abs(point.x()));
        const double dy = (r.iterationSeconds - point.y()) / std::max(1e-12, std::abs(point.y()));
        const double d = dx * dx + dy * dy;
        if (d < bestDistance) {
            bestDistance = d;
            best = static_cast<int>(i);
        }
    }
    // 1e-6: a point of the chart is the row's own figures, to rounding.
    return bestDistance <= 1e-6 ? best : -1;
}

QString FabricCompareDialog::pointText(int row) const
{
    if (row < 0 || row >= static_cast<int>(m_comparison.rows.size()))
        return {};
    const FabricDesignResult &r = m_comparison.rows[static_cast<std::size_t>(row)];
    if (!r.evaluated)
        return tr("%1: not evaluated (%2)")
            .arg(fabricCompareText(r.name), fabricCompareText(r.problem));
    return tr("%1: %2").arg(fabricCompareText(r.name), fabricCompareFigures(r, worstJobText(r)));
}

QString FabricCompareDialog::currentText() const
{
    const FabricDesignResult &c = m_comparison.current;
    if (!c.evaluated)
        return tr("%1, not evaluated (%2)")
            .arg(fabricCompareText(c.name), fabricCompareText(c.problem));
    return tr("%1: %2").arg(fabricCompareText(c.name), fabricCompareFigures(c, worstJobText(c)));
}

QString FabricCompareDialog::worstJobText(const FabricDesignResult &r) const
{
    if (!m_jobs.isMix() || r.worstJob < 0 || static_cast<std::size_t>(r.worstJob) >= m_jobs.count())
        return {};
    return tr("job %1: ")
        .arg(fabricCompareText(m_jobs.jobName(static_cast<std::size_t>(r.worstJob))));
}

void FabricCompareDialog::fillTable()
{
    const QStringList headers { tr("Design"), tr("Iteration (s)"), tr("Slowdown"), tr("Switches"),
        tr("Capital"), tr("Network capital"), tr("Network power"), tr("$ / iteration"),
        tr("kWh / iteration") };
    m_table->setColumnCount(static_cast<int>(headers.size()));
    m_table->setHorizontalHeaderLabels(headers);
    m_table->setRowCount(static_cast<int>(m_comparison.rows.size()));
    const std::vector<std::size_t> front = paretoFront(m_comparison.rows);
    for (std::size_t i = 0; i < m_comparison.rows.size(); ++i) {
        const FabricDesignResult &r = m_comparison.rows[i];
        const int row = static_cast<int>(i);
        const bool onFront = std::find(front.begin(), front.end(), i) != front.end();
        auto *name
            = new QTableWidgetItem(fabricCompareText(r.name) + (onFront ? tr(" (front)") : ""));
        name->setToolTip(pointText(row));
        m_table->setItem(row, 0, name);
        if (!r.evaluated) {
            m_table->setItem(row, 1,
                new QTableWidgetItem(tr("not evaluated: %1").arg(fabricCompareText(r.problem))));
            continue;
        }
        // A mix names the job that sets the slowdown ("3.10 % (b)").
        const QString worst = worstJobText(r);
        const QString slowdown
            = QStringLiteral("%1 %").arg(
                  std::abs(r.slowdown) < 5e-5 ? 0.0 : 100.0 * r.slowdown, 0, 'f', 2)
            + (worst.isEmpty() ? QString()
                               : QStringLiteral(" (%1)").arg(fabricCompareText(
                                   m_jobs.jobName(static_cast<std::size_t>(r.worstJob)))));
        const QStringList cells { QString::number(r.iterationSeconds, 'f', 3), slowdown,
            QString::number(r.switches), fabricCompareText(formatUsd(r.capexUsd)),
            fabricCompareText(formatUsd(r.networkCapexUsd)),
            fabricCompareText(formatWatts(r.networkPowerW)),
            fabricCompareText(formatUsd(r.usdPerIteration)),
            QString::number(r.kwhPerIteration, 'f', 3) };
        for (int c = 0; c < cells.size(); ++c) {
            auto *item = new QTableWidgetItem(cells[c]);
            item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, c + 1, item);
        }
    }
    m_table->resizeColumnsToContents();
}

void FabricCompareDialog::fillChart()
{
    auto *chart = new QChart;
    chartstyle::apply(m_chart, chart, tr("Iteration time against capital cost"));
    m_designs = chartstyle::candidateSeries(chart, tr("designs"), 8.0);
    m_frontLine = new QLineSeries(chart);
    m_frontLine->setName(tr("Pareto front (time, capital)"));
    m_frontLine->setColor(QColor(0xd9, 0x48, 0x1c));
    m_front = chartstyle::frontSeries(chart, tr("on the front"));
    m_current = new QScatterSeries(chart);
    m_current->setName(tr("current fabric"));
    m_current->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    m_current->setMarkerSize(13.0);
    m_current->setColor(Qt::transparent);
    m_current->setBorderColor(QColor(0x1f, 0x5f, 0xbf));

    const std::vector<std::size_t> front = paretoFront(m_comparison.rows);
    double xMin = std::numeric_limits<double>::infinity(), xMax = 0.0;
    double yMin = std::numeric_limits<double>::infinity(), yMax = 0.0;
    const auto extend = [&](double x, double y) {
        xMin = std::min(xMin, x);
        xMax = std::max(xMax, x);
        yMin = std::min(yMin, y);
        yMax = std::max(yMax, y);
    };
    for (std::size_t i = 0; i < m_comparison.rows.size(); ++i) {
        const FabricDesignResult &r = m_comparison.rows[i];
        if (!r.evaluated)
            continue;
        const double x = r.capexUsd / kFabricCompareUsdPerUnit;
        extend(x, r.iterationSeconds);
        if (std::find(front.begin(), front.end(), i) == front.end())
            m_designs->append(x, r.iterationSeconds);
    }
    for (std::size_t i : front) {
        const FabricDesignResult &r = m_comparison.rows[i];
        m_front->append(r.capexUsd / kFabricCompareUsdPerUnit, r.iterationSeconds);
        m_frontLine->append(r.capexUsd / kFabricCompareUsdPerUnit, r.iterationSeconds);
    }
    if (m_comparison.current.evaluated) {
        const double x = m_comparison.current.capexUsd / kFabricCompareUsdPerUnit;
        m_current->append(x, m_comparison.current.iterationSeconds);
        extend(x, m_comparison.current.iterationSeconds);
    }
    auto *xAxis = new QValueAxis(chart);
    xAxis->setTitleText(tr("capital cost of the fabric ($M)"));
    xAxis->setLabelFormat(QStringLiteral("%.2f"));
    auto *yAxis = new QValueAxis(chart);
    yAxis->setTitleText(tr("iteration time (s)"));
    yAxis->setLabelFormat(QStringLiteral("%.3f"));
    if (xMax > 0.0) {
        // A 5 % margin so the extreme points are not cut by the frame.
        const double dx = std::max(1e-6, 0.05 * (xMax - xMin));
        const double dy = std::max(1e-6, 0.05 * (yMax - yMin));
        xAxis->setRange(xMin - dx, xMax + dx);
        yAxis->setRange(yMin - dy, yMax + dy);
        // Enough decimals that the ticks differ: designs a thousandth of a second apart are
        // common when the job hides its communication (at most microseconds).
        const int decimals = std::clamp(
            static_cast<int>(std::ceil(-std::log10(std::max(1e-6, yMax - yMin + 2.0 * dy)))) + 1, 3,
            6);
        yAxis->setLabelFormat(
            QStringLiteral("%.") + QString::number(decimals) + QStringLiteral("f"));
    }
    chart->addAxis(xAxis, Qt::AlignBottom);
    chart->addAxis(yAxis, Qt::AlignLeft);
    for (QXYSeries *s :
        std::initializer_list<QXYSeries *> { m_frontLine, m_designs, m_front, m_current }) {
        chart->addSeries(s);
        s->attachAxis(xAxis);
        s->attachAxis(yAxis);
    }
    for (QScatterSeries *s : { m_designs, m_front }) {
        connect(s, &QScatterSeries::hovered, this, &FabricCompareDialog::showHover);
        connect(s, &QScatterSeries::clicked, this,
            [this](const QPointF &p) { openRow(rowAtPoint(p)); });
    }
    connect(m_current, &QScatterSeries::hovered, this, [this](const QPointF &, bool state) {
        if (state)
            QToolTip::showText(QCursor::pos(), currentText(), m_chart);
        else
            QToolTip::hideText();
    });
}

void FabricCompareDialog::showHover(const QPointF &point, bool state)
{
    if (!state) {
        QToolTip::hideText();
        return;
    }
    QToolTip::showText(QCursor::pos(), pointText(rowAtPoint(point)), m_chart);
}

} // namespace railyard
