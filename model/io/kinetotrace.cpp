// The streaming reader of PyTorch profiler (Kineto) Chrome traces: one SAX pass keeping only
// what the step measurement needs (kernel intervals, step ranges, process groups).
#include "io/kinetotrace.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

namespace railyard {

namespace {

using json = nlohmann::json;

/// Reads "[0, 1, 2]" (record_param_comms' string) into ranks; "..." marks a truncated list.
bool parseTraceRankList(const std::string &text, std::vector<int> &ranks, bool &truncated)
{
    ranks.clear();
    truncated = false;
    std::size_t i = text.find('[');
    if (i == std::string::npos)
        return false;
    ++i;
    while (i < text.size() && text[i] != ']') {
        if (text[i] == ' ' || text[i] == ',') {
            ++i;
        } else if (text.compare(i, 3, "...") == 0) {
            truncated = true;
            i += 3;
        } else if (text[i] >= '0' && text[i] <= '9') {
            long long v = 0;
            while (i < text.size() && text[i] >= '0' && text[i] <= '9' && v <= limits::kMaxGpus)
                v = v * 10 + (text[i++] - '0');
            if (v > limits::kMaxGpus)
                return false;
            ranks.push_back(static_cast<int>(v));
        } else {
            return false;
        }
    }
    return i < text.size();
}

/** The event being read: the fields the measurement uses. */
struct TracePendingEvent
{
    std::string ph, cat, name, tid;
    std::optional<double> ts, dur;
    std::string pgName, pgDesc, pgRanks, collective;
    std::vector<int> pgRankArray;
    bool pgRanksIsArray = false;
    int groupSize = 0;
    bool hasArgs = false;
    /// Empties every field, keeping the strings' buffers (no allocation per event).
    void clear()
    {
        for (std::string *t : { &ph, &cat, &name, &tid, &pgName, &pgDesc, &pgRanks, &collective })
            t->clear();
        ts.reset();
        dur.reset();
        pgRankArray.clear();
        pgRanksIsArray = false;
        groupSize = 0;
        hasArgs = false;
    }
};

/** A CPU operator's range, kept until the end tells whether the trace has GPU kernels. */
struct TraceCpuRange
{
    double start = 0.0, end = 0.0;
    int thread = 0; ///< index of its "tid" (TraceSax::threadIndex): 24 bytes a range
};

/** A process group from distributedInfo.pg_config. */
struct TraceConfigGroup
{
    std::string name, desc;
    std::vector<int> ranks;
    int size = 0;
};

/**
 * The SAX handler: levels count open containers (root object = 1). traceEvents' array is level
 * 2, an event level 3, its args level 4; distributedInfo is level 2, pg_config level 3, a
 * group level 4 and its ranks level 5.
 */
class TraceSax
{
public:
    TraceSax(KinetoTrace &trace, const std::string &file)
        : m_trace(trace)
        , m_file(file)
    {
        m_keys.resize(limits::kMaxJsonDepth + 2);
    }

    bool null() { return true; }
    bool boolean(bool) { return true; }
    bool number_integer(json::number_integer_t v) { return number(static_cast<double>(v)); }
    bool number_unsigned(json::number_unsigned_t v) { return number(static_cast<double>(v)); }
    bool number_float(json::number_float_t v, const json::string_t &) { return number(v); }
    bool binary(json::binary_t &) { return true; }

    bool string(json::string_t &v)
    {
        if (inEvent(3)) {
            const std::string &k = m_keys[3];
            if (k == "ph")
                m_event.ph.assign(v);
            else if (k == "cat")
                m_event.cat.assign(v);
            else if (k == "name")
                m_event.name.assign(v);
            else if (k == "tid")
                m_event.tid.assign(v);
            else if (k == "ts" || k == "dur") {
                m_current = m_index;
                fail(k, "expected a number, got a string");
            }
        } else if (inEvent(4) && m_keys[3] == "args") {
            const std::string &k = m_keys[4];
            if (k == "Process Group Name")
                m_event.pgName.assign(v);
            else if (k == "Process Group Description")
                m_event.pgDesc.assign(v);
            else if (k == "Process Group Ranks")
                m_event.pgRanks.assign(v);
            else if (k == "Collective name")
                m_event.collective.assign(v);
        } else if (inInfo(2)) {
            if (m_keys[2] == "nccl_version")
                m_trace.ncclVersion = v.substr(0, 64);
        } else if (inInfo(4) && m_keys[2] == "pg_config") {
            if (m_keys[4] == "pg_name")
                m_group.name = std::move(v);
            else if (m_keys[4] == "pg_desc")
                m_group.desc = std::move(v);
            else if (m_keys[4] == "ranks") {
                bool truncated = false;
                if (!parseTraceRankList(v, m_group.ranks, truncated) || truncated)
                    m_group.ranks.clear();
            }
        }
        return true;
    }

    bool start_object(std::size_t) { return open(false); }
    bool start_array(std::size_t) { return open(true); }
    bool key(json::string_t &k)
    {
        // Copied, not moved: the parser keeps its token buffer and this key its capacity, so a
        // key costs no allocation.
        m_keys[m_depth].assign(k);
        return true;
    }

    bool end_object()
    {
        if (inEvent(3) && m_depth == 3)
            finishEvent();
        else if (m_depth == 4 && m_top == Top::Info && m_keys[2] == "pg_config") {
            m_config.push_back(std::move(m_group));
            m_group = TraceConfigGroup();
        }
        return close();
    }
    bool end_array() { return close(); }

    template<class Exception>
    bool parse_error(std::size_t, const std::string &, const Exception &ex)
    {
        throw ex;
    }

    /// After the pass: the groups, the kernels sorted, the windows chosen.
    void finish()
    {
        // Ranks a kernel did not list in full come from pg_config when it has the group.
        for (TraceProcessGroup &g : m_trace.groups) {
            for (const TraceConfigGroup &c : m_config)
                if (c.name == g.name && !c.ranks.empty() && (g.ranks.empty() || g.truncated)) {
                    g.ranks = c.ranks;
                    g.truncated = false;
                    if (g.description.empty())
                        g.description = c.desc;
                }
            if (g.size == 0)
                g.size = static_cast<int>(g.ranks.size());
        }
        // No GPU kernel: a CPU job (gloo). Its compute is the operators' ranges on the threads
        // that ran no collective (gloo's worker threads copy buffers as aten ops too).
        m_trace.cpuTrace = !m_gpuSeen && !m_cpuOps.empty();
        if (m_trace.cpuTrace)
            for (const TraceCpuRange &r : m_cpuOps)
                if (m_glooThreads.count(r.thread) == 0)
                    m_trace.kernels.push_back({ r.start, r.end, TraceKernel::kCompute });
        std::vector<TraceCpuRange>().swap(m_cpuOps);
        std::sort(m_trace.kernels.begin(), m_trace.kernels.end(),
            [](const TraceKernel &a, const TraceKernel &b) { return a.start < b.start; });
        std::vector<TraceStepWindow> &chosen = m_gpuWindows.empty() ? m_cpuWindows : m_gpuWindows;
        m_trace.gpuWindows = !m_gpuWindows.empty();
        std::sort(chosen.begin(), chosen.end(),
            [](const TraceStepWindow &a, const TraceStepWindow &b) { return a.start < b.start; });
        m_trace.windows = std::move(chosen);
        if (m_trace.kernels.empty() && m_trace.windows.empty())
            throw ScenarioError(m_file, "no GPU kernel and no ProfilerStep#N range in the trace");
    }

private:
    enum class Top { Other, Events, Info };

    bool inEvent(int level) const { return m_top == Top::Events && m_depth == level; }
    bool inInfo(int level) const { return m_top == Top::Info && m_depth == level; }

    [[noreturn]] void fail(const std::string &key, const std::string &reason) const
    {
        throw ScenarioError(
            m_file + ": traceEvents[" + std::to_string(m_current) + "]." + key, reason);
    }

    bool number(double v)
    {
        if (inEvent(3)) {
            if (m_keys[3] == "ts")
                m_event.ts = v;
            else if (m_keys[3] == "dur")
                m_event.dur = v;
            else if (m_keys[3] == "tid" && std::isfinite(v))
                m_event.tid = std::to_string(static_cast<long long>(v));
        } else if (inEvent(4) && m_keys[3] == "args") {
            if (m_keys[4] == "Group size" && v >= 0 && v <= limits::kMaxGpus)
                m_event.groupSize = static_cast<int>(v);
        } else if (m_top == Top::Events && m_depth == 5 && m_keys[3] == "args"
            && m_keys[4] == "Process Group Ranks") {
            m_event.pgRanksIsArray = true;
            if (v >= 0 && v <= limits::kMaxGpus)
                m_event.pgRankArray.push_back(static_cast<int>(v));
        } else if (inInfo(2)) {
            if (m_keys[2] == "rank" && v >= 0 && v <= limits::kMaxGpus)
                m_trace.rank = static_cast<int>(v);
            else if (m_keys[2] == "world_size" && v >= 0 && v <= limits::kMaxGpus)
                m_trace.worldSize = static_cast<int>(v);
        } else if (inInfo(4) && m_keys[2] == "pg_config" && m_keys[4] == "pg_size") {
            if (v >= 0 && v <= limits::kMaxGpus)
                m_group.size = static_cast<int>(v);
        } else if (inInfo(5) && m_keys[2] == "pg_config" && m_keys[4] == "ranks") {
            if (v >= 0 && v <= limits::kMaxGpus)
                m_group.ranks.push_back(static_cast<int>(v));
        }
        return true;
    }

    bool open(bool array)
    {
        if (m_depth + 1 > limits::kMaxJsonDepth)
            throw ScenarioError(m_file,
                "JSON nests deeper than " + std::to_string(limits::kMaxJsonDepth) + " levels");
        if (m_depth == 1) {
            const std::string &k = m_keys[1];
            m_top = k == "traceEvents" && array    ? Top::Events
                : k == "distributedInfo" && !array ? Top::Info
                                                   : Top::Other;
        } else if (m_depth == 0 && array) {
            // A bare array of events (the Chrome trace format's other form).
            m_top = Top::Events;
            m_depth = 1;
            m_bareArray = true;
        }
        ++m_depth;
        if (m_top == Top::Events && m_depth == 3 && !array)
            m_event.clear();
        if (inEvent(4) && m_keys[3] == "args")
            m_event.hasArgs = true;
        return true;
    }

    bool close()
    {
        --m_depth;
        if (m_bareArray && m_depth == 1) {
            m_depth = 0;
            m_top = Top::Other;
        }
        if (m_depth == 1)
            m_top = Top::Other;
        return true;
    }

    void finishEvent()
    {
        ++m_trace.events;
        const TracePendingEvent &e = m_event;
        m_current = m_index++;
        if (e.ph != "X")
            return;
        const bool kernel = e.cat == "kernel" || e.cat == "Kernel";
        // torch 1.13 without Kineto writes no "cat" at all (profiler_util.py's export): its
        // ranges are CPU operators, as "cpu_op" in Kineto's traces.
        const bool cpuOp = e.cat == "cpu_op" || e.cat.empty();
        const bool step = e.name.rfind("ProfilerStep#", 0) == 0
            && (e.cat == "user_annotation" || e.cat == "gpu_user_annotation" || cpuOp);
        // ProcessGroupGloo's collectives: CPU ranges named "gloo:all_reduce", "gloo:broadcast",
        // ... (RECORD_FUNCTION in torch/csrc/distributed/c10d/ProcessGroupGloo.cpp).
        const bool gloo = cpuOp && e.name.rfind("gloo:", 0) == 0;
        // A CPU operator: compute when the trace has no GPU kernel (see finish()).
        const bool aten = cpuOp && !m_gpuSeen && e.name.rfind("aten::", 0) == 0;
        if (kernel && !m_gpuSeen) {
            m_gpuSeen = true;
            std::vector<TraceCpuRange>().swap(m_cpuOps); // kept only for a CPU-only trace
        }
        if (!kernel && !step && !gloo && !aten)
            return;
        if (!e.ts)
            fail("ts", "missing required field");
        if (!e.dur)
            fail("dur", "missing required field");
        if (!std::isfinite(*e.ts) || !std::isfinite(*e.dur) || !std::isfinite(*e.ts + *e.dur))
            fail("ts", "ts + dur is not a finite number");
        if (*e.dur < 0.0)
            fail("dur", "must not be negative, got " + std::to_string(*e.dur));
        if (step) {
            TraceStepWindow w;
            const std::string number = e.name.substr(13);
            char *end = nullptr;
            const long long n = std::strtoll(number.c_str(), &end, 10);
            if (number.empty() || *end != '\0' || n < 0)
                throw ScenarioError(
                    m_file + ": traceEvents[" + std::to_string(m_current) + "].name",
                    "expected ProfilerStep#N, got '" + e.name.substr(0, 40) + "'");
            w.step = n;
            w.start = *e.ts;
            w.end = *e.ts + *e.dur;
            (e.cat == "gpu_user_annotation" ? m_gpuWindows : m_cpuWindows).push_back(w);
            return;
        }
        if (aten) {
            m_cpuOps.push_back({ *e.ts, *e.ts + *e.dur, threadIndex(e.tid) });
            return;
        }
        if (gloo)
            m_glooThreads.insert(threadIndex(e.tid));
        TraceKernel k;
        k.start = *e.ts;
        k.end = *e.ts + *e.dur;
        const bool nccl = gloo || e.name.rfind("nccl", 0) == 0 || !e.collective.empty();
        if (!nccl) {
            k.group = TraceKernel::kCompute;
        } else {
            ++m_trace.ncclKernels;
            k.group = groupOf(e);
            if (k.group == TraceKernel::kUngrouped)
                ++m_trace.ungroupedNcclKernels;
            else {
                TraceProcessGroup &g = m_trace.groups[k.group];
                ++g.kernels;
                const std::string &c = gloo ? e.name : e.collective;
                g.allToAll = g.allToAll || c.find("all_to_all") != std::string::npos
                    || c.find("alltoall") != std::string::npos;
            }
        }
        m_trace.kernels.push_back(k);
    }

    /// A small number per distinct "tid" (threads are few).
    int threadIndex(const std::string &tid)
    {
        return m_threadIndex.emplace(tid, static_cast<int>(m_threadIndex.size())).first->second;
    }

    int groupOf(const TracePendingEvent &e)
    {
        if (e.pgName.empty() && e.pgRanks.empty() && !e.pgRanksIsArray)
            return TraceKernel::kUngrouped;
        std::string key = e.pgName + '\n' + e.pgRanks;
        for (int r : e.pgRankArray)
            key += std::to_string(r) + ',';
        const auto [it, inserted]
            = m_groupIndex.emplace(key, static_cast<int>(m_trace.groups.size()));
        if (inserted) {
            TraceProcessGroup g;
            g.name = e.pgName;
            g.description = e.pgDesc;
            if (e.pgRanksIsArray)
                g.ranks = e.pgRankArray;
            else if (!e.pgRanks.empty() && !parseTraceRankList(e.pgRanks, g.ranks, g.truncated))
                throw ScenarioError(m_file + ": traceEvents[" + std::to_string(m_current)
                        + "].args.Process Group Ranks",
                    "expected a list of ranks like \"[0, 1]\", got '" + e.pgRanks.substr(0, 40)
                        + "'");
            g.size = e.groupSize;
            // Groups are few (one per process group of the job); a trace listing thousands of
            // distinct ones is not a training step's.
            if (m_trace.groups.size() >= 4096)
                throw ScenarioError(m_file, "more than 4096 process groups in the trace");
            m_trace.groups.push_back(std::move(g));
        }
        return it->second;
    }

    KinetoTrace &m_trace;
    const std::string &m_file;
    int m_depth = 0;
    Top m_top = Top::Other;
    bool m_bareArray = false;
    std::vector<std::string> m_keys; ///< per level, the current key
    TracePendingEvent m_event;
    std::size_t m_index = 0; ///< events finished so far
    std::size_t m_current = 0; ///< the index in traceEvents of the event being checked
    TraceConfigGroup m_group;
    std::vector<TraceConfigGroup> m_config;
    std::map<std::string, int> m_groupIndex;
    std::vector<TraceStepWindow> m_cpuWindows, m_gpuWindows;
    bool m_gpuSeen = false; ///< a GPU kernel was read: CPU operators are not compute
    std::vector<TraceCpuRange> m_cpuOps;
    std::set<int> m_glooThreads; ///< threads that ran a gloo collective
    std::map<std::string, int> m_threadIndex;
};

/// nlohmann's "... at line 3, column 5: ..." -> 3; 0 when the message has no line.
int traceErrorLine(const std::string &what)
{
    const std::size_t at = what.find("at line ");
    return at == std::string::npos ? 0 : std::atoi(what.c_str() + at + 8);
}

template<typename Input> KinetoTrace parseTraceInput(Input &&input, const std::string &file)
{
    KinetoTrace trace;
    trace.file = file;
    TraceSax sax(trace, file);
    try {
        json::sax_parse(std::forward<Input>(input), &sax);
    } catch (const json::exception &e) {
        std::string reason = e.what();
        const std::size_t close = reason.find("] ");
        if (close != std::string::npos)
            reason.erase(0, close + 2);
        const int line = traceErrorLine(reason);
        throw ScenarioError(line > 0 ? file + ":" + std::to_string(line) : file,
            "not valid JSON: " + reason.substr(0, 200));
    }
    sax.finish();
    return trace;
}

} // namespace

KinetoTrace parseKinetoTrace(const std::string &text, const std::string &file)
{
    return parseTraceInput(text, file);
}

KinetoTrace readKinetoTrace(const std::string &path)
{
    const int fd = openRegularFile(path, "a profiler trace");
    ::close(fd); // checked as a regular file; the stream reopens it
    // 1 MiB of stream buffer: large reads, few system calls (set before open, as libstdc++
    // ignores it after).
    std::vector<char> buffer(1 << 20);
    std::ifstream in;
    in.rdbuf()->pubsetbuf(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    in.open(path, std::ios::binary);
    if (!in)
        throw ScenarioError(path, "cannot open");
    return parseTraceInput(in, path);
}

} // namespace railyard
