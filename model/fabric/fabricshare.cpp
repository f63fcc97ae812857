#include "base/scenarioerror.h"
#include "fabric/fabric.h"

#include <cstddef>

namespace railyard {

Fabric Fabric::withBandwidthScaled(const std::vector<double> &scale) const
{
    if (scale.size() != m_links.size())
        throw ScenarioError("",
            "a bandwidth scale per link: got " + std::to_string(scale.size()) + " for "
                + std::to_string(m_links.size()) + " links");
    Fabric out = *this;
    for (std::size_t l = 0; l < scale.size(); ++l) {
        if (!(scale[l] > 0.0 && scale[l] <= 1.0))
            throw ScenarioError("",
                "link " + std::to_string(l) + ": bandwidth scale " + std::to_string(scale[l])
                    + " outside (0, 1]");
        out.m_links[l].bandwidth *= scale[l];
        out.m_linkBandwidth[l] = out.m_links[l].bandwidth;
    }
    // The graph's edge bundles hold the same FabricLink values (routing reads them).
    FabricGraph &g = *out.m_graph;
    for (auto [it, end] = boost::edges(g); it != end; ++it) {
        FabricLink &link = g[*it];
        link.bandwidth = out.m_links[static_cast<std::size_t>(link.id)].bandwidth;
    }
    return out;
}

} // namespace railyard
