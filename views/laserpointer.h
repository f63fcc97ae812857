#pragma once

#include <QElapsedTimer>
#include <QList>
#include <QObject>
#include <QPointF>

class QGraphicsView;
class QTimer;

namespace railyard {

class LaserPointerItem;

/**
 * A presenter's laser pointer over a graphics view: while on, the mouse over the view draws a
 * bright red dot with a short trail that fades out (the system cursor hidden), so a room can
 * follow what the presenter points at on a large screen. It only watches the viewport's mouse
 * moves (an event filter): clicks and drags go on to the view unchanged.
 */
class LaserPointer : public QObject
{
    Q_OBJECT

public:
    /// How long a point of the trail stays, in milliseconds: long enough to show the motion,
    /// short enough not to smear the picture (a pointer's afterglow is a fraction of a second).
    static constexpr int kTrailMs = 350;

    explicit LaserPointer(QGraphicsView *view);
    ~LaserPointer() override;

    void setEnabled(bool on);
    bool isEnabled() const { return m_enabled; }
    /// The trail's points (scene coordinates), oldest first, with their age in ms.
    struct Point
    {
        QPointF scene;
        qint64 at = 0;
    };
    QList<Point> trail() const { return m_trail; }
    /// The dot's position (scene coordinates), when it is shown.
    bool hasDot() const { return m_enabled && !m_trail.isEmpty(); }
    QPointF dot() const { return m_trail.isEmpty() ? QPointF() : m_trail.last().scene; }

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void tick();

    QGraphicsView *m_view;
    LaserPointerItem *m_item = nullptr;
    QTimer *m_timer = nullptr;
    QElapsedTimer m_clock;
    QList<Point> m_trail;
    bool m_enabled = false;
    friend class LaserPointerItem;
};

} // namespace railyard
