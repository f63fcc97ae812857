#pragma once

#include <QAbstractTableModel>

namespace railyard {

class ScenarioDocument;

/**
 * Every rank of the open scenario as a table row: rank, its coordinates (d, p, t, c, e) and
 * where it sits (server, GPU, rail, slot). Rows drag as MIME "application/x-railyard-ranks"
 * (UTF-8 "3,5,7"), which the FabricView accepts on a slot or server. Follows the document:
 * scenarioChanged resets the model, mappingChanged refreshes the placement columns.
 */
class RankListModel : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { RankColumn, DColumn, PColumn, TColumn, CColumn, EColumn, ServerColumn,
                  GpuColumn, RailColumn, SlotColumn, ColumnCount };
    static constexpr int RankRole = Qt::UserRole;     ///< the rank number of a row
    static constexpr int SortRole = Qt::UserRole + 1; ///< numeric sort key of a cell

    explicit RankListModel(ScenarioDocument *document, QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = QModelIndex()) const override;
    int columnCount(const QModelIndex &parent = QModelIndex()) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation,
                        int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QStringList mimeTypes() const override;
    QMimeData *mimeData(const QModelIndexList &indexes) const override;
    Qt::DropActions supportedDragActions() const override;

    /// The integer a column shows for a rank (coordinates, server, GPU, rail, slot).
    int value(int rank, int column) const;

private:
    ScenarioDocument *m_document;
    int m_rows = 0;
};

} // namespace railyard
