#include "laserpointer.h"

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QGraphicsView>
#include <QMouseEvent>
#include <QPainter>
#include <QTimer>

#include <cmath>

namespace railyard {

namespace {

constexpr double kDotRadius = 7.0; ///< screen pixels: a laser dot seen across a room
constexpr int kFrameMs = 33; ///< the fading trail is redrawn at ~30 frames a second
const QColor kLaserRed(0xff, 0x1a, 0x1a);

} // namespace

/** Draws the dot and its fading trail at screen size, over everything in the scene. */
class LaserPointerItem : public QGraphicsItem
{
public:
    explicit LaserPointerItem(const LaserPointer *pointer)
        : m_pointer(pointer)
    {
        setAcceptedMouseButtons(Qt::NoButton);
        setZValue(5000.0);
    }
    QRectF boundingRect() const override { return m_bounds; }
    void refresh(double viewScale)
    {
        prepareGeometryChange();
        m_bounds = QRectF();
        const double r = (kDotRadius + 4.0) / std::max(viewScale, 1e-6);
        for (const LaserPointer::Point &p : m_pointer->m_trail)
            m_bounds |= QRectF(p.scene - QPointF(r, r), QSizeF(2 * r, 2 * r));
        update();
    }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *) override
    {
        const QList<LaserPointer::Point> &trail = m_pointer->m_trail;
        if (trail.isEmpty())
            return;
        const double scale = std::sqrt(std::abs(painter->worldTransform().determinant()));
        if (scale <= 0.0)
            return;
        painter->setRenderHint(QPainter::Antialiasing);
        const qint64 now = m_pointer->m_clock.elapsed();
        // The trail: segments thinning and fading with age.
        for (qsizetype i = 1; i < trail.size(); ++i) {
            const double age
                = std::clamp(double(now - trail[i].at) / LaserPointer::kTrailMs, 0.0, 1.0);
            QColor c = kLaserRed;
            c.setAlphaF(0.6 * (1.0 - age));
            QPen pen(c, kDotRadius * (1.2 - age), Qt::SolidLine, Qt::RoundCap);
            pen.setCosmetic(true);
            painter->setPen(pen);
            painter->drawLine(trail[i - 1].scene, trail[i].scene);
        }
        // The dot: a glow and a bright core.
        const QPointF at = trail.last().scene;
        const double r = kDotRadius / scale;
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(0xff, 0x1a, 0x1a, 70));
        painter->drawEllipse(at, 1.8 * r, 1.8 * r);
        painter->setBrush(kLaserRed);
        painter->drawEllipse(at, r, r);
        painter->setBrush(QColor(255, 220, 220));
        painter->drawEllipse(at, 0.35 * r, 0.35 * r);
    }

private:
    const LaserPointer *m_pointer;
    QRectF m_bounds;
};

LaserPointer::LaserPointer(QGraphicsView *view)
    : QObject(view)
    , m_view(view)
{
    m_clock.start();
    m_timer = new QTimer(this);
    m_timer->setInterval(kFrameMs);
    connect(m_timer, &QTimer::timeout, this, &LaserPointer::tick);
}

// The item belongs to the view's scene, which the view deletes before its children (this).
LaserPointer::~LaserPointer() = default;

void LaserPointer::setEnabled(bool on)
{
    if (on == m_enabled)
        return;
    m_enabled = on;
    m_trail.clear();
    if (on) {
        if (!m_item) {
            m_item = new LaserPointerItem(this);
            m_view->scene()->addItem(m_item);
        }
        m_item->show();
        m_view->viewport()->installEventFilter(this);
        m_view->viewport()->setMouseTracking(true);
        m_view->viewport()->setCursor(Qt::BlankCursor); // the dot is the cursor
        // Where the mouse already is, so the dot shows before the first move.
        const QPoint at = m_view->viewport()->mapFromGlobal(QCursor::pos());
        if (m_view->viewport()->rect().contains(at))
            m_trail.push_back({ m_view->mapToScene(at), m_clock.elapsed() });
        m_timer->start();
    } else {
        m_view->viewport()->removeEventFilter(this);
        m_view->viewport()->unsetCursor();
        m_timer->stop();
        if (m_item)
            m_item->hide();
    }
    if (m_item)
        m_item->refresh(m_view->transform().m11());
}

bool LaserPointer::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view->viewport() && m_enabled) {
        if (event->type() == QEvent::MouseMove) {
            const auto *move = static_cast<QMouseEvent *>(event);
            m_trail.push_back(
                { m_view->mapToScene(move->position().toPoint()), m_clock.elapsed() });
            m_item->refresh(m_view->transform().m11());
        } else if (event->type() == QEvent::Leave) {
            m_trail.clear();
            m_item->refresh(m_view->transform().m11());
        }
    }
    return QObject::eventFilter(watched, event); // the view gets every event as before
}

void LaserPointer::tick()
{
    // The trail's old points fade out; the newest (the dot) stays while the mouse rests.
    const qint64 now = m_clock.elapsed();
    qsizetype old = 0;
    while (old + 1 < m_trail.size() && now - m_trail[old].at > kTrailMs)
        ++old;
    if (old == 0 && m_trail.size() < 2)
        return;
    m_trail.remove(0, old);
    m_item->refresh(m_view->transform().m11());
}

} // namespace railyard
