#include "notelayout.h"

#include <limits>

namespace railyard {

double NoteLayout::cost(const QRectF &rect) const
{
    double area = 0.0;
    for (const QRectF &t : m_taken) {
        const QRectF overlap = rect.intersected(t);
        if (!overlap.isEmpty())
            area += overlap.width() * overlap.height();
    }
    if (!m_frame.isEmpty()) {
        const QRectF inside = rect.intersected(m_frame);
        const double in = inside.isEmpty() ? 0.0 : inside.width() * inside.height();
        // Off-screen text is unreadable: as bad as covered text.
        area += rect.width() * rect.height() - in;
    }
    return area;
}

QRectF NoteLayout::place(const Box &box, double *placedCost)
{
    if (placedCost)
        *placedCost = 0.0;
    if (box.candidates.isEmpty())
        return QRectF();
    QRectF best;
    double bestCost = std::numeric_limits<double>::infinity();
    for (const QPointF &p : box.candidates) {
        const QRectF r(p, box.size);
        const double c = cost(r);
        if (c < bestCost) { // strictly less: the earlier candidate wins a tie
            bestCost = c;
            best = r;
            if (c <= 0.0)
                break;
        }
    }
    m_taken.push_back(best);
    if (placedCost)
        *placedCost = bestCost;
    return best;
}

QList<QPointF> NoteLayout::around(const QRectF &anchor, const QSizeF &size, double gap)
{
    QList<QPointF> out;
    const double w = size.width(), h = size.height();
    // Three rings: next to the anchor, then one and two box sizes further out.
    for (int ring = 0; ring < 3; ++ring) {
        const double gx = gap + ring * (w + gap);
        const double gy = gap + ring * (h + gap);
        const QRectF a = anchor.adjusted(-gx, -gy, gx, gy);
        const double cy = anchor.center().y() - h / 2.0;
        const double cx = anchor.center().x() - w / 2.0;
        out << QPointF(a.right(), cy) << QPointF(a.left() - w, cy) // right, left
            << QPointF(cx, a.top() - h) << QPointF(cx, a.bottom()) // above, below
            << QPointF(a.right(), a.top() - h) << QPointF(a.left() - w, a.top() - h)
            << QPointF(a.right(), a.bottom()) << QPointF(a.left() - w, a.bottom());
    }
    return out;
}

} // namespace railyard
