#pragma once

#include "export/exportoptions.h"
#include "layout/mapping.h"

#include "base/scenarioerror.h"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

/** One rank row of a mapping-json record as the readers keep it (a few dozen bytes a rank). */
struct RecordRank
{
    /// rank, slot, d, p, t, c, e, server, gpu in this order (RunRecordJson::kIntFields); an
    /// absent rank or slot is -1, another absent field -2 ("not given, not checked").
    int value[9] = { -1, -1, -2, -2, -2, -2, -2, -2, -2 };
    std::string host, hca, gpuBusId; ///< "" when absent or not a string
};

/**
 * A mapping-json record read in one streaming pass (parseJsonGuardedStreaming): the top-level
 * fields as a DOM (with an empty "ranks" array) and each rank row reduced to a RecordRank as it
 * is read, so a 262,144-rank record of 61 MB never becomes a DOM of half a gigabyte. A row's
 * first unreadable field (a string rank, a negative slot, a row that is no object) is kept
 * as `fault` with its message and the rows after it are not kept: every reader checks the rows
 * in order and stops at the fault at the latest, so its messages are those of a full read.
 */
struct RunRecordJson
{
    static constexpr const char *kIntFields[9]
        = { "rank", "slot", "d", "p", "t", "c", "e", "server", "gpu" };
    nlohmann::json top;
    std::size_t rankCount = 0; ///< elements of "ranks" (all counted, kept up to the fault)
    std::vector<RecordRank> ranks;
    std::size_t faultRow = SIZE_MAX;
    int faultField = -1; ///< index into kIntFields; -1: the row itself is no object
    std::optional<ScenarioError> fault;
};

/// Parses a mapping-json record (a UTF-8 BOM allowed); throws ScenarioError for text that is
/// not JSON, nesting or duplicate keys, with the key path.
RunRecordJson readRunRecordJson(const std::string &text);

/// The checks a record passes on its own, without a scenario (the preflight's): format and
/// version, fabric sizes and hash, degrees and order (the layout they make), world_size, and
/// the ranks as importMappingJson checks them: every rank once, each with a slot of the
/// record's fabric no other rank holds, coordinates of the layout and server and gpu of its
/// slot. Throws ScenarioError naming the field (e.g. "ranks[3].slot").
void checkRunRecord(const RunRecordJson &record);

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
