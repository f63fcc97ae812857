#pragma once

#include <QPoint>
#include <QPointer>
#include <QString>

#include <utility>
#include <vector>

class QDragEnterEvent;
class QDragMoveEvent;
class QDropEvent;
class QGraphicsItem;
class QKeyEvent;
class QMouseEvent;

namespace railyard {

class DragGhostItem;
class FabricItem;
class FabricView;
class ScenarioDocument;

/**
 * The gesture that moves ranks on the fabric (Tiled keeps gestures in tools; the view forwards
 * its events here): press a chip, a server's bar or a chip of the selection, drag, drop on a
 * slot or a server; Ctrl on a server's bar drags the whole job on show, every one of its
 * servers moving by the same offset as the one pressed (GPU indices kept, as "Move Job to
 * Servers…"); or drop ranks from the RankPalette (MIME "application/x-railyard-ranks").
 * It keeps the drag state, shows a ghost and the drop target, previews the drop on every new
 * target (ScenarioDocument::previewMoves: the links show the load as if dropped here) with the
 * colour range held, and ends in at most one command: ScenarioDocument::moveRanks with the
 * previewed request, so the document keeps the preview's evaluation. Esc, leaving the view or
 * a drop outside any slot changes nothing.
 */
class RankDragTool
{
public:
    RankDragTool(FabricView *view, FabricItem *root, ScenarioDocument *document);
    ~RankDragTool();
    RankDragTool(const RankDragTool &) = delete;
    RankDragTool &operator=(const RankDragTool &) = delete;

    // Each returns true when the tool took the event (the view then does nothing with it).
    bool mousePressed(QMouseEvent *event); ///< a chip or a server bar: the tool owns the press
    bool mouseMoved(QMouseEvent *event);
    bool mouseReleased(QMouseEvent *event);
    bool keyPressed(QKeyEvent *event); ///< Esc cancels a drag
    bool dragEntered(QDragEnterEvent *event);
    bool dragMoved(QDragMoveEvent *event);
    void dragLeft();
    bool dropped(QDropEvent *event);

    bool isDragging() const { return m_dragging; }
    /// Ends a drag without an edit; `why` (if any) goes to the status bar.
    void cancel(const QString &why);
    /// The ghost following the cursor (nullptr when none): hidden while the view exports.
    QGraphicsItem *ghost() const;

private:
    enum class Press { None, Chip, Server, Job };

    /// `ghostRanks`: the chips the ghost shows (all of `ranks` when empty).
    void begin(
        const std::vector<int> &ranks, bool external, const std::vector<int> &ghostRanks = {});
    void update(const QPoint &viewPos);
    void finish(const QPoint &viewPos);
    void clearVisuals();
    void setTarget(int slot, int server);
    void preview(const std::vector<std::pair<int, int>> &request);
    void endPreview();
    /// What a drop at `viewPos` means: (rank, slot) pairs for moveRanks(), empty when nothing.
    std::vector<std::pair<int, int>> request(const QPoint &viewPos, int &server, int &slot) const;
    /// The (rank, slot) moves a multi-rank drop onto `server` means (empty: impossible).
    std::vector<std::pair<int, int>> multiMoves(int server, int hintSlot) const;
    /// The moves of a whole-job drag dropped on `server`: every rank's server shifted by the
    /// offset from the pressed server, its GPU index kept (empty: no shift, or off the fabric).
    std::vector<std::pair<int, int>> jobMoves(int server) const;
    /// "job "b"" with jobs, "the job" without.
    QString jobName() const;

    FabricView *m_view;
    FabricItem *m_root;
    ScenarioDocument *m_document;
    QPointer<ScenarioDocument> m_documentAlive; ///< the document may go first at shutdown

    Press m_press = Press::None;
    QPoint m_pressPos;
    int m_pressSlot = -1;
    std::vector<int> m_pendingRanks; ///< ranks a press would drag
    std::vector<int> m_ghostRanks; ///< a whole-job press: the pressed server's ranks

    bool m_dragging = false;
    bool m_external = false;
    bool m_wholeJob = false; ///< a Ctrl-drag of a server bar: the job on show as a whole
    int m_pressServer = -1; ///< the server whose bar a whole-job drag started on
    std::vector<int> m_ranks;
    DragGhostItem *m_ghost = nullptr;
    int m_targetSlot = -1;
    int m_targetServer = -1;
    std::vector<std::pair<int, int>> m_previewed; ///< the request being previewed
    double m_iterationBefore = 0.0;
};

} // namespace railyard
