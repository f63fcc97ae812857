// The JSON and text forms of an InferenceReport (railyard-cli evaluate on an inference scenario).
#include "studies/inferencereport.h"

#include "fabric/fabric.h"
#include "studies/inference.h"

#include "io/reportjson.h"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <sstream>

namespace railyard {

namespace {

std::string slotName(const Fabric &fabric, int slot)
{
    return fabric.serverName(fabric.serverOfSlot(slot)) + "/gpu"
        + std::to_string(fabric.gpuOfSlot(slot));
}

nlohmann::json linkJson(const Fabric &fabric, const KvLinkLoad &l)
{
    return { { "link", l.link }, { "name", fabric.linkName(l.link) },
        { "tier", std::string(tierName(fabric.link(l.link).tier)) },
        { "bytes_per_s", l.bytesPerSecond }, { "offered_load", l.offeredLoad },
        { "utilisation", l.utilisation } };
}

std::string percent(double share)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f %%", 100.0 * share);
    return buf;
}

/// A busy share with what was offered beside it once the offer exceeds what is served:
/// "100.00 % (offered 157.14 %)".
std::string busyPercent(double utilisation, double offered)
{
    return offered > 1.0 ? percent(utilisation) + " (offered " + percent(offered) + ")"
                         : percent(utilisation);
}

} // namespace

nlohmann::json inferenceReportToJson(const InferenceReport &r, const Fabric &fabric)
{
    nlohmann::json j;
    j["classification"] = r.classification();
    j["minimal"] = r.minimal;
    j["reasons"] = r.reasons;
    j["disaggregated"] = r.disaggregated;
    j["kv_bytes_per_token"] = r.kvBytesPerToken;
    j["kv_bytes_per_request"] = r.kvBytesPerRequest;
    j["kv_bytes_per_request_final"] = r.kvBytesPerRequestFinal;
    nlohmann::json tiers = nlohmann::json::object();
    for (int t = 0; t < kPathTierCount; ++t)
        tiers[std::string(pathTierName(static_cast<PathTier>(t)))] = r.kvBytesPerTier[t];
    nlohmann::json paths = nlohmann::json::array();
    for (const KvFlow &f : r.flows)
        paths.push_back({ { "src_slot", f.srcSlot }, { "dst_slot", f.dstSlot },
            { "src", slotName(fabric, f.srcSlot) }, { "dst", slotName(fabric, f.dstSlot) },
            { "bytes", f.bytes }, { "tier", std::string(pathTierName(f.tier)) },
            { "latency_s", f.latency } });
    j["kv_transfer"] = { { "time_s", r.kvTransferTime }, { "mean_time_s", r.kvTransferTimeMean },
        { "latency_s", r.kvTransferLatency }, { "flows", r.flows.size() }, { "tiers", tiers },
        { "paths", paths } };
    j["prefill_time_s"] = r.prefillTime;
    j["ttft_s"] = r.ttft;
    j["tpot_s"] = r.tpot;
    j["end_to_end_s"] = r.endToEnd;
    j["critical_path_share"] = r.criticalPathShare;
    j["ttft_share"] = r.ttftShare;
    nlohmann::json pools = nlohmann::json::array();
    for (const PoolResult &p : r.pools) {
        std::vector<std::string> servers;
        for (int s : p.servers)
            servers.push_back(fabric.serverName(s));
        pools.push_back(
            { { "name", p.name }, { "role", std::string(poolRoleName(p.role)) }, { "tp", p.tp },
                { "pp", p.pp }, { "ep", p.ep }, { "gpus", p.gpus }, { "replicas", p.replicas },
                { "servers", servers }, { "weight_bytes_per_gpu", p.weightBytesPerGpu },
                { "kv_bytes_per_gpu", p.kvBytesPerGpu }, { "fits", p.fits },
                { "step_time_s", p.stepTime }, { "tp_collective_time_s", p.tpCollectiveTime },
                { "offered_load", p.offeredLoad }, { "utilisation", p.utilisation } });
        if (!p.device.empty()) { // mixed devices only
            pools.back()["device"] = p.device;
            pools.back()["hbm_device"] = p.hbmDevice;
        }
    }
    j["pools"] = pools;
    if (const KvLinkLoad *hot = r.hottestLink())
        j["hottest_link"] = linkJson(fabric, *hot);
    else
        j["hottest_link"] = nullptr;
    nlohmann::json links = nlohmann::json::array();
    for (const KvLinkLoad &l : r.kvLinks)
        links.push_back(linkJson(fabric, l));
    j["kv_links"] = links;
    j["warnings"] = r.warnings;
    return j;
}

std::string inferenceReportToText(const InferenceReport &r, const Fabric &fabric)
{
    std::ostringstream out;
    char line[256];
    out << "Inference      " << r.classification() << "\n";
    if (r.reasons.empty())
        out << "  every request stays on one server: local state, no back-end traffic\n";
    for (const std::string &reason : r.reasons)
        out << "  " << reason << "\n";
    for (const PoolResult &p : r.pools) {
        std::string servers;
        for (int s : p.servers)
            servers += (servers.empty() ? "" : ", ") + fabric.serverName(s);
        std::snprintf(line, sizeof line,
            "Pool           %-10s %-9s tp %d pp %d ep %d, %d GPUs (%d replicas) on %s\n",
            p.name.c_str(), std::string(poolRoleName(p.role)).c_str(), p.tp, p.pp, p.ep, p.gpus,
            p.replicas, servers.c_str());
        out << line;
        if (!p.device.empty())
            out << "                 on " << p.device
                << (p.hbmDevice == p.device ? std::string() : ", HBM of " + p.hbmDevice) << "\n";
        out << "                 step " << formatSeconds(p.stepTime) << " (TP all-reduce "
            << formatSeconds(p.tpCollectiveTime) << "), busy "
            << busyPercent(p.utilisation, p.offeredLoad) << ", weights "
            << formatBytes(p.weightBytesPerGpu) << " + KV " << formatBytes(p.kvBytesPerGpu)
            << " per GPU" << (p.fits ? "" : " (DOES NOT FIT)") << "\n";
    }
    out << "KV cache       " << formatBytes(r.kvBytesPerToken) << " per token, "
        << formatBytes(r.kvBytesPerRequest) << " per request after the prefill, "
        << formatBytes(r.kvBytesPerRequestFinal) << " at the last token\n";
    if (r.disaggregated) {
        out << "KV transfer    " << formatSeconds(r.kvTransferTime) << " per request (latency "
            << formatSeconds(r.kvTransferLatency) << ", mean over replica pairs "
            << formatSeconds(r.kvTransferTimeMean) << "), " << r.flows.size() << " flows\n";
        out << "  paths:";
        for (int t = 0; t < kPathTierCount; ++t)
            out << " " << pathTierName(static_cast<PathTier>(t)) << " "
                << formatBytes(r.kvBytesPerTier[t]);
        out << " per request\n";
    } else {
        out << "KV transfer    none (prefill and decode share the GPUs)\n";
    }
    out << "TTFT           " << formatSeconds(r.ttft) << " (prefill "
        << formatSeconds(r.prefillTime) << " + KV transfer " << formatSeconds(r.kvTransferTime)
        << ")\n";
    out << "TPOT           " << formatSeconds(r.tpot) << "   end-to-end "
        << formatSeconds(r.endToEnd) << "\n";
    out << "Critical path  KV transfer is " << percent(r.criticalPathShare)
        << " of the end-to-end latency, " << percent(r.ttftShare) << " of TTFT\n";
    if (const KvLinkLoad *hot = r.hottestLink()) {
        std::snprintf(line, sizeof line, "%.2f GB/s", hot->bytesPerSecond / 1e9);
        out << "KV hottest     " << fabric.linkName(hot->link) << " ("
            << tierName(fabric.link(hot->link).tier) << ", " << line << ", utilisation "
            << busyPercent(hot->utilisation, hot->offeredLoad) << ")\n";
    }
    for (const std::string &w : r.warnings)
        out << "warning: " << w << "\n";
    return out.str();
}

} // namespace railyard
