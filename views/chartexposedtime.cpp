#include "chartexposedtime.h"

#include "chartformat.h"
#include "chartstyle.h"
#include "cost/costreport.h"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QLegend>

#include <algorithm>

namespace railyard {

namespace {

QStringList dimLabels()
{
    QStringList labels;
    for (const Dim d : kAllDims)
        labels << QString::fromLatin1(dimName(d).data(), static_cast<int>(dimName(d).size()));
    return labels;
}

} // namespace

// A stacked series whose set d is non-zero only in category d: full-width bars, each in its
// dimension's colour (a single QBarSet has one colour).
ChartExposedTime::ChartExposedTime(QWidget *parent)
    : ChartDimBars(dimLabels(), 1e-3, tr("Exposed communication per dimension"), parent)
{
    setObjectName(QStringLiteral("exposedTimeChart"));
    chart()->legend()->hide();
}

QString ChartExposedTime::segmentText(Dim d, int, double seconds) const
{
    return tr("%1 exposed: %2 per iteration").arg(dimLabel(d), chartformat::seconds(seconds));
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
        for (int i = 0; i < kDimCount; ++i)
            set(d)->replace(i, i == index(d) ? v / m_unit : 0.0);
        // The time sits in the category label: bar labels would also print the zero segments.
        categories << QStringLiteral("%1 %2").arg(
            dimLabel(d), v > 0.0 ? chartformat::seconds(v) : QStringLiteral("–"));
    }
    m_x->setCategories(categories);
    setValueRange(hi, 1.1, tr("exposed time per iteration (%1)").arg(unitName));
    chartstyle::retitle(this,
        tr("Exposed communication per dimension — iteration %1")
            .arg(chartformat::seconds(r.iterationTime)));
}

} // namespace railyard
