#pragma once

#include <QList>
#include <QPointF>
#include <QRectF>
#include <QSizeF>

namespace railyard {

/**
 * Places text boxes (sticky notes, arrow labels, presentation labels) without overlap: each
 * box has a list of candidate top-left positions, best first (around its pin, the file's own
 * offset first for a note); boxes are placed one after the other, each at the candidate whose
 * box overlaps the obstacles and the boxes placed before it least (by area, a box leaving the
 * frame counting its outside part as overlap), the earlier candidate on a tie. Greedy and
 * deterministic: the same input gives the same picture, and an uncluttered box stays where
 * its owner put it. All coordinates are one space (the view's pixels).
 */
class NoteLayout
{
public:
    struct Box
    {
        QSizeF size;
        QList<QPointF> candidates; ///< top-left corners, best first
    };

    /// Boxes must stay inside `frame` when they can (an empty frame: no bound).
    explicit NoteLayout(const QRectF &frame = QRectF())
        : m_frame(frame)
    {
    }

    /// Something the boxes must not cover (a label drawn by someone else, the legend). A
    /// `weight` under 1 makes it something they should rather not cover (a server's chips):
    /// its overlap counts for that fraction, so a free place wins, then a place over parts
    /// of the picture, and text over text only when nothing else is left.
    void addObstacle(const QRectF &rect, double weight = 1.0)
    {
        m_taken.push_back(rect);
        m_weight.push_back(weight);
    }
    /// Places `box` and returns its rectangle (which later boxes then avoid). A box without
    /// candidates is not placed (an empty rectangle).
    QRectF place(const Box &box, double *placedCost = nullptr);
    /// Where place() would put `box` (and at what cost), without placing it.
    QRectF best(const Box &box, double *bestCost = nullptr) const;
    /// Places a rectangle chosen by the caller.
    void take(const QRectF &rect) { addObstacle(rect); }
    /// The area of `rect` over the obstacles and placed boxes, plus its part outside the frame.
    double cost(const QRectF &rect) const;
    /// The part of cost() that is text over text or off the frame (obstacles of weight 1).
    double hardCost(const QRectF &rect) const;

    /// Candidate top-left corners for a box of `size` around `anchor` (a point or a rectangle,
    /// e.g. a server's box), `gap` away from it: right, left, above, below and the four
    /// corners, then the same rings `gap` + one and two box sizes further out, so a crowded pin
    /// still finds room near it.
    static QList<QPointF> around(const QRectF &anchor, const QSizeF &size, double gap);
    /// Every top-left corner on a grid of a quarter box over `frame` (the box inside it),
    /// nearest to `near` (the box's centre's distance) first: the last resort of a crowded
    /// view, so that a free place anywhere is found before an overlap is accepted.
    static QList<QPointF> grid(const QRectF &frame, const QSizeF &size, const QPointF &near);

private:
    QRectF m_frame;
    QList<QRectF> m_taken;
    QList<double> m_weight; ///< per m_taken
};

} // namespace railyard
