#include "chartexposedtime.h"

#include "chartformat.h"
#include "chartpalette.h"
#include "chartstyle.h"
#include "costreport.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>

namespace railyard {

namespace {

QString dimLabel(Dim d)
{
    return QString::fromLatin1(dimName(d).data(), static_cast<int>(dimName(d).size()));
}

} // namespace

ChartExposedTime::ChartExposedTime(QWidget *parent)
    : QChartView(parent)
{
    setObjectName(QStringLiteral("exposedTimeChart"));
    auto *chart = new QChart;
    // A stacked series whose set d is non-zero only in category d: full-width bars, each in
    // its dimension's colour (a single QBarSet has one colour).
    m_series = new QStackedBarSeries(chart);
    for (const Dim d : kAllDims) {
        QBarSet *set = new QBarSet(dimLabel(d));
        set->setColor(chartpalette::dimColor(d));
        set->setBorderColor(chartpalette::dimColor(d).darker(130));
        for (int i = 0; i < kDimCount; ++i)
            set->append(0.0);
        m_sets[static_cast<std::size_t>(index(d))] = set;
        m_series->append(set);
        connect(set, &QBarSet::hovered, this, [this, d](bool state, int) {
            if (!state) {
                QToolTip::hideText();
                return;
            }
            QToolTip::showText(QCursor::pos(),
                tr("%1 exposed: %2 per iteration")
                    .arg(dimLabel(d),
                        chartformat::seconds(
                            m_sets[static_cast<std::size_t>(index(d))]->at(index(d)) * m_unit)),
                this);
        });
    }
    m_series->setBarWidth(0.6);
    chart->addSeries(m_series);
    chart->legend()->hide();

    m_x = new QBarCategoryAxis(chart);
    for (const Dim d : kAllDims)
        m_x->append(dimLabel(d));
    m_y = new QValueAxis(chart);
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    m_series->attachAxis(m_x);
    m_series->attachAxis(m_y);
    chartstyle::apply(this, chart, tr("Exposed communication per dimension"));
}

void ChartExposedTime::setReport(const CostReport &r)
{
    double hi = 0.0;
    for (const double t : r.dimExposed)
        hi = std::max(hi, t);
    m_unit = hi >= 1.0 ? 1.0 : hi >= 1e-3 ? 1e-3 : 1e-6;
    const QString unitName = m_unit == 1.0 ? QStringLiteral("s")
        : m_unit == 1e-3                   ? QStringLiteral("ms")
                                           : QStringLiteral("µs");
    QStringList categories;
    for (const Dim d : kAllDims) {
        const double v = r.dimExposed[static_cast<std::size_t>(index(d))];
        QBarSet *set = m_sets[static_cast<std::size_t>(index(d))];
        for (int i = 0; i < kDimCount; ++i)
            set->replace(i, i == index(d) ? v / m_unit : 0.0);
        // The time sits in the category label: bar labels would also print the zero segments.
        categories << QStringLiteral("%1 %2").arg(
            dimLabel(d), v > 0.0 ? chartformat::seconds(v) : QStringLiteral("–"));
    }
    m_x->setCategories(categories);
    m_y->setRange(0.0, hi > 0.0 ? hi / m_unit * 1.1 : 1.0);
    m_y->applyNiceNumbers();
    m_y->setTitleText(tr("exposed time per iteration (%1)").arg(unitName));
    chart()->setTitle(tr("Exposed communication per dimension — iteration %1")
                          .arg(chartformat::seconds(r.iterationTime)));
}

} // namespace railyard
