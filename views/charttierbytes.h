#pragma once

#include "chartdimbars.h"

namespace railyard {

struct CostReport;

/**
 * Bytes per iteration on each link tier (scale-up, PCIe, leaf, spine, super-spine), stacked by
 * parallel dimension: where TP, PP, DP, EP and CP traffic lands in the hierarchy. The report's
 * tierBytes[tier][dim], in one decimal unit for the whole chart (unit(): 1e9 for GB ...).
 */
class ChartTierBytes : public ChartDimBars
{
    Q_OBJECT

public:
    explicit ChartTierBytes(QWidget *parent = nullptr);
    void setReport(const CostReport &report);

protected:
    QString segmentText(Dim d, int tier, double bytes) const override;
};

} // namespace railyard
