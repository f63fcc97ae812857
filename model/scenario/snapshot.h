#pragma once

#include "fabric/failedcomponent.h"
#include "layout/parallellayout.h"
#include "layout/placement.h"

#include <string>
#include <vector>

namespace railyard {

struct Scenario;

/**
 * A named version of the mapping kept in the scenario file: what a design session wants to
 * come back to or compare. It holds what a placement, a swap or a failure remap changes (the
 * parallel degrees and rank order, the global batch, the placement with its explicit slots and
 * mapping version, the failed hardware) and shares the fabric, model and device with the
 * document. Restoring it replaces exactly those fields.
 */
struct Snapshot
{
    std::string name;
    std::string takenAt; ///< ISO 8601 local time, as the file keeps it
    ParallelDegrees degrees;
    std::string order = "tp-cp-ep-dp-pp";
    int globalBatch = 0;
    Placement placement = Placement::Packed;
    std::vector<int> slots;
    int mappingVersion = 1;
    std::vector<FailedComponent> failures;

    bool operator==(const Snapshot &) const = default;
};

/// The snapshot of `scenario`'s mapping now.
Snapshot takeSnapshot(const Scenario &scenario, const std::string &name, const std::string &takenAt);
/// `current` with the snapshot's fields put back (its annotations and snapshots stay).
Scenario withSnapshot(const Scenario &current, const Snapshot &snapshot);
/// The mapping fields of `scenario` equal the snapshot's.
bool matchesSnapshot(const Scenario &scenario, const Snapshot &snapshot);

} // namespace railyard
