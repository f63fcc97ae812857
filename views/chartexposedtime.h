#pragma once

#include "chartdimbars.h"

namespace railyard {

struct CostReport;

/**
 * Exposed (critical-path) communication time per parallel dimension per iteration: how much
 * sooner the iteration would end were that dimension's communication free (the report's
 * dimExposed). One bar per dimension in its colour, labelled with its time (unit(): seconds per
 * displayed unit, 1e-3 for ms ...).
 */
class ChartExposedTime : public ChartDimBars
{
    Q_OBJECT

public:
    explicit ChartExposedTime(QWidget *parent = nullptr);
    void setReport(const CostReport &report);

protected:
    QString segmentText(Dim d, int category, double seconds) const override;
};

} // namespace railyard
