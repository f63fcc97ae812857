#include "scenario/calibrationsection.h"

#include "base/jsonfields.h"
#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <nlohmann/json.hpp>

#include <climits>

namespace railyard::calibrationsection {

namespace {

using nlohmann::json;

constexpr std::size_t kMaxTiers = 64;
constexpr std::size_t kMaxRuns = 4096;
constexpr std::size_t kMaxPoints = 1024; ///< sizes of one run (nccl-tests sweeps 8 B..16 GiB in 32)
constexpr std::size_t kMaxText = 4096;
constexpr double kMaxUs = 1e12;

constexpr std::string_view kAlgorithms[]
    = { "any", "ring", "member-order", "tree", "nvls", "nvls-tree", "hierarchical", "pat",
          "pairwise", "p2p" };

Tier readTier(const JsonFields &f, std::string_view key)
{
    return f.choice(key, Tier::ScaleUp,
        { Tier::ScaleUp, Tier::Pcie, Tier::Leaf, Tier::Spine, Tier::SuperSpine },
        [](Tier t) { return tierName(t); });
}

std::string readAlgorithm(const JsonFields &f, bool anyAllowed)
{
    const std::string a = f.string("algorithm", "", 32);
    if (a.empty() || (anyAllowed && a == "any"))
        return std::string();
    for (const std::string_view known : kAlgorithms)
        if (known == a && known != "any")
            return a;
    std::string accepted;
    for (const std::string_view known : kAlgorithms)
        accepted += (accepted.empty() ? "" : ", ") + std::string(known);
    throw ScenarioError(f.fieldPath("algorithm"), "\"" + a + "\" is not one of " + accepted);
}

CalibratedTier readTierEntry(const json &value, const std::string &path)
{
    JsonFields f(value, path,
        { "tier", "algorithm", "step_latency_us", "bandwidth_scale", "bandwidth_gbps",
            "default_step_latency_us", "default_bandwidth_gbps", "runs", "points", "rms_residual",
            "max_residual", "r_squared" });
    f.rejectUnknown();
    CalibratedTier t;
    if (!f.has("tier"))
        f.required("tier");
    t.tier = readTier(f, "tier");
    t.algorithm = readAlgorithm(f, true);
    t.stepLatencyUs = f.number("step_latency_us", -1.0, 0.0, ranges::kMaxLatencyUs);
    t.bandwidthScale
        = f.number("bandwidth_scale", -1.0, ranges::kMinBandwidthScale, ranges::kMaxBandwidthScale);
    if (t.stepLatencyUs < 0.0 && t.bandwidthScale < 0.0)
        throw ScenarioError(path, "calibrates nothing: step_latency_us or bandwidth_scale is needed");
    t.bandwidthGbps = f.number("bandwidth_gbps", -1.0, 0.0, 1e9);
    t.defaultStepLatencyUs = f.number("default_step_latency_us", 0.0, 0.0, 1e6);
    t.defaultBandwidthGbps = f.number("default_bandwidth_gbps", 0.0, 0.0, 1e9);
    t.runs = f.integer("runs", 0, 0, static_cast<std::int64_t>(kMaxRuns));
    t.points = f.integer("points", 0, 0, INT_MAX);
    t.rmsResidual = f.number("rms_residual", 0.0, 0.0, 1e3);
    t.maxResidual = f.number("max_residual", 0.0, 0.0, 1e3);
    t.rSquared = f.number("r_squared", 0.0, -1e9, 1.0);
    return t;
}

CalibrationRun readRun(const json &value, const std::string &path)
{
    JsonFields f(value, path,
        { "id", "file", "collective", "ranks", "tier", "bottleneck_tier", "algorithm", "fitted",
            "note", "points" });
    f.rejectUnknown();
    CalibrationRun r;
    r.id = f.string("id", "", kMaxText, false);
    r.file = f.string("file", "", kMaxText);
    r.collective = f.string("collective", "", 32);
    if (const json *ranks = f.array("ranks", static_cast<std::size_t>(limits::kMaxGpus)))
        for (std::size_t i = 0; i < ranks->size(); ++i)
            r.ranks.push_back(static_cast<int>(jsonInteger(
                (*ranks)[i], jsonElementPath(f.fieldPath("ranks"), i), 0, limits::kMaxGpus - 1)));
    r.tier = readTier(f, "tier");
    r.bottleneckTier = readTier(f, "bottleneck_tier");
    r.algorithm = readAlgorithm(f, false);
    r.fitted = f.boolean("fitted", true);
    r.note = f.string("note", "", kMaxText);
    if (const json *points = f.array("points", kMaxPoints))
        for (std::size_t i = 0; i < points->size(); ++i) {
            const std::string at = jsonElementPath(f.fieldPath("points"), i);
            const json &p = (*points)[i];
            if (!p.is_array() || p.size() != 5)
                throw ScenarioError(at,
                    "expected [bytes, measured_us, default_us, calibrated_us, weight]");
            CalibrationPoint c;
            c.bytes = jsonInteger(p[0], jsonElementPath(at, 0), 0, LLONG_MAX);
            c.measuredUs = jsonNumber(p[1], jsonElementPath(at, 1), 0.0, kMaxUs, LowerBound::Exclusive);
            c.defaultUs = jsonNumber(p[2], jsonElementPath(at, 2), 0.0, kMaxUs);
            c.calibratedUs = jsonNumber(p[3], jsonElementPath(at, 3), 0.0, kMaxUs);
            c.weight = jsonNumber(p[4], jsonElementPath(at, 4), 0.0, 1.0);
            r.points.push_back(c);
        }
    return r;
}

} // namespace

CalibrationSpec readCalibration(const json &value)
{
    JsonFields f(value, "calibration",
        { "version", "measured_at", "fabric_hash", "mapping_version", "nccl_version", "tiers",
            "runs" });
    CalibrationSpec c;
    // The version first: a newer layout may have new keys.
    c.version = static_cast<int>(f.requiredInteger("version", 1, INT_MAX));
    if (c.version > kCalibrationVersion)
        throw ScenarioError(f.fieldPath("version"),
            "calibration section version " + std::to_string(c.version)
                + " is newer than this Railyard reads (up to " + std::to_string(kCalibrationVersion)
                + ")");
    f.rejectUnknown();
    c.measuredAt = f.string("measured_at", "", 64);
    c.fabricHash = f.string("fabric_hash", "", 128);
    c.mappingVersion = f.integer("mapping_version", 0, 0, INT_MAX);
    c.ncclVersion = f.string("nccl_version", "", 64);
    const json *tiers = f.array("tiers", kMaxTiers);
    if (!tiers || tiers->empty())
        throw ScenarioError(f.fieldPath("tiers"), "a calibration needs at least one fitted tier");
    for (std::size_t i = 0; i < tiers->size(); ++i) {
        const std::string at = jsonElementPath(f.fieldPath("tiers"), i);
        CalibratedTier t = readTierEntry((*tiers)[i], at);
        for (const CalibratedTier &o : c.tiers)
            if (o.tier == t.tier && o.algorithm == t.algorithm)
                throw ScenarioError(at,
                    "tier " + std::string(tierName(t.tier)) + " / "
                        + (t.algorithm.empty() ? std::string("any") : t.algorithm)
                        + " is calibrated twice");
        c.tiers.push_back(std::move(t));
    }
    if (const json *runs = f.array("runs", kMaxRuns))
        for (std::size_t i = 0; i < runs->size(); ++i)
            c.runs.push_back(readRun((*runs)[i], jsonElementPath(f.fieldPath("runs"), i)));
    return c;
}

template<typename Json>
Json calibrationToJson(const CalibrationSpec &spec)
{
    Json out;
    out["version"] = spec.version;
    out["measured_at"] = spec.measuredAt;
    out["fabric_hash"] = spec.fabricHash;
    out["mapping_version"] = spec.mappingVersion;
    out["nccl_version"] = spec.ncclVersion;
    Json tiers = Json::array();
    for (const CalibratedTier &t : spec.tiers) {
        Json j;
        j["tier"] = std::string(tierName(t.tier));
        j["algorithm"] = t.algorithm.empty() ? std::string("any") : t.algorithm;
        if (t.stepLatencyUs >= 0.0)
            j["step_latency_us"] = t.stepLatencyUs;
        if (t.bandwidthScale > 0.0)
            j["bandwidth_scale"] = t.bandwidthScale;
        if (t.bandwidthGbps >= 0.0)
            j["bandwidth_gbps"] = t.bandwidthGbps;
        j["default_step_latency_us"] = t.defaultStepLatencyUs;
        j["default_bandwidth_gbps"] = t.defaultBandwidthGbps;
        j["runs"] = t.runs;
        j["points"] = t.points;
        j["rms_residual"] = t.rmsResidual;
        j["max_residual"] = t.maxResidual;
        j["r_squared"] = t.rSquared;
        tiers.push_back(std::move(j));
    }
    out["tiers"] = std::move(tiers);
    Json runs = Json::array();
    for (const CalibrationRun &r : spec.runs) {
        Json j;
        j["id"] = r.id;
        j["file"] = r.file;
        j["collective"] = r.collective;
        j["ranks"] = r.ranks;
        j["tier"] = std::string(tierName(r.tier));
        j["bottleneck_tier"] = std::string(tierName(r.bottleneckTier));
        j["algorithm"] = r.algorithm;
        j["fitted"] = r.fitted;
        j["note"] = r.note;
        Json points = Json::array();
        for (const CalibrationPoint &p : r.points)
            points.push_back(Json::array({ p.bytes, p.measuredUs, p.defaultUs, p.calibratedUs, p.weight }));
        j["points"] = std::move(points);
        runs.push_back(std::move(j));
    }
    out["runs"] = std::move(runs);
    return out;
}

template nlohmann::json calibrationToJson<nlohmann::json>(const CalibrationSpec &);
template nlohmann::ordered_json calibrationToJson<nlohmann::ordered_json>(const CalibrationSpec &);

} // namespace railyard::calibrationsection
