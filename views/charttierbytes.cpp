#include "charttierbytes.h"

#include "chartformat.h"
#include "cost/costreport.h"

#include <QBarSet>
#include <QValueAxis>

#include <algorithm>

namespace railyard {

namespace {

QStringList tierLabels()
{
    QStringList labels;
    for (const Tier t : kAllTiers)
        labels << QString::fromLatin1(tierName(t).data(), static_cast<int>(tierName(t).size()));
    return labels;
}

} // namespace

ChartTierBytes::ChartTierBytes(QWidget *parent)
    : ChartDimBars(tierLabels(), 1e9,
        tr("Bytes per tier and dimension (all directed links of a tier)"), parent)
{
    setObjectName(QStringLiteral("tierBytesChart"));
}

QString ChartTierBytes::segmentText(Dim d, int tier, double bytes) const
{
    return tr("%1 on %2 links: %3 per iteration")
        .arg(dimLabel(d), tierLabels().value(tier), chartformat::bytes(bytes));
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
            set(d)->replace(t,
                r.tierBytes[static_cast<std::size_t>(t)][static_cast<std::size_t>(index(d))]
                    / m_unit);
    setValueRange(maxStack, 1.08, tr("%1 per iteration").arg(unitName));
}

} // namespace railyard
