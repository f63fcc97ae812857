// FabricView, part 2: mouse gestures and rank drag-and-drop (chips, server bars, the selection
// and drops from the RankPalette). Every drop is one document command; previews are not edits.
#include "fabricview.h"

#include "dragghostitem.h"
#include "fabricinfo.h"
#include "fabricitem.h"
#include "document/scenariodocument.h"
#include "serveritem.h"
#include "slotitem.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QMimeData>
#include <QMouseEvent>
#include <QScrollBar>

#include <algorithm>
#include <set>

namespace railyard {

void FabricView::mousePressEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    if (event->button() == Qt::MiddleButton) {
        m_press = Press::Pan;
        m_panLast = pos;
        viewport()->setCursor(Qt::ClosedHandCursor);
        event->accept();
        return;
    }
    if (event->button() != Qt::LeftButton || m_dragging) {
        QGraphicsView::mousePressEvent(event);
        return;
    }
    const Hit hit = hitAt(pos);
    m_pressPos = pos;
    m_pendingRanks.clear();
    if (hit.slot >= 0 && m_document->mapping().rankAt(hit.slot) >= 0) {
        const int rank = m_document->mapping().rankAt(hit.slot);
        SlotItem *chip = m_root->slotItem(hit.slot);
        m_press = Press::Chip;
        m_pressSlot = hit.slot;
        const std::vector<int> selection = selectedRanks();
        if (chip && chip->isSelected() && selection.size() > 1)
            m_pendingRanks = selection; // drag the whole selection
        else
            m_pendingRanks = {rank};
        event->accept();
        return;
    }
    if (hit.handle) {
        const int server = hit.server->server();
        for (int g = 0; g < hit.server->gpuCount(); ++g) {
            const int rank = m_document->mapping().rankAt(server * hit.server->gpuCount() + g);
            if (rank >= 0)
                m_pendingRanks.push_back(rank);
        }
        if (!m_pendingRanks.empty()) {
            m_press = Press::Server;
            m_pressSlot = server * hit.server->gpuCount();
            event->accept();
            return;
        }
    }
    // Background: pan, or rubber-band select chips with Shift.
    m_press = Press::Background;
    if (!(event->modifiers() & Qt::ShiftModifier))
        m_autoFit = false; // a hand drag pans
    setDragMode((event->modifiers() & Qt::ShiftModifier) ? RubberBandDrag : ScrollHandDrag);
    QGraphicsView::mousePressEvent(event);
}

void FabricView::mouseMoveEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    switch (m_press) {
    case Press::Pan: {
        m_autoFit = false;
        const QPoint delta = pos - m_panLast;
        m_panLast = pos;
        horizontalScrollBar()->setValue(horizontalScrollBar()->value() - delta.x());
        verticalScrollBar()->setValue(verticalScrollBar()->value() - delta.y());
        return;
    }
    case Press::Chip:
    case Press::Server:
        if (!m_dragging
            && (pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance())
            beginDrag(m_pendingRanks, m_pressSlot, false);
        if (m_dragging)
            updateDrag(pos);
        return;
    case Press::None:
        if (!m_dragging)
            hover(pos);
        break;
    case Press::Background:
        break;
    }
    QGraphicsView::mouseMoveEvent(event);
}

void FabricView::mouseReleaseEvent(QMouseEvent *event)
{
    const QPoint pos = event->position().toPoint();
    const Press press = m_press;
    m_press = Press::None;
    if (press == Press::Pan) {
        viewport()->unsetCursor();
        return;
    }
    if (press == Press::Chip || press == Press::Server) {
        if (m_dragging) {
            finishDrag(pos);
        } else if (press == Press::Chip) {
            // A click: select the chip (Ctrl toggles) and pin its partner highlight.
            SlotItem *chip = m_root->slotItem(m_pressSlot);
            if (!(event->modifiers() & Qt::ControlModifier))
                m_scene->clearSelection();
            if (chip) {
                chip->setSelected(!chip->isSelected() || !(event->modifiers() & Qt::ControlModifier));
                m_pinnedRank = chip->isSelected() ? chip->rank() : -1;
                m_root->setFocusRank(m_pinnedRank);
                Q_EMIT rankSelected(m_pinnedRank);
            }
        }
        return;
    }
    QGraphicsView::mouseReleaseEvent(event);
    if (press == Press::Background) {
        setDragMode(NoDrag);
        if ((pos - m_pressPos).manhattanLength() < QApplication::startDragDistance()
            && m_scene->selectedItems().isEmpty() && m_pinnedRank >= 0) {
            m_pinnedRank = -1; // a click on the background unpins
            m_root->setFocusRank(-1);
            Q_EMIT rankSelected(-1);
        }
    }
}

void FabricView::beginDrag(const std::vector<int> &ranks, int sourceSlot, bool external)
{
    m_dragging = true;
    m_external = external;
    m_dragRanks = ranks;
    m_dragSourceSlot = sourceSlot;
    m_targetSlot = -1;
    m_targetServer = -1;
    m_previewing = false;
    m_previewPair = {-1, -1};
    m_previewMoves.clear();
    m_iterationBefore = m_document->report().iterationTime;
    m_root->holdScale(true);
    m_root->setFocusRank(ranks.size() == 1 ? ranks.front() : -1);
    std::vector<DragGhostItem::Chip> chips;
    for (int rank : ranks) {
        chips.push_back({rank, m_root->chipColour(rank)});
        if (SlotItem *slot = m_root->slotItemOfRank(rank))
            slot->setDragSource(true);
    }
    if (!external) {
        m_ghost = new DragGhostItem(std::move(chips));
        m_scene->addItem(m_ghost);
        viewport()->setCursor(Qt::ClosedHandCursor);
    }
    say(ranks.size() == 1
            ? QStringLiteral("Dragging %1: drop on a slot to move or swap (Esc cancels)")
                  .arg(FabricInfo::rankLabel(*m_document, ranks.front()))
            : QStringLiteral("Dragging %1 ranks: drop on a server (Esc cancels)").arg(ranks.size()));
}

std::vector<std::pair<int, int>> FabricView::multiMoves(int server, int hintSlot) const
{
    const Mapping &mapping = m_document->mapping();
    const int gpus = m_root->fabric().gpusPerServer();
    const int n = static_cast<int>(m_dragRanks.size());
    if (server < 0 || n > gpus)
        return {};
    // Keep each rank's GPU index (hence its rail) when they are distinct; else fill the
    // server's slots in order from the slot under the cursor.
    std::set<int> gpuIndex;
    for (int rank : m_dragRanks)
        gpuIndex.insert(mapping.slotOf(rank) % gpus);
    std::vector<std::pair<int, int>> moves;
    const int first = hintSlot >= 0 ? hintSlot % gpus : 0;
    for (int i = 0; i < n; ++i) {
        const int rank = m_dragRanks[static_cast<std::size_t>(i)];
        const int gpu = static_cast<int>(gpuIndex.size()) == n ? mapping.slotOf(rank) % gpus
                                                               : (first + i) % gpus;
        moves.emplace_back(rank, server * gpus + gpu);
    }
    const bool noop = std::all_of(moves.begin(), moves.end(), [&mapping](const auto &m) {
        return mapping.slotOf(m.first) == m.second;
    });
    return noop ? std::vector<std::pair<int, int>>{} : moves;
}

void FabricView::setTarget(int slot, int server)
{
    if (slot != m_targetSlot) {
        if (SlotItem *old = m_root->slotItem(m_targetSlot))
            old->setDropTarget(false);
        if (SlotItem *item = m_root->slotItem(slot))
            item->setDropTarget(true);
        m_targetSlot = slot;
    }
    if (server != m_targetServer) {
        if (ServerItem *old = m_root->serverItem(m_targetServer))
            old->setDropTarget(false);
        if (ServerItem *item = m_root->serverItem(server))
            item->setDropTarget(true);
        m_targetServer = server;
    }
}

void FabricView::updateDrag(const QPoint &viewPos)
{
    if (m_ghost)
        m_ghost->setPos(mapToScene(viewPos));
    const Hit hit = hitAt(viewPos);
    const Mapping &mapping = m_document->mapping();
    if (m_dragRanks.size() == 1) {
        const int rank = m_dragRanks.front();
        const int slot = hit.slot >= 0 && hit.slot != mapping.slotOf(rank) ? hit.slot : -1;
        setTarget(slot, -1);
        const int other = slot >= 0 ? mapping.rankAt(slot) : -1;
        if (other >= 0) {
            // Live "as if dropped here": the document re-evaluates, the links recolour.
            if (m_previewPair != std::pair(rank, other)) {
                m_document->previewSwap(rank, other);
                m_previewing = true;
                m_previewPair = {rank, other};
            }
            say(QStringLiteral("Swap rank %1 ↔ rank %2: %3")
                    .arg(rank)
                    .arg(other)
                    .arg(FabricInfo::iterationDelta(m_iterationBefore,
                                                    m_document->report().iterationTime)));
            return;
        }
        if (slot >= 0) {
            // An empty slot: preview the move itself (the engine re-routes only this rank).
            if (m_previewPair != std::pair(rank, -1 - slot)) {
                m_document->previewMove(rank, slot);
                m_previewing = true;
                m_previewPair = {rank, -1 - slot};
            }
        } else if (m_previewing) {
            m_document->endPreview();
            m_previewing = false;
            m_previewPair = {-1, -1};
        }
        say(slot >= 0 ? QStringLiteral("Move rank %1 to the empty slot %2")
                            .arg(rank)
                            .arg(FabricInfo::slotName(*m_document, slot))
                      : QStringLiteral("Dragging rank %1: drop on a slot (outside cancels)")
                            .arg(rank));
        return;
    }
    const int server = hit.server ? hit.server->server() : -1;
    const std::vector<std::pair<int, int>> moves = multiMoves(server, hit.slot);
    const bool possible = !moves.empty();
    setTarget(-1, possible ? server : -1);
    if (possible && moves != m_previewMoves) {
        // Live "as if dropped here" for the whole group: the same moves the drop will make.
        m_document->previewMoves(moves);
        m_previewing = true;
        m_previewMoves = moves;
    } else if (!possible && m_previewing) {
        m_document->endPreview();
        m_previewing = false;
        m_previewMoves.clear();
    }
    say(possible ? QStringLiteral("Move %1 ranks to %2: %3")
                       .arg(m_dragRanks.size())
                       .arg(QString::fromStdString(m_root->fabric().serverName(server)))
                       .arg(FabricInfo::iterationDelta(m_iterationBefore,
                                                       m_document->report().iterationTime))
                 : QStringLiteral("Dragging %1 ranks: drop on a server").arg(m_dragRanks.size()));
}

void FabricView::clearDragVisuals()
{
    setTarget(-1, -1);
    for (int rank : m_dragRanks) {
        if (SlotItem *slot = m_root->slotItemOfRank(rank))
            slot->setDragSource(false);
    }
    delete m_ghost;
    m_ghost = nullptr;
    viewport()->unsetCursor();
    m_root->holdScale(false);
}

void FabricView::cancelDrag(const QString &why)
{
    if (!m_dragging)
        return;
    if (m_previewing)
        m_document->endPreview();
    m_previewing = false;
    m_previewPair = {-1, -1};
    m_previewMoves.clear();
    clearDragVisuals();
    m_dragging = false;
    m_press = Press::None;
    m_dragRanks.clear();
    m_root->setFocusRank(m_pinnedRank);
    if (!why.isEmpty())
        say(why);
}

void FabricView::finishDrag(const QPoint &viewPos)
{
    const Hit hit = hitAt(viewPos);
    // The preview ends before the edit: the command then evaluates the real mapping.
    if (m_previewing)
        m_document->endPreview();
    m_previewing = false;
    m_previewPair = {-1, -1};
    m_previewMoves.clear();
    clearDragVisuals();
    m_dragging = false;
    const std::vector<int> ranks = std::move(m_dragRanks);
    m_dragRanks.clear();
    const Mapping &mapping = m_document->mapping();
    const double before = m_document->report().iterationTime;
    QString done;
    if (ranks.size() == 1) {
        const int rank = ranks.front();
        if (hit.slot < 0 || hit.slot == mapping.slotOf(rank)) {
            m_root->setFocusRank(m_pinnedRank);
            say(QStringLiteral("Drop cancelled: not on another slot"));
            return;
        }
        const int other = mapping.rankAt(hit.slot);
        const QString where = FabricInfo::slotName(*m_document, hit.slot);
        if (other >= 0) {
            m_document->swapRanks(rank, other);
            done = QStringLiteral("Swapped rank %1 ↔ rank %2").arg(rank).arg(other);
        } else {
            m_document->moveRanks({{rank, hit.slot}},
                                  QStringLiteral("Move rank %1 to %2").arg(rank).arg(where));
            done = QStringLiteral("Moved rank %1 to %2").arg(rank).arg(where);
        }
    } else {
        m_dragRanks = ranks; // multiMoves reads them
        const int server = hit.server ? hit.server->server() : -1;
        const auto moves = multiMoves(server, hit.slot);
        m_dragRanks.clear();
        if (moves.empty()) {
            m_root->setFocusRank(m_pinnedRank);
            say(QStringLiteral("Drop cancelled: not on a server that can take %1 ranks")
                    .arg(ranks.size()));
            return;
        }
        const QString name = QString::fromStdString(m_root->fabric().serverName(server));
        m_document->moveRanks(moves, QStringLiteral("Move %1 ranks to %2").arg(moves.size()).arg(name));
        done = QStringLiteral("Moved %1 ranks to %2").arg(moves.size()).arg(name);
    }
    m_root->setFocusRank(m_pinnedRank);
    say(done + QStringLiteral(" · ")
        + FabricInfo::iterationDelta(before, m_document->report().iterationTime));
}

std::vector<int> FabricView::parseRanks(const QByteArray &payload) const
{
    std::vector<int> ranks;
    const int count = m_document->mapping().rankCount();
    for (const QByteArray &part : payload.split(',')) {
        bool ok = false;
        const int rank = part.trimmed().toInt(&ok);
        if (!ok || rank < 0 || rank >= count)
            return {};
        if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end())
            ranks.push_back(rank);
    }
    return ranks;
}

void FabricView::dragEnterEvent(QDragEnterEvent *event)
{
    const QString type = QString::fromLatin1(kRanksMimeType);
    const std::vector<int> ranks = event->mimeData()->hasFormat(type)
        ? parseRanks(event->mimeData()->data(type))
        : std::vector<int>{};
    if (ranks.empty() || m_dragging) {
        event->ignore(); // foreign or malformed data: not ours
        return;
    }
    beginDrag(ranks, -1, true);
    event->acceptProposedAction();
}

void FabricView::dragMoveEvent(QDragMoveEvent *event)
{
    if (!m_dragging || !m_external) {
        event->ignore();
        return;
    }
    updateDrag(event->position().toPoint());
    event->acceptProposedAction();
}

void FabricView::dragLeaveEvent(QDragLeaveEvent *event)
{
    if (m_external)
        cancelDrag(QString());
    event->accept();
}

void FabricView::dropEvent(QDropEvent *event)
{
    const QString type = QString::fromLatin1(kRanksMimeType);
    if (!m_dragging || !m_external || !event->mimeData()->hasFormat(type)) {
        event->ignore();
        return;
    }
    finishDrag(event->position().toPoint());
    m_external = false;
    event->acceptProposedAction();
}

} // namespace railyard
