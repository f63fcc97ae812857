#include "stagelabelsitem.h"

#include "fabricitem.h"
#include "fabriclayout.h"
#include "notelayout.h"
#include "serveritem.h"
#include "switchitem.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace railyard {

StageLabelsItem::StageLabelsItem(const FabricItem *root)
    : m_root(root)
{
    setAcceptedMouseButtons(Qt::NoButton);
    setZValue(890.0); // over the fabric, under the notes (900) and the legend (1000)
    m_font.setBold(true);
}

void StageLabelsItem::clear()
{
    prepareGeometryChange();
    m_labels.clear();
    m_bounds = QRectF();
}

void StageLabelsItem::relayout(const QTransform &toView, const QRectF &frame, double px,
                               const QList<QRectF> &obstacles)
{
    clear();
    bool invertible = false;
    const QTransform toScene = toView.inverted(&invertible);
    if (!invertible || frame.isEmpty() || px <= 0.0)
        return;
    m_font.setPixelSize(std::max(1, static_cast<int>(std::lround(px))));
    const QFontMetricsF fm(m_font);
    const double pad = std::round(px * 0.25); // the plate's margin around the text

    // The parts in view, in a fixed order (switches by vertex, servers by index).
    struct Part
    {
        QString text;
        QRectF box; ///< view pixels
        bool isSwitch;
    };
    QList<Part> parts;
    QList<int> vertices = m_root->switchItems().keys();
    std::sort(vertices.begin(), vertices.end());
    for (int v : std::as_const(vertices)) {
        const SwitchItem *s = m_root->switchItem(v);
        const QRectF box = toView.mapRect(s->mapRectToScene(s->box()));
        if (s->isVisible() && frame.intersects(box))
            parts.push_back({s->label(), box, true});
    }
    QList<Part> servers;
    for (int i = 0; i < m_root->fabric().servers(); ++i) {
        const ServerItem *s = m_root->serverItem(i);
        if (!s || !s->isVisible())
            continue;
        const QRectF box = toView.mapRect(s->sceneBoundingRect());
        if (frame.intersects(box))
            servers.push_back({s->name(), box, false});
    }
    if (servers.size() <= kMaxServerLabels)
        parts << servers;

    NoteLayout layout(frame);
    for (const QRectF &r : obstacles)
        layout.addObstacle(r);
    for (const Part &p : std::as_const(parts))
        layout.addObstacle(p.box); // names go beside their part, never over another
    for (const Part &p : std::as_const(parts)) {
        const QSizeF size(fm.horizontalAdvance(p.text) + 2 * pad, fm.height() + pad);
        NoteLayout::Box box{size, {}};
        if (p.isSwitch) {
            // Above or below its box, then staggered one row further (neighbouring leaves'
            // names alternate when they are wider than their boxes).
            const double cx = p.box.center().x() - size.width() / 2.0;
            for (int row = 0; row < 3; ++row)
                box.candidates << QPointF(cx, p.box.top() - 2.0 - size.height() * (row + 1))
                               << QPointF(cx, p.box.bottom() + 2.0 + size.height() * row);
        } else {
            box.candidates = NoteLayout::around(p.box, size, 4.0);
        }
        double cost = 0.0;
        const QRectF placed = layout.place(box, &cost);
        if (placed.isEmpty() || cost > 0.0)
            continue; // no free room: left out rather than drawn over a part or a name
        Label label{p.text, toScene.mapRect(placed), placed};
        m_bounds |= label.scene;
        m_labels.push_back(label);
    }
    update();
}

void StageLabelsItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    if (m_labels.isEmpty())
        return;
    const QTransform &t = painter->worldTransform();
    const double scale = std::sqrt(std::abs(t.determinant()));
    if (scale <= 0.0)
        return;
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setFont(m_font);
    for (const Label &label : std::as_const(m_labels)) {
        painter->save();
        painter->translate(label.scene.topLeft());
        painter->scale(1.0 / scale, 1.0 / scale);
        const QRectF plate(QPointF(0, 0), label.view.size());
        painter->setPen(QPen(QColor(0xad, 0xb5, 0xbd), 1.0));
        painter->setBrush(QColor(255, 255, 255, 235));
        painter->drawRoundedRect(plate, 4, 4);
        painter->setPen(QColor(0x21, 0x25, 0x29));
        painter->drawText(plate, Qt::AlignCenter, label.text);
        painter->restore();
    }
}

} // namespace railyard
