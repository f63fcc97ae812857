// The GUI benchmarks of a shared fabric (several jobs on one fabric; docs/shared-fabric.md),
// registered with the others in bench_gui (see bench_gui.cpp's list).

#include "benchgui.h"

#include "document/evaluator.h"
#include "document/scenariodocument.h"
#include "fabricview.h"
#include "jobscontroller.h"
#include "mainwindow.h"
#include "scenario/scenariofile.h"

#include <QApplication>

#include <benchmark/benchmark.h>

#include <memory>
#include <random>
#include <utility>
#include <vector>

using namespace railyard;
using namespace railyard::benchgui;

namespace {

/// `s` as two jobs a and b of its own layout, side by side: a on the first worldSize slots,
/// b on the next.
Scenario asTwoJobs(Scenario s)
{
    JobSpec a;
    a.degrees = s.degrees;
    a.order = s.order;
    a.model = s.model;
    a.training = s.training;
    JobSpec b = a;
    a.name = "a";
    a.colour = "#e69f00";
    b.name = "b";
    b.colour = "#56b4e9";
    const int world = s.degrees.tp * s.degrees.pp * s.degrees.dp * s.degrees.cp;
    for (int slot = 0; slot < world; ++slot) {
        a.slots.push_back(slot);
        b.slots.push_back(world + slot);
    }
    s.slots = a.slots;
    s.jobs = { a, b };
    return s;
}

Scenario twoJobs1024()
{
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    s.fabric.servers = 128;
    s.degrees.dp = 12;
    s.training.globalBatch = 16 * s.degrees.dp;
    s.placement = Placement::Packed;
    return asTwoJobs(s);
}

/// One step of a server drag's preview in a two-job scenario at 1,024 GPU slots: job a (on
/// show) moves its first server's 8 ranks onto a free server, the link colours being the sum
/// over both jobs (goal: within one 60 Hz frame).
void BM_PreviewJobMove1024(benchmark::State &state)
{
    ScenarioDocument doc;
    doc.load(twoJobs1024());
    doc.waitForEvaluation();
    const std::unique_ptr<FabricView> view = viewOf(doc);
    int target = 96;
    const int updates = doc.evaluator()->engineUpdates();
    bool previewed = true;
    for (auto _ : state) {
        previewFirstServerOn(doc, target);
        previewed = previewed && doc.isPreviewing();
        target = target == 127 ? 96 : target + 1;
    }
    doc.endPreview();
    // Each step was a preview the engine evaluated (a refused move would cost nothing).
    state.counters["previewed"] = previewed ? 1 : 0;
    state.counters["engine_updates"] = benchmark::Counter(
        doc.evaluator()->engineUpdates() - updates, benchmark::Counter::kAvgIterations);
    state.counters["jobs"] = static_cast<double>(doc.scenario().jobs.size());
}

/// Two 8,192-GPU jobs (GPT-3 175B, TP 8 PP 16 DP 64 each) on scenarioOfServers(2048)'s
/// 16,384-GPU fabric: job a on the first 1,024 servers, job b on the rest.
Scenario twoJobs16k()
{
    Scenario s = scenarioOfServers(2048);
    s.degrees.dp = 64;
    s.training.globalBatch = 1024;
    return asTwoJobs(s);
}

/// One step of a whole-job drag (Ctrl on a server bar): an 8,192-GPU job (GPT-3 175B, TP 8
/// PP 16 DP 64) on the first half of scenarioOfServers(2048)'s 16,384-GPU fabric, previewed
/// shifted by 1 to 8 servers in turn (every rank moves), and the repaint.
void BM_PreviewWholeJob16k(benchmark::State &state)
{
    Scenario s = scenarioOfServers(2048);
    s.degrees.dp = 64;
    s.training.globalBatch = 1024;
    ScenarioDocument doc;
    doc.load(s);
    doc.waitForEvaluation();
    const std::unique_ptr<FabricView> view = viewOf(doc);
    const int gpus = 8;
    int offset = 1;
    for (auto _ : state) {
        std::vector<std::pair<int, int>> moves;
        for (int rank = 0; rank < doc.mapping().rankCount(); ++rank) {
            const int slot = doc.mapping().slotOf(rank);
            moves.emplace_back(rank, (slot / gpus + offset) * gpus + slot % gpus);
        }
        doc.previewMoves(moves);
        QApplication::processEvents();
        offset = offset % 8 + 1;
    }
    doc.endPreview();
    state.counters["ranks"] = doc.mapping().rankCount();
}

/// A drop in the explorer with two jobs on 16,384 GPU slots: the UI thread's time from the
/// swap of two of job a's ranks until the event loop is idle again (the document's incremental
/// update, the recolour, and the jobs' re-evaluation when it runs on the UI thread). Arg 0:
/// the document's threshold for evaluating off the UI thread raised above the scenario, so
/// the jobs are evaluated there (as before); 1: the default, on Qt's thread pool. Between
/// drops the benchmark waits, untimed, for the evaluation to land.
void BM_DropJobs16k(benchmark::State &state)
{
    MainWindow window;
    window.resize(1400, 900);
    window.show();
    ScenarioDocument *doc = window.document();
    const bool offUiThread = state.range(0) != 0;
    if (!offUiThread)
        doc->evaluator()->setAsyncThreshold(1 << 30);
    auto *jobs = window.findChild<JobsController *>();
    const auto settle = [&] {
        doc->waitForEvaluation();
        while (jobs->isEvaluating())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
        QCoreApplication::processEvents();
    };
    doc->load(twoJobs16k());
    settle();
    std::mt19937 rng(5);
    std::uniform_int_distribution<int> pick(0, 8191);
    int async = 0;
    for (auto _ : state) {
        doc->swapRanks(pick(rng), pick(rng));
        QCoreApplication::processEvents();
        async += jobs->isEvaluating() ? 1 : 0;
        state.PauseTiming();
        settle();
        state.ResumeTiming();
    }
    state.counters["jobs_async"] = benchmark::Counter(async, benchmark::Counter::kAvgIterations);
    state.counters["jobs"] = static_cast<double>(jobs->report() ? jobs->report()->jobs.size() : 0);
}

} // namespace

BENCHMARK(BM_PreviewJobMove1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PreviewWholeJob16k)->Iterations(8)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_DropJobs16k)
    ->Arg(0)
    ->Arg(1)
    ->Iterations(10)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();
