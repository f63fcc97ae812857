#pragma once

#include "fabriclayout.h"

#include <vector>

namespace railyard {

/**
 * What lies under one rail band of a layout in FabricItem's own drawing (its backdrop): the
 * innermost frame around it (a scalable unit or ToR group over a pod) or a rack-scale domain,
 * else the view's white; and whether that is all under it (`uniform`), or a frame's or domain's
 * edge crosses it. FabricItem::batchBands() draws a uniform band opaque in the colour its
 * translucent fill makes over `below`.
 */
struct BandGround
{
    enum class Below { White, Pod, Group, Domain };
    Below below = Below::White;
    bool uniform = true;
};

/// Per band of `layout.bands()`, in its order. Each band is tested only against the frames and
/// domains near it (those whose left edge lies within the widest one's width of it, a superset
/// of those that contain or cross it), in their order: every band against every frame (4,096
/// scalable units and 512 pods at 1,048,576 GPUs) was about a second of opening the view there.
std::vector<BandGround> bandGrounds(const FabricLayout &layout);

} // namespace railyard
