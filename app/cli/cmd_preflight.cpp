/**
 * `railyard-cli preflight RECORD`: run by every rank at start-up (the torchrun and Slurm
 * exports call it before the training program), it checks that the rank runs where the run
 * record says (model/export/preflight.h) and exits 1 with a one-line message when it does not.
 * It reads the environment, the host name and, when nvidia-smi is on PATH, its GPU list.
 */
#include "cliutil.h"
#include "command.h"
#include "commandline.h"
#include "commands.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "export/preflight.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <iostream>
#include <memory>

extern char **environ;

namespace railyard::cli {

namespace {

struct PreflightOptions
{
    std::string record;
    int mappingVersion = 0;
    CLI::Option *mappingVersionOption = nullptr;
    bool verbose = false;
};

/// An executable `name` in one of PATH's directories.
bool onPath(const std::string &name)
{
    const char *path = std::getenv("PATH");
    std::string dirs = path ? path : "";
    std::size_t i = 0;
    while (i <= dirs.size()) {
        const std::size_t c = dirs.find(':', i);
        const std::string dir = dirs.substr(i, c == std::string::npos ? std::string::npos : c - i);
        const std::string file = (dir.empty() ? "." : dir) + "/" + name;
        if (::access(file.c_str(), X_OK) == 0)
            return true;
        if (c == std::string::npos)
            break;
        i = c + 1;
    }
    return false;
}

/// nvidia-smi's GPU list (index, uuid, PCI bus ID), or nullopt without a working nvidia-smi.
std::optional<std::string> nvidiaSmi()
{
    if (!onPath("nvidia-smi"))
        return std::nullopt;
    FILE *p = ::popen(
        "nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader 2>/dev/null", "r");
    if (!p)
        return std::nullopt;
    std::string out;
    char buf[4096];
    std::size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, p)) > 0 && out.size() < (1 << 20))
        out.append(buf, n);
    return ::pclose(p) == 0 ? std::optional<std::string>(out) : std::nullopt;
}

int runPreflight(const PreflightOptions &o)
{
    // Versions start at 1: a given 0 or -1 would turn the stale-record check off unseen.
    if (o.mappingVersionOption && o.mappingVersionOption->count() > 0 && o.mappingVersion < 1)
        throw ScenarioError(
            "--mapping-version", "must be at least 1, got " + std::to_string(o.mappingVersion));
    // Refuses a FIFO, directory or device at once (base/fileio.h). The limit is import-mapping's
    // (64 MiB: a 262,144-rank record is 61 MB).
    const std::string text = readFileLimited(o.record, 64 << 20, "a run record", " (64 MiB)");

    PreflightEnvironment env;
    for (char **e = environ; e && *e; ++e) {
        const std::string kv = *e;
        const std::size_t eq = kv.find('=');
        if (eq != std::string::npos)
            env.env.emplace(kv.substr(0, eq), kv.substr(eq + 1));
    }
    char host[256] = {};
    if (::gethostname(host, sizeof host - 1) == 0)
        env.hostname = host;
    env.nvidiaSmi = nvidiaSmi();
    const PreflightPlace place = checkPreflight(text, env, o.mappingVersion, o.record);
    if (o.verbose)
        std::cerr << "railyard-cli: preflight: rank " << place.rank << " on " << place.host
                  << " GPU " << place.gpu << (place.hca.empty() ? "" : " NIC " + place.hca)
                  << " as the run record says\n";
    return kExitOk;
}

} // namespace

void addPreflight(CommandLine &line)
{
    auto o = std::make_shared<PreflightOptions>();
    Command c(line,
        line.addCommand("preflight",
            "Check at a rank's start-up that it runs where the run record (a mapping-json "
            "export) says: rank (RANK, SLURM_PROCID or OMPI_COMM_WORLD_RANK), host, GPU "
            "(CUDA_VISIBLE_DEVICES and LOCAL_RANK; nvidia-smi's PCI bus ID when the record "
            "has one) and NIC (NCCL_IB_HCA). Exits 1 with one line naming the rank otherwise.",
            [o] { return runPreflight(*o); }));
    c.positionalFile("RECORD", o->record, "The run record (mapping-json export).");
    o->mappingVersionOption = c.integer("--mapping-version", o->mappingVersion, "N",
        "Also require the record to be mapping version N (the launchers pass theirs).");
    c.flag("--verbose", o->verbose, "Say where the rank runs when the check passes.");
}

} // namespace railyard::cli
