/**
 * The run record: mapping-json and csv, and reading both back.
 *
 * A run record keeps logical rank, GPU slot, NIC slot and switch port together (moving a rank
 * moves its traffic to another NIC and leaf, so the record must say where each one went), and
 * a remap is saved as a new version: one line per rank holds the coordinates,
 * the server and host, the GPU (global slot and local index), the NIC chosen by GPU -> NIC
 * affinity, its rail and the leaf switch and port it is cabled to. mapping-json adds the
 * fabric identity (spec name, kind, sizes and a hash of the spec), the degrees and order, the
 * scenario name, the mapping version and the engine's predicted iteration.
 *
 * csv follows RFC 4180 (a header row; fields holding a comma, quote, CR or LF are quoted and
 * quotes doubled) with LF line ends; the reader accepts CRLF as well.
 */
#include "export/runrecord.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "export/exportcommon.h"
#include "fabric/failedcomponent.h"
#include "layout/parallellayout.h"
#include "scenario/scenariofile.h"
#include "scenario/scenariosections.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>

namespace railyard {

namespace exportdetail {

namespace {

using ojson = nlohmann::ordered_json;

/// Six significant digits: predictions are estimates, and a record must not churn on the
/// last bit of a double.
double rounded(double v)
{
    return std::strtod(strf("%.6g", v).c_str(), nullptr);
}

ojson rankJson(const RankPlacement &p)
{
    ojson j;
    j["rank"] = p.rank;
    j["d"] = p.coord.d;
    j["p"] = p.coord.p;
    j["t"] = p.coord.t;
    j["c"] = p.coord.c;
    j["e"] = p.coord.e;
    j["server"] = p.server;
    j["host"] = p.host;
    j["slot"] = p.slot;
    j["gpu"] = p.gpu;
    j["nic"] = p.nic;
    j["rail"] = p.rail >= 0 ? ojson(p.rail) : ojson(nullptr);
    j["leaf"] = p.leafName;
    j["leaf_port"] = p.leafPort;
    // The host identity a launcher and the preflight need: the GPU's NUMA node, the NIC's RDMA
    // device and, when the fabric knows them (a topology import), both PCI bus IDs.
    j["numa"] = p.numa;
    j["hca"] = p.hca;
    j["gpu_pci_bus_id"] = p.gpuBusId.empty() ? ojson(nullptr) : ojson(p.gpuBusId);
    j["nic_pci_bus_id"] = p.nicBusId.empty() ? ojson(nullptr) : ojson(p.nicBusId);
    return j;
}

constexpr const char *kCsvColumns[] = { "rank", "d", "p", "t", "c", "e", "server", "host", "slot",
    "gpu", "nic", "rail", "leaf", "leaf_port", "numa", "hca", "gpu_pci_bus_id", "nic_pci_bus_id" };

/// RFC 4180 records; throws ScenarioError for an unterminated quote.
std::vector<std::vector<std::string>> parseCsv(const std::string &text)
{
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, fieldStarted = false;
    int line = 1;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (quoted) {
            if (ch == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (ch == '"') {
                quoted = false;
            } else {
                line += ch == '\n';
                field += ch;
            }
            continue;
        }
        if (ch == '"' && !fieldStarted) {
            quoted = fieldStarted = true;
        } else if (ch == ',') {
            row.push_back(std::move(field));
            field.clear();
            fieldStarted = false;
        } else if (ch == '\n' || ch == '\r') {
            if (ch == '\r' && i + 1 < text.size() && text[i + 1] == '\n')
                ++i;
            row.push_back(std::move(field));
            field.clear();
            fieldStarted = false;
            if (!(row.size() == 1 && row.front().empty()))
                rows.push_back(std::move(row));
            row.clear();
            ++line;
        } else {
            fieldStarted = true;
            field += ch;
        }
    }
    if (quoted)
        throw ScenarioError("csv line " + std::to_string(line), "a quoted field is not closed");
    if (fieldStarted || !row.empty()) {
        row.push_back(std::move(field));
        rows.push_back(std::move(row));
    }
    return rows;
}

/// A whole non-negative decimal integer of at most 9 digits, or -1.
int smallInt(const std::string &s)
{
    if (s.empty() || s.size() > 9
        || !std::all_of(s.begin(), s.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
        return -1;
    return std::atoi(s.c_str());
}

/**
 * Checks one rank's redundant fields against a layout and a fabric's slots and records its
 * slot: shared by import-mapping (the scenario's layout and fabric, its current mapping) and
 * the preflight (the layout and fabric sizes the record itself gives).
 */
struct RankCollector
{
    const ParallelLayout &layout;
    int slotCount;
    int gpusPerServer;
    const Mapping *current; ///< the scenario's mapping; nullptr for a record checked alone
    std::string context; ///< " in this scenario"
    std::vector<int> slots;

    RankCollector(
        const ParallelLayout &l, int slotsInFabric, int gpus, const Mapping *now, std::string where)
        : layout(l)
        , slotCount(slotsInFabric)
        , gpusPerServer(gpus)
        , current(now)
        , context(std::move(where))
        , slots(static_cast<std::size_t>(l.worldSize()), -1)
    {
    }

    /// `field(name)` returns the value or -1 when absent; `where` names the record element.
    template<typename Field> void add(const std::string &where, const Field &field)
    {
        const int world = layout.worldSize();
        const int rank = field("rank");
        if (rank < 0 || rank >= world)
            throw ScenarioError(
                where + ".rank", "expected a rank in 0.." + std::to_string(world - 1));
        if (slots[static_cast<std::size_t>(rank)] >= 0)
            throw ScenarioError(where + ".rank", "rank " + std::to_string(rank) + " appears twice");
        const int slot = field("slot");
        if (slot < 0 || slot >= slotCount)
            throw ScenarioError(
                where + ".slot", "expected a GPU slot in 0.." + std::to_string(slotCount - 1));
        // Derived columns (server, gpu) may still describe the rank's current slot: a record
        // edited in its slot column only is accepted, its stale columns ignored. A value that
        // matches neither the new slot nor the current one is an edit of its own: refused.
        const int now = current ? current->slotOf(rank) : -1;
        const auto expect
            = [&](const char *name, int want, const std::string &owner, int stale = -3) {
                  const int got = field(name);
                  if (got != -2 && got != want && got != stale)
                      throw ScenarioError(where + "." + name,
                          "is " + std::to_string(got) + " but " + owner + " has " + name + " "
                              + std::to_string(want) + context);
              };
        const RankCoord c = layout.coord(rank);
        const std::string ofRank = "rank " + std::to_string(rank);
        const std::string ofSlot = "slot " + std::to_string(slot);
        expect("d", c.d, ofRank);
        expect("p", c.p, ofRank);
        expect("t", c.t, ofRank);
        expect("c", c.c, ofRank);
        expect("e", c.e, ofRank);
        const bool slotEdited = slot != now && now >= 0 && now < slotCount;
        expect("server", slot / gpusPerServer, ofSlot, slotEdited ? now / gpusPerServer : -3);
        expect("gpu", slot % gpusPerServer, ofSlot, slotEdited ? now % gpusPerServer : -3);
        slots[static_cast<std::size_t>(rank)] = slot;
    }

    /// Every rank given; the scenario's fabric validates the mapping, a record checked alone
    /// has each slot held once (what the validation's errors come down to without a fabric).
    Mapping finish(const std::string &where, const Fabric *fabric) const
    {
        for (std::size_t r = 0; r < slots.size(); ++r)
            if (slots[r] < 0)
                throw ScenarioError(where, "rank " + std::to_string(r) + " is missing");
        Mapping m(slots, slotCount);
        if (fabric) {
            for (const MappingIssue &issue : m.validate(layout, *fabric))
                if (issue.severity == MappingIssue::Error)
                    throw ScenarioError(where, issue.message);
            return m;
        }
        std::vector<int> holder(static_cast<std::size_t>(slotCount), -1);
        for (std::size_t r = 0; r < slots.size(); ++r) {
            int &first = holder[static_cast<std::size_t>(slots[r])];
            if (first >= 0)
                throw ScenarioError(where,
                    "ranks " + std::to_string(first) + " and " + std::to_string(r)
                        + " are both on slot " + std::to_string(slots[r]));
            first = static_cast<int>(r);
        }
        return m;
    }
};

} // namespace

std::string exportMappingJson(const CostEngine &engine, const ExportOptions &options)
{
    const Scenario &s = engine.scenario();
    const Fabric &fabric = engine.fabric();
    const FabricSpec &spec = fabric.spec();
    const CostReport &r = engine.report();
    const ParallelDegrees &d = engine.layout().degrees();

    ojson fab;
    fab["name"] = spec.name;
    fab["kind"] = std::string(scenariosections::fabricKindText(spec.kind));
    fab["servers"] = fabric.servers();
    fab["gpus_per_server"] = fabric.gpusPerServer();
    fab["nics_per_server"] = fabric.nicsPerServer();
    fab["hash"] = fabricHash(spec);
    ojson par;
    par["tp"] = d.tp;
    par["pp"] = d.pp;
    par["dp"] = d.dp;
    par["cp"] = d.cp;
    par["ep"] = d.ep;
    par["order"] = engine.layout().order();
    par["world_size"] = engine.layout().worldSize();
    ojson pred;
    pred["iteration_time_s"] = rounded(r.iterationTime);
    pred["pipeline_makespan_s"] = rounded(r.pipelineMakespan);
    pred["bubble_fraction"] = rounded(r.bubbleFraction);
    pred["mfu"] = rounded(r.mfu);
    pred["spine_bytes_share"] = rounded(r.spineBytesShare);
    pred["bottleneck_link"] = r.bottleneckLink >= 0 ? fabric.linkName(r.bottleneckLink) : "";
    pred["bottleneck_dimension"] = std::string(dimName(r.bottleneckDim));

    // One rank per line, so two records diff rank by rank.
    std::string out = "{\n";
    out += "  \"format\": \"railyard-mapping\",\n";
    out += "  \"format_version\": " + std::to_string(kMappingRecordVersion) + ",\n";
    out += "  \"generator\": " + ojson(options.generator).dump() + ",\n";
    out += "  \"scenario\": " + ojson(s.name).dump() + ",\n";
    out += "  \"mapping_version\": " + std::to_string(s.mappingVersion) + ",\n";
    if (!s.failures.empty()) {
        // A degraded version names the hardware it avoids, so the new coordinates and the
        // hardware they avoid stay together in one record. Absent when nothing failed.
        ojson failed = ojson::array();
        for (const FailedComponent &f : s.failures)
            failed.push_back(failureText(f));
        out += "  \"failures\": " + failed.dump() + ",\n";
    }
    out += "  \"fabric\": " + fab.dump() + ",\n";
    out += "  \"parallel\": " + par.dump() + ",\n";
    out += "  \"prediction\": " + pred.dump() + ",\n";
    out += "  \"ranks\": [\n";
    const std::vector<RankPlacement> rows = placements(
        engine, hostNames(engine, options, false), checkedHcaPrefix(options.hcaPrefix));
    for (std::size_t i = 0; i < rows.size(); ++i)
        out += "    " + rankJson(rows[i]).dump() + (i + 1 < rows.size() ? ",\n" : "\n");
    out += "  ]\n}\n";
    return out;
}

std::string exportCsv(const CostEngine &engine, const ExportOptions &options)
{
    std::string out;
    for (const char *c : kCsvColumns)
        out += std::string(out.empty() ? "" : ",") + c;
    out += "\n";
    for (const RankPlacement &p : placements(
             engine, hostNames(engine, options, false), checkedHcaPrefix(options.hcaPrefix))) {
        out += strf("%d,%d,%d,%d,%d,%d,%d,", p.rank, p.coord.d, p.coord.p, p.coord.t, p.coord.c,
            p.coord.e, p.server);
        out += csvField(p.host);
        out += strf(",%d,%d,%d,", p.slot, p.gpu, p.nic);
        out += p.rail >= 0 ? std::to_string(p.rail) : std::string();
        out += "," + csvField(p.leafName) + "," + std::to_string(p.leafPort) + ","
            + std::to_string(p.numa) + "," + csvField(p.hca) + "," + csvField(p.gpuBusId) + ","
            + csvField(p.nicBusId) + "\n";
    }
    return out;
}

} // namespace exportdetail

using exportdetail::RankCollector;

std::string fabricHash(const FabricSpec &spec)
{
    // The fabric section exactly as a scenario file stores it; nlohmann's object keys are
    // sorted, so the dump is canonical. FNV-1a 64 (Fowler/Noll/Vo, IETF draft-eastlake-fnv).
    Scenario s;
    s.fabric = spec;
    // Bytes that are not UTF-8 in a name (an imported topology.conf's) hash as U+FFFD rather
    // than throw: the hash names the fabric, the loaders check the names.
    const std::string text = scenarioToJson(s).at("fabric").dump(
        -1, ' ', false, nlohmann::json::error_handler_t::replace);
    std::uint64_t h = 14695981039346656037ull;
    for (unsigned char ch : text) {
        h ^= ch;
        h *= 1099511628211ull;
    }
    char buf[40];
    std::snprintf(buf, sizeof buf, "fnv1a64:%016llx", static_cast<unsigned long long>(h));
    return buf;
}

namespace {

/// A record whose mapping differs from the scenario's current one is a new mapping version
/// (a remap is saved as a version): above the scenario's unless the record already is.
int versionAfterImport(const Mapping &imported, int recordVersion, const CostEngine &engine)
{
    const int current = engine.scenario().mappingVersion;
    if (imported == engine.mapping())
        return std::max(recordVersion, 1);
    return recordVersion > current ? recordVersion : current + 1;
}

/// Text without a UTF-8 byte order mark (spreadsheets save one): RFC 3629 section 6.
std::string withoutBom(const std::string &text)
{
    return text.rfind("\xEF\xBB\xBF", 0) == 0 ? text.substr(3) : text;
}

} // namespace

namespace {

/// The record's top level, with the fields it knows.
JsonFields topFields(const nlohmann::json &top)
{
    return JsonFields(top, "",
        { "format", "format_version", "generator", "scenario", "mapping_version", "failures",
            "fabric", "parallel", "prediction", "ranks" });
}

/// One row into its compact form (see RunRecordJson): the integers as JsonFields'
/// requiredInteger(key, 0, INT_MAX) reads them, with its messages, and the strings the
/// preflight compares.
void keepRow(RunRecordJson &record, std::size_t index, nlohmann::json &&row)
{
    using nlohmann::json;
    record.rankCount = index + 1;
    // After a fault nothing more is read; past the limit the count alone is refused.
    if (record.fault || index >= static_cast<std::size_t>(limits::kMaxGpus))
        return;
    if (!row.is_object()) {
        record.fault = ScenarioError(
            jsonElementPath("ranks", index), "expected an object, got " + jsonTypeName(row));
        record.faultRow = index;
        record.faultField = -1;
        return;
    }
    const json::object_t &fields = row.get_ref<const json::object_t &>();
    RecordRank r;
    for (int k = 0; k < 9; ++k) {
        const auto it = fields.find(RunRecordJson::kIntFields[k]);
        if (it == fields.end())
            continue;
        const json &v = it->second;
        if (v.is_number_unsigned() && v.get<std::uint64_t>() <= INT_MAX) {
            r.value[k] = static_cast<int>(v.get<std::uint64_t>()); // the common case, no path
            continue;
        }
        try {
            r.value[k] = static_cast<int>(jsonInteger(v,
                jsonElementPath("ranks", index) + "." + RunRecordJson::kIntFields[k], 0, INT_MAX));
        } catch (const ScenarioError &e) {
            record.fault = e;
            record.faultRow = index;
            record.faultField = k;
            record.ranks.push_back(std::move(r));
            return;
        }
    }
    const auto text = [&fields](const char *key) {
        const auto it = fields.find(key);
        return it != fields.end() && it->second.is_string() ? it->second.get<std::string>()
                                                            : std::string();
    };
    r.host = text("host");
    r.hca = text("hca");
    r.gpuBusId = text("gpu_pci_bus_id");
    record.ranks.push_back(std::move(r));
}

/// format and format_version, as every reader of a record checks them first.
void checkFormat(const JsonFields &top)
{
    const std::string format = top.string("format", "", 64);
    if (format != "railyard-mapping")
        throw ScenarioError("format",
            "expected \"railyard-mapping\" (a mapping-json export), got \"" + format + "\"");
    const std::int64_t version = top.requiredInteger("format_version", 1, INT_MAX);
    if (version > kMappingRecordVersion)
        throw ScenarioError("format_version",
            "the record is version " + std::to_string(version)
                + ", newer than this Railyard reads (up to " + std::to_string(kMappingRecordVersion)
                + ")");
}

/// The number of rank rows, refusing an absent or non-array "ranks" and too many rows.
std::size_t rankRows(const JsonFields &top, const RunRecordJson &record)
{
    // The streamed array is empty in the DOM: array() checks its presence and type only.
    if (!top.array("ranks", static_cast<std::size_t>(limits::kMaxGpus)))
        throw ScenarioError("ranks", "missing required field");
    if (record.rankCount > static_cast<std::size_t>(limits::kMaxGpus))
        throw ScenarioError("ranks",
            std::to_string(record.rankCount) + " entries exceed the limit of "
                + std::to_string(limits::kMaxGpus));
    return record.rankCount;
}

/// Every row through the collector in record order; a row's fault is thrown where a full
/// read would have met it.
void collectRows(const RunRecordJson &record, RankCollector &collect)
{
    for (std::size_t i = 0; i < record.rankCount; ++i) {
        if (i == record.faultRow && record.faultField < 0)
            throw *record.fault;
        const RecordRank &row = record.ranks[i];
        collect.add(jsonElementPath("ranks", i), [&](const char *key) {
            int k = 0;
            while (std::string_view(RunRecordJson::kIntFields[k]) != key)
                ++k;
            if (i == record.faultRow && k == record.faultField)
                throw *record.fault;
            return row.value[k];
        });
    }
}

} // namespace

RunRecordJson readRunRecordJson(const std::string &text)
{
    RunRecordJson record;
    const JsonElementSink sink = [&record](std::size_t index, nlohmann::json &&row) {
        keepRow(record, index, std::move(row));
    };
    // A BOM (spreadsheets and some editors write one): RFC 3629 section 6.
    record.top = text.rfind("\xEF\xBB\xBF", 0) == 0
        ? parseJsonGuardedStreaming(text.substr(3), limits::kMaxJsonDepth, "ranks", sink)
        : parseJsonGuardedStreaming(text, limits::kMaxJsonDepth, "ranks", sink);
    return record;
}

void checkRunRecord(const RunRecordJson &record)
{
    const JsonFields top = topFields(record.top);
    checkFormat(top);
    const JsonFields fab(top.required("fabric"), "fabric",
        { "name", "kind", "servers", "gpus_per_server", "nics_per_server", "hash" });
    const std::int64_t servers = fab.requiredInteger("servers", 1, limits::kMaxGpus);
    const std::int64_t gpus = fab.requiredInteger("gpus_per_server", 1, limits::kMaxGpusPerServer);
    if (servers * gpus > limits::kMaxGpus)
        throw ScenarioError("fabric",
            std::to_string(servers) + " servers x " + std::to_string(gpus)
                + " GPUs exceed the limit of " + std::to_string(limits::kMaxGpus) + " GPU slots");
    fab.string("hash", "", 64, false);

    const JsonFields par(top.required("parallel"), "parallel",
        { "tp", "pp", "dp", "cp", "ep", "order", "world_size" });
    ParallelDegrees d;
    d.tp = static_cast<int>(par.requiredInteger("tp", 1, INT_MAX));
    d.pp = static_cast<int>(par.requiredInteger("pp", 1, INT_MAX));
    d.dp = static_cast<int>(par.requiredInteger("dp", 1, INT_MAX));
    d.cp = static_cast<int>(par.requiredInteger("cp", 1, INT_MAX));
    d.ep = static_cast<int>(par.requiredInteger("ep", 1, INT_MAX));
    const ParallelLayout layout(d, par.string("order", "tp-cp-ep-dp-pp", 64));
    if (par.has("world_size")) {
        const std::int64_t world = par.requiredInteger("world_size", 1, INT_MAX);
        if (world != layout.worldSize())
            throw ScenarioError("parallel.world_size",
                "is " + std::to_string(world) + " but tp*pp*dp*cp is "
                    + std::to_string(layout.worldSize()));
    }
    top.integer("mapping_version", 1, 1, INT_MAX);

    const std::size_t rows = rankRows(top, record);
    if (rows != static_cast<std::size_t>(layout.worldSize()))
        throw ScenarioError("ranks",
            "has " + std::to_string(rows) + " entries but the record's layout has "
                + std::to_string(layout.worldSize()) + " ranks");
    RankCollector collect(layout, static_cast<int>(servers * gpus), static_cast<int>(gpus), nullptr,
        " in this record");
    collectRows(record, collect);
    collect.finish("ranks", nullptr);
}

ImportedMapping importMappingJson(const std::string &text, const CostEngine &engine)
{
    const std::size_t bom = text.rfind("\xEF\xBB\xBF", 0) == 0 ? 3 : 0;
    if (static_cast<std::int64_t>(text.size() - bom) > limits::kMaxFileBytes)
        throw ScenarioError("mapping", "the record is larger than 64 MiB");
    const RunRecordJson record = readRunRecordJson(text);
    const JsonFields top = topFields(record.top);
    checkFormat(top);

    const Fabric &fabric = engine.fabric();
    JsonFields fab(top.required("fabric"), "fabric",
        { "name", "kind", "servers", "gpus_per_server", "nics_per_server", "hash" });
    const int servers = static_cast<int>(fab.requiredInteger("servers", 1, INT_MAX));
    const int gpus = static_cast<int>(fab.requiredInteger("gpus_per_server", 1, INT_MAX));
    if (servers != fabric.servers() || gpus != fabric.gpusPerServer())
        throw ScenarioError("fabric",
            "the record was made for " + std::to_string(servers) + " servers x "
                + std::to_string(gpus) + " GPUs, the scenario's fabric has "
                + std::to_string(fabric.servers()) + " x "
                + std::to_string(fabric.gpusPerServer()));
    const std::string hash = fab.string("hash", "", 64, false);
    if (hash != fabricHash(fabric.spec()))
        throw ScenarioError("fabric.hash",
            "the record was made on fabric \"" + fab.string("name", "", 256) + "\" (" + hash
                + ") but the scenario's fabric \"" + fabric.spec().name + "\" differs ("
                + fabricHash(fabric.spec()) + ")");

    const ParallelDegrees &d = engine.layout().degrees();
    JsonFields par(top.required("parallel"), "parallel",
        { "tp", "pp", "dp", "cp", "ep", "order", "world_size" });
    const std::pair<const char *, int> degrees[]
        = { { "tp", d.tp }, { "pp", d.pp }, { "dp", d.dp }, { "cp", d.cp }, { "ep", d.ep } };
    for (const auto &[key, want] : degrees) {
        const std::int64_t got = par.requiredInteger(key, 1, INT_MAX);
        if (got != want)
            throw ScenarioError(par.fieldPath(key),
                "the record has " + std::string(key) + " " + std::to_string(got)
                    + " but the scenario has " + std::to_string(want));
    }
    const std::string order = par.string("order", engine.layout().order(), 64);
    if (order != engine.layout().order())
        throw ScenarioError("parallel.order",
            "the record has order " + order + " but the scenario has " + engine.layout().order());

    ImportedMapping out;
    out.mappingVersion = top.integer("mapping_version", 1, 1, INT_MAX);
    out.scenario = top.string("scenario", "", 4096);
    const std::size_t rows = rankRows(top, record);
    if (rows != static_cast<std::size_t>(engine.layout().worldSize()))
        throw ScenarioError("ranks",
            "has " + std::to_string(rows) + " entries but the layout has "
                + std::to_string(engine.layout().worldSize()) + " ranks");
    RankCollector collect(engine.layout(), fabric.slotCount(), fabric.gpusPerServer(),
        &engine.mapping(), " in this scenario");
    collectRows(record, collect);
    out.mapping = collect.finish("ranks", &fabric);
    out.mappingVersion = versionAfterImport(out.mapping, out.mappingVersion, engine);
    return out;
}

ImportedMapping importMappingCsv(const std::string &bomText, const CostEngine &engine)
{
    const std::string text = withoutBom(bomText);
    if (static_cast<std::int64_t>(text.size()) > limits::kMaxFileBytes)
        throw ScenarioError("csv", "the file is larger than 64 MiB");
    const auto rows = exportdetail::parseCsv(text);
    if (rows.empty())
        throw ScenarioError(
            "csv", "the file is empty (expected a header row and one row per rank)");
    const std::vector<std::string> &header = rows.front();
    const auto column = [&header](const char *name) {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? -1 : static_cast<int>(it - header.begin());
    };
    // A column named twice would leave one of its values unread (and unchecked).
    std::map<std::string, std::size_t> seen;
    for (std::size_t i = 0; i < header.size(); ++i)
        if (const auto [it, fresh] = seen.emplace(header[i], i); !fresh)
            throw ScenarioError("csv line 1",
                "column '" + header[i].substr(0, 40) + "' appears twice (columns "
                    + std::to_string(it->second + 1) + " and " + std::to_string(i + 1) + ")");
    if (column("rank") < 0 || column("slot") < 0)
        throw ScenarioError("csv line 1", "the header needs 'rank' and 'slot' columns");
    const int world = engine.layout().worldSize();
    if (static_cast<int>(rows.size()) - 1 != world)
        throw ScenarioError("csv",
            "has " + std::to_string(rows.size() - 1) + " rank rows but the layout has "
                + std::to_string(world) + " ranks");
    RankCollector collect(engine.layout(), engine.fabric().slotCount(),
        engine.fabric().gpusPerServer(), &engine.mapping(), " in this scenario");
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const std::vector<std::string> &row = rows[i];
        const std::string where = "csv row " + std::to_string(i);
        if (row.size() != header.size())
            throw ScenarioError(where,
                "has " + std::to_string(row.size()) + " fields, the header "
                    + std::to_string(header.size()));
        collect.add(where, [&](const char *key) {
            const int col = column(key);
            if (col < 0)
                return std::string(key) == "rank" || std::string(key) == "slot" ? -1 : -2;
            const int v = exportdetail::smallInt(row[static_cast<std::size_t>(col)]);
            if (v < 0)
                throw ScenarioError(where + "." + key,
                    "'" + row[static_cast<std::size_t>(col)].substr(0, 20)
                        + "' is not a non-negative integer");
            return v;
        });
    }
    ImportedMapping out;
    out.mapping = collect.finish("csv", &engine.fabric());
    out.mappingVersion = versionAfterImport(out.mapping, engine.scenario().mappingVersion, engine);
    out.scenario = engine.scenario().name;
    return out;
}

} // namespace railyard
