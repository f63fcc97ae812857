#include "bandground.h"

#include <QRectF>

#include <algorithm>
#include <optional>
#include <utility>

namespace railyard {

namespace {

/**
 * Rectangles (some of a list's elements) sorted by their left edge, for the question "which of
 * them may contain or cross this rectangle": those whose left edge lies from the rectangle's
 * left minus the widest one's width to its right (a rectangle that contains or crosses another
 * starts there), answered in the list's order.
 */
class BandGroundIndex
{
public:
    template<typename T, typename RectOf>
    BandGroundIndex(const std::vector<T> &items, RectOf rectOf)
    {
        for (std::size_t i = 0; i < items.size(); ++i) {
            if (const std::optional<QRectF> r = rectOf(items[i])) {
                const QRectF n = r->normalized();
                m_byLeft.push_back({ n.left(), i });
                m_widest = std::max(m_widest, n.width());
            }
        }
        std::sort(m_byLeft.begin(), m_byLeft.end());
    }

    std::vector<std::size_t> near(const QRectF &rect) const
    {
        const QRectF n = rect.normalized();
        auto it = std::lower_bound(m_byLeft.begin(), m_byLeft.end(),
            std::pair<double, std::size_t>(n.left() - m_widest, 0));
        std::vector<std::size_t> found;
        for (; it != m_byLeft.end() && it->first <= n.right(); ++it)
            found.push_back(it->second);
        std::sort(found.begin(), found.end());
        return found;
    }

private:
    std::vector<std::pair<double, std::size_t>> m_byLeft; ///< left edge, index in the list
    double m_widest = 0.0;
};

} // namespace

std::vector<BandGround> bandGrounds(const FabricLayout &layout)
{
    const std::vector<FabricLayout::Frame> &frames = layout.frames();
    const std::vector<FabricLayout::Domain> &domains = layout.domains();
    const BandGroundIndex pods(frames, [](const FabricLayout::Frame &f) {
        return f.pod ? std::optional<QRectF>(f.rect) : std::nullopt;
    });
    const BandGroundIndex groups(frames, [](const FabricLayout::Frame &f) {
        return f.pod ? std::nullopt : std::optional<QRectF>(f.rect);
    });
    const BandGroundIndex domainIndex(
        domains, [](const FabricLayout::Domain &d) { return std::optional<QRectF>(d.rect); });
    std::vector<BandGround> grounds;
    grounds.reserve(layout.bands().size());
    for (const FabricLayout::Band &band : layout.bands()) {
        BandGround g;
        for (const bool pod : { true, false }) { // pods first: a group inside wins
            for (const std::size_t i : (pod ? pods : groups).near(band.rect)) {
                if (frames[i].rect.contains(band.rect))
                    g.below = pod ? BandGround::Below::Pod : BandGround::Below::Group;
                else if (frames[i].rect.intersects(band.rect))
                    g.uniform = false;
            }
        }
        for (const std::size_t i : domainIndex.near(band.rect)) {
            if (domains[i].rect.contains(band.rect))
                g.below = BandGround::Below::Domain;
            else if (domains[i].rect.intersects(band.rect))
                g.uniform = false;
        }
        grounds.push_back(g);
    }
    return grounds;
}

} // namespace railyard
