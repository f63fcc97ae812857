#include "jobspanel.h"

#include "base/quantityformat.h"
#include "cost/costenginejobs.h"
#include "fabric/fabric.h"

#include <QColor>
#include <QFont>
#include <QHeaderView>
#include <QLabel>
#include <QPixmap>
#include <QToolBar>
#include <QTreeWidget>
#include <QVBoxLayout>

#include <algorithm>

namespace railyard {

namespace {

/// The (link, neighbour) rows under a job: the costliest few, as the CLI's text shows them.
constexpr std::size_t kJobsPanelInterferenceRows = 5;

QString secondsText(double seconds)
{
    return QString::fromStdString(formatSeconds(seconds));
}

} // namespace

JobsPanel::JobsPanel(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_tree(new QTreeWidget(this))
    , m_toolBar(new QToolBar(this))
{
    m_toolBar->setObjectName(QStringLiteral("jobsToolBar"));
    m_toolBar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_summary->setWordWrap(true);
    m_tree->setColumnCount(ColumnCount);
    m_tree->setHeaderLabels({ tr("Job"), tr("Ranks"), tr("Alone"), tr("Shared"), tr("Slowdown") });
    // The figures as wide as they need, the job and its links' names the rest: at a default
    // 100 px a column the names had no room in a bottom dock at 1280x720.
    m_tree->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_tree->header()->setSectionResizeMode(JobColumn, QHeaderView::Stretch);
    m_tree->setRootIsDecorated(true);
    // Wide enough for a short job name and every figure: the tool bar above made a bottom dock
    // beside the pipeline open too narrow for them at 1280x720 (checked by screenshots).
    m_tree->setMinimumWidth(fontMetrics().horizontalAdvance(
                                QStringLiteral("Job name  Ranks  999.9 ms  999.9 ms  Slowdown"))
        + 48);
    connect(m_tree, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem *item) {
        if (m_marking || !item)
            return;
        while (item->parent())
            item = item->parent();
        Q_EMIT jobChosen(m_tree->indexOfTopLevelItem(item));
    });
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_toolBar);
    layout->addWidget(m_summary);
    layout->addWidget(m_tree, 1);
    setReport(nullptr);
}

void JobsPanel::setReport(const SharedFabricReport *report)
{
    // Clearing and filling move the current item: not the user's choice.
    m_marking = true;
    m_tree->clear();
    m_updating = false;
    if (!report) {
        m_marking = false;
        m_summaryText = tr("The scenario holds one job.");
        m_summary->setText(m_summaryText);
        return;
    }
    m_summaryText = tr("%1 jobs, %2 of %3 GPU slots free; phases overlap: %4")
                        .arg(report->jobs.size())
                        .arg(report->freeSlots)
                        .arg(report->slots)
                        .arg(QString::fromUtf8(phaseOverlapName(report->overlap).data()));
    m_summary->setText(m_summaryText);
    for (const JobReport &job : report->jobs) {
        auto *item = new QTreeWidgetItem(m_tree);
        const QColor hue(QString::fromStdString(job.colour));
        QPixmap swatch(12, 12);
        swatch.fill(hue);
        item->setIcon(JobColumn, QIcon(swatch));
        item->setData(JobColumn, Qt::UserRole, hue);
        item->setText(JobColumn, QString::fromStdString(job.name));
        item->setText(RanksColumn, QString::number(job.ranks));
        item->setText(AloneColumn, secondsText(job.aloneIterationTime));
        item->setText(SharedColumn, secondsText(job.iterationTime));
        item->setText(SlowdownColumn, QStringLiteral("×%1").arg(job.slowdown(), 0, 'f', 3));
        const std::size_t shown = std::min(job.interference.size(), kJobsPanelInterferenceRows);
        for (std::size_t i = 0; i < shown; ++i) {
            const JobInterference &row = job.interference[i];
            auto *child = new QTreeWidgetItem(item);
            child->setFirstColumnSpanned(true); // a link's name needs the whole row
            child->setText(JobColumn,
                tr("%1: %2 adds %3")
                    .arg(QString::fromStdString(report->fabric->linkName(row.link)),
                        QString::fromStdString(
                            report->jobs[static_cast<std::size_t>(row.neighbour)].name),
                        secondsText(row.seconds)));
        }
        item->setExpanded(true);
    }
    m_marking = false;
    setActiveJob(m_active);
}

void JobsPanel::setActiveJob(int index)
{
    m_active = index;
    m_marking = true;
    for (int i = 0; i < m_tree->topLevelItemCount(); ++i) {
        QTreeWidgetItem *item = m_tree->topLevelItem(i);
        QFont font = item->font(JobColumn);
        font.setBold(i == index);
        for (int c = 0; c < ColumnCount; ++c)
            item->setFont(c, font);
        if (i == index)
            m_tree->setCurrentItem(item);
    }
    m_marking = false;
}

void JobsPanel::showError(const QString &message)
{
    m_updating = false;
    m_tree->clear();
    m_summaryText = message;
    m_summary->setText(message);
}

void JobsPanel::setUpdating(bool updating)
{
    m_updating = updating;
    m_summary->setText(updating ? tr("%1 · updating…").arg(m_summaryText) : m_summaryText);
}

} // namespace railyard
