#include "cost/partnerroutes.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <tuple>

namespace railyard {

PartnerRoutes partnerRoutes(
    const ParallelLayout &layout, const Mapping &mapping, Router &router, int rank)
{
    PartnerRoutes out;
    if (rank < 0 || rank >= mapping.rankCount() || rank >= layout.worldSize())
        return out;
    const ParallelDegrees &deg = layout.degrees();
    const std::tuple<Dim, GroupKind, int> kinds[] = { { Dim::Tp, GroupKind::Tp, deg.tp },
        { Dim::Pp, GroupKind::Pp, deg.pp }, { Dim::Dp, GroupKind::Dp, deg.dp },
        { Dim::Ep, GroupKind::Ep, deg.ep }, { Dim::Cp, GroupKind::Cp, deg.cp } };
    std::map<int, unsigned> slots, links;
    const int from = mapping.slotOf(rank);
    for (const auto &[dim, kind, degree] : kinds) {
        if (degree <= 1)
            continue;
        const unsigned bit = 1u << index(dim);
        const std::vector<int> &members
            = layout.groups(kind)[static_cast<std::size_t>(layout.groupOf(kind, rank))];
        const auto self = std::find(members.begin(), members.end(), rank);
        for (auto it = members.begin(); it != members.end(); ++it) {
            if (it == self)
                continue;
            slots[mapping.slotOf(*it)] |= bit;
            if (kind == GroupKind::Pp && std::abs(it - self) != 1)
                continue;
            for (const RouteHop &hop : router.route(from, mapping.slotOf(*it)))
                links[hop.link] |= bit;
        }
    }
    out.slots.assign(slots.begin(), slots.end());
    out.links.assign(links.begin(), links.end());
    return out;
}

} // namespace railyard
