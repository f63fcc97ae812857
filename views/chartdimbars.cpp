#include "chartdimbars.h"

#include "chartpalette.h"
#include "chartstyle.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QCursor>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>

namespace railyard {

ChartDimBars::ChartDimBars(
    const QStringList &categories, double unit, const QString &title, QWidget *parent)
    : QChartView(parent)
    , m_unit(unit)
{
    auto *chart = new QChart;
    m_series = new QStackedBarSeries(chart);
    for (const Dim d : kAllDims) {
        QBarSet *s = new QBarSet(dimLabel(d));
        s->setColor(chartpalette::dimColor(d));
        s->setBorderColor(chartpalette::dimColor(d).darker(130));
        for (int i = 0; i < categories.size(); ++i)
            s->append(0.0);
        m_sets[static_cast<std::size_t>(index(d))] = s;
        m_series->append(s);
        connect(s, &QBarSet::hovered, this, [this, d](bool state, int category) {
            if (!state) {
                QToolTip::hideText();
                return;
            }
            QToolTip::showText(
                QCursor::pos(), segmentText(d, category, set(d)->at(category) * m_unit), this);
        });
    }
    m_series->setBarWidth(0.6);
    chart->addSeries(m_series);

    m_x = new QBarCategoryAxis(chart);
    m_x->append(categories);
    m_y = new QValueAxis(chart);
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    m_series->attachAxis(m_x);
    m_series->attachAxis(m_y);
    chartstyle::apply(this, chart, title);
}

void ChartDimBars::setValueRange(double maxValue, double headroom, const QString &title)
{
    m_y->setRange(0.0, maxValue > 0.0 ? maxValue / m_unit * headroom : 1.0);
    m_y->applyNiceNumbers();
    m_y->setTitleText(title);
}

QString ChartDimBars::dimLabel(Dim d)
{
    return QString::fromLatin1(dimName(d).data(), static_cast<int>(dimName(d).size()));
}

} // namespace railyard
