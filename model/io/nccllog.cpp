#include "io/nccllog.h"

#include "io/nccllogsubsys.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <algorithm>
#include <charconv>
#include <set>

namespace railyard {

namespace {

constexpr long long kMaxNcclLogBytes = 256ll << 20; // a 16,384-rank job's INIT log is ~100 MB
constexpr int kMaxChannel = 255; // NCCL's MAXCHANNELS is 64 (128 planned)
constexpr int kMaxNetDevice = 1023; // NCCL_NET_MAX_DEVS-style bound, generous

std::vector<std::string_view> ncclLogWords(std::string_view s)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < s.size()) {
        while (i < s.size() && (s[i] == ' ' || s[i] == '\t'))
            ++i;
        std::size_t j = i;
        while (j < s.size() && s[j] != ' ' && s[j] != '\t')
            ++j;
        if (j > i)
            out.push_back(s.substr(i, j - i));
        i = j;
    }
    return out;
}

bool ncclLogInteger(std::string_view s, long long &v)
{
    const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size();
}

struct NcclLogReader
{
    NcclLogReader(NcclLog &l, std::string f)
        : log(l)
        , file(std::move(f))
    {
    }

    NcclLog &log;
    std::string file;
    int line = 0;
    std::map<std::string, std::size_t> commOfKey; ///< comm id -> index into log.comms
    std::map<std::string, std::string> pointerComm; ///< "PTR@HOST:PID" -> comm id
    std::map<std::string, std::string> currentPointer; ///< "HOST:PID:TID" -> "PTR@HOST:PID"
    NcclSubsysReader subsys { [this](const std::string &thread) { return current(thread); } };

    std::string where() const { return file + ":" + std::to_string(line); }

    int number(std::string_view s, long long low, long long high, const char *what) const
    {
        long long v = 0;
        if (!ncclLogInteger(s, v))
            throw ScenarioError(where(),
                std::string(what) + ": expected an integer, got '" + std::string(s.substr(0, 40))
                    + "'");
        if (v < low || v > high)
            throw ScenarioError(where(),
                std::string(what) + " " + std::to_string(v) + " is outside " + std::to_string(low)
                    + ".." + std::to_string(high));
        return static_cast<int>(v);
    }

    NcclLogComm &comm(const std::string &id)
    {
        auto [it, fresh] = commOfKey.emplace(id, log.comms.size());
        if (fresh) {
            log.comms.emplace_back();
            log.comms.back().id = id;
        }
        return log.comms[it->second];
    }

    /// The communicator the process's current initialisation belongs to; null before any.
    NcclLogComm *current(const std::string &thread)
    {
        const auto p = currentPointer.find(thread);
        if (p == currentPointer.end())
            return nullptr;
        const auto c = pointerComm.find(p->second);
        return &comm(c == pointerComm.end() ? p->second : c->second);
    }

    void rankOf(NcclLogComm &c, int rank, const std::string &host, int pid, int dev)
    {
        if (c.nranks > 0 && rank >= c.nranks)
            throw ScenarioError(where(),
                "rank " + std::to_string(rank) + " in a communicator of " + std::to_string(c.nranks)
                    + " ranks");
        NcclLogRank &r = c.ranks[rank];
        if (r.rank < 0) {
            r.rank = rank;
            r.line = line;
        }
        if (!host.empty()) {
            r.host = host;
            r.pid = pid;
        }
        if (dev >= 0)
            r.cudaDev = dev;
    }

    /// "comm 0xPTR rank R nRanks N ..." (init) and "... comm 0xPTR rank R nranks N cudaDev D
    /// nvmlDev D busId B commId 0xID - Init COMPLETE".
    void commLine(const std::vector<std::string_view> &w, std::size_t at, const std::string &host,
        int pid, const std::string &thread)
    {
        const std::string pointer = std::string(w[at + 1]) + "@" + host + ":" + std::to_string(pid);
        std::map<std::string, std::string_view> kv;
        for (std::size_t i = at + 2; i + 1 < w.size(); i += 1)
            kv.emplace(std::string(w[i]), w[i + 1]);
        if (kv.count("rank") == 0)
            return;
        const int rank = number(kv["rank"], 0, limits::kMaxGpus - 1, "rank");
        const auto n = kv.count("nRanks") ? kv["nRanks"] : kv.count("nranks") ? kv["nranks"] : "";
        const int nranks = n.empty() ? 0 : number(n, 1, limits::kMaxGpus, "nRanks");
        if (kv.count("commId")) {
            const std::string id(kv["commId"]);
            const auto old = pointerComm.find(pointer);
            if (old == pointerComm.end()) {
                // The init lines went to "PTR@HOST:PID"; move them under the shared id.
                const auto provisional = commOfKey.find(pointer);
                NcclLogComm &target = comm(id);
                if (provisional != commOfKey.end()) {
                    NcclLogComm &from = log.comms[provisional->second];
                    for (auto &[k, r] : from.ranks)
                        target.ranks.emplace(k, r);
                    if (target.nranks > 0 && from.nranks > 0 && target.nranks != from.nranks)
                        throw ScenarioError(where(),
                            "communicator " + id + " has " + std::to_string(target.nranks)
                                + " ranks elsewhere, " + std::to_string(from.nranks)
                                + " in this process");
                    for (std::size_t r = 0; r < from.rings.size(); ++r)
                        if (!from.rings[r].empty()) {
                            if (target.rings.size() <= r) {
                                target.rings.resize(r + 1);
                                target.ringPlaces.resize(r + 1);
                            }
                            target.rings[r] = from.rings[r];
                            target.ringPlaces[r] = from.ringPlaces[r];
                        }
                    for (auto &[k, t] : from.trees)
                        target.trees.emplace(k, t);
                    target.connections.insert(
                        target.connections.end(), from.connections.begin(), from.connections.end());
                    target.graphs.insert(
                        target.graphs.end(), from.graphs.begin(), from.graphs.end());
                    target.picks.insert(target.picks.end(), from.picks.begin(), from.picks.end());
                    target.nvlsSupport = std::max(target.nvlsSupport, from.nvlsSupport);
                    target.nvlsTree = target.nvlsTree || from.nvlsTree;
                    target.collNet = target.collNet || from.collNet;
                    target.nranks = std::max(target.nranks, from.nranks);
                    from = NcclLogComm {}; // emptied; dropped at the end
                }
                pointerComm[pointer] = id;
            }
        }
        currentPointer[thread] = pointer;
        subsys.commLine(thread, std::find(w.begin(), w.end(), "COMPLETE") != w.end());
        NcclLogComm &c = *current(thread);
        if (nranks > 0) {
            if (c.nranks > 0 && c.nranks != nranks)
                throw ScenarioError(where(),
                    "communicator " + c.id + " has " + std::to_string(c.nranks)
                        + " ranks, this line says " + std::to_string(nranks));
            c.nranks = nranks;
        }
        int dev = -1;
        if (kv.count("cudaDev"))
            dev = number(kv["cudaDev"], 0, limits::kMaxGpusPerServer - 1, "cudaDev");
        rankOf(c, rank, host, pid, dev);
        if (kv.count("busId"))
            c.ranks[rank].busId = std::string(kv["busId"]);
    }

    /// "Channel CC/NN : r0 r1 ..." (a ring) or "Channel CC/I : a[d] -> b[d] ... via T/..."
    void channelLine(const std::vector<std::string_view> &w, std::size_t at,
        const std::string &thread, std::string_view rest)
    {
        if (at + 2 >= w.size())
            return;
        const std::string_view id = w[at + 1];
        const std::size_t slash = id.find('/');
        const int channel = number(id.substr(0, slash), 0, kMaxChannel, "channel");
        NcclLogComm *c = current(thread);
        if (c == nullptr)
            throw ScenarioError(where(),
                "a channel line before any communicator of its process "
                "(HOST:PID:TID) began ('comm 0x... rank ...')");
        if (w[at + 2] != ":")
            return;
        if (rest.find(" -> ") == std::string_view::npos) { // the ring order
            std::vector<int> ring;
            for (std::size_t i = at + 3; i < w.size(); ++i)
                ring.push_back(number(w[i], 0, limits::kMaxGpus - 1, "ring rank"));
            if (c->nranks > 0 && static_cast<int>(ring.size()) != c->nranks)
                throw ScenarioError(where(),
                    "ring of channel " + std::to_string(channel) + " lists "
                        + std::to_string(ring.size()) + " ranks, the communicator has "
                        + std::to_string(c->nranks));
            std::vector<int> sorted = ring;
            std::sort(sorted.begin(), sorted.end());
            for (std::size_t i = 0; i < sorted.size(); ++i)
                if (sorted[i] != static_cast<int>(i))
                    throw ScenarioError(where(),
                        "ring of channel " + std::to_string(channel) + " is no order of ranks 0.."
                            + std::to_string(sorted.size() - 1));
            if (static_cast<int>(c->rings.size()) <= channel) {
                c->rings.resize(static_cast<std::size_t>(channel) + 1);
                c->ringPlaces.resize(static_cast<std::size_t>(channel) + 1);
            }
            c->rings[static_cast<std::size_t>(channel)] = std::move(ring);
            c->ringPlaces[static_cast<std::size_t>(channel)] = where();
            return;
        }
        // a[d] -> b[d] [send|receive] via T/...
        if (at + 5 >= w.size() || w[at + 4] != "->")
            throw ScenarioError(where(), "expected 'SRC[DEV] -> DST[DEV] ... via ...'");
        const auto endpoint = [&](std::string_view s, int &rank) {
            const std::size_t b = s.find('[');
            rank = number(s.substr(0, b), 0, limits::kMaxGpus - 1, "rank");
        };
        NcclLogConnection k;
        k.channel = channel;
        k.file = file;
        k.line = line;
        endpoint(w[at + 3], k.src);
        endpoint(w[at + 5], k.dst);
        std::size_t v = at + 6;
        if (v < w.size() && (w[v] == "[send]" || w[v] == "[receive]")) {
            k.send = w[v] == "[send]";
            ++v;
        }
        if (v + 1 >= w.size() || w[v] != "via")
            throw ScenarioError(where(), "expected 'via TRANSPORT/...' after the ranks");
        k.via = std::string(w[v + 1]);
        k.transport = k.via.substr(0, k.via.find('/'));
        if (k.transport == "NET") {
            // NET/<plugin>/<dev>[(<proxy>)][/GDRDMA][(PCI)][/Shared]
            const std::size_t p1 = k.via.find('/', 4);
            if (p1 == std::string::npos)
                throw ScenarioError(where(), "expected NET/PLUGIN/DEVICE, got '" + k.via + "'");
            std::string devText = k.via.substr(p1 + 1, k.via.find('/', p1 + 1) - p1 - 1);
            if (const std::size_t paren = devText.find('('); paren != std::string::npos) {
                const std::size_t close = devText.find(')', paren);
                if (close == std::string::npos)
                    throw ScenarioError(where(), "unclosed '(' in '" + k.via + "'");
                k.proxyRank = number(std::string_view(devText).substr(paren + 1, close - paren - 1),
                    0, limits::kMaxGpus - 1, "proxy rank");
                devText.resize(paren);
            }
            k.nic = number(devText, 0, kMaxNetDevice, "net device");
            k.gdr = k.via.find("/GDRDMA") != std::string::npos;
        }
        if (c->nranks > 0 && (k.src >= c->nranks || k.dst >= c->nranks))
            throw ScenarioError(where(),
                "a connection " + std::to_string(k.src) + " -> " + std::to_string(k.dst)
                    + " outside the communicator's " + std::to_string(c->nranks) + " ranks");
        c->connections.push_back(std::move(k));
    }

    void read(std::string_view text)
    {
        std::size_t pos = 0;
        while (pos <= text.size()) {
            const std::size_t nl = text.find('\n', pos);
            std::string_view l = text.substr(
                pos, nl == std::string_view::npos ? std::string_view::npos : nl - pos);
            pos = nl == std::string_view::npos ? text.size() + 1 : nl + 1;
            ++line;
            if (!l.empty() && l.back() == '\r')
                l.remove_suffix(1);
            const std::size_t info = l.find(" NCCL INFO ");
            if (info == std::string_view::npos)
                continue;
            // ... HOST:PID:TID [DEV] NCCL INFO ...
            const std::vector<std::string_view> head = ncclLogWords(l.substr(0, info));
            if (head.size() < 2 || head.back().size() < 3 || head.back().front() != '['
                || head.back().back() != ']')
                continue;
            const std::string_view origin = head[head.size() - 2];
            const std::size_t c1 = origin.find(':'), c2 = origin.rfind(':');
            long long pid = 0;
            if (c1 == std::string_view::npos || c1 == c2
                || !ncclLogInteger(origin.substr(c1 + 1, c2 - c1 - 1), pid))
                continue;
            const std::string host(origin.substr(0, c1));
            const std::string thread(origin);
            const int dev = number(head.back().substr(1, head.back().size() - 2), 0,
                limits::kMaxGpusPerServer - 1, "device");
            ++log.ncclLines;
            const std::string_view rest = l.substr(info + 11);
            const std::vector<std::string_view> w = ncclLogWords(rest);
            if (w.empty())
                continue;
            if (w[0] == "Channel") {
                channelLine(w, 0, thread, rest);
            } else if (w[0] == "Trees") {
                if (NcclLogComm *c = current(thread))
                    for (auto &[rank, r] : c->ranks)
                        if (r.host == host && r.pid == static_cast<int>(pid))
                            c->trees[rank] = std::string(rest.substr(5));
            } else if (w.size() > 3 && w[0] == "NET/IB" && w[1] == ":" && w[2] == "Using") {
                std::vector<std::string> &nics = log.nics[host];
                nics.clear();
                for (std::size_t i = 3; i < w.size() && w[i].front() == '['; ++i) {
                    // "[N]name:port/IB" (and ":rail" / "::plane" on newer NCCL); "[RO]" is not one
                    const std::size_t close = w[i].find(']');
                    long long index = 0;
                    if (close == std::string_view::npos || close + 1 >= w[i].size()
                        || !ncclLogInteger(w[i].substr(1, close - 1), index))
                        break;
                    nics.emplace_back(w[i].substr(close + 1, w[i].find(':') - close - 1));
                }
            } else if (!subsys.read(w, host, thread, where())) {
                for (std::size_t i = 0; i + 2 < w.size(); ++i)
                    if (w[i] == "comm" && w[i + 1].substr(0, 2) == "0x") {
                        commLine(w, i, host, static_cast<int>(pid), thread);
                        break;
                    }
            }
            (void)dev;
        }
        subsys.finish();
    }
};

} // namespace

void parseNcclLog(std::string_view text, const std::string &file, NcclLog &log)
{
    NcclLogReader r(log, file);
    const int before = log.ncclLines;
    r.read(text);
    if (log.ncclLines == before)
        throw ScenarioError(file,
            "no NCCL INFO line: run the job with NCCL_DEBUG=INFO "
            "(NCCL_DEBUG_SUBSYS=INIT,GRAPH,TUNING,NET for rings, connections, graphs and picks)");
    log.files.push_back(file);
    // What a later line told (a communicator's size from its Init COMPLETE line) holds for the
    // lines read before it too.
    for (const NcclLogComm &c : log.comms) {
        if (c.nranks <= 0)
            continue;
        for (std::size_t ch = 0; ch < c.rings.size(); ++ch)
            if (!c.rings[ch].empty() && static_cast<int>(c.rings[ch].size()) != c.nranks)
                throw ScenarioError(c.ringPlaces[ch],
                    "ring of channel " + std::to_string(ch) + " lists "
                        + std::to_string(c.rings[ch].size()) + " ranks, the communicator has "
                        + std::to_string(c.nranks));
        for (const NcclLogConnection &k : c.connections)
            if (k.src >= c.nranks || k.dst >= c.nranks)
                throw ScenarioError(k.file + ":" + std::to_string(k.line),
                    "a connection " + std::to_string(k.src) + " -> " + std::to_string(k.dst)
                        + " outside the communicator's " + std::to_string(c.nranks) + " ranks");
        for (const auto &[rank, seen] : c.ranks)
            if (rank >= c.nranks)
                throw ScenarioError(file + ":" + std::to_string(seen.line),
                    "rank " + std::to_string(rank) + " in a communicator of "
                        + std::to_string(c.nranks) + " ranks");
    }
    // Communicators whose init lines moved under their shared id are empty: drop them.
    log.comms.erase(
        std::remove_if(log.comms.begin(), log.comms.end(),
            [](const NcclLogComm &c) { return c.ranks.empty() && c.connections.empty(); }),
        log.comms.end());
}

NcclLog readNcclLogs(const std::vector<std::string> &paths)
{
    NcclLog log;
    for (const std::string &p : paths)
        parseNcclLog(readFileLimited(p, kMaxNcclLogBytes, "an NCCL log", " (256 MiB)"), p, log);
    return log;
}

} // namespace railyard
