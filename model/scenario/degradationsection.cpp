#include "scenario/degradationsection.h"

#include "base/jsonfields.h"
#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "fabric/fabricspec.h"

#include <nlohmann/json.hpp>

namespace railyard::degradationsection {

namespace {

using nlohmann::json;

/// The slowest factor accepted: a part at under a thousandth of its speed has failed (list it
/// under "failures"); the floor also keeps every stretched time finite.
constexpr double kMinDegradationFactor = 0.001;

Degradation readPart(const json &value, const std::string &path, const FabricSpec &fabric)
{
    JsonFields f(value, path,
        { "id", "compute_speed", "bandwidth_gbps", "bandwidth_factor", "added_latency_us" });
    f.rejectUnknown();
    const std::string idPath = f.fieldPath("id");
    const json &id = f.required("id");
    if (!id.is_string())
        throw ScenarioError(
            idPath, "expected a string such as \"gpu:17\" or \"nic:5\", got " + jsonTypeName(id));
    Degradation part = parseDegradationId(id.get_ref<const std::string &>(), idPath);
    checkDegradationRange(part, fabric, idPath);
    const auto refuse = [&](std::string_view key, const std::string &why) {
        if (f.has(key))
            throw ScenarioError(f.fieldPath(key), why);
    };
    if (part.slowsCompute()) {
        const std::string why = "a " + std::string(degradationKindName(part.kind))
            + " part takes compute_speed only (bandwidth and latency belong to nic:N and link:N)";
        refuse("bandwidth_gbps", why);
        refuse("bandwidth_factor", why);
        refuse("added_latency_us", why);
        if (!f.has("compute_speed"))
            throw ScenarioError(f.fieldPath("compute_speed"),
                "required for " + degradationId(part) + ": its speed as a factor 0 < f <= 1");
        part.computeSpeed = f.number("compute_speed", 1.0, kMinDegradationFactor, 1.0);
        return part;
    }
    refuse("compute_speed",
        "a " + std::string(degradationKindName(part.kind))
            + " part takes bandwidth_gbps, bandwidth_factor or added_latency_us (compute_speed "
              "belongs to gpu:N and server:N)");
    if (f.has("bandwidth_gbps") && f.has("bandwidth_factor"))
        throw ScenarioError(
            f.fieldPath("bandwidth_factor"), "give bandwidth_gbps or bandwidth_factor, not both");
    if (!f.has("bandwidth_gbps") && !f.has("bandwidth_factor") && !f.has("added_latency_us"))
        throw ScenarioError(path,
            degradationId(part)
                + " needs bandwidth_gbps, bandwidth_factor or added_latency_us (nothing is "
                  "degraded otherwise)");
    part.bandwidthGbps
        = f.number("bandwidth_gbps", 0.0, ranges::kMinLinkGbps, ranges::kMaxLinkGbps);
    part.bandwidthFactor = f.number("bandwidth_factor", 1.0, kMinDegradationFactor, 1.0);
    part.addedLatencyUs = f.number("added_latency_us", 0.0, 0.0, ranges::kMaxLatencyUs);
    return part;
}

} // namespace

DegradationSpec readDegradations(const json &value, const FabricSpec &fabric)
{
    JsonFields f(value, "degradations", { "version", "parts" });
    const int version = static_cast<int>(f.requiredInteger("version", 1, 1 << 20));
    if (version > kDegradationsVersion)
        throw ScenarioError(f.fieldPath("version"),
            "section version " + std::to_string(version) + " is newer than this Railyard reads (up "
                + "to " + std::to_string(kDegradationsVersion) + ")");
    f.rejectUnknown();
    DegradationSpec spec;
    spec.version = version;
    const json *parts = f.array("parts", static_cast<std::size_t>(limits::kMaxGpus));
    if (parts == nullptr || parts->empty())
        throw ScenarioError(f.fieldPath("parts"), "at least one degraded part is needed");
    for (std::size_t i = 0; i < parts->size(); ++i) {
        const std::string path = degradationPath(i);
        Degradation part = readPart((*parts)[i], path, fabric);
        for (std::size_t j = 0; j < spec.parts.size(); ++j)
            if (spec.parts[j].kind == part.kind && spec.parts[j].index == part.index)
                throw ScenarioError(path + ".id",
                    "duplicate part \"" + degradationId(part) + "\" (already " + degradationPath(j)
                        + ")");
        spec.parts.push_back(part);
    }
    return spec;
}

template<typename Json> Json degradationsToJson(const DegradationSpec &spec)
{
    Json out;
    out["version"] = spec.version;
    Json parts = Json::array();
    for (const Degradation &p : spec.parts) {
        Json j;
        j["id"] = degradationId(p);
        if (p.slowsCompute()) {
            j["compute_speed"] = p.computeSpeed;
        } else {
            if (p.bandwidthGbps > 0.0)
                j["bandwidth_gbps"] = p.bandwidthGbps;
            else if (p.bandwidthFactor != 1.0)
                j["bandwidth_factor"] = p.bandwidthFactor;
            if (p.addedLatencyUs > 0.0)
                j["added_latency_us"] = p.addedLatencyUs;
        }
        parts.push_back(std::move(j));
    }
    out["parts"] = std::move(parts);
    return out;
}

template nlohmann::json degradationsToJson<nlohmann::json>(const DegradationSpec &);
template nlohmann::ordered_json degradationsToJson<nlohmann::ordered_json>(const DegradationSpec &);

} // namespace railyard::degradationsection
