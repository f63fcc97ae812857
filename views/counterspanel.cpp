#include "counterspanel.h"

#include "fabric/fabric.h"

#include <QCheckBox>
#include <QHeaderView>
#include <QLabel>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace railyard {

namespace {

/// The role that holds a row's directed link id.
constexpr int kCountersLinkRole = Qt::UserRole + 1;

QString countersPercentText(double u)
{
    return QStringLiteral("%1 %").arg(u * 100.0, 0, 'f', 1);
}

} // namespace

CountersPanel::CountersPanel(QWidget *parent)
    : QWidget(parent)
{
    auto *layout = new QVBoxLayout(this);
    m_summary = new QLabel(tr("No port counters imported (File ▸ Import Port Counters…)."));
    m_summary->setObjectName(QStringLiteral("countersSummary"));
    m_summary->setWordWrap(true);
    m_toggle
        = new QCheckBox(tr("Show measured beside predicted (each cable: predicted | measured)"));
    m_toggle->setObjectName(QStringLiteral("countersMeasuredToggle"));
    m_toggle->setToolTip(tr("Draw every measured cable in two halves: the predicted load's "
                            "colour, then the measured load's (absolute scale)"));
    m_toggle->setEnabled(false);
    m_list = new QTreeWidget;
    m_list->setObjectName(QStringLiteral("countersDivergences"));
    m_list->setToolTip(tr("Where the measurement and the prediction part, largest first; a "
                          "row selects its link on the fabric"));
    m_list->setRootIsDecorated(false);
    m_list->setUniformRowHeights(true);
    m_list->setHeaderLabels(
        { tr("#"), tr("Probable cause"), tr("Link"), tr("Measured"), tr("Predicted") });
    m_list->header()->setStretchLastSection(false);
    m_list->header()->setSectionResizeMode(2, QHeaderView::Stretch);
    layout->addWidget(m_summary);
    layout->addWidget(m_toggle);
    layout->addWidget(m_list, 1);
    connect(m_toggle, &QCheckBox::toggled, this, &CountersPanel::measuredShownChanged);
    connect(m_list, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (!item)
            return;
        Q_EMIT linkActivated(item->data(0, kCountersLinkRole).toInt(),
            tr("Divergence %1: %2").arg(item->text(0), item->text(1)));
    });
}

void CountersPanel::setComparison(
    const Fabric &fabric, const CounterComparison &comparison, const QString &source)
{
    m_list->clear();
    m_summary->setText(tr("%1: %2 ports over %3 s, %4 directed links measured, %5 divergences "
                          "(beyond %6 points of utilisation), %7 ports not on the fabric.")
                           .arg(source)
                           .arg(comparison.ports)
                           .arg(comparison.window, 0, 'f', 1)
                           .arg(comparison.links.size())
                           .arg(comparison.divergences.size())
                           .arg(kCounterAgreement * 100.0, 0, 'f', 0)
                           .arg(comparison.unmapped.size()));
    QList<QTreeWidgetItem *> rows;
    int rank = 0;
    for (const CounterDivergence &d : comparison.divergences) {
        auto *row = new QTreeWidgetItem(
            { QString::number(++rank), QString::fromStdString(divergenceCauseName(d.cause)),
                QString::fromStdString(fabric.linkName(d.link)), countersPercentText(d.measured),
                countersPercentText(d.predicted) });
        row->setData(0, kCountersLinkRole, d.link);
        row->setToolTip(2, QString::fromStdString(d.text));
        row->setToolTip(1, QString::fromStdString(d.text));
        rows << row;
    }
    m_list->addTopLevelItems(rows);
    m_toggle->setEnabled(true);
}

void CountersPanel::clear()
{
    m_list->clear();
    m_summary->setText(tr("No port counters imported (File ▸ Import Port Counters…)."));
    m_toggle->setChecked(false);
    m_toggle->setToolTip(tr("Draw every measured cable in two halves: the predicted load's "
                            "colour, then the measured load's (absolute scale)"));
    m_toggle->setEnabled(false);
}

int CountersPanel::linkOfRow(int row) const
{
    const QTreeWidgetItem *item = m_list->topLevelItem(row);
    return item ? item->data(0, kCountersLinkRole).toInt() : -1;
}

} // namespace railyard
