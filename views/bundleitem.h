#pragma once

#include "base/units.h"

#include <QGraphicsItem>
#include <QRgb>

#include <vector>

namespace railyard {

class FabricItem;

/**
 * Aggregated lines of one tier, from FabricLayout::bundles(): a rack's uplinks to one leaf
 * (NIC tier), a leaf's uplinks to its spines, a spine's to its super-spines. Each line carries
 * the worst utilisation of its cables. One item paints all lines of its tier (culled by the
 * exposed rectangle): the zoomed-out overview shows these instead of cable items, and the
 * switch tiers of very large fabrics (thousands of inter-switch cables) always use them.
 */
class BundleItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 5 };

    BundleItem(const FabricItem *root, Tier tier);

    int type() const override { return Type; }
    Tier tier() const { return m_tier; }
    int count() const { return static_cast<int>(m_bundles.size()); }
    /// Index into FabricLayout::bundles() of line `i`.
    int layoutIndex(int i) const { return m_bundles[static_cast<std::size_t>(i)]; }
    /// Finds each line's worst cable again (after the overlay or the whole report changed).
    void syncWithModel();
    /// Finds line `i`'s worst cable again (one of its cables changed) and repaints it.
    void syncLine(int i);
    /// Worst utilisation of line `i`, as drawn: its worst cable's, read from the report. A
    /// new iteration time scales every cable alike, so the worst cable stays the worst.
    double worstUtilisation(int i) const;
    /// The line within `tolerance` (scene units) of `scenePos`, or -1.
    int lineAt(const QPointF &scenePos, double tolerance) const;
    /// Route highlight (bits of Dim) per line; see FabricItem::setFocusRank().
    void setRouteMask(int i, unsigned mask);
    void clearRouteMasks();
    /// Line `i` holds an emphasised cable (FabricView::setEmphasis): drawn last, outlined.
    void setEmphasised(int i, bool emphasised);
    bool isEmphasised(int i) const { return m_emphasis[static_cast<std::size_t>(i)] != 0; }
    void clearEmphasis();

    QRectF boundingRect() const override;
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option,
               QWidget *widget) override;

private:
    void findWorst(std::size_t i);

    const FabricItem *m_root;
    Tier m_tier;
    std::vector<int> m_bundles; ///< layout bundle indices of this tier
    std::vector<int> m_worstCable; ///< per line, -1 when it has none
    /// Per line, its worst cable's utilisation as of the last sync (read on every paint: a
    /// lookup into the report's 1.3 million links per line was a cache miss each at 131k).
    std::vector<double> m_worst;
    std::vector<QRectF> m_lineBounds; ///< per line, its path's bounds plus the widest pen
    /// Per line, its colour at m_colourRange (recomputed when the colour range moves).
    mutable std::vector<QRgb> m_colour;
    mutable std::vector<double> m_colourOf; ///< the utilisation m_colour was computed for
    mutable double m_colourRange = -1.0;
    std::vector<unsigned char> m_routeMask;
    std::vector<unsigned char> m_emphasis;
    bool m_anyEmphasis = false;
    QRectF m_bounds;
};

} // namespace railyard
