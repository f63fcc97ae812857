#pragma once

#include <QColor>
#include <QGraphicsItem>

namespace railyard {

class FabricItem;

/**
 * A leaf, spine or super-spine switch. Rail leaves wear their rail's colour, so the rails of a
 * rail-optimised fabric read at a glance; a top-of-rack leaf is neutral. Static: cached.
 */
class SwitchItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 3 };

    SwitchItem(const FabricItem *root, int vertex);

    int type() const override { return Type; }
    int vertex() const { return m_vertex; }
    /// Outlined as the endpoint of an emphasised link (FabricView::setEmphasis).
    void setEmphasised(bool emphasised);
    bool isEmphasised() const { return m_emphasised; }
    /// The box (item coordinates) and its fill, for the overview's aggregate painting.
    QRectF box() const { return m_rect; }
    QString label() const { return m_label; }
    QColor fill() const { return m_fill; }

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    int m_vertex;
    QRectF m_rect;
    QColor m_fill;
    QString m_label;
    QString m_sublabel;
    bool m_emphasised = false;
};

} // namespace railyard
