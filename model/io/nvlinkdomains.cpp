/**
 * NVLink domains from nvidia-smi -q (nvlinkdomains.h). The lines read are the Fabric section's
 * "ClusterUUID : <uuid>" and "CliqueId : <n>" (nvidia-smi(1), "Fabric": State, Status,
 * CliqueId, ClusterUUID, Health); a GPU outside a multi-node NVLink fabric prints N/A (or the
 * all-zero UUID). A CliqueId line follows the ClusterUUID of the same GPU or precedes it; both
 * orders are read by pairing a GPU's two lines before the next "GPU " header or ClusterUUID.
 */
#include "io/nvlinkdomains.h"

#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "export/slurmhostlist.h"

#include <cctype>
#include <map>

namespace railyard {

namespace {

std::string trimmed(const std::string &s)
{
    std::size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a])))
        ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1])))
        --b;
    return s.substr(a, b - a);
}

bool uuidText(const std::string &s)
{
    if (s.size() != 36)
        return false;
    for (std::size_t i = 0; i < s.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !std::isxdigit(static_cast<unsigned char>(s[i])))
            return false;
    }
    return true;
}

/// "node01: ClusterUUID : x" -> host "node01", rest "ClusterUUID : x"; a plain line has no host.
void splitHost(
    const std::string &line, const std::string &key, std::string &host, std::string &rest)
{
    const std::size_t k = line.find(key);
    const std::size_t colon = line.find(':');
    if (colon != std::string::npos && colon < k) {
        host = trimmed(line.substr(0, colon));
        rest = line.substr(colon + 1);
    } else {
        host.clear();
        rest = line;
    }
}

std::string hostFromFile(const std::string &file)
{
    std::string base
        = file.substr(file.find_last_of('/') == std::string::npos ? 0 : file.find_last_of('/') + 1);
    if (const std::size_t dot = base.find('.'); dot != std::string::npos && dot > 0)
        base.erase(dot);
    return base;
}

} // namespace

bool looksLikeNvidiaSmiFabric(const std::string &text)
{
    return text.find("ClusterUUID") != std::string::npos;
}

std::vector<NvlinkDomainRecord> parseNvidiaSmiFabric(
    const std::string &text, const std::string &file)
{
    struct HostState
    {
        std::string uuid, clique, where;
        std::string domain; ///< the host's domain so far
        bool seen = false;
    };
    std::map<std::string, HostState> state;
    std::vector<std::string> order;
    std::vector<NvlinkDomainRecord> out;
    const auto fail = [&](int line, const std::string &why) {
        throw ScenarioError(file + ":" + std::to_string(line), why);
    };
    // A GPU's pair is complete when both lines were read; its domain is then checked.
    const auto finish = [&](const std::string &host, HostState &h, int line) {
        if (h.uuid.empty())
            return;
        const bool none = h.uuid == "N/A" || h.uuid == "00000000-0000-0000-0000-000000000000";
        const std::string domain = none ? std::string() : h.uuid + "/" + h.clique;
        if (h.seen && domain != h.domain)
            fail(line,
                "host " + host + " has GPUs in two NVLink domains ("
                    + (h.domain.empty() ? "none" : h.domain) + " and "
                    + (domain.empty() ? "none" : domain) + ")");
        if (!h.seen) {
            h.seen = true;
            h.domain = domain;
            out.push_back({ host, domain, h.where });
        }
        h.uuid.clear();
        h.clique.clear();
    };
    int lineNo = 0;
    std::size_t pos = 0;
    while (pos < text.size()) {
        std::size_t nl = text.find('\n', pos);
        if (nl == std::string::npos)
            nl = text.size();
        const std::string line = text.substr(pos, nl - pos);
        pos = nl + 1;
        ++lineNo;
        const bool isUuid = line.find("ClusterUUID") != std::string::npos;
        const bool isClique = line.find("CliqueId") != std::string::npos;
        const bool isGpu = line.find("GPU 0") != std::string::npos
            || trimmed(line.substr(line.find(':') == std::string::npos ? 0 : line.find(':') + 1))
                    .rfind("GPU ", 0)
                == 0;
        if (!isUuid && !isClique && !isGpu)
            continue;
        std::string host, rest;
        splitHost(line, isUuid ? "ClusterUUID" : isClique ? "CliqueId" : "GPU", host, rest);
        if (host.empty())
            host = hostFromFile(file);
        if (!slurmhostlist::plainName(host))
            fail(lineNo,
                "'" + host.substr(0, 60)
                    + "' is not a host name (a pdsh/clush prefix 'HOST: ', or a file named after "
                      "the host)");
        auto [it, added] = state.try_emplace(host);
        if (added) {
            if (order.size() >= static_cast<std::size_t>(limits::kMaxServers))
                fail(lineNo, "more than " + std::to_string(limits::kMaxServers) + " hosts");
            order.push_back(host);
        }
        HostState &h = it->second;
        if (isGpu) {
            finish(host, h, lineNo);
            continue;
        }
        const std::size_t colon = rest.find(':');
        if (colon == std::string::npos)
            fail(lineNo, "expected 'KEY : VALUE'");
        const std::string value = trimmed(rest.substr(colon + 1));
        if (isUuid) {
            if (!h.uuid.empty())
                finish(host, h, lineNo);
            if (value != "N/A" && !uuidText(value))
                fail(lineNo,
                    "ClusterUUID '" + value.substr(0, 60)
                        + "' is not a UUID (8-4-4-4-12 hex digits) or N/A");
            h.uuid = value;
            h.where = file + ":" + std::to_string(lineNo);
        } else {
            // A CliqueId is a 32-bit number (NVML's nvmlGpuFabricInfo_t::cliqueId): 10 digits.
            if (value != "N/A"
                && (value.empty() || value.size() > 10
                    || value.find_first_not_of("0123456789") != std::string::npos))
                fail(lineNo, "CliqueId '" + value.substr(0, 60) + "' is not a number or N/A");
            h.clique = value == "N/A" ? std::string() : value;
            if (!h.uuid.empty())
                finish(host, h, lineNo);
        }
    }
    for (const std::string &host : order)
        finish(host, state[host], lineNo);
    if (out.empty())
        fail(lineNo, "no ClusterUUID line (nvidia-smi -q's Fabric section)");
    return out;
}

void groupNvlinkDomains(const std::vector<NvlinkDomainRecord> &records,
    std::vector<std::vector<std::string>> &domains, std::vector<std::string> &where)
{
    domains.clear();
    where.clear();
    bool anyDomain = false;
    for (const NvlinkDomainRecord &r : records)
        anyDomain = anyDomain || !r.domain.empty();
    std::map<std::string, std::size_t> index;
    std::map<std::string, const NvlinkDomainRecord *> hostRecord;
    for (const NvlinkDomainRecord &r : records) {
        if (const auto seen = hostRecord.find(r.host); seen != hostRecord.end()) {
            if (seen->second->domain != r.domain)
                throw ScenarioError(r.where,
                    "host " + r.host + " is in another NVLink domain at " + seen->second->where);
            continue;
        }
        hostRecord.emplace(r.host, &r);
        if (anyDomain && r.domain.empty())
            throw ScenarioError(r.where,
                "host " + r.host
                    + " is in no NVLink domain (ClusterUUID N/A) while other hosts are");
        const std::string key = anyDomain ? r.domain : r.host;
        const auto [it, added] = index.try_emplace(key, domains.size());
        if (added) {
            domains.emplace_back();
            where.push_back(r.where);
        }
        domains[it->second].push_back(r.host);
    }
}

} // namespace railyard
