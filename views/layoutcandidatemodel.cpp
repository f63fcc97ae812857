#include "layoutcandidatemodel.h"

#include "cost/pipelineschedule.h"
#include "io/reportjson.h"
#include "layout/placement.h"
#include "workload/workloadnames.h"

#include <QBrush>
#include <QColor>
#include <QFont>

namespace railyard {

namespace {

QString candidateLatin(std::string_view s)
{
    return QString::fromLatin1(s.data(), static_cast<qsizetype>(s.size()));
}

QString candidateScheduleText(const LayoutCandidate &c)
{
    QString text = candidateLatin(scheduleName(c.schedule));
    if (c.schedule == ScheduleKind::Interleaved)
        text += QStringLiteral(" ×%1").arg(c.interleave);
    return text;
}

} // namespace

LayoutCandidateModel::LayoutCandidateModel(QObject *parent)
    : QAbstractTableModel(parent)
{
}

void LayoutCandidateModel::setCandidates(std::vector<LayoutCandidate> candidates)
{
    beginResetModel();
    m_rows = std::move(candidates);
    endResetModel();
}

const LayoutCandidate &LayoutCandidateModel::candidate(int row) const
{
    return m_rows.at(static_cast<std::size_t>(row));
}

int LayoutCandidateModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int LayoutCandidateModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant LayoutCandidateModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= rowCount())
        return {};
    const LayoutCandidate &c = m_rows[static_cast<std::size_t>(index.row())];
    const auto column = static_cast<Column>(index.column());
    if (role == kSortRole) {
        switch (column) {
        case Rank:
            return index.row();
        case Tp:
            return c.degrees.tp;
        case Pp:
            return c.degrees.pp;
        case Dp:
            return c.degrees.dp;
        case Cp:
            return c.degrees.cp;
        case Ep:
            return c.degrees.ep;
        case MicroBatch:
            return c.microBatch;
        case Schedule:
            return candidateScheduleText(c);
        case Recompute:
            return static_cast<int>(c.recompute);
        case SequenceParallel:
            return c.sequenceParallel ? 1 : 0;
        case DistributedOptimizer:
            return c.distributedOptimizer ? 1 : 0;
        case PlacementColumn:
            return static_cast<int>(c.placement);
        case IterationTime:
            return c.iterationTime;
        case TokensPerSecond:
            return c.tokensPerSecond;
        case HeadroomGB:
            return c.memoryHeadroomGB;
        case SpineShare:
            return c.spineShare;
        case Pareto:
            return c.pareto ? 1 : 0;
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::DisplayRole) {
        switch (column) {
        case Rank:
            return index.row() + 1;
        case Tp:
            return c.degrees.tp;
        case Pp:
            return c.degrees.pp;
        case Dp:
            return c.degrees.dp;
        case Cp:
            return c.degrees.cp;
        case Ep:
            return c.degrees.ep;
        case MicroBatch:
            return c.microBatch;
        case Schedule:
            return candidateScheduleText(c);
        case Recompute:
            return candidateLatin(recomputeName(c.recompute));
        case SequenceParallel:
            return c.sequenceParallel ? tr("yes") : tr("no");
        case DistributedOptimizer:
            return c.distributedOptimizer ? tr("yes") : tr("no");
        case PlacementColumn:
            return candidateLatin(placementName(c.placement));
        case IterationTime:
            return QString::fromStdString(formatSeconds(c.iterationTime));
        case TokensPerSecond:
            return QStringLiteral("%L1").arg(c.tokensPerSecond, 0, 'f', 0);
        case HeadroomGB:
            return QStringLiteral("%1 GB").arg(c.memoryHeadroomGB, 0, 'f', 1);
        case SpineShare:
            return QStringLiteral("%1 %").arg(c.spineShare * 100.0, 0, 'f', 1);
        case Pareto:
            return c.pareto ? tr("front") : QString();
        case ColumnCount:
            break;
        }
        return {};
    }
    if (role == Qt::TextAlignmentRole)
        return column == Schedule || column == Recompute || column == PlacementColumn
                || column == Pareto
            ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
            : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role == Qt::FontRole && c.pareto) {
        QFont bold;
        bold.setBold(true);
        return bold;
    }
    if (role == Qt::ToolTipRole)
        return c.pareto ? tr("On the Pareto front: no other candidate has more throughput, more "
                             "memory headroom and less spine share at once. Double-click to open "
                             "it as a new document.")
                        : tr("Double-click to open this candidate as a new document");
    return {};
}

QVariant LayoutCandidateModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (static_cast<Column>(section)) {
    case Rank:
        return tr("#");
    case Tp:
        return tr("TP");
    case Pp:
        return tr("PP");
    case Dp:
        return tr("DP");
    case Cp:
        return tr("CP");
    case Ep:
        return tr("EP");
    case MicroBatch:
        return tr("Micro-batch");
    case Schedule:
        return tr("Schedule");
    case Recompute:
        return tr("Recompute");
    case SequenceParallel:
        return tr("SP");
    case DistributedOptimizer:
        return tr("Dist. opt.");
    case PlacementColumn:
        return tr("Placement");
    case IterationTime:
        return tr("Iteration");
    case TokensPerSecond:
        return tr("Tokens/s");
    case HeadroomGB:
        return tr("Headroom");
    case SpineShare:
        return tr("Spine share");
    case Pareto:
        return tr("Pareto");
    case ColumnCount:
        break;
    }
    return {};
}

} // namespace railyard
