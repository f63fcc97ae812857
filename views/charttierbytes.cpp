#include "charttierbytes.h"

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

ChartTierBytes::ChartTierBytes(QWidget *parent)
    : QChartView(parent)
{
    setObjectName(QStringLiteral("tierBytesChart"));
    auto *chart = new QChart;
    m_series = new QStackedBarSeries(chart);
    for (const Dim d : kAllDims) {
        QBarSet *set = new QBarSet(
            QString::fromLatin1(dimName(d).data(), static_cast<int>(dimName(d).size())));
        set->setColor(chartpalette::dimColor(d));
        set->setBorderColor(chartpalette::dimColor(d).darker(130));
        for (int t = 0; t < kTierCount; ++t)
            set->append(0.0);
        m_sets[static_cast<std::size_t>(index(d))] = set;
        m_series->append(set);
        connect(set, &QBarSet::hovered, this, [this, d](bool state, int tier) {
            if (!state) {
                QToolTip::hideText();
                return;
            }
            const double v = m_sets[static_cast<std::size_t>(index(d))]->at(tier) * m_unit;
            QToolTip::showText(QCursor::pos(),
                tr("%1 on %2 links: %3 per iteration")
                    .arg(QString::fromLatin1(dimName(d).data()),
                        QString::fromLatin1(
                            tierName(kAllTiers[static_cast<std::size_t>(tier)]).data()),
                        chartformat::bytes(v)),
                this);
        });
    }
    m_series->setBarWidth(0.6);
    chart->addSeries(m_series);

    m_x = new QBarCategoryAxis(chart);
    for (const Tier t : kAllTiers)
        m_x->append(QString::fromLatin1(tierName(t).data(), static_cast<int>(tierName(t).size())));
    m_y = new QValueAxis(chart);
    m_y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(m_x, Qt::AlignBottom);
    chart->addAxis(m_y, Qt::AlignLeft);
    m_series->attachAxis(m_x);
    m_series->attachAxis(m_y);
    chartstyle::apply(
        this, chart, tr("Bytes per tier and dimension (all directed links of a tier)"));
}

void ChartTierBytes::setReport(const CostReport &r)
{
    double maxStack = 0.0;
    for (const DimArray &tier : r.tierBytes) {
        double sum = 0.0;
        for (const double b : tier)
            sum += b;
        maxStack = std::max(maxStack, sum);
    }
    // One decimal unit for the whole axis (formatBytes' units).
    m_unit = maxStack >= 1e12 ? 1e12 : maxStack >= 1e9 ? 1e9 : maxStack >= 1e6 ? 1e6 : 1e3;
    const QString unitName = m_unit == 1e12 ? QStringLiteral("TB")
        : m_unit == 1e9                     ? QStringLiteral("GB")
        : m_unit == 1e6                     ? QStringLiteral("MB")
                                            : QStringLiteral("kB");
    for (const Dim d : kAllDims)
        for (int t = 0; t < kTierCount; ++t)
            m_sets[static_cast<std::size_t>(index(d))]->replace(t,
                r.tierBytes[static_cast<std::size_t>(t)][static_cast<std::size_t>(index(d))]
                    / m_unit);
    m_y->setRange(0.0, maxStack > 0.0 ? maxStack / m_unit * 1.08 : 1.0);
    m_y->applyNiceNumbers();
    m_y->setTitleText(tr("%1 per iteration").arg(unitName));
}

} // namespace railyard
