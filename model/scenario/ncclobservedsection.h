#pragma once

#include "scenario/ncclobservedspec.h"

#include <nlohmann/json_fwd.hpp>

/**
 * The scenario file's optional "nccl_observed" section (scenario/ncclobservedspec.h), written by
 * `railyard-cli nccl-log --use-observed`:
 *
 *     "nccl_observed": {
 *       "version": 2,                        this section's layout; newer versions are refused
 *       "read_at": "2026-12-06T10:40:00Z",
 *       "files": ["job.log"],
 *       "comms": [{"id": "0x5c31e0a2d4f78b16", "group": "world",
 *                  "slots": [0, 1, ...],     the slot of each communicator rank
 *                  "rings": [[0, 2, 3, ...], ...],   per channel, in ring order
 *                  "nics": [{"channel": 0, "rank": 1, "send": 5, "receive": 1, "pxn": false},
 *                           ...]}]           per network hop as logged (version 2 on)
 *     }
 *
 * Version 1 (rings only) is still read, and written back as it was read.
 */
namespace railyard::ncclobservedsection {

inline constexpr int kNcclObservedVersion = 2;

/// Throws ScenarioError naming the field path ("nccl_observed.comms[0].rings[1]") at the first
/// problem: a ring that is no order of the communicator's ranks, a slot outside the fabric's
/// `slotCount` or used twice, a hop's channel or rank outside its rings, a NIC outside the
/// servers' `nicsPerServer`, a hop listed twice, `nics` in a version 1 section.
NcclObservedSpec readNcclObserved(const nlohmann::json &value, int slotCount, int nicsPerServer);

/// The section's JSON (json or ordered_json).
template<typename Json> Json ncclObservedToJson(const NcclObservedSpec &spec);

} // namespace railyard::ncclobservedsection
