#include "io/calibrationreport.h"

#include "cost/calibrationfit.h"
#include "cost/costengine.h"
#include "export/runrecord.h"
#include "io/nccltestslog.h"
#include "io/reportjson.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace railyard {

namespace {

std::string strf(const char *format, double a, double b = 0.0, double c = 0.0, double d = 0.0)
{
    char buf[256];
    std::snprintf(buf, sizeof buf, format, a, b, c, d);
    return buf;
}

std::string padded(std::string s, std::size_t width)
{
    if (s.size() < width)
        s.append(width - s.size(), ' ');
    return s + " ";
}

/// nccl-tests busbw (GB/s) of a point: S / time x the bus factor (doc/PERFORMANCE.md).
double busbw(const CalibrationRun &r, long long bytes, double us)
{
    Collective op = Collective::AllReduce;
    parseCollective(r.collective, op);
    return us > 0.0 ? static_cast<double>(bytes) / us / 1e3 * ncclTestsBusFactor(op, static_cast<int>(r.ranks.size())) : 0.0;
}

bool mismatchedFabric(const CostEngine &engine)
{
    const CalibrationSpec &c = engine.scenario().calibration;
    return !c.fabricHash.empty() && c.fabricHash != fabricHash(engine.scenario().fabric);
}

/// Tiers the fabric has links of.
std::vector<Tier> fabricTiers(const CostEngine &engine)
{
    std::array<bool, kTierCount> seen {};
    const Fabric &f = engine.fabric();
    for (int l = 0; l < f.linkCount(); ++l)
        seen[index(f.link(l).tier)] = true;
    std::vector<Tier> out;
    for (const Tier t : kAllTiers)
        if (seen[index(t)])
            out.push_back(t);
    return out;
}

constexpr const char *kUses = "TP and DP collective phases and `collective` use the calibrated "
                              "values; PP boundary sends, EP all-to-all and compute use defaults";

} // namespace

std::string calibrationFitText(const CalibrationSpec &spec)
{
    int fitted = 0;
    for (const CalibrationRun &r : spec.runs)
        fitted += r.fitted ? 1 : 0;
    std::string out = "Calibration from " + std::to_string(spec.runs.size()) + " measured run"
        + (spec.runs.size() == 1 ? "" : "s") + " (" + std::to_string(fitted) + " fitted)"
        + (spec.ncclVersion.empty() ? std::string() : ", NCCL " + spec.ncclVersion) + "\n\n";
    out += padded("tier", 11) + padded("algorithm", 10) + padded("alpha per step", 24)
        + padded("bandwidth per link", 30) + padded("runs", 5) + padded("points", 7)
        + padded("rms", 7) + "R^2\n";
    for (const CalibratedTier &t : spec.tiers) {
        const std::string alpha = t.stepLatencyUs >= 0.0
            ? strf("%.2f us (was %.2f)", t.stepLatencyUs, t.defaultStepLatencyUs)
            : std::string("default");
        const std::string bw = t.bandwidthScale > 0.0
            ? strf("%.0f Gb/s x%.3f (was %.0f)", t.bandwidthGbps, t.bandwidthScale, t.defaultBandwidthGbps)
            : std::string("default");
        out += padded(std::string(tierName(t.tier)), 11)
            + padded(t.algorithm.empty() ? "any" : t.algorithm, 10) + padded(alpha, 24)
            + padded(bw, 30) + padded(std::to_string(t.runs), 5) + padded(std::to_string(t.points), 7)
            + padded(strf("%.1f%%", 100.0 * (std::exp(t.rmsResidual) - 1.0)), 7)
            + strf("%.4f", t.rSquared) + "\n";
    }
    out += "\nruns (busbw GB/s at the largest size: measured / default / calibrated; worst error "
           "at the bandwidth-bound sizes)\n";
    for (const CalibrationRun &r : spec.runs) {
        const CalibrationPoint *last = nullptr;
        for (const CalibrationPoint &p : r.points)
            if (!last || p.bytes > last->bytes || (p.bytes == last->bytes && p.measuredUs < last->measuredUs))
                last = &p;
        out += "  " + r.id + " (" + r.collective + ", " + std::to_string(r.ranks.size())
            + " ranks, " + std::string(tierName(r.tier))
            + (r.fitted ? "" : ", not fitted") + "): ";
        if (last)
            out += formatBytes(static_cast<double>(last->bytes)) + " "
                + strf("%.2f / %.2f / %.2f", busbw(r, last->bytes, last->measuredUs),
                    busbw(r, last->bytes, last->defaultUs), busbw(r, last->bytes, last->calibratedUs));
        out += strf("; within %.1f%%", 100.0 * plateauBusbwError(r)) + "\n";
        int trimmed = 0;
        for (const CalibrationPoint &p : r.points)
            trimmed += p.weight == 0.0 ? 1 : 0;
        if (trimmed > 0 && r.fitted)
            out += "    " + std::to_string(trimmed) + " of " + std::to_string(r.points.size())
                + " measurements weighted 0 (between the latency and bandwidth limits, or outliers)\n";
        if (!r.note.empty())
            out += "    note: " + r.note + "\n";
    }
    return out;
}

std::string calibrationStatusText(const CostEngine &engine)
{
    const CalibrationSpec &c = engine.scenario().calibration;
    if (c.empty())
        return "Calibration: none (every latency and bandwidth is a default; `railyard-cli "
               "calibrate` fits them to nccl-tests runs)\n";
    std::string out = "Calibration: measured " + (c.measuredAt.empty() ? std::string("(no date)") : c.measuredAt)
        + ", mapping version " + std::to_string(c.mappingVersion) + "; " + kUses + "\n";
    if (mismatchedFabric(engine))
        out += "  warning: measured on another fabric (hash " + c.fabricHash + ", this fabric "
            + fabricHash(engine.scenario().fabric) + ")\n";
    for (const Tier t : fabricTiers(engine)) {
        std::string line = "  " + padded(std::string(tierName(t)), 11);
        bool any = false;
        for (const CalibratedTier &e : c.tiers) {
            if (e.tier != t)
                continue;
            line += std::string(any ? "; " : "") + (e.algorithm.empty() ? std::string("any algorithm") : e.algorithm) + ": step latency "
                + (e.stepLatencyUs >= 0.0 ? strf("%.2f us calibrated", e.stepLatencyUs) : std::string("default"))
                + ", bandwidth "
                + (e.bandwidthScale > 0.0 ? strf("x%.3f calibrated", e.bandwidthScale) : std::string("default"));
            any = true;
        }
        out += line + (any ? "" : "default") + "\n";
    }
    return out;
}

nlohmann::json calibrationStatusJson(const CostEngine &engine)
{
    const CalibrationSpec &c = engine.scenario().calibration;
    nlohmann::json j;
    j["calibrated"] = !c.empty();
    j["measured_at"] = c.measuredAt;
    j["fabric_matches"] = !mismatchedFabric(engine);
    j["uses"] = kUses;
    nlohmann::json tiers = nlohmann::json::array();
    for (const Tier t : fabricTiers(engine)) {
        nlohmann::json entries = nlohmann::json::array();
        for (const CalibratedTier &e : c.tiers)
            if (e.tier == t)
                entries.push_back({ { "algorithm", e.algorithm.empty() ? std::string("any") : e.algorithm },
                    { "step_latency", e.stepLatencyUs >= 0.0 ? "calibrated" : "default" },
                    { "step_latency_us", e.stepLatencyUs >= 0.0 ? nlohmann::json(e.stepLatencyUs) : nlohmann::json(nullptr) },
                    { "bandwidth", e.bandwidthScale > 0.0 ? "calibrated" : "default" },
                    { "bandwidth_scale", e.bandwidthScale > 0.0 ? nlohmann::json(e.bandwidthScale) : nlohmann::json(nullptr) } });
        tiers.push_back({ { "tier", std::string(tierName(t)) },
            { "source", entries.empty() ? "default" : "calibrated" }, { "entries", entries } });
    }
    j["tiers"] = tiers;
    return j;
}

} // namespace railyard
