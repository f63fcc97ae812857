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
// Peak memory: /usr/bin/time -v build/bin/railyard-cli preflight RECORD (see README).
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exporters.h"
#include "export/preflight.h"
#include "export/runrecord.h"
#include "loaderinputs.h"
#include "scenario/scenariofile.h"

#include <benchmark/benchmark.h>

#include <map>
#include <memory>
#include <string>

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

} // namespace

BENCHMARK(BM_JsonObjects)->Apply(sizes);
BENCHMARK(BM_ScenarioValid)->Apply(sizes);
BENCHMARK(BM_ScenarioInvalid)->Apply(sizes);
BENCHMARK(BM_RecordPreflight)->Apply(sizes);
BENCHMARK(BM_RecordPreflightInvalid)->Apply(sizes);
BENCHMARK(BM_RecordImport)->Apply(sizes);

BENCHMARK_MAIN();
