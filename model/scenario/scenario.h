#pragma once

// Plain values only: the spec headers of the fabric, the layout and the workload, no graph
// library (a header that includes this one compiles without Boost.Graph).
#include "fabric/degradation.h"
#include "fabric/fabricspec.h"
#include "fabric/failedcomponent.h"
#include "layout/parallellayout.h"
#include "layout/placement.h"
#include "scenario/annotation.h"
#include "scenario/calibrationspec.h"
#include "scenario/collectivespec.h"
#include "scenario/jobspec.h"
#include "scenario/ncclobservedspec.h"
#include "scenario/partscatalogue.h"
#include "scenario/snapshot.h"
#include "workload/inferencespec.h"
#include "workload/workload.h"

#include <optional>
#include <string>
#include <vector>

namespace railyard {

/**
 * A whole design: fabric, parallel layout, workload, device and rank mapping. This is what a
 * scenario file holds and what the cost engine evaluates. The mapping is either a named
 * placement or an explicit slot per rank (`slots`, which wins when present).
 */
struct Scenario
{
    /// The file's "$schema" (JSON Schema's key naming docs/scenario.schema.json for editors),
    /// kept so a file saved again still names its schema; "" = none. The engine never reads it.
    std::string schema;
    std::string name;
    std::string description;
    FabricSpec fabric;
    ParallelDegrees degrees;
    std::string order = "tp-cp-ep-dp-pp";
    ModelSpec model;
    TrainingSpec training;
    DeviceSpec device;
    Placement placement = Placement::Packed;
    std::vector<int> slots; ///< explicit rank -> slot; empty = use `placement`
    int mappingVersion = 1; ///< bumped by every remap; part of the run record
    std::optional<InferenceSpec> inference; ///< serving pools; absent = training only
    /// Failed hardware (fabric/failedcomponent.h): no rank may sit on a slot it makes unusable.
    std::vector<FailedComponent> failures;
    /// Slow GPUs and hosts, NICs and cables below speed (fabric/degradation.h); empty = healthy.
    DegradationSpec degradations;
    /// Which collective algorithms the engine uses (scenario/collectivespec.h); default auto.
    CollectiveSpec collectives;
    /// Values fitted on measured nccl-tests runs (scenario/calibrationspec.h); empty = the
    /// engine's defaults.
    CalibrationSpec calibration;
    /// The rings NCCL logged (scenario/ncclobservedspec.h), used for the groups they match in
    /// place of the predicted ones; empty = the engine's own rings.
    NcclObservedSpec ncclObserved;
    /// Parts with price and power for the bill of materials (scenario/partscatalogue.h);
    /// absent = the embedded defaults (defaultCatalogue()).
    std::optional<PartsCatalogue> catalogue;
    /// Whiteboard marks on the fabric (notes and arrows); the engine never reads them.
    std::vector<Annotation> annotations;
    /// Named versions of the mapping (scenario/snapshot.h); the engine never reads them.
    std::vector<Snapshot> snapshots;
    /// Several jobs on the fabric (scenario/jobspec.h, docs/shared-fabric.md); empty = one job,
    /// the fields above. With jobs, the fields above hold the first job's layout, model,
    /// training and mapping, so a command that handles one job sees the first.
    std::vector<JobSpec> jobs;

    /// Field by field: every field a scenario file stores, the mapping's slots included.
    bool operator==(const Scenario &) const = default;
};

} // namespace railyard
