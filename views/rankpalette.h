#pragma once

#include "layout/placement.h"

#include <QWidget>

class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace railyard {

class RankFilterModel;
class RankListModel;
class ScenarioDocument;

/**
 * The rank palette (a dock's contents): every rank with its (d,p,t[,c,e]) and its server,
 * GPU, rail and slot, filterable ("d=1 t=0-3", "node003"); rows drag onto the FabricView
 * (a slot: move there, swapping when occupied; several rows: onto a server). Below, the
 * placement presets: Packed, Rail-aligned and Scattered (the bad one, for teaching), each
 * one undoable ScenarioDocument::applyPlacement.
 */
class RankPalette : public QWidget
{
    Q_OBJECT

public:
    explicit RankPalette(ScenarioDocument *document, QWidget *parent = nullptr);

    QTableView *tableView() const { return m_table; }
    RankFilterModel *filterModel() const { return m_filter; }
    RankListModel *rankModel() const { return m_model; }
    void setFilterText(const QString &text);
    /// Applies a placement preset (one undo step, or none when the ranks already sit that
    /// way) and says what it did under the buttons; returns that line.
    QString applyPreset(Placement placement);
    static QString presetName(Placement placement);
    QLabel *presetResultLabel() const { return m_presetResult; }

public Q_SLOTS:
    /// Make `rank` the current row (e.g. when the fabric view selects a chip); -1 clears.
    void showRank(int rank);

Q_SIGNALS:
    /// The current row changed to this rank (wire to FabricView::selectRank).
    void rankActivated(int rank);
    /// A preset ran: what it did ("Rail-aligned: 96 ranks moved (one undo step)").
    void presetApplied(const QString &text);

private:
    void updateCount();
    void updateColumns();

    ScenarioDocument *m_document;
    RankListModel *m_model;
    RankFilterModel *m_filter;
    QLineEdit *m_filterEdit;
    QLabel *m_count;
    QTableView *m_table;
    QPushButton *m_packed;
    QPushButton *m_railAligned;
    QPushButton *m_scattered;
    QLabel *m_presetResult = nullptr;
    bool m_syncing = false;
    bool m_applyingPreset = false;
};

} // namespace railyard
