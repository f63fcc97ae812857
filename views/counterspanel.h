#pragma once

#include "studies/countercompare.h"

#include <QWidget>

class QCheckBox;
class QLabel;
class QTreeWidget;

namespace railyard {

class Fabric;

/**
 * The Port Counters dock: what a counter import measured beside the prediction. A toggle draws
 * the measurement on the fabric (each measured cable split: predicted colour, then measured
 * colour); the ranked divergences (studies/countercompare.h) are a list whose rows select their
 * link. It shows the comparison it is given and computes nothing.
 */
class CountersPanel : public QWidget
{
    Q_OBJECT

public:
    explicit CountersPanel(QWidget *parent = nullptr);

    /// Shows `comparison` (its links named through `fabric`) read from `source`.
    void setComparison(
        const Fabric &fabric, const CounterComparison &comparison, const QString &source);
    void clear();
    QTreeWidget *divergenceList() const { return m_list; }
    QCheckBox *measuredToggle() const { return m_toggle; }
    /// The directed link id row `row` stands for, -1 when none.
    int linkOfRow(int row) const;

Q_SIGNALS:
    /// The user chose a divergence: select its link on the fabric.
    void linkActivated(int link, const QString &caption);
    /// The toggle: draw the measurement beside the prediction, or not.
    void measuredShownChanged(bool shown);

private:
    QLabel *m_summary;
    QCheckBox *m_toggle;
    QTreeWidget *m_list;
};

} // namespace railyard
