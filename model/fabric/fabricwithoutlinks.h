#pragma once

#include "fabric/fabric.h"

namespace railyard {

/**
 * The spec checked as Fabric::build() checks it, and its vertices (servers, GPUs, NICs,
 * switches, with their names) and NIC attachments (leafOfNic(), leafPortOfNic()), but no links
 * and no graph edges (linkCount() 0): what checking a mapping against the fabric reads
 * (Mapping::validate(), checkRanksOnUsableSlots()), at a fraction of build()'s memory and time
 * at a million GPUs; `generate`'s check of the file it writes. A spec with a cabling inventory
 * is built whole (its checks are its building). Defined in fabric.cpp.
 */
Fabric fabricWithoutLinks(const FabricSpec &spec);

} // namespace railyard
