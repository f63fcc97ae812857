// Speed of the file loaders at 1, 10 and 60 MB (Google Benchmark). Run: build/bin/bench_loaders
// Each benchmark's argument is the input's size in MB (10^6 bytes); bytes_per_second staying
// level from 1 to 60 MB is linear growth (a quadratic loader drops 60x). Inputs are built once,
// outside the timing.
//   BM_JsonObjects/MB         the guarded parser every JSON loader uses, on {"a":[{},{},...]}
//                             (400,000 objects, 1.2 MB, took 35 s with the callback parser)
//   BM_ScenarioValid/MB       a valid scenario of a 65,536-GPU fabric whose size is mapping
//                             snapshots (parseScenario: parse and every field's check)
//   BM_ScenarioInvalid/MB     {"a":[{},...]} as a scenario: parsed whole, then refused
//   BM_RecordPreflight/MB     checkPreflight on a mapping-json run record (60 MB = 262,144
//                             ranks): the whole record checked, rank 0's place compared
//   BM_RecordPreflightInvalid/MB  the same record with its last rank on rank 0's slot: refused
//                             after the last row (the most work a refusal does)
//   BM_RecordImport/MB        import-mapping of the same record against its scenario
//   BM_KinetoTrace/MB         readKinetoTrace, streamed from a file, and the per-step
//                             measurement on a generated Kineto trace of 1,000 MB (kernels,
//                             NCCL kernels with process-group args, CPU ops, ProfilerStep
//                             ranges); peak_rss_MB is the process's peak resident set (run it
//                             alone: --benchmark_filter=BM_KinetoTrace). Target: <= 10 s and
//                             <= 500 MB. The file is written once to $TMPDIR (or /tmp) and kept.
// Peak memory: /usr/bin/time -v build/bin/railyard-cli preflight RECORD (see README).
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exporters.h"
#include "export/preflight.h"
#include "export/runrecord.h"
#include "io/kinetotrace.h"
#include "loaderinputs.h"
#include "scenario/scenariofile.h"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <string>

#include <sys/resource.h>
#include <sys/stat.h>

using namespace railyard;

namespace {

constexpr std::size_t kMB = 1000 * 1000;

/// The inputs, built once per size (tests/common/loaderinputs.h, shared with
/// io_tst_loaderscaling).
const std::string &objectsText(std::size_t mb)
{
    static std::map<std::size_t, std::string> cache;
    std::string &t = cache[mb];
    if (t.empty())
        t = testinputs::jsonObjects(mb * kMB);
    return t;
}

/// A valid scenario of about `mb` MB: a 65,536-GPU fabric and as many snapshots of a mapping
/// (each 65,536 slots) as the size needs.
const std::string &validScenarioText(std::size_t mb)
{
    static std::map<std::size_t, std::string> cache;
    std::string &t = cache[mb];
    if (t.empty())
        t = testinputs::scenarioText(mb * kMB, 8192);
    return t;
}

/// An engine and its mapping-json record of about `mb` MB (60 MB = 262,144 ranks).
const testinputs::RecordInput &recordInput(std::size_t mb)
{
    static std::map<std::size_t, testinputs::RecordInput> cache;
    testinputs::RecordInput &in = cache[mb];
    if (!in.engine)
        in = testinputs::recordInput(mb >= 60 ? 32768ull * 8 * 230 : mb * kMB);
    return in;
}

PreflightEnvironment rank0()
{
    PreflightEnvironment e;
    e.hostname = "node000";
    e.env["RANK"] = "0";
    e.env["LOCAL_RANK"] = "0";
    return e;
}

void sizes(benchmark::internal::Benchmark *b)
{
    b->Arg(1)->Arg(10)->Arg(60)->Unit(benchmark::kMillisecond);
}

void BM_JsonObjects(benchmark::State &state)
{
    const std::string &text = objectsText(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state)
        benchmark::DoNotOptimize(parseJsonGuarded(text, 32).size());
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void BM_ScenarioValid(benchmark::State &state)
{
    const std::string &text = validScenarioText(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state)
        benchmark::DoNotOptimize(parseScenario(text).snapshots.size());
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
    state.counters["MB"] = static_cast<double>(text.size()) / kMB;
}

void BM_ScenarioInvalid(benchmark::State &state)
{
    const std::string &text = objectsText(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state) {
        try {
            parseScenario(text);
            state.SkipWithError("accepted");
        } catch (const ScenarioError &) {
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void BM_RecordPreflight(benchmark::State &state)
{
    const testinputs::RecordInput &in = recordInput(static_cast<std::size_t>(state.range(0)));
    const PreflightEnvironment e = rank0();
    for (auto _ : state)
        benchmark::DoNotOptimize(checkPreflight(in.text, e, 1, "record.json").gpu);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.text.size()));
    state.counters["MB"] = static_cast<double>(in.text.size()) / kMB;
    state.counters["ranks"] = in.engine->layout().worldSize();
}

void BM_RecordPreflightInvalid(benchmark::State &state)
{
    const testinputs::RecordInput &in = recordInput(static_cast<std::size_t>(state.range(0)));
    const PreflightEnvironment e = rank0();
    for (auto _ : state) {
        try {
            checkPreflight(in.invalid, e, 1, "record.json");
            state.SkipWithError("accepted");
        } catch (const ScenarioError &) {
        }
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.invalid.size()));
}

void BM_RecordImport(benchmark::State &state)
{
    const testinputs::RecordInput &in = recordInput(static_cast<std::size_t>(state.range(0)));
    for (auto _ : state)
        benchmark::DoNotOptimize(importMappingJson(in.text, *in.engine).mappingVersion);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * in.text.size()));
}

/// A Kineto trace of about `mb` MB at $TMPDIR/railyard-bench-trace-<mb>MB.json, written once,
/// event by event (never held whole): per 10 ms step 400 events of one rank of a TP8 DP4 job -
/// GEMM kernels on stream 7, NCCL kernels with process-group args on streams 21 and 25, CPU ops
/// - in the layout torch.profiler writes (one event a line).
std::string kinetoTracePath(std::size_t mb)
{
    const char *tmp = std::getenv("TMPDIR");
    const std::string path = std::string(tmp && *tmp ? tmp : "/tmp") + "/railyard-bench-trace-"
        + std::to_string(mb) + "MB.json";
    struct stat st
    {
    };
    if (::stat(path.c_str(), &st) == 0 && static_cast<std::size_t>(st.st_size) >= mb * kMB)
        return path;
    std::FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return {};
    std::fputs(
        "{\n  \"schemaVersion\": 1,\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 0, "
        "\"world_size\": 32, \"pg_count\": 3, \"nccl_version\": \"2.21.5\"},\n  \"traceEvents\": "
        "[\n",
        f);
    std::size_t written = 200;
    double t = 1723456789000.0;
    long long step = 0, corr = 0;
    bool first = true;
    char line[1024];
    while (written < mb * kMB) {
        int n = std::snprintf(line, sizeof line,
            "%s  {\"ph\": \"X\", \"cat\": \"user_annotation\", \"name\": \"ProfilerStep#%lld\", "
            "\"pid\": 1, "
            "\"tid\": 1, \"ts\": %.3f, \"dur\": 10000.000, \"args\": {\"External id\": %lld}}",
            first ? "" : ",\n", step, t, step);
        first = false;
        std::fwrite(line, 1, static_cast<std::size_t>(n), f);
        written += static_cast<std::size_t>(n);
        for (int e = 0; e < 400 && written < mb * kMB; ++e) {
            const double ts = t + e * 25.0;
            ++corr;
            if (e % 3 == 0)
                n = std::snprintf(line, sizeof line,
                    ",\n  {\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::mm\", \"pid\": 1, "
                    "\"tid\": 1, "
                    "\"ts\": %.3f, \"dur\": 12.345, \"args\": {\"External id\": %lld, \"Record "
                    "function id\": 0, "
                    "\"Ev Idx\": %lld}}",
                    ts, corr, corr);
            else if (e % 20 == 1)
                n = std::snprintf(line, sizeof line,
                    ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
                    "\"ncclDevKernel_AllReduce_Sum_bf16_RING_LL("
                    "ncclDevKernelArgsStorage<4096ul>)\", \"pid\": 0, \"tid\": %d, \"ts\": %.3f, "
                    "\"dur\": 30.000, "
                    "\"args\": {\"External id\": %lld, \"device\": 0, \"stream\": %d, "
                    "\"correlation\": %lld, "
                    "\"registers per thread\": 96, \"shared memory\": 0, \"grid\": [32, 1, 1], "
                    "\"block\": [640, 1, 1], "
                    "\"Collective name\": \"allreduce\", \"In msg nelems\": 16777216, \"Out msg "
                    "nelems\": 16777216, "
                    "\"Group size\": %d, \"dtype\": \"BFloat16\", \"Process Group Name\": \"%d\", "
                    "\"Process Group Description\": \"%s\", \"Process Group Ranks\": \"%s\"}}",
                    e % 40 == 1 ? 21 : 25, ts, corr, e % 40 == 1 ? 21 : 25, corr,
                    e % 40 == 1 ? 8 : 4, e % 40 == 1 ? 1 : 2, e % 40 == 1 ? "tp" : "dp",
                    e % 40 == 1 ? "[0, 1, 2, 3, 4, 5, 6, 7]" : "[0, 8, 16, 24]");
            else
                n = std::snprintf(line, sizeof line,
                    ",\n  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": "
                    "\"sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_"
                    "tilesize128x128x64_warpgroupsize1x1x1_execute_segment_k_off_kernel__5x_"
                    "cublas\", \"pid\": 0, "
                    "\"tid\": 7, \"ts\": %.3f, \"dur\": 20.000, \"args\": {\"External id\": %lld, "
                    "\"device\": 0, "
                    "\"stream\": 7, \"correlation\": %lld, \"registers per thread\": 168, \"shared "
                    "memory\": 213248, "
                    "\"blocks per SM\": 1.0, \"warps per SM\": 12.0, \"grid\": [132, 1, 1], "
                    "\"block\": [384, 1, 1], "
                    "\"est. achieved occupancy %%\": 19}}",
                    ts, corr, corr);
            std::fwrite(line, 1, static_cast<std::size_t>(n), f);
            written += static_cast<std::size_t>(n);
        }
        t += 10000.0;
        ++step;
    }
    std::fputs("\n  ]\n}\n", f);
    std::fclose(f);
    return path;
}

void BM_KinetoTrace(benchmark::State &state)
{
    const std::string path = kinetoTracePath(static_cast<std::size_t>(state.range(0)));
    if (path.empty()) {
        state.SkipWithError("cannot write the trace");
        return;
    }
    std::size_t steps = 0, kernels = 0;
    for (auto _ : state) {
        const KinetoTrace trace = readKinetoTrace(path);
        kernels = trace.kernels.size();
        steps = traceStepsByGroup(trace).size();
    }
    struct stat st
    {
    };
    ::stat(path.c_str(), &st);
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * st.st_size);
    state.counters["MB"] = static_cast<double>(st.st_size) / kMB;
    state.counters["kernels"] = static_cast<double>(kernels);
    state.counters["steps"] = static_cast<double>(steps);
    rusage usage {};
    getrusage(RUSAGE_SELF, &usage);
    state.counters["peak_rss_MB"]
        = static_cast<double>(usage.ru_maxrss) * 1024.0 / kMB; // ru_maxrss: KiB
}

} // namespace

BENCHMARK(BM_JsonObjects)->Apply(sizes);
BENCHMARK(BM_ScenarioValid)->Apply(sizes);
BENCHMARK(BM_ScenarioInvalid)->Apply(sizes);
BENCHMARK(BM_RecordPreflight)->Apply(sizes);
BENCHMARK(BM_RecordPreflightInvalid)->Apply(sizes);
BENCHMARK(BM_RecordImport)->Apply(sizes);
// 1,000 MB: the 1 GB trace; 100 MB for a quick look. One iteration each (seconds).
BENCHMARK(BM_KinetoTrace)->Arg(100)->Arg(1000)->Iterations(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
