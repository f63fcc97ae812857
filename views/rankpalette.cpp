#include "rankpalette.h"

#include "rankfiltermodel.h"
#include "ranklistmodel.h"
#include "document/scenariodocument.h"

#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QTableView>
#include <QUndoStack>
#include <QVBoxLayout>

namespace railyard {

RankPalette::RankPalette(ScenarioDocument *document, QWidget *parent)
    : QWidget(parent)
    , m_document(document)
    , m_model(new RankListModel(document, this))
    , m_filter(new RankFilterModel(this))
    , m_filterEdit(new QLineEdit(this))
    , m_count(new QLabel(this))
    , m_table(new QTableView(this))
    , m_packed(new QPushButton(tr("Packed"), this))
    , m_railAligned(new QPushButton(tr("Rail-aligned"), this))
    , m_scattered(new QPushButton(tr("Scattered"), this))
{
    m_filter->setSourceModel(m_model);

    m_filterEdit->setPlaceholderText(tr("Filter: d=1 p=0-1 t=3, node003, rank=12"));
    m_filterEdit->setClearButtonEnabled(true);
    m_filterEdit->setToolTip(
        tr("Terms all must match: d=, p=, t=, c=, e=, rank=, server=, gpu=, rail=, slot= with a "
           "number or a range a-b; any other word matches text (a server name)."));
    connect(m_filterEdit, &QLineEdit::textChanged, this, [this](const QString &text) {
        const bool ok = m_filter->setQuery(text);
        m_filterEdit->setStyleSheet(ok ? QString() : QStringLiteral("color: #c92a2a"));
        updateCount();
    });

    m_table->setModel(m_filter);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(RankListModel::RankColumn, Qt::AscendingOrder);
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::ExtendedSelection);
    m_table->setDragEnabled(true);
    m_table->setDragDropMode(QAbstractItemView::DragOnly);
    m_table->setDefaultDropAction(Qt::CopyAction); // the rows stay: a drop moves ranks, not rows
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->verticalHeader()->setDefaultSectionSize(20);
    m_table->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    m_table->horizontalHeader()->setStretchLastSection(true);
    m_table->setToolTip(tr("Drag ranks onto a GPU slot of the fabric (swaps when occupied); "
                           "several ranks onto a server."));
    connect(m_table->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
            [this](const QModelIndex &current) {
                if (!m_syncing && current.isValid())
                    Q_EMIT rankActivated(current.data(RankListModel::RankRole).toInt());
            });

    auto *presets = new QGroupBox(tr("Placement presets"), this);
    auto *buttons = new QHBoxLayout;
    m_packed->setToolTip(tr("Launcher order: rank r on server r/G, GPU r mod G."));
    m_railAligned->setToolTip(tr("TP groups inside a server with shard t on GPU t; DP peers of a "
                                 "shard on the same rail, so DP never crosses a spine."));
    m_scattered->setToolTip(tr("Round-robin over servers: splits every TP group across the "
                               "network. Deliberately bad, to see the cost."));
    for (QPushButton *b : {m_packed, m_railAligned, m_scattered})
        buttons->addWidget(b);
    connect(m_packed, &QPushButton::clicked, this, [this] { applyPreset(Placement::Packed); });
    connect(m_railAligned, &QPushButton::clicked, this, [this] { applyPreset(Placement::RailAligned); });
    connect(m_scattered, &QPushButton::clicked, this, [this] { applyPreset(Placement::Scattered); });
    m_presetResult = new QLabel(presets);
    m_presetResult->setObjectName(QStringLiteral("presetResult"));
    m_presetResult->setWordWrap(true);
    m_presetResult->setToolTip(tr("What the last placement preset did"));
    auto *presetLayout = new QVBoxLayout;
    presetLayout->setContentsMargins(0, 0, 0, 0);
    presetLayout->addLayout(buttons);
    presetLayout->addWidget(m_presetResult);
    m_presetResult->hide();
    // Any other edit makes the last preset's line stale.
    connect(m_document->undoStack(), &QUndoStack::indexChanged, this, [this] {
        if (!m_applyingPreset)
            m_presetResult->hide();
    });

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_filterEdit);
    layout->addWidget(m_count);
    layout->addWidget(m_table, 1);
    layout->addWidget(presets);
    presets->setLayout(presetLayout);

    connect(m_filter, &QAbstractItemModel::modelReset, this, [this] {
        updateColumns();
        updateCount();
    });
    connect(m_filter, &QAbstractItemModel::rowsInserted, this, &RankPalette::updateCount);
    connect(m_filter, &QAbstractItemModel::rowsRemoved, this, &RankPalette::updateCount);
    updateColumns();
    updateCount();
}

void RankPalette::setFilterText(const QString &text)
{
    m_filterEdit->setText(text);
}

void RankPalette::showRank(int rank)
{
    m_syncing = true;
    if (rank < 0 || rank >= m_model->rowCount()) {
        m_table->clearSelection();
    } else {
        const QModelIndex index = m_filter->mapFromSource(m_model->index(rank, 0));
        if (index.isValid()) {
            m_table->selectionModel()->setCurrentIndex(
                index, QItemSelectionModel::ClearAndSelect | QItemSelectionModel::Rows);
            m_table->scrollTo(index);
        }
    }
    m_syncing = false;
}

QString RankPalette::applyPreset(Placement placement)
{
    const std::vector<int> before = m_document->scenario().slots;
    const int index = m_document->undoStack()->index();
    m_applyingPreset = true;
    m_document->applyPlacement(placement);
    m_applyingPreset = false;
    const QString name = presetName(placement);
    QString text;
    if (m_document->undoStack()->index() == index) {
        text = tr("%1: the ranks already sit that way; nothing changed").arg(name);
    } else {
        const std::vector<int> &after = m_document->scenario().slots;
        int moved = 0;
        for (std::size_t r = 0; r < before.size() && r < after.size(); ++r)
            moved += before[r] != after[r] ? 1 : 0;
        text = tr("%1: %2 %3 moved (one undo step)").arg(name).arg(moved).arg(moved == 1 ? tr("rank") : tr("ranks"));
    }
    m_presetResult->setText(text);
    m_presetResult->show();
    Q_EMIT presetApplied(text);
    return text;
}

QString RankPalette::presetName(Placement placement)
{
    switch (placement) {
    case Placement::Packed:
        return tr("Packed");
    case Placement::RailAligned:
        return tr("Rail-aligned");
    case Placement::Scattered:
        return tr("Scattered");
    }
    return QString();
}

void RankPalette::updateCount()
{
    const int all = m_model->rowCount();
    const int shown = m_filter->rowCount();
    m_count->setText(shown == all ? tr("%n rank(s)", nullptr, all)
                                  : tr("%1 of %2 ranks").arg(shown).arg(all));
}

void RankPalette::updateColumns()
{
    const ParallelDegrees &d = m_document->engine().layout().degrees();
    m_table->setColumnHidden(RankListModel::CColumn, d.cp <= 1);
    m_table->setColumnHidden(RankListModel::EColumn, d.ep <= 1);
    m_table->setColumnHidden(RankListModel::RailColumn, m_document->engine().fabric().railCount() == 0);
}

} // namespace railyard
