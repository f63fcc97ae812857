#pragma once

#include "scenario/partscatalogue.h"

#include <nlohmann/json_fwd.hpp>

#include <string>

/**
 * The scenario file's optional "catalogue" section (scenario/partscatalogue.h), versioned like
 * the calibration section; a catalogue file (`railyard-cli bom --catalogue FILE`) is the same
 * object on its own. Absent = defaultCatalogue(). docs/bom-and-cost.md documents it:
 *
 *     "catalogue": {
 *       "version": 1,                        this section's layout; newer versions are refused
 *       "name": "Railyard defaults",
 *       "parts": [{"id": "switch-64x400", "kind": "switch", "radix": 64, "gbps": 400,
 *                  "price_usd": 30000, "typical_w": 1100, "max_w": 1700,
 *                  "source": "..." | "illustrative": true}, ...],
 *       "rules": {"servers_per_rack": 0, "switches_per_rack": 16, "racks_per_row": 0,
 *                 "rack_width_m": 0.6, "slack_m": 2, "copper_max_m": 2, "active_max_m": 7,
 *                 "sources": {"copper_max_m": "IEEE 802.3ck-2022 ...", ...}},
 *       "economics": {"electricity_usd_per_kwh": 0.08, "pue": 1.58, "amortisation_years": 4,
 *                     "sources": {...}}
 *     }
 *
 * Part kinds and their keys: gpu (device), server (gpus), nic (gbps), switch (radix, gbps),
 * cable (class: copper | active | optics, gbps), transceiver (gbps), rack. Every part needs a
 * non-empty "source" or "illustrative": true; two parts may not price the same thing.
 */
namespace railyard::cataloguesection {

inline constexpr int kCatalogueVersion = 1;

/// Throws ScenarioError naming the field path (`path` + ".parts[3].price_usd") at the first
/// problem; `path` is "catalogue" in a scenario file and "" for a catalogue file of its own.
PartsCatalogue readCatalogue(const nlohmann::json &value, const std::string &path = "catalogue");

/// The section's JSON (json or ordered_json).
template<typename Json> Json catalogueToJson(const PartsCatalogue &catalogue);

/// A catalogue file's text: parsed with the scenario limits, then readCatalogue(.., "").
PartsCatalogue parseCatalogueText(const std::string &text);
/// Reads a catalogue file; every message names the file first ("cat.json: parts[2].gbps: ...").
PartsCatalogue loadCatalogueFile(const std::string &path);
/// The catalogue's text as a file holds it (2-space indent, trailing newline).
std::string catalogueToText(const PartsCatalogue &catalogue);

} // namespace railyard::cataloguesection

namespace railyard {

/// The embedded default catalogue: every figure cites a public source or is illustrative.
const PartsCatalogue &defaultCatalogue();

} // namespace railyard
