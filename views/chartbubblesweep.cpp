#include "chartbubblesweep.h"

#include "chartformat.h"
#include "chartpalette.h"
#include "chartstyle.h"
#include "cost/costengine.h"

#include <QChart>
#include <QCursor>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <QToolTip>
#include <QValueAxis>

#include <algorithm>
#include <cmath>
#include <utility>

namespace railyard {

ChartBubbleSweep::ChartBubbleSweep(QWidget *parent)
    : QChartView(parent)
{
    setObjectName(QStringLiteral("bubbleSweepChart"));
    auto *chart = new QChart;
    m_curve = new QLineSeries(chart);
    m_curve->setName(tr("bubble fraction"));
    m_curve->setPen(QPen(chartpalette::forwardColor(), 2.0));
    m_curve->setPointsVisible(true);
    m_current = new QScatterSeries(chart);
    m_current->setMarkerSize(13.0);
    m_current->setColor(chartpalette::badColor());
    m_current->setBorderColor(Qt::white);
    chart->addSeries(m_curve);
    chart->addSeries(m_current);

    auto *y = new QValueAxis(chart);
    y->setTitleText(tr("bubble (% of stage-time idle)"));
    y->setLabelFormat(QStringLiteral("%.3g"));
    chart->addAxis(y, Qt::AlignLeft);
    m_curve->attachAxis(y);
    m_current->attachAxis(y);
    m_y = y;
    chartstyle::apply(this, chart, tr("Bubble versus micro-batches"));
    setXAxis(false, 1.0, 16.0);

    connect(m_curve, &QLineSeries::hovered, this, [this](const QPointF &p, bool state) {
        if (!state) {
            QToolTip::hideText();
            return;
        }
        // The nearest sweep point to the cursor.
        const BubbleSweepPoint *best = nullptr;
        for (const BubbleSweepPoint &pt : m_points)
            if (pt.valid
                && (!best
                    || std::abs(pt.microbatches - p.x()) < std::abs(best->microbatches - p.x())))
                best = &pt;
        if (best)
            QToolTip::showText(QCursor::pos(),
                tr("m = %1: bubble %2, makespan %3, iteration %4")
                    .arg(best->microbatches)
                    .arg(chartformat::percent(best->bubbleFraction),
                        chartformat::seconds(best->makespan),
                        chartformat::seconds(best->iterationTime)),
                this);
    });
}

void ChartBubbleSweep::setXAxis(bool logarithmic, double lo, double hi)
{
    QChart *c = chart();
    if (m_x) {
        m_curve->detachAxis(m_x);
        m_current->detachAxis(m_x);
        c->removeAxis(m_x);
        delete m_x;
        m_x = nullptr;
    }
    if (logarithmic) {
        auto *ax = new QLogValueAxis(c);
        ax->setBase(2.0);
        ax->setLabelFormat(QStringLiteral("%g"));
        ax->setRange(lo, hi);
        m_x = ax;
    } else {
        auto *ax = new QValueAxis(c);
        ax->setLabelFormat(QStringLiteral("%d"));
        ax->setRange(lo, hi);
        ax->setTickType(QValueAxis::TicksDynamic);
        // Integer 1-2-5 steps, about eight ticks.
        const double raw = std::max(1.0, (hi - lo) / 8.0);
        const double mag = std::pow(10.0, std::floor(std::log10(raw)));
        const double step = raw <= mag ? mag
            : raw <= 2 * mag           ? 2 * mag
            : raw <= 5 * mag           ? 5 * mag
                                       : 10 * mag;
        ax->setTickAnchor(0.0);
        ax->setTickInterval(step);
        m_x = ax;
    }
    m_x->setTitleText(tr("micro-batches per replica (m)"));
    c->addAxis(m_x, Qt::AlignBottom);
    m_curve->attachAxis(m_x);
    m_current->attachAxis(m_x);
}

void ChartBubbleSweep::setEngine(const CostEngine &engine)
{
    const int m = engine.plan().microbatches;
    // Everything the sweep depends on; a swap that leaves the stage and boundary times alone
    // (the common case while dragging) does not re-run ~50 schedules.
    const CostReport &rep = engine.report();
    const PipelineInput in = bubbleSweepInput(engine, m);
    std::vector<double> key { static_cast<double>(static_cast<int>(in.kind)),
        static_cast<double>(in.stages), static_cast<double>(in.chunks), static_cast<double>(m),
        rep.dpSyncTime, engine.scenario().training.dpOverlap ? 1.0 : 0.0 };
    for (const StageCompute &c : engine.plan().stages)
        key.push_back(c.optimizerTime);
    for (const std::vector<double> *v : { &in.forward, &in.backward, &in.sendForward,
             &in.sendBackward, &in.weightGrad, &in.forwardComm, &in.backwardComm })
        key.insert(key.end(), v->begin(), v->end());
    if (key == m_key)
        return;
    m_key = std::move(key);
    m_points = bubbleSweep(engine, bubbleSweepCounts(engine));
    QList<QPointF> pts;
    double hiBubble = 0.0;
    int lo = m, hi = m;
    for (const BubbleSweepPoint &p : m_points) {
        if (!p.valid)
            continue;
        pts << QPointF(p.microbatches, 100.0 * p.bubbleFraction);
        hiBubble = std::max(hiBubble, p.bubbleFraction);
        lo = std::min(lo, p.microbatches);
        hi = std::max(hi, p.microbatches);
    }
    m_curve->replace(pts);
    const CostReport &r = engine.report();
    m_current->replace(QList<QPointF> { { static_cast<double>(m), 100.0 * r.bubbleFraction } });
    m_current->setName(tr("current m = %1: %2").arg(m).arg(chartformat::percent(r.bubbleFraction)));

    const bool logarithmic = hi > 64 * std::max(1, lo);
    setXAxis(logarithmic, logarithmic ? lo : 0.0, hi + (logarithmic ? 0.0 : 0.5));
    auto *y = static_cast<QValueAxis *>(m_y);
    const double top = std::max(1.0, 100.0 * hiBubble * 1.08);
    if (top > 60.0) {
        y->setRange(0.0, 100.0); // a fraction: never above 100 %
        y->setTickCount(6);
    } else {
        y->setRange(0.0, top);
        y->applyNiceNumbers();
    }
    chartstyle::retitle(this,
        tr("Bubble versus micro-batches — %1, %2 stages")
            .arg(QString::fromLatin1(scheduleName(engine.scenario().training.schedule).data()))
            .arg(engine.scenario().degrees.pp));
}

} // namespace railyard
