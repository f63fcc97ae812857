#include "measuredpanel.h"

#include "chartformat.h"
#include "chartpalette.h"
#include "elidedlabel.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace railyard {

MeasuredPanel::MeasuredPanel(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("measuredPanel"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 4, 6, 4);
    auto *top = new QHBoxLayout;
    m_runs = new QComboBox(this);
    m_runs->setObjectName(QStringLiteral("measuredRuns"));
    m_runs->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_runs->setToolTip(tr("The imported log or trace whose figures the table shows"));
    // One line, elided: the table and the why line keep the dock's height, and a long name
    // never widens the dock (and the window with it).
    m_header = new ElidedLabel(this);
    m_header->setObjectName(QStringLiteral("measuredHeader"));
    m_fit = new QPushButton(tr("Fit Compute to This Step"), this);
    m_fit->setObjectName(QStringLiteral("measuredFit"));
    m_fit->setToolTip(tr("Fit the device's GEMM efficiency so that the engine predicts this "
                         "measured step time (one undo step); the summary bar then names it"));
    top->addWidget(m_runs);
    top->addWidget(m_header, 1);
    top->addWidget(m_fit);
    layout->addLayout(top);

    m_table = new QTableWidget(0, 4, this);
    m_table->setObjectName(QStringLiteral("measuredTable"));
    m_table->setHorizontalHeaderLabels(
        { tr("Part of the step"), tr("Measured"), tr("Predicted"), tr("Engine's error") });
    m_table->verticalHeader()->hide();
    // One line a part, elided when the dock is narrow: as many rows in sight as the height allows.
    m_table->setWordWrap(false);
    m_table->setTextElideMode(Qt::ElideRight);
    m_table->verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 6);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    m_table->setSelectionMode(QAbstractItemView::NoSelection);
    m_table->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
    for (int c = 1; c < 4; ++c)
        m_table->horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    m_table->horizontalHeaderItem(3)->setToolTip(
        tr("(predicted − measured) / measured: negative when the engine is optimistic"));
    layout->addWidget(m_table, 1);

    m_why = new QLabel(this);
    m_why->setObjectName(QStringLiteral("measuredWhy"));
    m_why->setWordWrap(true);
    m_why->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
    m_why->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(m_why);

    connect(m_runs, &QComboBox::currentIndexChanged, this, &MeasuredPanel::showRun);
    connect(m_fit, &QPushButton::clicked, this, [this] {
        if (currentRun() >= 0)
            Q_EMIT fitRequested(currentRun());
    });
    setRuns({});
}

QString MeasuredPanel::errorText(double fraction)
{
    return QString::asprintf("%+.1f %%", 100.0 * fraction);
}

void MeasuredPanel::setRuns(const std::vector<MeasuredRunView> &runs)
{
    const QString picked = m_runs->currentData().toString();
    m_data = runs;
    {
        const QSignalBlocker block(m_runs);
        m_runs->clear();
        for (const MeasuredRunView &r : m_data) {
            QString name = QFileInfo(QString::fromStdString(r.file)).fileName();
            if (r.rank >= 0)
                name += tr(" (rank %1)").arg(r.rank);
            m_runs->addItem(name, QString::fromStdString(r.file));
        }
        const int keep = m_runs->findData(picked);
        m_runs->setCurrentIndex(keep >= 0 ? keep : (m_data.empty() ? -1 : 0));
    }
    m_runs->setVisible(m_data.size() > 1);
    m_fit->setEnabled(!m_data.empty());
    showRun();
}

void MeasuredPanel::showMessage(const QString &message)
{
    setRuns({});
    m_header->setFullText(message);
}

int MeasuredPanel::currentRun() const
{
    const int i = m_runs->currentIndex();
    return i >= 0 && i < static_cast<int>(m_data.size()) ? i : -1;
}

void MeasuredPanel::showRun()
{
    const int i = currentRun();
    m_table->setRowCount(0);
    if (i < 0) {
        m_header->setFullText(tr("File ▸ Import Training Log or Trace… puts a run's measured "
                                 "step beside the prediction."));
        m_why->clear();
        return;
    }
    const MeasuredRunView &r = m_data[static_cast<std::size_t>(i)];
    QString header
        = QStringLiteral("%1 · %2").arg(QFileInfo(QString::fromStdString(r.file)).fileName(),
            chartformat::latin(measurementFormatName(r.format)));
    if (r.rank >= 0)
        header += r.stage >= 0 ? tr(" · rank %1, stage %2").arg(r.rank).arg(r.stage)
                               : tr(" · rank %1").arg(r.rank);
    if (r.laneStep >= 0)
        header += tr(" · the timeline draws step %1").arg(r.laneStep);
    m_header->setFullText(header);
    m_table->setRowCount(static_cast<int>(r.rows.size()));
    for (int row = 0; row < static_cast<int>(r.rows.size()); ++row) {
        const ComparisonRow &c = r.rows[static_cast<std::size_t>(row)];
        const auto cell = [&](int column, const QString &text) {
            auto *item = new QTableWidgetItem(text);
            if (column > 0)
                item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
            m_table->setItem(row, column, item);
            return item;
        };
        cell(0, QString::fromStdString(c.what));
        cell(1, c.measuredKnown ? chartformat::seconds(c.measured) : tr("not traced"));
        cell(2, chartformat::seconds(c.predicted));
        QTableWidgetItem *err
            = cell(3, c.measuredKnown && c.measured > 0.0 ? errorText(c.error()) : tr("–"));
        // Beyond 10 % the engine is off for this part (the bar for a calibrated stack).
        if (c.measuredKnown && c.measured > 0.0 && std::abs(c.error()) > 0.10)
            err->setForeground(chartpalette::badColor());
    }
    m_why->setText(tr("Why: %1").arg(QString::fromStdString(r.why)));
}

} // namespace railyard
