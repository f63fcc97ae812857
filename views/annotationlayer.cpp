#include "annotationlayer.h"

#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "geometry.h"
#include "notelayout.h"

#include <QFontMetricsF>
#include <QGraphicsScene>
#include <QGraphicsSceneMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

constexpr double kBasePixels = 12.0; ///< the notes' type size in a window (screen pixels)
constexpr double kCardWidth = 150.0; ///< screen pixels at kBasePixels: about 22 characters a line
constexpr double kPadding = 6.0;
/// Between a pin and its card: far enough that the leader line shows (screen pixels).
constexpr double kLeaderGap = 18.0;
const QColor kArrowColour(0x1c, 0x4e, 0xd8);
/// A note over chips hides ranks, over text hides words: chips count for a third as much, so
/// an empty place wins, then one over chips, and text over text never beats either.
constexpr double kPartsWeight = 0.3;
/// A place kept for a server's name counts more than chips (the name is text), less than text
/// placed (it can give way).
constexpr double kNamesWeight = 0.65;

QFont cardFont(double px)
{
    QFont font;
    font.setPixelSize(std::max(1, static_cast<int>(std::lround(px))));
    return font;
}

/// The screen scale of a painter (device pixels per scene unit).
double screenScale(const QPainter *painter)
{
    const QTransform &t = painter->worldTransform();
    const double s = std::sqrt(std::abs(t.determinant()));
    return s > 0.0 ? s : 1.0;
}

} // namespace

AnnotationLayer::AnnotationLayer(ScenarioDocument *document, FabricItem *root)
    : m_document(document)
    , m_root(root)
{
    setZValue(900.0); // over the fabric's items, under the legend
    setAcceptedMouseButtons(Qt::NoButton); // the cards take the clicks; arrows via the view
    connect(document, &ScenarioDocument::annotationsChanged, this, &AnnotationLayer::rebuild);
    connect(document, &ScenarioDocument::mappingChanged, this, &AnnotationLayer::rebuild);
    connect(root, &FabricItem::rebuilt, this, &AnnotationLayer::rebuild);
    // A load or a structural edit replaces the annotation list without annotationsChanged();
    // the fabric may be the same (the root then does not rebuild).
    connect(document, &ScenarioDocument::scenarioChanged, this, &AnnotationLayer::rebuild);
}

std::optional<QPointF> AnnotationLayer::pinPosition(const AnnotationAnchor &anchor) const
{
    const Fabric &f = m_root->fabric();
    const FabricLayout &layout = m_root->layout();
    switch (anchor.kind) {
    case AnnotationAnchor::Kind::Server: {
        if (anchor.index < 0 || anchor.index >= f.servers())
            return std::nullopt;
        const QRectF r = layout.serverRect(anchor.index);
        return m_root->mapToScene(QPointF(r.center().x(), r.top()));
    }
    case AnnotationAnchor::Kind::Rank: {
        const Mapping &m = m_document->mapping();
        if (anchor.index < 0 || anchor.index >= m.rankCount())
            return std::nullopt;
        const int slot = m.slotOf(anchor.index);
        if (slot < 0 || slot >= f.slotCount())
            return std::nullopt;
        const QPointF chip = layout.serverPos(f.serverOfSlot(slot))
            + layout.slotRect(f.gpuOfSlot(slot)).center();
        return m_root->mapToScene(chip);
    }
    case AnnotationAnchor::Kind::Link: {
        if (anchor.index < 0 || anchor.index >= f.linkCount())
            return std::nullopt;
        const QPolygonF &path = layout.cablePath(anchor.index >> 1);
        if (path.size() >= 2) {
            // The middle of the polyline, by length.
            double total = 0.0;
            for (qsizetype i = 0; i + 1 < path.size(); ++i)
                total += QLineF(path[i], path[i + 1]).length();
            double left = total / 2.0;
            for (qsizetype i = 0; i + 1 < path.size(); ++i) {
                const QLineF seg(path[i], path[i + 1]);
                if (left <= seg.length() || i + 2 == path.size())
                    return m_root->mapToScene(seg.pointAt(seg.length() > 0.0 ? left / seg.length() : 0.0));
                left -= seg.length();
            }
        }
        // A server-internal link (GPU <-> NVSwitch or NIC): its server's middle.
        const FabricLink &l = f.link(anchor.index);
        const int server = f.node(l.src).server >= 0 ? f.node(l.src).server : f.node(l.dst).server;
        if (server < 0)
            return std::nullopt;
        return m_root->mapToScene(layout.serverRect(server).center());
    }
    }
    return std::nullopt;
}

void AnnotationLayer::rebuild()
{
    prepareGeometryChange();
    for (AnnotationNoteItem *note : std::as_const(m_notes))
        delete note;
    m_notes.clear();
    m_bounds = QRectF();
    const std::vector<Annotation> &all = m_document->scenario().annotations;
    for (int i = 0; i < static_cast<int>(all.size()); ++i) {
        const Annotation &a = all[static_cast<std::size_t>(i)];
        const std::optional<QPointF> pin = pinPosition(a.anchor);
        if (!pin || !isShown(a))
            continue;
        if (a.kind == Annotation::Kind::Note) {
            auto *note = new AnnotationNoteItem(this, i, a, *pin, m_textPx);
            m_notes.push_back(note);
            m_bounds |= QRectF(*pin, note->pos()).normalized();
        } else if (const std::optional<QPointF> head = pinPosition(a.target)) {
            m_bounds |= QRectF(*pin, *head).normalized();
        }
    }
    // Room for the arrowheads and labels (drawn at screen size) at ordinary zooms.
    m_bounds.adjust(-60, -60, 60, 60);
    applyLayout();
    update();
}

bool AnnotationLayer::isShown(const Annotation &a) const
{
    if (a.snapshot.empty())
        return true;
    const int current = m_document->currentSnapshot();
    const auto &snapshots = m_document->scenario().snapshots;
    return current >= 0 && snapshots[static_cast<std::size_t>(current)].name == a.snapshot;
}

QFont AnnotationLayer::labelFont() const
{
    QFont font = cardFont(m_textPx);
    font.setBold(true);
    return font;
}

void AnnotationLayer::setTextPixels(double px)
{
    if (px == m_textPx)
        return;
    m_textPx = px;
    rebuild();
}

void AnnotationLayer::layoutForView(const QTransform &toView, const QRectF &frame,
    const QList<QRectF> &obstacles, const QList<QRectF> &parts, const QList<QRectF> &names)
{
    m_names = names;
    m_toView = toView;
    m_frame = frame;
    m_obstacles = obstacles;
    m_parts = parts;
    applyLayout();
}

void AnnotationLayer::applyLayout()
{
    m_arrowLabels.clear();
    bool invertible = false;
    const QTransform toScene = m_toView.inverted(&invertible);
    m_laidOut = invertible && !m_frame.isEmpty();
    if (!m_laidOut) {
        update();
        return;
    }
    NoteLayout layout(m_frame);
    for (const QRectF &r : std::as_const(m_obstacles))
        layout.addObstacle(r);
    for (const QRectF &r : std::as_const(m_parts))
        layout.addObstacle(r, kPartsWeight);
    for (const QRectF &r : std::as_const(m_names))
        layout.addObstacle(r, kNamesWeight);
    // The pins themselves stay uncovered (a note over another note's pin hides what it is about).
    for (const AnnotationNoteItem *note : std::as_const(m_notes)) {
        const QPointF p = m_toView.map(note->pin());
        layout.addObstacle(QRectF(p - QPointF(4, 4), QSizeF(8, 8)), kNamesWeight);
    }
    // Arrow labels first: they belong at their arrow, a note can go further with its line.
    const std::vector<Annotation> &all = m_document->scenario().annotations;
    const QFontMetricsF fm(labelFont());
    for (int i = 0; i < static_cast<int>(all.size()); ++i) {
        const Annotation &a = all[static_cast<std::size_t>(i)];
        if (a.kind != Annotation::Kind::Arrow || a.text.empty() || !isShown(a))
            continue;
        const std::optional<QPointF> tail = pinPosition(a.anchor);
        const std::optional<QPointF> head = pinPosition(a.target);
        if (!tail || !head || *tail == *head)
            continue;
        const QLineF line(m_toView.map(*tail), m_toView.map(*head));
        const QSizeF size
            = fm.boundingRect(QString::fromStdString(a.text)).adjusted(-4, -2, 4, 2).size();
        // Along the arrow from its middle outwards, on it and beside it on either side.
        const QPointF normal
            = line.length() > 0.0 ? QPointF(-line.dy(), line.dx()) / line.length() : QPointF();
        const double side = size.height() / 2.0 + std::abs(normal.x()) * size.width() / 2.0 + 4.0;
        NoteLayout::Box box { size, {} };
        for (const double t : { 0.5, 0.4, 0.6, 0.3, 0.7, 0.2, 0.8 }) {
            for (const double offset : { 0.0, side, -side, 2 * side, -2 * side }) {
                const QPointF c = line.pointAt(t) + normal * offset;
                box.candidates << c - QPointF(size.width() / 2.0, size.height() / 2.0);
            }
        }
        // No place but over other text (a small window): the arrow goes without its label
        // in this view (zooming in brings it back).
        const QRectF placed = layout.best(box);
        if (layout.hardCost(placed) > 0.0)
            continue;
        layout.take(placed);
        m_arrowLabels.insert(i, toScene.mapRect(placed));
    }
    int number = 0;
    for (AnnotationNoteItem *note : std::as_const(m_notes)) {
        const QPointF pin = m_toView.map(note->pin());
        const auto boxOf = [&](AnnotationNoteItem::Shape shape) {
            const QSizeF size = note->cardFor(shape).size();
            NoteLayout::Box box { size, { m_toView.map(note->filePos()) } };
            box.candidates << NoteLayout::around(QRectF(pin, QSizeF(0, 0)), size, kLeaderGap)
                           << NoteLayout::grid(m_frame, size, pin);
            return box;
        };
        // The card as it is; where it only finds a place over something, the narrow one too;
        // where even that covers text, the badge.
        using Shape = AnnotationNoteItem::Shape;
        double cost = 0.0;
        QRectF placed = layout.best(boxOf(Shape::Wide), &cost);
        Shape shape = Shape::Wide;
        if (cost > 0.0) {
            double narrowCost = 0.0;
            const QRectF other = layout.best(boxOf(Shape::Narrow), &narrowCost);
            if (narrowCost < cost) {
                placed = other;
                shape = Shape::Narrow;
            }
        }
        if (layout.hardCost(placed) > 0.0) {
            placed = layout.best(boxOf(Shape::Badge));
            shape = Shape::Badge;
        }
        note->setNumber(++number);
        note->setShape(shape);
        layout.take(placed);
        // Scene position of the card's top-left (the card ignores the view's scale).
        note->setPos(toScene.map(placed.topLeft()));
    }
    update();
}

QRectF AnnotationLayer::boundingRect() const
{
    return m_bounds;
}

void AnnotationLayer::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    const double scale = screenScale(painter);
    painter->setRenderHint(QPainter::Antialiasing);
    // Each card's line back to its pin, and a dot on the pin.
    for (const AnnotationNoteItem *note : std::as_const(m_notes)) {
        QPen pen(note->paper().darker(160), 1.5);
        pen.setCosmetic(true);
        painter->setPen(pen);
        // To the nearest point of the card (which keeps its size on screen).
        const QRectF card(note->pos(), note->card().size() / scale);
        const QPointF end(std::clamp(note->pin().x(), card.left(), card.right()),
            std::clamp(note->pin().y(), card.top(), card.bottom()));
        painter->drawLine(note->pin(), end);
        painter->setBrush(note->paper().darker(160));
        painter->drawEllipse(note->pin(), 3.0 / scale, 3.0 / scale);
    }
    // Arrows: a line, a head of constant screen size, the label at the middle.
    const std::vector<Annotation> &all = m_document->scenario().annotations;
    const QFont font = labelFont();
    for (int i = 0; i < static_cast<int>(all.size()); ++i) {
        const Annotation &a = all[static_cast<std::size_t>(i)];
        if (a.kind != Annotation::Kind::Arrow || !isShown(a))
            continue;
        const std::optional<QPointF> tail = pinPosition(a.anchor);
        const std::optional<QPointF> head = pinPosition(a.target);
        if (!tail || !head || *tail == *head)
            continue;
        QPen pen(kArrowColour, 2.5);
        pen.setCosmetic(true);
        painter->setPen(pen);
        painter->drawLine(*tail, *head);
        const QLineF line(*head, *tail);
        const double size = 12.0 / scale;
        QLineF side1 = QLineF::fromPolar(size, line.angle() + 25.0).translated(*head);
        QLineF side2 = QLineF::fromPolar(size, line.angle() - 25.0).translated(*head);
        QPainterPath tip;
        tip.moveTo(*head);
        tip.lineTo(side1.p2());
        tip.lineTo(side2.p2());
        tip.closeSubpath();
        painter->fillPath(tip, kArrowColour);
        if (a.text.empty())
            continue;
        // The label at screen size, on a white plate: where the layout put it, else at the
        // middle of the arrow.
        painter->save();
        const QString text = QString::fromStdString(a.text);
        const QFontMetricsF fm(font);
        const QRectF box = fm.boundingRect(text).adjusted(-4, -2, 4, 2);
        const auto placed = m_arrowLabels.constFind(i);
        QRectF plate(-box.width() / 2.0, -box.height() / 2.0, box.width(), box.height());
        if (placed != m_arrowLabels.constEnd()) {
            painter->translate(placed->topLeft());
            plate.moveTopLeft(QPointF(0, 0));
        } else if (m_laidOut) {
            painter->restore();
            continue; // no room for it in this view
        } else {
            painter->translate((*tail + *head) / 2.0);
        }
        painter->scale(1.0 / scale, 1.0 / scale);
        painter->setFont(font);
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(255, 255, 255, 230));
        painter->drawRoundedRect(plate, 3, 3);
        painter->setPen(kArrowColour);
        painter->drawText(plate, Qt::AlignCenter, text);
        painter->restore();
    }
}

int AnnotationLayer::annotationAt(const QPointF &p, double viewScale) const
{
    for (auto it = m_notes.crbegin(); it != m_notes.crend(); ++it) {
        if ((*it)->sceneBoundingRect().contains(p) || (*it)->contains((*it)->mapFromScene(p)))
            return (*it)->index();
    }
    const std::vector<Annotation> &all = m_document->scenario().annotations;
    const double tolerance = 5.0 / (viewScale > 0.0 ? viewScale : 1.0);
    for (int i = static_cast<int>(all.size()) - 1; i >= 0; --i) {
        const Annotation &a = all[static_cast<std::size_t>(i)];
        if (a.kind != Annotation::Kind::Arrow)
            continue;
        const std::optional<QPointF> tail = pinPosition(a.anchor);
        const std::optional<QPointF> head = pinPosition(a.target);
        if (tail && head && distanceToSegment(p, *tail, *head) <= tolerance)
            return i;
    }
    return -1;
}

int AnnotationLayer::selectedNote() const
{
    for (const AnnotationNoteItem *note : m_notes)
        if (note->isSelected())
            return note->index();
    return -1;
}

void AnnotationLayer::noteDragged(int index, const QPointF &pos)
{
    const std::vector<Annotation> &all = m_document->scenario().annotations;
    if (index < 0 || index >= static_cast<int>(all.size()))
        return;
    Annotation moved = all[static_cast<std::size_t>(index)];
    const std::optional<QPointF> pin = pinPosition(moved.anchor);
    if (!pin)
        return;
    moved.dx = std::round(pos.x() - pin->x());
    moved.dy = std::round(pos.y() - pin->y());
    m_document->editAnnotation(index, moved, tr("Move note"));
    rebuild(); // an unchanged position pushes no edit: put the card back where the file says
}

AnnotationNoteItem::AnnotationNoteItem(
    AnnotationLayer *layer, int index, const Annotation &note, QPointF pin, double textPx)
    : QGraphicsItem(layer)
    , m_layer(layer)
    , m_index(index)
    , m_text(QString::fromStdString(note.text))
    , m_colour(note.colour)
    , m_pin(pin)
    , m_filePos(pin + QPointF(note.dx, note.dy))
    , m_textPx(textPx)
{
    setFlags(ItemIgnoresTransformations | ItemIsMovable | ItemIsSelectable
             | ItemSendsGeometryChanges);
    setCursor(Qt::OpenHandCursor);
    setToolTip(QObject::tr("Note: drag to move, double-click to edit, right-click for more"));
    setShape(Shape::Wide);
    setPos(m_filePos);
}

QRectF AnnotationNoteItem::cardFor(Shape shape) const
{
    if (shape == Shape::Badge) {
        const double side = std::round(m_textPx * 1.8);
        return QRectF(0, 0, side, side);
    }
    const bool narrow = shape == Shape::Narrow;
    // Everything in proportion to the type: the same words a line at any size; the narrow
    // card (a crowded stage) two thirds as wide and as tall as its words then need.
    const double k = m_textPx / kBasePixels;
    const double width = (narrow ? kCardWidth * 2.0 / 3.0 : kCardWidth) * k;
    const QFontMetricsF fm(cardFont(m_textPx));
    const QRectF text = fm.boundingRect(QRectF(0, 0, width - 2 * kPadding * k, 800 * k),
        Qt::TextWordWrap, m_text.isEmpty() ? QStringLiteral(" ") : m_text);
    return QRectF(
        0, 0, width, std::min(text.height(), (narrow ? 240.0 : 160.0) * k) + 2 * kPadding * k);
}

void AnnotationNoteItem::setShape(Shape shape)
{
    const QRectF card = cardFor(shape);
    setToolTip(shape == Shape::Badge
            ? m_text
                + QObject::tr("\n(no room for the card here: zoom in, or double-click to edit)")
            : QObject::tr("Note: drag to move, double-click to edit, right-click for more"));
    if (card == m_card && shape == m_shape)
        return;
    prepareGeometryChange();
    m_card = card;
    m_shape = shape;
    update();
}

QColor AnnotationNoteItem::paper() const
{
    if (m_colour == "blue")
        return QColor(0xc5, 0xe3, 0xfc);
    if (m_colour == "green")
        return QColor(0xc8, 0xf0, 0xc4);
    if (m_colour == "pink")
        return QColor(0xfc, 0xd0, 0xe4);
    return QColor(0xff, 0xf1, 0x9c); // yellow
}

QRectF AnnotationNoteItem::boundingRect() const
{
    return m_card.adjusted(-2, -2, 4, 4); // the shadow
}

void AnnotationNoteItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(0, 0, 0, 40));
    painter->drawRoundedRect(m_card.translated(2.5, 2.5), 3, 3);
    painter->setBrush(paper());
    painter->setPen(QPen(isSelected() ? QColor(0x1c, 0x4e, 0xd8) : paper().darker(140),
                         isSelected() ? 2.0 : 1.0));
    painter->drawRoundedRect(m_card, 3, 3);
    painter->setPen(QColor(0x21, 0x25, 0x29));
    if (m_shape == Shape::Badge) {
        QFont bold = cardFont(m_textPx);
        bold.setBold(true);
        painter->setFont(bold);
        painter->drawText(m_card, Qt::AlignCenter, QString::number(m_number));
        return;
    }
    painter->setFont(cardFont(m_textPx));
    const double pad = kPadding * m_textPx / kBasePixels;
    painter->drawText(m_card.adjusted(pad, pad, -pad, -pad),
        Qt::TextWordWrap | Qt::AlignLeft | Qt::AlignTop, m_text);
}

QVariant AnnotationNoteItem::itemChange(GraphicsItemChange change, const QVariant &value)
{
    if (change == ItemPositionHasChanged)
        m_layer->update(); // its line back to the pin
    return QGraphicsItem::itemChange(change, value);
}

void AnnotationNoteItem::mousePressEvent(QGraphicsSceneMouseEvent *event)
{
    m_pressPos = pos();
    setCursor(Qt::ClosedHandCursor);
    QGraphicsItem::mousePressEvent(event);
}

void AnnotationNoteItem::mouseReleaseEvent(QGraphicsSceneMouseEvent *event)
{
    QGraphicsItem::mouseReleaseEvent(event);
    setCursor(Qt::OpenHandCursor);
    if (pos() != m_pressPos) {
        // After this event: the edit rebuilds the cards, this one included.
        AnnotationLayer *layer = m_layer;
        const int index = m_index;
        const QPointF to = pos();
        QMetaObject::invokeMethod(
            layer, [layer, index, to] { layer->noteDragged(index, to); }, Qt::QueuedConnection);
    }
}

void AnnotationNoteItem::mouseDoubleClickEvent(QGraphicsSceneMouseEvent *event)
{
    event->accept();
    Q_EMIT m_layer->editRequested(m_index);
}

} // namespace railyard
