#include "scenario/ncclobservedsection.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <nlohmann/json.hpp>

#include <algorithm>

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

NcclObservedComm readObservedComm(const json &value, const std::string &path, int slotCount)
{
    JsonFields f(value, path, { "id", "group", "slots", "rings" });
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
    return c;
}

} // namespace

NcclObservedSpec readNcclObserved(const json &value, int slotCount)
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
        spec.comms.push_back(
            readObservedComm((*comms)[i], jsonElementPath(f.fieldPath("comms"), i), slotCount));
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
        comms.push_back(std::move(j));
    }
    out["comms"] = std::move(comms);
    return out;
}

template nlohmann::json ncclObservedToJson<nlohmann::json>(const NcclObservedSpec &);
template nlohmann::ordered_json ncclObservedToJson<nlohmann::ordered_json>(
    const NcclObservedSpec &);

} // namespace railyard::ncclobservedsection
