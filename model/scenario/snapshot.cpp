#include "scenario/snapshot.h"

#include "scenario/scenario.h"

namespace railyard {

Snapshot takeSnapshot(const Scenario &scenario, const std::string &name, const std::string &takenAt)
{
    Snapshot s;
    s.name = name;
    s.takenAt = takenAt;
    s.degrees = scenario.degrees;
    s.order = scenario.order;
    s.globalBatch = scenario.training.globalBatch;
    s.placement = scenario.placement;
    s.slots = scenario.slots;
    s.mappingVersion = scenario.mappingVersion;
    s.failures = scenario.failures;
    return s;
}

Scenario withSnapshot(const Scenario &current, const Snapshot &snapshot)
{
    Scenario next = current;
    next.degrees = snapshot.degrees;
    next.order = snapshot.order;
    next.training.globalBatch = snapshot.globalBatch;
    next.placement = snapshot.placement;
    next.slots = snapshot.slots;
    next.mappingVersion = snapshot.mappingVersion;
    next.failures = snapshot.failures;
    return next;
}

bool matchesSnapshot(const Scenario &scenario, const Snapshot &snapshot)
{
    return scenario.degrees == snapshot.degrees && scenario.order == snapshot.order
        && scenario.training.globalBatch == snapshot.globalBatch && scenario.slots == snapshot.slots
        && scenario.failures == snapshot.failures;
}

} // namespace railyard
