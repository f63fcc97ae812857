#include "base/scenarioerror.h"
#include "fabric/fabric.h"

#include <cstddef>

namespace railyard {

Fabric Fabric::withBandwidthScaled(const std::vector<double> &scale) const
{
    if (scale.size() != m_linkEnds.size())
        throw ScenarioError("",
            "a bandwidth scale per link: got " + std::to_string(scale.size()) + " for "
                + std::to_string(m_linkEnds.size()) + " links");
    Fabric out = *this;
    LinkClassIndex index(out.m_linkClasses);
    for (std::size_t l = 0; l < scale.size(); ++l) {
        if (!(scale[l] > 0.0 && scale[l] <= 1.0))
            throw ScenarioError("",
                "link " + std::to_string(l) + ": bandwidth scale " + std::to_string(scale[l])
                    + " outside (0, 1]");
        const int id = static_cast<int>(l);
        if (scale[l] != 1.0)
            out.setLinkFigures(id, linkBandwidth(id) * scale[l], linkLatency(id), index);
    }
    // The graph's edges hold link ids only (FabricEdge): nothing to keep in step there.
    return out;
}

} // namespace railyard
