#pragma once

#include "export/exportoptions.h"
#include "layout/mapping.h"

#include <string>

namespace railyard {

class CostEngine;
struct FabricSpec;

/// The format version of mapping-json (and of the csv columns).
inline constexpr int kMappingRecordVersion = 1;

/// "fnv1a64:<16 hex digits>" over the canonical JSON of the fabric spec: the fabric identity a
/// run record is checked against.
std::string fabricHash(const FabricSpec &spec);

/** A mapping read back from a run record, with the record's version and scenario name. */
struct ImportedMapping
{
    Mapping mapping;
    int mappingVersion = 1;
    std::string scenario;
};

/// Reads a mapping-json record and checks it against the engine's scenario: same fabric (hash,
/// servers, GPUs), same degrees and order, every rank once with coordinates matching the
/// layout and a slot consistent with its server and GPU, and a mapping that validates.
/// Throws ScenarioError naming the field at fault.
ImportedMapping importMappingJson(const std::string &text, const CostEngine &engine);
/// The same for the csv export (which has no fabric hash: servers and GPU indexes are checked).
ImportedMapping importMappingCsv(const std::string &text, const CostEngine &engine);

namespace exportdetail {

/// mapping-json: the run record with the fabric identity, degrees, version and prediction.
std::string exportMappingJson(const CostEngine &engine, const ExportOptions &options);
/// csv: one RFC 4180 row per rank.
std::string exportCsv(const CostEngine &engine, const ExportOptions &options);

} // namespace exportdetail

} // namespace railyard
