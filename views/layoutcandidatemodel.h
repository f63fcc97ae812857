#pragma once

#include "optimise/layoutsearch.h"

#include <QAbstractTableModel>

#include <vector>

namespace railyard {

/**
 * The candidates of a parallel-layout search as a table: their layout (degrees, micro-batch,
 * schedule, recompute, sequence parallel, distributed optimizer, placement) and the engine's
 * figures the search computed (iteration time, throughput, memory headroom, spine share, on the
 * Pareto front or not). Qt::DisplayRole is the text, kSortRole the number a sort compares (for
 * a QSortFilterProxyModel with setSortRole(kSortRole)). It only shows what it is given.
 */
class LayoutCandidateModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    static constexpr int kSortRole = Qt::UserRole + 1;
    enum Column {
        Rank,
        Tp,
        Pp,
        Dp,
        Cp,
        Ep,
        MicroBatch,
        Schedule,
        Recompute,
        SequenceParallel,
        DistributedOptimizer,
        PlacementColumn,
        IterationTime,
        TokensPerSecond,
        HeadroomGB,
        SpineShare,
        Pareto,
        ColumnCount
    };

    explicit LayoutCandidateModel(QObject *parent = nullptr);

    /// The rows, in ranking order (Rank 1 first).
    void setCandidates(std::vector<LayoutCandidate> candidates);
    const std::vector<LayoutCandidate> &candidates() const { return m_rows; }
    const LayoutCandidate &candidate(int row) const;

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(
        int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    std::vector<LayoutCandidate> m_rows;
};

} // namespace railyard
