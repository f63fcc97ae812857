#pragma once

#include "document/changescenario.h"
#include "layout/mapping.h"

namespace railyard {

/**
 * A preset re-places every rank at once (packed, rail-aligned, scattered): the mapping and the
 * scenario's placement name change, the fabric and layout do not, so the engine keeps its
 * fabric, router and workload plan. Never merges: each preset click is its own step.
 */
class ApplyPlacement : public ChangeScenario
{
public:
    ApplyPlacement(ScenarioDocument *document, Scenario before, Scenario after,
                   QUndoCommand *parent = nullptr);

    int id() const override;

    Placement placement() const { return after().placement; }
};

} // namespace railyard
