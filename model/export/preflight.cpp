/**
 * The preflight check (preflight.h). The environment variables are those the launchers set:
 * torchrun's RANK / LOCAL_RANK / WORLD_SIZE (torch.distributed.run documentation), Slurm's
 * SLURM_PROCID / SLURM_LOCALID / SLURM_NTASKS (srun(1), "OUTPUT ENVIRONMENT VARIABLES"),
 * Open MPI's OMPI_COMM_WORLD_RANK / _LOCAL_RANK / _SIZE (mpirun(1)); CUDA_VISIBLE_DEVICES is a
 * comma-separated list of GPU indexes or UUIDs (CUDA C Programming Guide, "CUDA Environment
 * Variables"); nvidia-smi prints PCI bus IDs as 00000000:18:00.0 (an 8-digit domain).
 */
#include "export/preflight.h"

#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "export/runrecord.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdio>
#include <vector>

namespace railyard {

namespace {

using nlohmann::json;

/// The first of `names` that is set: its name and value.
std::optional<std::pair<std::string, std::string>> firstSet(
    const PreflightEnvironment &e, std::initializer_list<const char *> names)
{
    for (const char *n : names)
        if (const auto it = e.env.find(n); it != e.env.end() && !it->second.empty())
            return std::make_pair(std::string(n), it->second);
    return std::nullopt;
}

int wholeNumber(const std::string &name, const std::string &text)
{
    if (text.empty() || text.size() > 9
        || !std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; }))
        throw ScenarioError(name, "'" + text.substr(0, 20) + "' is not a rank number");
    return std::stoi(text);
}

/// The number in the first variable of `names` that is set. The later ones are not checked
/// against it: launchers nest (torchrun started by srun sees SLURM_PROCID = its node's task,
/// RANK = its own rank), and the innermost launcher's variable comes first.
std::optional<int> numberFrom(const PreflightEnvironment &e, std::initializer_list<const char *> names)
{
    for (const char *n : names) {
        const auto it = e.env.find(n);
        if (it != e.env.end() && !it->second.empty())
            return wholeNumber(n, it->second);
    }
    return std::nullopt;
}

std::string shortName(const std::string &host)
{
    return host.substr(0, host.find('.'));
}

/// "0000:18:00.0" for "00000000:18:00.0" or "0000:18:00.0" (case folded); "" if not a bus ID.
std::string normalBusId(std::string id)
{
    for (char &c : id)
        c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::size_t first = id.find(':');
    if (first == std::string::npos || id.find(':', first + 1) == std::string::npos)
        return id;
    const std::string domain = id.substr(0, first);
    unsigned long d = 0;
    if (domain.empty() || domain.size() > 8
        || std::sscanf(domain.c_str(), "%lx", &d) != 1)
        return id;
    char buf[16];
    std::snprintf(buf, sizeof buf, "%04lx", d);
    return buf + id.substr(first);
}

struct SmiGpu
{
    int index = -1;
    std::string uuid, busId;
};

std::vector<SmiGpu> parseSmi(const std::string &text)
{
    std::vector<SmiGpu> out;
    std::size_t pos = 0;
    while (pos < text.size()) {
        const std::size_t nl = text.find('\n', pos);
        std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
        pos = nl == std::string::npos ? text.size() : nl + 1;
        std::vector<std::string> f;
        std::size_t i = 0;
        while (i <= line.size()) {
            const std::size_t c = line.find(',', i);
            std::string w = line.substr(i, c == std::string::npos ? std::string::npos : c - i);
            w.erase(0, w.find_first_not_of(" \t\r"));
            w.erase(w.find_last_not_of(" \t\r") + 1);
            f.push_back(w);
            if (c == std::string::npos)
                break;
            i = c + 1;
        }
        if (f.size() < 3 || f[0].empty()
            || !std::all_of(f[0].begin(), f[0].end(), [](char c) { return c >= '0' && c <= '9'; }))
            continue;
        out.push_back({ std::stoi(f[0]), f[1], normalBusId(f[2]) });
    }
    return out;
}

/// The record's GPUs per server (checkRunRecord has read it).
int gpusPerServer(const RunRecordJson &record)
{
    return record.top.at("fabric").at("gpus_per_server").get<int>();
}

} // namespace

PreflightPlace checkPreflight(const std::string &recordText, const PreflightEnvironment &e,
    int mappingVersion, const std::string &recordName)
{
    if (mappingVersion < 0)
        throw ScenarioError(
            "--mapping-version", "must be at least 1, got " + std::to_string(mappingVersion));
    // The whole record is checked as import-mapping checks it (runrecord.h), read in one
    // streaming pass that keeps a few dozen bytes a rank: every rank runs this at start-up.
    RunRecordJson record;
    try {
        record = readRunRecordJson(recordText);
        checkRunRecord(record);
    } catch (const ScenarioError &error) {
        throw ScenarioError(
            error.field().empty() ? recordName : recordName + ": " + error.field(), error.reason());
    }
    const int world = static_cast<int>(record.rankCount);

    const std::optional<int> rank
        = numberFrom(e, { "RANK", "SLURM_PROCID", "OMPI_COMM_WORLD_RANK", "PMI_RANK" });
    if (!rank)
        throw ScenarioError("preflight",
            "no rank in the environment (RANK, SLURM_PROCID, OMPI_COMM_WORLD_RANK or PMI_RANK)");
    const std::string who = "rank " + std::to_string(*rank);
    const int version = record.top.value("mapping_version", 1);
    if (mappingVersion > 0 && version != mappingVersion)
        throw ScenarioError("preflight",
            who + ": the run record is mapping version " + std::to_string(version)
                + " but the launcher was written for version " + std::to_string(mappingVersion)
                + " (a stale record)");
    if (*rank >= world)
        throw ScenarioError("preflight",
            who + " does not exist: the run record has " + std::to_string(world) + " ranks");
    if (const auto size = numberFrom(e, { "WORLD_SIZE", "SLURM_NTASKS", "OMPI_COMM_WORLD_SIZE" });
        size && *size != world)
        throw ScenarioError("preflight",
            who + ": the job has " + std::to_string(*size) + " ranks but the run record "
                + std::to_string(world));
    // checkRunRecord saw every rank once.
    const RecordRank *row = nullptr;
    for (const RecordRank &r : record.ranks)
        if (r.value[0] == *rank)
            row = &r;
    if (!row)
        throw ScenarioError(recordName, who + " is missing from the run record");

    PreflightPlace place;
    place.rank = *rank;
    const std::string &wantHost = row->host;
    const auto hostOverride = firstSet(e, { "RAILYARD_HOST" });
    place.host = hostOverride ? hostOverride->second : e.hostname;
    if (place.host != wantHost && shortName(place.host) != shortName(wantHost))
        throw ScenarioError("preflight",
            who + " runs on " + place.host + " but the run record places it on " + wantHost);

    const int wantGpu = row->value[8] >= 0 ? row->value[8] : row->value[1] % gpusPerServer(record);
    const std::optional<int> local
        = numberFrom(e, { "LOCAL_RANK", "SLURM_LOCALID", "OMPI_COMM_WORLD_LOCAL_RANK" });
    const std::vector<SmiGpu> smi = e.nvidiaSmi ? parseSmi(*e.nvidiaSmi) : std::vector<SmiGpu>();
    const auto cvd = firstSet(e, { "CUDA_VISIBLE_DEVICES" });
    if (cvd) {
        std::vector<std::string> visible;
        std::size_t i = 0;
        while (i <= cvd->second.size()) {
            const std::size_t c = cvd->second.find(',', i);
            visible.push_back(cvd->second.substr(i, c == std::string::npos ? std::string::npos : c - i));
            if (c == std::string::npos)
                break;
            i = c + 1;
        }
        std::size_t at = 0;
        if (visible.size() > 1) {
            if (!local)
                throw ScenarioError("preflight",
                    who + " sees GPUs " + cvd->second
                        + " but no LOCAL_RANK (or SLURM_LOCALID) says which it uses");
            at = static_cast<std::size_t>(*local);
            if (at >= visible.size())
                throw ScenarioError("preflight",
                    who + ": LOCAL_RANK " + std::to_string(*local)
                        + " is past CUDA_VISIBLE_DEVICES=" + cvd->second);
        }
        const std::string &entry = visible[at];
        if (!entry.empty() && std::all_of(entry.begin(), entry.end(), [](char c) { return c >= '0' && c <= '9'; })
            && entry.size() <= 9) {
            place.gpu = std::stoi(entry);
        } else {
            for (const SmiGpu &g : smi)
                if (g.uuid == entry)
                    place.gpu = g.index;
            if (place.gpu < 0)
                throw ScenarioError("preflight",
                    who + ": CUDA_VISIBLE_DEVICES entry '" + entry.substr(0, 60)
                        + "' is not a GPU index" + (smi.empty() ? "" : " nor a UUID nvidia-smi lists"));
        }
    } else if (local) {
        place.gpu = *local; // every GPU visible: the program uses cuda:LOCAL_RANK
    } else {
        throw ScenarioError("preflight",
            who + ": neither CUDA_VISIBLE_DEVICES nor LOCAL_RANK says which GPU it uses");
    }
    if (place.gpu != wantGpu)
        throw ScenarioError("preflight",
            who + " on " + place.host + " uses GPU " + std::to_string(place.gpu)
                + " but the run record gives it GPU " + std::to_string(wantGpu));
    if (e.nvidiaSmi) {
        const auto it = std::find_if(
            smi.begin(), smi.end(), [&](const SmiGpu &g) { return g.index == place.gpu; });
        if (it == smi.end())
            throw ScenarioError("preflight",
                who + ": GPU " + std::to_string(place.gpu) + " does not exist on " + place.host
                    + " (nvidia-smi lists " + std::to_string(smi.size()) + ")");
        const std::string &bus = row->gpuBusId;
        if (!bus.empty() && normalBusId(bus) != it->busId)
            throw ScenarioError("preflight",
                who + ": GPU " + std::to_string(place.gpu) + " on " + place.host + " is "
                    + it->busId + " but the run record says " + bus);
    }

    if (const auto hca = firstSet(e, { "NCCL_IB_HCA" })) {
        // "=mlx5_3", "mlx5_3", "mlx5_3:1" (NCCL_IB_HCA: an optional '=' for an exact match,
        // an optional ':port').
        std::string dev = hca->second;
        if (!dev.empty() && (dev.front() == '=' || dev.front() == '^'))
            dev.erase(0, 1);
        dev = dev.substr(0, dev.find(':'));
        const std::string &want = row->hca;
        place.hca = dev;
        if (!want.empty() && (hca->second.front() == '^' || dev != want))
            throw ScenarioError("preflight",
                who + ": NCCL_IB_HCA=" + hca->second + " but the run record gives it NIC "
                    + want);
    }
    return place;
}

} // namespace railyard
