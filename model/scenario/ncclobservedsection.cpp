#include "scenario/ncclobservedsection.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <set>
#include <utility>

namespace railyard::ncclobservedsection {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxObservedComms = 65536; // a 16,384-GPU job's TP, DP, PP communicators
constexpr std::size_t kMaxObservedChannels = 256; // as the log reader (NCCL's MAXCHANNELS is 64)
constexpr std::size_t kMaxObservedFiles = 1 << 16; // as nccl-log --log
constexpr std::size_t kMaxObservedText = 4096;

std::vector<int> readObservedInts(
    const json &value, const std::string &path, std::size_t maxLength, int max)
{
    if (!value.is_array())
        throw ScenarioError(path, "expected an array, got " + jsonTypeName(value));
    if (value.size() > maxLength)
        throw ScenarioError(path,
            "lists " + std::to_string(value.size()) + " entries, more than the limit of "
                + std::to_string(maxLength));
    std::vector<int> out;
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i)
        out.push_back(static_cast<int>(jsonInteger(value[i], jsonElementPath(path, i), 0, max)));
    return out;
}

/// One entry of a communicator's "nics": a network hop of ring `channel` from rank `rank`.
NcclObservedNics readObservedNics(
    const json &value, const std::string &path, const NcclObservedComm &c, int nicsPerServer)
{
    JsonFields f(value, path, { "channel", "rank", "send", "receive", "pxn" });
    f.rejectUnknown();
    NcclObservedNics h;
    h.channel = static_cast<int>(
        f.requiredInteger("channel", 0, static_cast<std::int64_t>(c.rings.size()) - 1));
    h.rank = static_cast<int>(
        f.requiredInteger("rank", 0, static_cast<std::int64_t>(c.slots.size()) - 1));
    // -1: that end was not logged (the GPU's own NIC).
    h.send = f.integer("send", -1, -1, nicsPerServer - 1);
    h.receive = f.integer("receive", -1, -1, nicsPerServer - 1);
    h.pxn = f.boolean("pxn", false);
    if (h.send < 0 && h.receive < 0)
        throw ScenarioError(path, "names no NIC (\"send\" or \"receive\")");
    if (h.pxn && h.send < 0)
        throw ScenarioError(f.fieldPath("pxn"), "PXN needs the NIC it sends over (\"send\")");
    return h;
}

NcclObservedComm readObservedComm(
    const json &value, const std::string &path, int slotCount, int nicsPerServer, int version)
{
    JsonFields f(value, path, { "id", "group", "slots", "rings", "nics" });
    f.rejectUnknown();
    NcclObservedComm c;
    c.id = f.string("id", "", kMaxObservedText);
    c.group = f.string("group", "", kMaxObservedText);
    const std::string slotsPath = f.fieldPath("slots");
    c.slots = readObservedInts(f.required("slots"), slotsPath,
        static_cast<std::size_t>(limits::kMaxGpus), std::max(slotCount - 1, 0));
    if (c.slots.size() < 2)
        throw ScenarioError(slotsPath, "a communicator of at least 2 ranks is needed");
    std::vector<int> sorted = c.slots;
    std::sort(sorted.begin(), sorted.end());
    if (std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
        throw ScenarioError(slotsPath, "a slot is listed twice");
    const std::string ringsPath = f.fieldPath("rings");
    const json *rings = f.array("rings", kMaxObservedChannels);
    if (rings == nullptr || rings->empty())
        throw ScenarioError(ringsPath, "at least one ring is needed");
    const int n = static_cast<int>(c.slots.size());
    for (std::size_t r = 0; r < rings->size(); ++r) {
        const std::string ringPath = jsonElementPath(ringsPath, r);
        std::vector<int> ring = readObservedInts((*rings)[r], ringPath, c.slots.size(), n - 1);
        std::vector<int> order = ring;
        std::sort(order.begin(), order.end());
        for (int i = 0; i < n; ++i)
            if (static_cast<int>(order.size()) != n || order[static_cast<std::size_t>(i)] != i)
                throw ScenarioError(ringPath,
                    "is no order of the communicator's ranks 0.." + std::to_string(n - 1));
        c.rings.push_back(std::move(ring));
    }
    const std::string nicsPath = f.fieldPath("nics");
    // One entry per hop: every rank of every channel at most.
    const std::size_t maxNics = c.rings.size() * c.slots.size();
    if (const json *nics = f.array("nics", maxNics)) {
        if (version < 2)
            throw ScenarioError(nicsPath, "needs section version 2 (version 1 has rings only)");
        std::set<std::pair<int, int>> seen; // (channel, rank)
        for (std::size_t i = 0; i < nics->size(); ++i) {
            const std::string at = jsonElementPath(nicsPath, i);
            c.nics.push_back(readObservedNics((*nics)[i], at, c, nicsPerServer));
            const NcclObservedNics &h = c.nics.back();
            if (!seen.emplace(h.channel, h.rank).second)
                throw ScenarioError(at,
                    "the hop of channel " + std::to_string(h.channel) + " from rank "
                        + std::to_string(h.rank) + " is listed twice");
        }
    }
    return c;
}

} // namespace

NcclObservedSpec readNcclObserved(const json &value, int slotCount, int nicsPerServer)
{
    JsonFields f(value, "nccl_observed", { "version", "read_at", "files", "comms" });
    const int version = static_cast<int>(f.requiredInteger("version", 1, 1 << 20));
    if (version > kNcclObservedVersion)
        throw ScenarioError(f.fieldPath("version"),
            "section version " + std::to_string(version) + " is newer than this Railyard reads (up "
                + "to " + std::to_string(kNcclObservedVersion) + ")");
    f.rejectUnknown();
    NcclObservedSpec spec;
    spec.version = version;
    spec.readAt = f.string("read_at", "", 64);
    if (const json *files = f.array("files", kMaxObservedFiles))
        for (std::size_t i = 0; i < files->size(); ++i) {
            const json &name = (*files)[i];
            if (!name.is_string())
                throw ScenarioError(jsonElementPath(f.fieldPath("files"), i),
                    "expected a string, got " + jsonTypeName(name));
            spec.files.push_back(name.get<std::string>().substr(0, kMaxObservedText));
        }
    const json *comms = f.array("comms", kMaxObservedComms);
    if (comms == nullptr || comms->empty())
        throw ScenarioError(f.fieldPath("comms"), "at least one communicator is needed");
    for (std::size_t i = 0; i < comms->size(); ++i)
        spec.comms.push_back(readObservedComm((*comms)[i], jsonElementPath(f.fieldPath("comms"), i),
            slotCount, nicsPerServer, version));
    return spec;
}

template<typename Json> Json ncclObservedToJson(const NcclObservedSpec &spec)
{
    Json out;
    out["version"] = spec.version;
    out["read_at"] = spec.readAt;
    out["files"] = spec.files;
    Json comms = Json::array();
    for (const NcclObservedComm &c : spec.comms) {
        Json j;
        j["id"] = c.id;
        j["group"] = c.group;
        j["slots"] = c.slots;
        j["rings"] = c.rings;
        if (!c.nics.empty()) { // version 2 on; a version 1 section is written as it was read
            Json nics = Json::array();
            for (const NcclObservedNics &h : c.nics) {
                Json n;
                n["channel"] = h.channel;
                n["rank"] = h.rank;
                n["send"] = h.send;
                n["receive"] = h.receive;
                n["pxn"] = h.pxn;
                nics.push_back(std::move(n));
            }
            j["nics"] = std::move(nics);
        }
        comms.push_back(std::move(j));
    }
    out["comms"] = std::move(comms);
    return out;
}

template nlohmann::json ncclObservedToJson<nlohmann::json>(const NcclObservedSpec &);
template nlohmann::ordered_json ncclObservedToJson<nlohmann::ordered_json>(
    const NcclObservedSpec &);

} // namespace railyard::ncclobservedsection
