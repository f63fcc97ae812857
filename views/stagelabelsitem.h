#pragma once

#include <QFont>
#include <QGraphicsItem>
#include <QList>
#include <QRectF>
#include <QString>
#include <QTransform>

namespace railyard {

class FabricItem;

/**
 * Presentation mode's names of the fabric's parts (switches, then servers), drawn at the
 * room's type size on white plates beside what they name, where the text the view already
 * shows leaves room (NoteLayout); the items' own few-pixel names step aside meanwhile
 * (stageDrawsLabels()). Laid out for one view by relayout(); hidden outside presentation mode.
 */
class StageLabelsItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 22 };

    /// One name: its text and where it is drawn (scene coordinates, screen-sized text).
    struct Label
    {
        QString text;
        QRectF scene;
        QRectF view; ///< the same in the view's pixels
        QString part; ///< the part's whole name ("rail 3" where the text is "3")
    };

    explicit StageLabelsItem(const FabricItem *root);

    int type() const override { return Type; }
    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

    /// Which names a pass places: the switches' come first (few, and what a fabric is read
    /// by), then the notes are laid out around them, then the servers' names where room is
    /// left (a note matters more than a name the room can read off its neighbours).
    enum class Parts { Switches, Servers };
    /// Places the names of `parts` in `frame` (view pixels; `toView` maps scene to view) at
    /// `px` pixels, off the servers and switches, the names placed before and the `obstacles`
    /// (view pixels). The Switches pass starts afresh. A name with no free place near its part
    /// is left out rather than drawn over something.
    void relayout(const QTransform &toView, const QRectF &frame, double px,
        const QList<QRectF> &obstacles, Parts parts);
    /// Where the Servers pass would put the servers' names now, without placing them (the
    /// notes keep clear of those places when they can).
    QList<QRectF> serverNamePlaces(
        const QTransform &toView, const QRectF &frame, double px, const QList<QRectF> &obstacles);
    void clear();
    const QList<Label> &labels() const { return m_labels; }
    QFont font() const { return m_font; }

    /// Beyond this many servers in view their names are not drawn: at a whole-fabric zoom
    /// there is no room for them beside their servers, and placing is quadratic in the count.
    static constexpr int kMaxServerLabels = 64;

private:
    const FabricItem *m_root;
    QList<Label> m_labels;
    QFont m_font;
    QRectF m_bounds;
};

} // namespace railyard
