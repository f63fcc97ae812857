// The GUI's drop path (Google Benchmark) on the offscreen platform. Run: build/bin/bench_gui
//   BM_Drop/128    samples/seed-128.json's 128-GPU job (goal: within one 60 Hz frame, 16.7 ms)
//   BM_Drop/1024   128 servers x 8 (goal: stays interactive)
//   BM_PreviewServerMove/N  one step of a server-bar drag: the live preview of 8 ranks on
//                  another server (ScenarioDocument::previewMoves) and the repaint
#include "document/evaluator.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "scenario/scenariofile.h"

#include <QApplication>

#include <benchmark/benchmark.h>

#include <cstdlib>
#include <random>
#include <utility>
#include <vector>

using namespace railyard;

namespace {

Scenario scenarioWith(int gpus)
{
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    s.fabric.servers = gpus / 8;
    s.degrees.dp = gpus / (s.degrees.tp * s.degrees.pp);
    s.training.globalBatch = 16 * s.degrees.dp; // keep 16 micro-batches per replica
    s.slots.clear();
    return s;
}

/// One drop: the swap command (one MoveRanks), the engine's incremental update, the view's
/// recolour of the links the change names and the repaint the event loop then performs
/// (software rasteriser of the offscreen platform). The counters say how often per drop the
/// engine was updated and the fabric recoloured (both 1).
void BM_Drop(benchmark::State &state)
{
    ScenarioDocument doc;
    doc.load(scenarioWith(static_cast<int>(state.range(0))));
    FabricView view(&doc);
    view.resize(1400, 900);
    view.show();
    view.fitAll();
    QApplication::processEvents();
    std::mt19937 rng(3);
    std::uniform_int_distribution<int> pick(0, doc.engine().layout().worldSize() - 1);
    const int updates = doc.evaluator()->engineUpdates();
    const int recolours = view.rootItem()->recolourCount();
    for (auto _ : state) {
        doc.swapRanks(pick(rng), pick(rng));
        QApplication::processEvents();
    }
    state.counters["undo_steps"] = doc.undoStack()->count();
    const auto perDrop = [&](int n) {
        return benchmark::Counter(n, benchmark::Counter::kAvgIterations);
    };
    state.counters["engine_updates"] = perDrop(doc.evaluator()->engineUpdates() - updates);
    state.counters["recolours"] = perDrop(view.rootItem()->recolourCount() - recolours);
}

/// Hovering a dragged server over server after server: each step previews the eight-rank
/// move on the engine (incrementally, reverting the previous step) and repaints.
void BM_PreviewServerMove(benchmark::State &state)
{
    ScenarioDocument doc;
    doc.load(scenarioWith(static_cast<int>(state.range(0))));
    FabricView view(&doc);
    view.resize(1400, 900);
    view.show();
    view.fitAll();
    QApplication::processEvents();
    const int servers = doc.engine().fabric().servers();
    int target = 1;
    for (auto _ : state) {
        std::vector<std::pair<int, int>> moves;
        for (int g = 0; g < 8; ++g)
            moves.emplace_back(doc.mapping().rankAt(g), target * 8 + g);
        doc.previewMoves(moves);
        QApplication::processEvents();
        target = target % (servers - 1) + 1;
    }
    doc.endPreview();
}

} // namespace

BENCHMARK(BM_Drop)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PreviewServerMove)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);

int main(int argc, char **argv)
{
    if (!std::getenv("QT_QPA_PLATFORM"))
        setenv("QT_QPA_PLATFORM", "offscreen", 0);
    QApplication app(argc, argv);
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
