#include "rankdragtool.h"

#include "document/scenariodocument.h"
#include "dragghostitem.h"
#include "fabricinfo.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "serveritem.h"
#include "slotitem.h"

#include <QApplication>
#include <QDragEnterEvent>
#include <QGraphicsScene>
#include <QKeyEvent>
#include <QMimeData>
#include <QMouseEvent>

#include <algorithm>
#include <set>

namespace railyard {

RankDragTool::RankDragTool(FabricView *view, FabricItem *root, ScenarioDocument *document)
    : m_view(view)
    , m_root(root)
    , m_document(document)
    , m_documentAlive(document)
{
}

RankDragTool::~RankDragTool()
{
    if (!m_previewed.empty() && m_documentAlive)
        m_document->endPreview();
    delete m_ghost;
}

QGraphicsItem *RankDragTool::ghost() const
{
    return m_ghost;
}

bool RankDragTool::mousePressed(QMouseEvent *event)
{
    if (event->button() != Qt::LeftButton || m_dragging)
        return false;
    const QPoint pos = event->position().toPoint();
    const FabricView::Hit hit = m_view->hitAt(pos);
    const Mapping &mapping = m_document->mapping();
    m_pressPos = pos;
    m_pendingRanks.clear();
    if (hit.slot >= 0 && mapping.rankAt(hit.slot) >= 0) {
        SlotItem *chip = m_root->slotItem(hit.slot);
        m_press = Press::Chip;
        m_pressSlot = hit.slot;
        const std::vector<int> selection = m_view->selectedRanks();
        if (chip && chip->isSelected() && selection.size() > 1)
            m_pendingRanks = selection; // drag the whole selection
        else
            m_pendingRanks = { mapping.rankAt(hit.slot) };
        return true;
    }
    if (hit.handle) {
        // The server's ranks: dragged themselves, or with Ctrl the ghost of the whole job on
        // show (every rank of the document's mapping), which follows as a block.
        const int server = hit.server->server();
        std::vector<int> onServer;
        for (int g = 0; g < hit.server->gpuCount(); ++g)
            if (const int rank = mapping.rankAt(server * hit.server->gpuCount() + g); rank >= 0)
                onServer.push_back(rank);
        if (!onServer.empty()) {
            m_pressSlot = server * hit.server->gpuCount();
            m_pressServer = server;
            if (event->modifiers() & Qt::ControlModifier) {
                m_press = Press::Job;
                m_ghostRanks = std::move(onServer);
                for (int rank = 0; rank < mapping.rankCount(); ++rank)
                    m_pendingRanks.push_back(rank);
            } else {
                m_press = Press::Server;
                m_pendingRanks = std::move(onServer);
            }
            return true;
        }
    }
    m_press = Press::None;
    return false;
}

bool RankDragTool::mouseMoved(QMouseEvent *event)
{
    if (m_press == Press::None)
        return m_dragging;
    const QPoint pos = event->position().toPoint();
    if (!m_dragging && (pos - m_pressPos).manhattanLength() >= QApplication::startDragDistance()) {
        m_wholeJob = m_press == Press::Job;
        begin(m_pendingRanks, false, m_wholeJob ? m_ghostRanks : std::vector<int> {});
    }
    if (m_dragging)
        update(pos);
    return true;
}

bool RankDragTool::mouseReleased(QMouseEvent *event)
{
    const Press press = std::exchange(m_press, Press::None);
    if (press == Press::None)
        return false;
    if (m_dragging)
        finish(event->position().toPoint());
    else if (press == Press::Chip)
        m_view->chipClicked(m_pressSlot, event->modifiers());
    return true;
}

bool RankDragTool::keyPressed(QKeyEvent *event)
{
    if (!m_dragging)
        return false;
    if (event->key() == Qt::Key_Escape) {
        cancel(QStringLiteral("Drag cancelled"));
        return true;
    }
    cancel(QString()); // no edits under a drag in progress; the key goes on
    return false;
}

bool RankDragTool::dragEntered(QDragEnterEvent *event)
{
    const QString type = QString::fromLatin1(FabricView::kRanksMimeType);
    const std::vector<int> ranks = event->mimeData()->hasFormat(type)
        ? m_view->parseRanks(event->mimeData()->data(type))
        : std::vector<int> {};
    if (ranks.empty() || m_dragging)
        return false; // foreign or malformed data: not ours
    begin(ranks, true);
    return true;
}

bool RankDragTool::dragMoved(QDragMoveEvent *event)
{
    if (!m_dragging || !m_external)
        return false;
    update(event->position().toPoint());
    return true;
}

void RankDragTool::dragLeft()
{
    if (m_external)
        cancel(QString());
}

bool RankDragTool::dropped(QDropEvent *event)
{
    const QString type = QString::fromLatin1(FabricView::kRanksMimeType);
    if (!m_dragging || !m_external || !event->mimeData()->hasFormat(type))
        return false;
    finish(event->position().toPoint());
    m_external = false;
    return true;
}

void RankDragTool::begin(
    const std::vector<int> &ranks, bool external, const std::vector<int> &ghostRanks)
{
    if (external)
        m_wholeJob = false;
    m_dragging = true;
    m_external = external;
    m_ranks = ranks;
    m_targetSlot = -1;
    m_targetServer = -1;
    m_previewed.clear();
    m_iterationBefore = m_document->report().iterationTime;
    m_root->setFocusRank(ranks.size() == 1 ? ranks.front() : -1);
    std::vector<DragGhostItem::Chip> chips;
    for (int rank : ghostRanks.empty() ? ranks : ghostRanks)
        chips.push_back({ rank, m_root->chipColour(rank) });
    for (int rank : ranks)
        if (SlotItem *slot = m_root->slotItemOfRank(rank))
            slot->setDragSource(true);
    if (!external) {
        m_ghost = new DragGhostItem(std::move(chips));
        m_view->scene()->addItem(m_ghost);
        m_view->viewport()->setCursor(Qt::ClosedHandCursor);
    }
    m_view->say(m_wholeJob
            ? QStringLiteral("Dragging %1 (%2 ranks): drop on a server, and each of its servers "
                             "moves as far (Esc cancels)")
                  .arg(jobName())
                  .arg(ranks.size())
            : ranks.size() == 1
            ? QStringLiteral("Dragging %1: drop on a slot to move or swap (Esc cancels)")
                  .arg(FabricInfo::rankLabel(*m_document, ranks.front()))
            : QStringLiteral("Dragging %1 ranks: drop on a server (Esc cancels)")
                  .arg(ranks.size()));
}

QString RankDragTool::jobName() const
{
    const Scenario &scenario = m_document->scenario();
    const auto active = static_cast<std::size_t>(m_document->activeJob());
    return active < scenario.jobs.size()
        ? QStringLiteral("job \"%1\"").arg(QString::fromStdString(scenario.jobs[active].name))
        : QStringLiteral("the job");
}

std::vector<std::pair<int, int>> RankDragTool::jobMoves(int server) const
{
    const Mapping &mapping = m_document->mapping();
    const int gpus = m_root->fabric().gpusPerServer();
    const int servers = m_root->fabric().servers();
    const int offset = server - m_pressServer;
    if (server < 0 || offset == 0)
        return {};
    std::vector<std::pair<int, int>> moves;
    moves.reserve(m_ranks.size());
    for (int rank : m_ranks) {
        const int slot = mapping.slotOf(rank);
        const int to = slot / gpus + offset;
        if (to < 0 || to >= servers)
            return {}; // part of the job would leave the fabric
        moves.emplace_back(rank, to * gpus + slot % gpus);
    }
    return moves;
}

std::vector<std::pair<int, int>> RankDragTool::multiMoves(int server, int hintSlot) const
{
    const Mapping &mapping = m_document->mapping();
    const int gpus = m_root->fabric().gpusPerServer();
    const int n = static_cast<int>(m_ranks.size());
    if (server < 0 || n > gpus)
        return {};
    // Keep each rank's GPU index (hence its rail) when they are distinct; else fill the
    // server's slots in order from the slot under the cursor.
    std::set<int> gpuIndex;
    for (int rank : m_ranks)
        gpuIndex.insert(mapping.slotOf(rank) % gpus);
    std::vector<std::pair<int, int>> moves;
    const int first = hintSlot >= 0 ? hintSlot % gpus : 0;
    for (int i = 0; i < n; ++i) {
        const int rank = m_ranks[static_cast<std::size_t>(i)];
        const int gpu = static_cast<int>(gpuIndex.size()) == n ? mapping.slotOf(rank) % gpus
                                                               : (first + i) % gpus;
        moves.emplace_back(rank, server * gpus + gpu);
    }
    const bool noop = std::all_of(moves.begin(), moves.end(),
        [&mapping](const auto &m) { return mapping.slotOf(m.first) == m.second; });
    return noop ? std::vector<std::pair<int, int>> {} : moves;
}

std::vector<std::pair<int, int>> RankDragTool::request(
    const QPoint &viewPos, int &server, int &slot) const
{
    const FabricView::Hit hit = m_view->hitAt(viewPos);
    if (m_ranks.size() == 1) {
        const int rank = m_ranks.front();
        server = -1;
        slot = hit.slot >= 0 && hit.slot != m_document->mapping().slotOf(rank) ? hit.slot : -1;
        return slot >= 0 ? std::vector<std::pair<int, int>> { { rank, slot } }
                         : std::vector<std::pair<int, int>> {};
    }
    slot = -1;
    server = hit.server ? hit.server->server() : -1;
    std::vector<std::pair<int, int>> moves
        = m_wholeJob ? jobMoves(server) : multiMoves(server, hit.slot);
    if (moves.empty())
        server = -1;
    return moves;
}

void RankDragTool::setTarget(int slot, int server)
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

void RankDragTool::preview(const std::vector<std::pair<int, int>> &request)
{
    if (request == m_previewed)
        return;
    // Live "as if dropped here": the document re-evaluates, the links recolour.
    m_document->previewMoves(request);
    m_previewed = request;
}

void RankDragTool::endPreview()
{
    if (m_previewed.empty())
        return;
    m_document->endPreview();
    m_previewed.clear();
}

void RankDragTool::update(const QPoint &viewPos)
{
    if (m_ghost)
        m_ghost->setPos(m_view->mapToScene(viewPos));
    int server = -1, slot = -1;
    const std::vector<std::pair<int, int>> moves = request(viewPos, server, slot);
    setTarget(slot, server);
    // Another job's GPU: no preview; the drop would be refused (the document says why).
    if (const QString refusal = m_document->moveRefusal(moves); !refusal.isEmpty()) {
        endPreview();
        m_view->say(QStringLiteral("Cannot drop here: %1").arg(refusal));
        return;
    }
    if (moves.empty())
        endPreview();
    else
        preview(moves);
    const QString delta
        = FabricInfo::iterationDelta(m_iterationBefore, m_document->report().iterationTime);
    if (m_ranks.size() == 1) {
        const int rank = m_ranks.front();
        const int other = slot >= 0 ? m_document->mapping().rankAt(slot) : -1;
        m_view->say(other >= 0
                ? QStringLiteral("Swap rank %1 ↔ rank %2: %3").arg(rank).arg(other).arg(delta)
                : slot >= 0
                ? QStringLiteral("Move rank %1 to the empty slot %2")
                      .arg(rank)
                      .arg(FabricInfo::slotName(*m_document, slot))
                : QStringLiteral("Dragging rank %1: drop on a slot (outside cancels)").arg(rank));
        return;
    }
    if (m_wholeJob) {
        m_view->say(server >= 0
                ? QStringLiteral("Move %1 by %2 servers (%3 onto %4): %5")
                      .arg(jobName())
                      .arg(server - m_pressServer)
                      .arg(QString::fromStdString(m_root->fabric().serverName(m_pressServer)),
                          QString::fromStdString(m_root->fabric().serverName(server)))
                      .arg(delta)
                : QStringLiteral("Dragging %1: drop on a server that leaves all of it on the "
                                 "fabric")
                      .arg(jobName()));
        return;
    }
    m_view->say(server >= 0
            ? QStringLiteral("Move %1 ranks to %2: %3")
                  .arg(m_ranks.size())
                  .arg(QString::fromStdString(m_root->fabric().serverName(server)))
                  .arg(delta)
            : QStringLiteral("Dragging %1 ranks: drop on a server").arg(m_ranks.size()));
}

void RankDragTool::clearVisuals()
{
    setTarget(-1, -1);
    for (int rank : m_ranks) {
        if (SlotItem *slot = m_root->slotItemOfRank(rank))
            slot->setDragSource(false);
    }
    delete m_ghost;
    m_ghost = nullptr;
    m_view->viewport()->unsetCursor();
}

void RankDragTool::cancel(const QString &why)
{
    if (!m_dragging)
        return;
    clearVisuals();
    endPreview();
    m_dragging = false;
    m_press = Press::None;
    m_ranks.clear();
    m_root->setFocusRank(m_view->pinnedRank());
    if (!why.isEmpty())
        m_view->say(why);
}

void RankDragTool::finish(const QPoint &viewPos)
{
    int server = -1, slot = -1;
    const std::vector<std::pair<int, int>> moves = request(viewPos, server, slot);
    QString text, done;
    if (m_ranks.size() == 1 && !moves.empty()) {
        const int rank = m_ranks.front();
        const int other = m_document->mapping().rankAt(slot);
        const QString where = FabricInfo::slotName(*m_document, slot);
        text = other >= 0 ? QString() // the document names a swap by coordinates
                          : QStringLiteral("Move rank %1 to %2").arg(rank).arg(where);
        done = other >= 0 ? QStringLiteral("Swapped rank %1 ↔ rank %2").arg(rank).arg(other)
                          : QStringLiteral("Moved rank %1 to %2").arg(rank).arg(where);
    } else if (!moves.empty() && m_wholeJob) {
        const int offset = server - m_pressServer;
        text = QStringLiteral("Move %1 by %2 servers").arg(jobName()).arg(offset);
        done = QStringLiteral("Moved %1 by %2 servers").arg(jobName()).arg(offset);
    } else if (!moves.empty()) {
        const QString name = QString::fromStdString(m_root->fabric().serverName(server));
        text = QStringLiteral("Move %1 ranks to %2").arg(moves.size()).arg(name);
        done = QStringLiteral("Moved %1 ranks to %2").arg(moves.size()).arg(name);
    }
    const std::size_t count = m_ranks.size();
    clearVisuals();
    m_dragging = false;
    m_ranks.clear();
    if (const QString refusal = m_document->moveRefusal(moves); !refusal.isEmpty()) {
        endPreview();
        m_root->setFocusRank(m_view->pinnedRank());
        m_view->say(QStringLiteral("Drop refused: %1").arg(refusal));
        return;
    }
    if (moves.empty()) {
        endPreview();
        m_root->setFocusRank(m_view->pinnedRank());
        m_view->say(count == 1 ? QStringLiteral("Drop cancelled: not on another slot")
                : m_wholeJob
                ? QStringLiteral("Drop cancelled: not on a server that leaves all of the job on "
                                 "the fabric")
                : QStringLiteral("Drop cancelled: not on a server that can take %1 ranks")
                      .arg(count));
        return;
    }
    // One command; when it is what the preview shows, the document keeps that evaluation.
    const int other = count == 1 ? m_document->mapping().rankAt(slot) : -1;
    if (other >= 0)
        m_document->swapRanks(moves.front().first, other);
    else
        m_document->moveRanks(moves, text);
    m_previewed.clear();
    if (m_document->isPreviewing())
        m_document->endPreview(); // the edit was refused (a failed slot): nothing changes
    m_root->setFocusRank(m_view->pinnedRank());
    m_view->say(done + QStringLiteral(" · ")
        + FabricInfo::iterationDelta(m_iterationBefore, m_document->report().iterationTime));
}

} // namespace railyard
