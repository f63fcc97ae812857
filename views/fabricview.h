#pragma once

#include "colorscale.h"

#include <QGraphicsView>
#include <QList>
#include <QRectF>
#include <QString>

#include <memory>
#include <unordered_map>
#include <utility>
#include <vector>

class QLabel;
class QTimer;

namespace railyard {

class AnnotationLayer;
class FabricItem;
class LegendItem;
class RankDragTool;
class ScenarioDocument;
class ServerItem;
class SpotlightItem;
class StageLabelsItem;

/**
 * The fabric as a zoomable diagram (spines on top, leaves by rail and SU, servers with their
 * GPU slots in racks), links coloured by the engine's predicted load, and the place where
 * ranks are moved: drag a chip onto another slot (swap or move), a server's bar onto another
 * server (all its ranks), a rubber-band selection (Shift+drag) onto a server, or ranks from the
 * RankPalette (MIME "application/x-railyard-ranks"). The gesture is a RankDragTool's: the
 * view forwards its mouse, key and drag-and-drop events to it. While dragging over a slot or,
 * with several ranks, over a server that can take them, the links show the load "as if
 * dropped here"; a drop is one undoable command, a drop outside any slot changes nothing.
 *
 * The application may lay its own information over the picture: emphasised links
 * (setEmphasis), links coloured by external values (setLinkOverlay) and failed servers and
 * slots (markFailed). Views never compute costs: the caller passes the ids and values in.
 * Link, server and slot ids are the engine's; all three are dropped when the fabric is
 * replaced (the ids would name other parts).
 *
 * The wheel zooms under the mouse; Shift+wheel pans sideways; dragging the background, the
 * middle button or Space+drag (even over chips) pans. Below ~22 % zoom the scene switches to
 * its overview level of detail.
 *
 * The view opens at its default zoom (fitDefault): the whole fabric when its chips' (d,p,t)
 * are readable that way, else as close to the readable size as the fabric's width allows,
 * scrolled to the first leaves and racks (a fabric too large for the detailed drawing even at
 * its width opens whole). Fit to Window (fitAll) shows everything; either
 * choice is kept on resizes until the user zooms or pans.
 */
class FabricView : public QGraphicsView
{
    Q_OBJECT

public:
    static constexpr double kOverviewBelow = 0.22; ///< zoom under which the overview is drawn
    /// The smallest type the view aims for on screen, in points (the layout test's floor for text).
    static constexpr double kReadablePoints = 8.0;
    static constexpr const char *kRanksMimeType = "application/x-railyard-ranks";

    explicit FabricView(ScenarioDocument *document, QWidget *parent = nullptr);
    ~FabricView() override;

    /// Colour chips by 'd', 'p' or 't' (also 'c', 'e').
    void setColourBy(QChar coordinate);
    QChar colourBy() const;
    /// Link colours on the absolute 0-100 % scale (default) or relative to the bottleneck.
    void setLoadScale(LoadScale scale);
    /// The whole fabric in the view (the toolbar's Fit to Window).
    void fitAll();
    /// The default zoom: max(whole fabric, min(fabric's width, readableZoom())), so a fabric
    /// whose chips would be unreadable when fitted whole opens with its (d,p,t) readable, or as
    /// near as its width allows; the top of the first leaves and racks in view. When even the
    /// width's zoom is under kOverviewBelow (a very large fabric), the whole fabric.
    void fitDefault();
    /// The zoom from which every chip's coordinates are at least kReadablePoints on screen
    /// (and drawn at all: at least SlotItem::kCoordinatesLod).
    double readableZoom() const;
    /// kReadablePoints in this view's logical pixels.
    double readablePixels() const;
    /// PNG (QImage render) or SVG (QSvgGenerator) by the file extension; false on failure.
    bool exportImage(const QString &path);

    FabricItem *rootItem() const { return m_root; }
    LegendItem *legendItem() const { return m_legend; }
    /// The notes and arrows drawn over the fabric.
    AnnotationLayer *annotationLayer() const { return m_annotations; }
    /// The annotation (index in the scenario) at view point `viewPos`, or -1.
    int annotationAt(const QPoint &viewPos) const;
    double zoom() const;
    /// The tooltip for a viewport position (a chip, server, switch, cable or bundle): the
    /// report's numbers, plus the overlay's values when links are coloured by one.
    QString toolTipAt(const QPoint &viewPos) const;
    /// Ranks a drop of these MIME bytes carries ("3,5,7"); empty when malformed or out of range.
    std::vector<int> parseRanks(const QByteArray &payload) const;

    /** What lies under a scene point: a server, one of its GPU slots, a switch or a cable. */
    struct Hit
    {
        ServerItem *server = nullptr;
        int slot = -1; ///< GPU slot under the point (inside a server)
        bool handle = false; ///< on the server's bar
        int internalLink = -1;
        int cable = -1;
        int switchVertex = -1;
        const std::vector<int> *bundleCables = nullptr; ///< an aggregated line's cables
    };
    Hit hitAt(const QPoint &viewPos) const;
    /// Ranks of the selected chips, ascending.
    std::vector<int> selectedRanks() const;
    /// The rank whose partners stay highlighted (a clicked chip), or -1.
    int pinnedRank() const { return m_pinnedRank; }

    /// Draw these links (directed FabricLink ids; either direction marks the cable) on top with
    /// a distinct outline, and outline their endpoints; the load colours do not change. The
    /// caption appears in the legend. Replaces the previous emphasis; unknown ids are skipped.
    void setEmphasis(const std::vector<int> &linkIds, const QString &caption);
    void clearEmphasis();
    /// Colour links by the given values (utilisation: 0 idle, 1 full, above 1 saturates)
    /// instead of the report, under `legendTitle`. Links without a value show idle.
    void setLinkOverlay(std::unordered_map<int, double> valueByLink, const QString &legendTitle);
    void clearLinkOverlay();
    /// Draw these servers and GPU slots greyed and crossed out; replaces the previous marks
    /// (empty lists clear them).
    void markFailed(const std::vector<int> &servers, const std::vector<int> &slots);

    /// A short message over the bottom of the fabric for a few seconds (what a preset did):
    /// in front of a room the status bar is too far away.
    void showNotice(const QString &text);
    /// The notice on screen now, or empty.
    QString noticeText() const;
    /// Scrolls the view by device pixels (what Shift+wheel and Space+drag do).
    void panBy(int dx, int dy);

    // Find (fabricviewfind.cpp): select a part, then centre and zoom the view on it, so a rank or
    // a link is found at 16,384 GPUs as well as at 128. Out-of-range ids change nothing (false).
    /// Selects the rank's chip (selectRank()) and zooms to its server at a readable size.
    bool focusRank(int rank);
    /// Outlines the server's NIC uplinks (setEmphasis) and shows the server.
    bool focusServer(int server);
    /// Outlines a leaf's, spine's or super-spine's links and shows the switch.
    bool focusSwitch(int vertex);
    /// Outlines the link (either direction) and shows it: its cable, or for a link inside a
    /// server (NVLink, PCIe) the server.
    bool focusLink(int link, const QString &caption);
    /// Centres `sceneRect` and zooms so it fills at most 60 % of the view, no further in than
    /// the readable zoom (or the present one, when closer) and no further out than the whole
    /// fabric.
    void showSceneRect(const QRectF &sceneRect);

    /// Presentation mode's stage: every word over the fabric (the names of its parts, the
    /// notes, the arrow labels, the legend) at least `textPixels` high on screen, the parts'
    /// names beside them (StageLabelsItem); 0 puts the window's sizes back.
    void setStage(double textPixels);
    double stagePixels() const { return m_stagePx; }
    StageLabelsItem *stageLabels() const { return m_stageLabels; }

    /** A piece of text the view shows over the fabric, where and how large (the layout test's). */
    struct TextBox
    {
        QString what; ///< "note 2", "arrow 1", "legend", "server node003", "switch rail 0", …
        QRectF rect; ///< in the viewport's pixels
        double pixels = 0.0; ///< the smallest type in it, pixels on screen
    };
    /// Spotlight one group: its GPU slots and the directed links of its routes stay bright in
    /// `colour`, the rest of the fabric is dimmed (SpotlightItem). Replaces the previous one.
    void setSpotlight(
        const std::vector<int> &slots, const std::vector<int> &links, const QColor &colour);
    void clearSpotlight();
    /// The spotlight's item, or null before the first one.
    SpotlightItem *spotlight() const { return m_spotlight; }
    bool hasSpotlight() const;

    /// The text drawn over the fabric in view now (not the chips' own numbers): the notes, the
    /// arrow labels, the legend and the names of the servers and switches, in view pixels.
    QList<TextBox> textBoxes() const;

public Q_SLOTS:
    void zoomIn();
    void zoomOut();
    /// Select a rank's chip, highlight its partners and scroll it into view.
    void selectRank(int rank);

Q_SIGNALS:
    void statusMessage(const QString &message);
    /// A chip was clicked (its rank), or -1 when the selection was cleared.
    void rankSelected(int rank);
    /// Right-click (or the context-menu key) on a server outside its chips; in the zoomed-out
    /// overview, anywhere on the server.
    void serverContextMenuRequested(int server, const QPoint &globalPos);
    /// Right-click on a GPU slot (a chip or an empty slot) in the detailed view.
    void slotContextMenuRequested(int slot, const QPoint &globalPos);
    /// Right-click on a cable between servers and switches (its forward link id).
    void linkContextMenuRequested(int link, const QPoint &globalPos);
    /// Right-click on a note or an arrow (its index in the scenario's annotations).
    void annotationContextMenuRequested(int annotation, const QPoint &globalPos);
    /// A note was double-clicked: the window asks for its new text.
    void annotationEditRequested(int annotation);

protected:
    void wheelEvent(QWheelEvent *event) override;
    void mousePressEvent(QMouseEvent *event) override;
    void mouseMoveEvent(QMouseEvent *event) override;
    void mouseReleaseEvent(QMouseEvent *event) override;
    void keyPressEvent(QKeyEvent *event) override;
    /// Delete or Backspace on a selected note removes it (one undo step); true when taken.
    bool annotationKey(QKeyEvent *event);
    void keyReleaseEvent(QKeyEvent *event) override;
    void focusOutEvent(QFocusEvent *event) override;
    void contextMenuEvent(QContextMenuEvent *event) override;
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    bool viewportEvent(QEvent *event) override;
    void scrollContentsBy(int dx, int dy) override;
    void resizeEvent(QResizeEvent *event) override;
    void showEvent(QShowEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    friend class RankDragTool; // reports status and clicks through say() and chipClicked()

    void zoomBy(double factor);
    void updateLevelOfDetail();
    void positionLegend();
    void updateLegend();
    void onRebuilt();
    void positionNotice();
    /// Lays out the stage's names, the notes and the arrow labels for the view as it is now.
    void updateStage();
    /// The view-pixel rectangles of the text the fabric's items draw themselves.
    QList<TextBox> sceneTextBoxes() const;
    /// The servers and switches in view (view pixels), which the notes rather not cover;
    /// empty in the overview or with more than a few hundred servers in view.
    QList<QRectF> partRects(const QTransform &toView, const QRectF &frame) const;
    /// The legend's scale on the stage: the room's type size, within the view's width.
    double legendStageScale() const;
    /// Space held: the next left drag pans. True when the event was the Space key.
    bool spacePanKey(QKeyEvent *event, bool pressed);
    void hover(const QPoint &viewPos);
    void say(const QString &message);

    /// A chip clicked without dragging: select it (Ctrl toggles) and pin its partners.
    void chipClicked(int slot, Qt::KeyboardModifiers modifiers);

    ScenarioDocument *m_document;
    QGraphicsScene *m_scene;
    FabricItem *m_root;
    LegendItem *m_legend;
    AnnotationLayer *m_annotations;
    std::unique_ptr<RankDragTool> m_tool;
    bool m_autoFit = true; ///< fitted and not zoomed or panned since: refit on resize
    bool m_fitWhole = false; ///< the refit is fitAll() (else fitDefault())
    bool m_fitWholeBeforeStage = false; ///< m_fitWhole when the stage began
    void refit();
    bool m_overviewForced = false;
    QString m_lastStatus;
    int m_pinnedRank = -1;

    enum class Press { None, Tool, Background, Pan, Annotation };
    Press m_press = Press::None;
    QPoint m_pressPos;
    QPoint m_panLast;
    bool m_spaceHeld = false;
    QLabel *m_notice = nullptr;
    StageLabelsItem *m_stageLabels = nullptr;
    SpotlightItem *m_spotlight = nullptr;
    double m_stagePx = 0.0;
    bool m_inStageUpdate = false;
    QTimer *m_noticeTimer = nullptr;
};

} // namespace railyard
