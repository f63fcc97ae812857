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
    const QList<QRectF> &obstacles, Parts which)
{
    if (which == Parts::Switches)
        clear();
    prepareGeometryChange();
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
    QList<Part> switches;
    QList<int> vertices = m_root->switchItems().keys();
    std::sort(vertices.begin(), vertices.end());
    for (int v : std::as_const(vertices)) {
        const SwitchItem *s = m_root->switchItem(v);
        const QRectF box = toView.mapRect(s->mapRectToScene(s->box()));
        if (s->isVisible() && frame.intersects(box))
            switches.push_back({ s->label(), box, true });
    }
    QList<Part> servers;
    for (int i = 0; i < m_root->fabric().servers(); ++i) {
        const ServerItem *s = m_root->serverItem(i);
        if (!s || !s->isVisible())
            continue;
        const QRectF box = toView.mapRect(s->sceneBoundingRect());
        if (frame.intersects(box))
            servers.push_back({ s->name(), box, false });
    }
    if (servers.size() > kMaxServerLabels)
        servers.clear();

    NoteLayout layout(frame);
    for (const QRectF &r : obstacles)
        layout.addObstacle(r);
    for (const Part &p : std::as_const(switches))
        layout.addObstacle(p.box); // names go beside their part, never over another
    for (const Part &p : std::as_const(servers))
        layout.addObstacle(p.box);
    for (const Label &placed : std::as_const(m_labels))
        layout.addObstacle(placed.view); // the first pass's
    const QList<Part> &parts = which == Parts::Switches ? switches : servers;
    QRectF all;
    for (const Part &p : std::as_const(servers))
        all |= p.box;
    const double middle = all.center().x();
    const auto boxFor = [&](const Part &p, const QString &text) {
        const QSizeF size(fm.horizontalAdvance(text) + 2 * pad, fm.height() + pad);
        NoteLayout::Box box { size, {} };
        if (p.isSwitch) {
            // Above or below its box, then staggered one row further (neighbouring leaves'
            // names alternate when they are wider than their boxes).
            // Beside it when its neighbours are far (spines).
            const double cx = p.box.center().x() - size.width() / 2.0;
            const double cy = p.box.center().y() - size.height() / 2.0;
            for (int row = 0; row < 3; ++row) {
                box.candidates << QPointF(cx, p.box.top() - 2.0 - size.height() * (row + 1))
                               << QPointF(cx, p.box.bottom() + 2.0 + size.height() * row);
                if (row == 0)
                    box.candidates << QPointF(p.box.left() - 4.0 - size.width(), cy)
                                   << QPointF(p.box.right() + 4.0, cy);
            }
        } else {
            // Beside its server, the side away from the fabric's middle first (the outside
            // of the picture is where the free room is); nowhere further, or the name would
            // read as its neighbour's.
            const double cy = p.box.center().y() - size.height() / 2.0;
            const QPointF left(p.box.left() - 4.0 - size.width(), cy);
            const QPointF right(p.box.right() + 4.0, cy);
            if (p.box.center().x() < middle)
                box.candidates << left << right;
            else
                box.candidates << right << left;
        }
        return box;
    };
    QString previousWord;
    for (const Part &p : parts) {
        QString text = p.text;
        double cost = 0.0;
        QRectF placed = layout.best(boxFor(p, text), &cost);
        // A row of "rail 0", "rail 1", … too tight for every name: after the first one whole,
        // the others by their number alone ("rail 0", "1", "2", …), as a row is read.
        const qsizetype space = text.lastIndexOf(QLatin1Char(' '));
        const QString word = space > 0 ? text.left(space) : QString();
        if (cost > 0.0 && !word.isEmpty() && word == previousWord) {
            text = text.mid(space + 1);
            placed = layout.best(boxFor(p, text), &cost);
        }
        if (placed.isEmpty() || cost > 0.0)
            continue; // no free room: left out rather than drawn over a part or a name
        layout.take(placed);
        previousWord = word;
        Label label { text, toScene.mapRect(placed), placed, p.text };
        m_bounds |= label.scene;
        m_labels.push_back(label);
    }
    update();
}

QList<QRectF> StageLabelsItem::serverNamePlaces(
    const QTransform &toView, const QRectF &frame, double px, const QList<QRectF> &obstacles)
{
    const QList<Label> before = m_labels;
    const QRectF bounds = m_bounds;
    relayout(toView, frame, px, obstacles, Parts::Servers);
    QList<QRectF> out;
    for (qsizetype i = before.size(); i < m_labels.size(); ++i)
        out << m_labels[i].view;
    m_labels = before;
    m_bounds = bounds;
    return out;
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
