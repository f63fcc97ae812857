#include "ranklistmodel.h"

#include "fabricview.h"
#include "document/scenariodocument.h"

#include <QMimeData>

#include <algorithm>

namespace railyard {

RankListModel::RankListModel(ScenarioDocument *document, QObject *parent)
    : QAbstractTableModel(parent)
    , m_document(document)
{
    m_rows = document->mapping().rankCount();
    connect(document, &ScenarioDocument::scenarioChanged, this, [this] {
        beginResetModel();
        m_rows = m_document->mapping().rankCount();
        endResetModel();
    });
    connect(document, &ScenarioDocument::mappingChanged, this, [this] {
        if (m_rows > 0)
            Q_EMIT dataChanged(index(0, ServerColumn), index(m_rows - 1, SlotColumn));
    });
}

int RankListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : m_rows;
}

int RankListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

int RankListModel::value(int rank, int column) const
{
    const CostEngine &engine = m_document->engine();
    const Fabric &fabric = engine.fabric();
    const RankCoord c = engine.layout().coord(rank);
    const int slot = m_document->mapping().slotOf(rank);
    switch (column) {
    case RankColumn:
        return rank;
    case DColumn:
        return c.d;
    case PColumn:
        return c.p;
    case TColumn:
        return c.t;
    case CColumn:
        return c.c;
    case EColumn:
        return c.e;
    case ServerColumn:
        return fabric.serverOfSlot(slot);
    case GpuColumn:
        return fabric.gpuOfSlot(slot);
    case RailColumn:
        return fabric.railCount() > 0 ? fabric.railOfSlot(slot) : fabric.nicOfGpu(fabric.gpuOfSlot(slot));
    case SlotColumn:
        return slot;
    default:
        return 0;
    }
}

QVariant RankListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rows)
        return {};
    const int rank = index.row();
    switch (role) {
    case Qt::DisplayRole:
        if (index.column() == ServerColumn) {
            const Fabric &f = m_document->engine().fabric();
            return QString::fromStdString(f.serverName(value(rank, ServerColumn)));
        }
        return value(rank, index.column());
    case SortRole:
        return value(rank, index.column());
    case RankRole:
        return rank;
    case Qt::TextAlignmentRole:
        return index.column() == ServerColumn ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
        return {};
    }
}

QVariant RankListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal)
        return {};
    static const char *const names[] = {"rank", "d", "p", "t", "c", "e", "server", "gpu",
                                        "rail", "slot"};
    static const char *const tips[] = {"global rank", "data-parallel replica",
                                       "pipeline stage", "tensor shard", "context shard",
                                       "index in its expert-parallel group", "server",
                                       "GPU index in the server", "rail (NIC index) of the slot",
                                       "GPU slot (server × G + GPU)"};
    if (section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole)
        return QString::fromLatin1(names[section]);
    if (role == Qt::ToolTipRole)
        return QString::fromLatin1(tips[section]);
    return {};
}

Qt::ItemFlags RankListModel::flags(const QModelIndex &index) const
{
    if (!index.isValid())
        return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemIsDragEnabled;
}

QStringList RankListModel::mimeTypes() const
{
    return {QString::fromLatin1(FabricView::kRanksMimeType)};
}

QMimeData *RankListModel::mimeData(const QModelIndexList &indexes) const
{
    std::vector<int> ranks;
    for (const QModelIndex &i : indexes) {
        if (i.isValid())
            ranks.push_back(i.row());
    }
    std::sort(ranks.begin(), ranks.end());
    ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
    QStringList parts;
    for (int r : ranks)
        parts << QString::number(r);
    auto *mime = new QMimeData;
    mime->setData(QString::fromLatin1(FabricView::kRanksMimeType),
                  parts.join(QLatin1Char(',')).toUtf8());
    return mime;
}

Qt::DropActions RankListModel::supportedDragActions() const
{
    return Qt::CopyAction;
}

} // namespace railyard
