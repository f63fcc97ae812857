#pragma once

#include "scenario/annotation.h"

#include <QFont>
#include <QGraphicsObject>
#include <QHash>
#include <QList>
#include <QPointF>
#include <QRectF>
#include <QTransform>

#include <optional>

namespace railyard {

class FabricItem;
class ScenarioDocument;
class AnnotationNoteItem;

/**
 * The whiteboard marks of the scenario drawn over the fabric: each sticky note as a paper card
 * (constant size on screen, so it reads at any zoom) with a line back to its pin, each arrow
 * from its tail's pin to its head's with its label. Pins are the server's top edge, the chip of
 * the rank (following the rank when it moves) or the middle of the link's cable.
 *
 * Notes and arrow labels are laid out for the view they are seen in (layoutForView()): each
 * note starts at its file offset and moves, keeping its line to the pin, to the nearest place
 * where it covers neither another note, an arrow's label nor the view's labels (NoteLayout).
 * A mark about one snapshot (Annotation::snapshot) shows only while that snapshot is the
 * mapping shown.
 *
 * A note can be dragged (one undoable edit when released) and selected (Delete removes it via
 * the view); everything else about editing goes through the window's menus. The layer rebuilds
 * its cards from the document whenever the annotations, the mapping or the fabric change: a
 * scenario holds a handful of notes, so rebuilding is cheaper than tracking each one.
 */
class AnnotationLayer : public QGraphicsObject
{
    Q_OBJECT

public:
    enum { Type = UserType + 20 };

    AnnotationLayer(ScenarioDocument *document, FabricItem *root);

    int type() const override { return Type; }
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
               QWidget *widget) override;

    /// The scene position of a pin, or nothing when it names no server, rank or link of the
    /// fabric shown (a note kept from an edit that shrank the fabric stays in the file).
    std::optional<QPointF> pinPosition(const AnnotationAnchor &anchor) const;
    /// The note cards, in annotation order (arrows have none).
    QList<AnnotationNoteItem *> notes() const { return m_notes; }
    /// The annotation whose card or arrow is at scene point `p` (within a few pixels of an
    /// arrow at view scale `viewScale`), or -1.
    int annotationAt(const QPointF &p, double viewScale) const;
    /// The selected note's annotation index, or -1.
    int selectedNote() const;

    /// Rebuilds the cards from the document (also called by the document's signals).
    void rebuild();
    /// The notes' and arrow labels' type size in pixels on screen (12 by default; presentation
    /// mode's is larger). Cards grow with it.
    void setTextPixels(double px);
    double textPixels() const { return m_textPx; }
    /// Lays the notes and arrow labels out for a view: `toView` maps scene to view pixels,
    /// `frame` is the view's rectangle and `obstacles` the view-pixel rectangles of the text
    /// they must not cover. Kept and re-applied after every rebuild.
    /// `parts` (view pixels too) are the picture's parts the notes should rather not cover
    /// (servers, switches): a free place beats one over them.
    /// `names` are places the stage keeps for names (a note takes one only when nothing freer
    /// is left, the name then gives way).
    void layoutForView(const QTransform &toView, const QRectF &frame,
        const QList<QRectF> &obstacles, const QList<QRectF> &parts = {},
        const QList<QRectF> &names = {});
    /// The arrow labels' rectangles in scene coordinates (after layoutForView()), by annotation.
    QHash<int, QRectF> arrowLabelRects() const { return m_arrowLabels; }
    /// Whether the annotation shows with the mapping shown (its snapshot's own, or everyone's).
    bool isShown(const Annotation &a) const;
    /// A card was dragged to scene position `pos`: its new offset from the pin, as one edit.
    void noteDragged(int index, const QPointF &pos);

Q_SIGNALS:
    /// A note card was double-clicked: the window asks for its new text.
    void editRequested(int index);

private:
    ScenarioDocument *m_document;
    void applyLayout();
    QFont labelFont() const;

    FabricItem *m_root;
    QList<AnnotationNoteItem *> m_notes;
    QRectF m_bounds;
    double m_textPx = 12.0;
    QTransform m_toView;
    QRectF m_frame;
    QList<QRectF> m_obstacles;
    QList<QRectF> m_parts;
    QList<QRectF> m_names;
    QHash<int, QRectF> m_arrowLabels; ///< scene rectangles of the arrows' labels
    bool m_laidOut = false; ///< an arrow without a rectangle then has no room: no label
};

/** One sticky note's card: movable and selectable, painted at screen size. */
class AnnotationNoteItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 21 };

    AnnotationNoteItem(
        AnnotationLayer *layer, int index, const Annotation &note, QPointF pin, double textPx);

    int type() const override { return Type; }
    int index() const { return m_index; }
    QString text() const { return m_text; }
    QPointF pin() const { return m_pin; }
    /// Where the file puts it: its pin plus the file's offset (scene coordinates).
    QPointF filePos() const { return m_filePos; }
    /// The card in its own (screen) pixels, from (0, 0).
    QRectF card() const { return m_card; }
    double textPixels() const { return m_textPx; }
    /// The card's shapes: at its usual width, narrower (a crowded stage; the text wraps to
    /// fit), or folded to a numbered badge when no place is free even for the narrow card (a
    /// small window): the badge's tooltip and a double-click give the text.
    enum class Shape { Wide, Narrow, Badge };
    QRectF cardFor(Shape shape) const;
    void setShape(Shape shape);
    Shape cardShape() const { return m_shape; }
    /// The badge's number (its place among the notes shown, from 1).
    void setNumber(int number) { m_number = number; }
    QColor paper() const;
    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
               QWidget *widget) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant &value) override;
    void mousePressEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseReleaseEvent(QGraphicsSceneMouseEvent *event) override;
    void mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event) override;

private:
    AnnotationLayer *m_layer;
    int m_index;
    QString m_text;
    std::string m_colour;
    QPointF m_pin;
    QRectF m_card;
    QPointF m_filePos;
    double m_textPx;
    Shape m_shape = Shape::Wide;
    int m_number = 1;
    QPointF m_pressPos;
};

} // namespace railyard
