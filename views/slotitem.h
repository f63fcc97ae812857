#pragma once

#include <QColor>
#include <QFont>
#include <QGraphicsItem>

namespace railyard {

class FabricItem;

/**
 * A GPU slot of a server and the rank chip on it (when a rank occupies it): the chip shows the
 * rank number and its (d,p,t) coordinates, filled with the colour of the coordinate the view
 * colours by. Child of its ServerItem. `data(kSlotKey)` / `data(kRankKey)` hold slot and rank so
 * tests and tools can find chips without knowing the class.
 */
class SlotItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 2 };
    static constexpr int kSlotKey = 0;
    static constexpr int kRankKey = 1;
    /// The job holding the slot in a scenario with jobs (its index in scenario().jobs; the
    /// active job's for its ranks), -1 when free or without jobs.
    static constexpr int kJobKey = 2;
    /// Level of detail (zoom) above which a chip shows its (d,p,t) under the rank number;
    /// from kRankOnlyLod up to it, the rank number alone; below, the colour alone.
    static constexpr double kCoordinatesLod = 0.62;
    static constexpr double kRankOnlyLod = 0.28;
    /// The coordinates' type in scene pixels: as large as the chip's width allows, within these.
    static constexpr int kCoordinatesMaxPixels = 14;
    static constexpr int kCoordinatesMinPixels = 8;

    SlotItem(const FabricItem *root, int slot, QGraphicsItem *parent);

    int type() const override { return Type; }
    int slot() const { return m_slot; }
    int rank() const { return m_rank; } ///< -1 when the slot is empty
    QColor fillColour() const { return m_fill; }
    /// kJobKey's job, its hue ("#rrggbb" of the file; invalid without one) and, on another
    /// job's slot, that job's rank there (-1 otherwise).
    int job() const { return m_job; }
    QColor jobColour() const { return m_jobColour; }
    int otherJobRank() const { return m_otherRank; }
    /// Another job's GPU as drawn: its hue, lightened so the active job's chips stand out.
    static QColor otherJobFill(const QColor &hue);
    /// "(d,p,t)" (with c and e where used), empty on an empty slot.
    QString coordinateText() const { return m_coordText; }
    /// The font paint() draws coordinateText() in (scene pixels, before the view's zoom).
    QFont coordinateFont() const;
    /// coordinateFont()'s pixel size, without making the font.
    int coordinatePixels() const { return m_coordPixels; }
    /// The font for `text` on a chip: the largest size from kCoordinatesMinPixels to
    /// kCoordinatesMaxPixels at which it fits the chip's width.
    static QFont coordinateFont(const QString &text);

    /// Reads the rank on this slot, its coordinates and chip colour from the document.
    void syncWithModel();

    /// Bit i set: the chip is a partner of the focused rank in dimension Dim(i) (TP, PP, ...).
    void setPartnerMask(unsigned mask);
    unsigned partnerMask() const { return m_partnerMask; }
    void setFocused(bool focused);
    void setDropTarget(bool target);
    void setDragSource(bool source);
    /// Outlined as the endpoint of an emphasised link (FabricView::setEmphasis).
    void setEmphasised(bool emphasised);
    bool isEmphasised() const { return m_emphasised; }
    /// Greyed and crossed out (FabricView::markFailed).
    void setFailed(bool failed);
    bool isFailed() const { return m_failed; }

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

protected:
    QVariant itemChange(GraphicsItemChange change, const QVariant &value) override;

private:
    const FabricItem *m_root;
    int m_slot;
    int m_rank = -1;
    QString m_rankText;
    QString m_coordText;
    int m_coordPixels = kCoordinatesMaxPixels;
    QColor m_fill;
    int m_job = -1;
    QColor m_jobColour;
    int m_otherRank = -1;
    QString m_jobName; ///< another job's name on its slot
    unsigned m_partnerMask = 0;
    bool m_focused = false;
    bool m_dropTarget = false;
    bool m_dragSource = false;
    bool m_emphasised = false;
    bool m_failed = false;
};

} // namespace railyard
