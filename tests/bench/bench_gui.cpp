// The GUI's drop path (Google Benchmark) on the offscreen platform. Run: build/bin/bench_gui
//   BM_Drop/128    samples/seed-128.json's 128-GPU job (goal: within one 60 Hz frame, 16.7 ms)
//   BM_Drop/1024   128 servers x 8 (goal: stays interactive)
//   BM_PreviewServerMove/N  one step of a server-bar drag: the live preview of 8 ranks on
//                  another server (ScenarioDocument::previewMoves) and the repaint
//   BM_PreviewJobMove1024  the same in a two-job scenario on 1,024 GPU slots: job a's server
//                  onto a free one, the links coloured by both jobs (goal: one 60 Hz frame)
//   BM_PreviewWholeJob16k  one step of a whole-job drag: an 8,192-GPU job shifted by servers
//   BM_DropJobs16k/A  a drop with two 8,192-GPU jobs on 16,384 slots, the UI thread's time
//                  (A = 0: the jobs evaluated on the UI thread, as before; 1: on the thread pool)
//   The 131,072-GPU scenario of the README (16,384 servers x 8, rail-optimised, radix 128,
//   GPT-3 175B TP8 PP16 DP1024), evaluated once and shared (goal: no frame over 50 ms):
//   BM_Open131k        the fabric view built on the loaded document, fitted and first painted
//   BM_Close131k       the view closed: its items leave the scene (also a rebuild for a new fabric)
//   BM_Paint131k       one full-viewport repaint at fit-to-window zoom (aggregate detail)
//   BM_Pan131k         one pan step (40 px) and its repaint
//   BM_Zoom131k/K      one wheel-sized zoom step in or out, K steps in from fit zoom, and the
//                      frame the event loop then makes (K = 0, 4, 8: the overview; 12, 16: the
//                      detailed drawing)
//   BM_ZoomAcross131k  the zoom step between the overview and the detailed drawing, and its frame
//   BM_FirstDetail131k the first zoom into the detailed drawing after opening, and its frame
//   (a frame: the scene's queued dirty-item pass and the paint it dispatches; `paints` counts
//   the paint events per step, 1)
//   BM_Preview131k     one step of a server drag's preview (8 ranks) and its repaint
//   Watch a collective (View > Watch a Collective), in the main window at 1400x900, fitted; one
//   frame = the animation's tick (1/60 s of playing at 4 steps/s) and the viewport's repaint
//   (goal: 30 frames per second, `fps`, so a frame within 33 ms):
//   BM_WatchDpAllReduce       rank 0's DP all-reduce on samples/seed-128.json (without the
//                             distributed optimizer: one all-reduce, 6 ring steps)
//   BM_WatchRing16k           a ring all-reduce over a 16,384-GPU group (2,048 servers x 8,
//                             dp 16,384, collectives.algorithm ring): 16,384 chunks a step
//   BM_CounterOverlay16k/K    File > Import Port Counters on 16,384 GPUs (2,048 servers x 8,
//                             seed-128's job with dp 512): one reading per NIC port (16,384
//                             ports) compared with the report (compareCounters), pushed to the
//                             view with the measured toggle on, and the repaint, K zoom steps
//                             in from fit (0: the overview; 12: the detailed, split cables)
//                             (goal: the overlay appears within 1 s)
#include "benchgui.h"
#include "collectivecontroller.h"
#include "collectiveoverlayitem.h"
#include "collectiveplayer.h"
#include "document/evaluator.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "mainwindow.h"
#include "scenario/scenariofile.h"
#include "studies/countercompare.h"

#include <QApplication>
#include <QComboBox>
#include <QGraphicsScene>

#include <nlohmann/json.hpp>

#include <benchmark/benchmark.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <random>
#include <utility>
#include <vector>

using namespace railyard;

namespace railyard::benchgui {

/// One step of a server-bar drag: the 8 ranks on server 0's slots previewed on `target`'s
/// slots (8 GPUs per server), and the frame the event loop then makes.
void previewFirstServerOn(ScenarioDocument &doc, int target)
{
    std::vector<std::pair<int, int>> moves;
    for (int g = 0; g < 8; ++g)
        moves.emplace_back(doc.mapping().rankAt(g), target * 8 + g);
    doc.previewMoves(moves);
    QApplication::processEvents();
}

/// The scenario `railyard-cli generate --fabric rail-optimised --servers 16384
/// --gpus-per-server 8 --switch-radix 128 --tp 8 --pp 16 --model gpt3-175b --global-batch
/// 16384` writes, as the flags' document the CLI builds (defaults filled by the loader).
Scenario scenarioOfServers(int servers)
{
    const nlohmann::json doc = {
        { "format_version", kScenarioFormatVersion },
        { "fabric",
            { { "kind", "rail-optimised" }, { "servers", servers }, { "gpus_per_server", 8 },
                { "switch_radix", 128 } } },
        { "parallel", { { "tp", 8 }, { "pp", 16 }, { "dp", servers / 16 } } },
        { "model", { { "preset", "gpt3-175b" } } },
        { "training", { { "global_batch", servers } } },
        { "device", { { "preset", "h100-sxm" } } },
    };
    return scenarioFromJson(doc);
}

/// A shown 1400x900 view of `doc` at fit-to-window zoom, first paint done.
std::unique_ptr<FabricView> viewOf(ScenarioDocument &doc)
{
    auto view = std::make_unique<FabricView>(&doc);
    view->resize(1400, 900);
    view->show();
    view->fitAll();
    QApplication::processEvents();
    view->viewport()->repaint();
    return view;
}

} // namespace railyard::benchgui

using namespace railyard::benchgui;

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
    const auto perDrop
        = [&](int n) { return benchmark::Counter(n, benchmark::Counter::kAvgIterations); };
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
        previewFirstServerOn(doc, target);
        target = target % (servers - 1) + 1;
    }
    doc.endPreview();
}

/// BM_PreviewServerMove under hashed ECMP (64 seeds) with the collisions outlined
/// (FabricView::showEcmpCollisions(), computed once before the drag): a preview shows the
/// ideal split, so each step costs what it does under ideal routing (one frame = 16.7 ms).
void BM_PreviewServerMoveHashed(benchmark::State &state)
{
    Scenario s = scenarioWith(static_cast<int>(state.range(0)));
    s.fabric.routing.mode = EcmpMode::Hashed;
    s.fabric.routing.seeds = 64;
    ScenarioDocument doc;
    doc.load(s);
    FabricView view(&doc);
    view.resize(1400, 900);
    view.show();
    view.fitAll();
    state.counters["collisions"] = view.showEcmpCollisions();
    QApplication::processEvents();
    const int servers = doc.engine().fabric().servers();
    int target = 1;
    for (auto _ : state) {
        previewFirstServerOn(doc, target);
        target = target % (servers - 1) + 1;
    }
    doc.endPreview();
}

/// Two jobs on 128 servers x 8 (1,024 GPU slots): seed-128's job with dp 12 (384 GPUs) as job
/// a on servers 0-47 and again as job b on 48-95; servers 96-127 free.
Scenario scenario131k()
{
    return scenarioOfServers(16384);
}

/// The document of `scenario`, loaded (and evaluated) once.
std::unique_ptr<ScenarioDocument> loadedDocument(const Scenario &scenario)
{
    auto d = std::make_unique<ScenarioDocument>();
    d->load(scenario);
    // At this size the evaluation runs on a worker thread (Evaluator::runsAsync): wait for
    // its report, else the first benchmark's first frames share the cores with it.
    while (d->evaluator()->isEvaluating())
        QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    return d;
}

/// The 131k document, loaded (and evaluated) once for all the 131k benchmarks.
ScenarioDocument &document131k()
{
    static std::unique_ptr<ScenarioDocument> doc = loadedDocument(scenario131k());
    return *doc;
}

/// 1,048,576 GPUs: the same generator flags with --servers 131072 (radix 128 takes four switch
/// tiers: 8 zones of 64 pods, 8,192 cores).
ScenarioDocument &document1M()
{
    static std::unique_ptr<ScenarioDocument> doc = loadedDocument(scenarioOfServers(131072));
    return *doc;
}

/// A shown 1400x900 view of the 131k document at fit-to-window zoom, first paint done.
std::unique_ptr<FabricView> view131k()
{
    return viewOf(document131k());
}

/// Counts the paint events of a widget (the benchmarks check they paint once per frame).
class PaintCounter : public QObject
{
public:
    explicit PaintCounter(QWidget *widget) { widget->installEventFilter(this); }
    int paints = 0;

protected:
    bool eventFilter(QObject *, QEvent *event) override
    {
        paints += event->type() == QEvent::Paint;
        return false;
    }
};

/// The frame the event loop makes after a zoom or pan step, as it makes it: the scene's
/// queued processing of the items marked dirty (QGraphicsScene works through them in a
/// queued call and then dispatches the view's update at once), then any update request still
/// pending (a transform change alone marks no item dirty), which paints.
Q_NEVER_INLINE void nextFrame(FabricView &view) // a frame of its own in a profiler
{
    QCoreApplication::sendPostedEvents(view.scene(), QEvent::MetaCall);
    QCoreApplication::sendPostedEvents(view.window(), QEvent::UpdateRequest);
}

void BM_Open131k(benchmark::State &state)
{
    document131k();
    for (auto _ : state) {
        std::unique_ptr<FabricView> view = view131k();
        state.PauseTiming();
        view.reset(); // closing is not opening
        QApplication::processEvents();
        state.ResumeTiming();
    }
}

/// Closing the view (or rebuilding it for another fabric): its 300,000 items leave the scene.
void BM_Close131k(benchmark::State &state)
{
    document131k();
    for (auto _ : state) {
        state.PauseTiming();
        std::unique_ptr<FabricView> view = view131k();
        state.ResumeTiming();
        view.reset();
    }
}

void BM_Paint131k(benchmark::State &state)
{
    std::unique_ptr<FabricView> view = view131k();
    for (auto _ : state)
        view->viewport()->repaint();
    state.counters["overview"] = view->rootItem()->isOverview() ? 1 : 0;
    state.counters["scene_items"] = static_cast<double>(view->scene()->items().size());
}

void BM_Pan131k(benchmark::State &state)
{
    std::unique_ptr<FabricView> view = view131k();
    view->zoomIn(); // fit-to-window leaves nothing to pan sideways
    view->viewport()->repaint();
    int step = 0;
    for (auto _ : state) {
        view->panBy((step++ / 8) % 2 == 0 ? 40 : -40, 0);
        view->viewport()->repaint();
    }
}

/// Opening the view of 1,048,576 GPUs (four tiers), the first frame painted.
void BM_Open1M(benchmark::State &state)
{
    document1M();
    for (auto _ : state) {
        std::unique_ptr<FabricView> view = viewOf(document1M());
        state.PauseTiming();
        view.reset();
        QApplication::processEvents();
        state.ResumeTiming();
    }
}

/// One pan step and its frame at 1,048,576 GPUs, one zoom step in from fit-to-window.
void BM_Pan1M(benchmark::State &state)
{
    std::unique_ptr<FabricView> view = viewOf(document1M());
    view->zoomIn();
    view->viewport()->repaint();
    int step = 0;
    for (auto _ : state) {
        view->panBy((step++ / 8) % 2 == 0 ? 40 : -40, 0);
        view->viewport()->repaint();
    }
    state.counters["overview"] = view->rootItem()->isOverview() ? 1 : 0;
    state.counters["cores"] = document1M().engine().fabric().coreCount();
}

/// A wheel-sized zoom step (in, then out, alternately; both timed) with its frame, from the
/// zoom `state.range(0)` steps in from fit-to-window: 0 is the whole fabric, 8 the last
/// steps before the detailed drawing (FabricView::kOverviewBelow), where the blocks are
/// widest, 12 and 16 the detailed drawing. Each step re-renders the cached layers and items
/// on screen at the new scale.
void BM_Zoom131k(benchmark::State &state)
{
    std::unique_ptr<FabricView> view = view131k();
    for (int i = 0; i < state.range(0); ++i)
        view->zoomIn();
    view->viewport()->repaint();
    bool in = true;
    PaintCounter counter(view->viewport());
    for (auto _ : state) {
        if (in)
            view->zoomIn();
        else
            view->zoomOut();
        in = !in;
        nextFrame(*view);
    }
    state.counters["paints"]
        = benchmark::Counter(counter.paints, benchmark::Counter::kAvgIterations);
    state.counters["zoom"] = view->zoom();
    state.counters["overview"] = view->rootItem()->isOverview() ? 1 : 0;
}

/// The zoom step across FabricView::kOverviewBelow, in and out alternately: the overview's
/// layers give way to the 300,000 detailed items (or take over from them) and the frame is
/// painted at the new level of detail. After each way out the view is zoomed by 0.3 %
/// (untimed), so every way in lands on a scale the items' device-coordinate caches have not
/// seen, as a user's zoom does (alternating between two scales, the items would find their
/// cached pixmaps still valid). The first way in after opening also does Qt's first visit
/// of the detailed items (BM_FirstDetail131k).
void BM_ZoomAcross131k(benchmark::State &state)
{
    std::unique_ptr<FabricView> view = view131k();
    while (view->zoom() * 1.25 < FabricView::kOverviewBelow)
        view->zoomIn();
    // One way in and out first: the first visit is BM_FirstDetail131k's.
    view->zoomIn();
    nextFrame(*view);
    view->zoomOut();
    nextFrame(*view);
    bool in = true;
    double tz = 0, tp = 0;
    double frameIn = 0, frameOut = 0; // the two directions' frames, summed
    PaintCounter counter(view->viewport());
    for (auto _ : state) {
        auto t0 = std::chrono::steady_clock::now();
        if (in)
            view->zoomIn();
        else
            view->zoomOut();
        auto t1 = std::chrono::steady_clock::now();
        nextFrame(*view);
        auto t2 = std::chrono::steady_clock::now();
        tz += std::chrono::duration<double, std::milli>(t1 - t0).count();
        const double frame = std::chrono::duration<double, std::milli>(t2 - t1).count();
        tp += frame;
        (in ? frameIn : frameOut) += frame;
        if (!in) {
            state.PauseTiming();
            view->scale(0.997, 0.997); // a new scale for the next way in (still the overview)
            const int paints = counter.paints;
            nextFrame(*view);
            counter.paints = paints; // not one of the steps'
            state.ResumeTiming();
        }
        in = !in;
    }
    const double steps = static_cast<double>(state.iterations());
    state.counters["in_frame_ms"] = frameIn / std::max(1.0, std::ceil(steps / 2.0));
    state.counters["out_frame_ms"] = frameOut / std::max(1.0, std::floor(steps / 2.0));
    state.counters["paints"]
        = benchmark::Counter(counter.paints, benchmark::Counter::kAvgIterations);
    // The step itself (the transform and the level-of-detail switch), then the event loop's
    // frame: the scene's dirty-item pass and the paint.
    state.counters["zoom_ms"] = benchmark::Counter(tz, benchmark::Counter::kAvgIterations);
    state.counters["frame_ms"] = benchmark::Counter(tp, benchmark::Counter::kAvgIterations);
}

/// The first zoom into the detailed drawing after opening the 131k view, with its frame: Qt's
/// first visit of the detailed items (their scene transforms, the tiles' child order, every
/// visible item's first cached pixmap). A new view per iteration (its making untimed).
void BM_FirstDetail131k(benchmark::State &state)
{
    for (auto _ : state) {
        state.PauseTiming();
        std::unique_ptr<FabricView> view = view131k();
        while (view->zoom() * 1.25 < FabricView::kOverviewBelow)
            view->zoomIn();
        nextFrame(*view);
        state.ResumeTiming();
        view->zoomIn();
        nextFrame(*view);
        state.PauseTiming();
        view.reset();
        state.ResumeTiming();
    }
}

void BM_Preview131k(benchmark::State &state)
{
    ScenarioDocument &doc = document131k();
    std::unique_ptr<FabricView> view = view131k();
    const int servers = doc.engine().fabric().servers();
    int target = 1;
    for (auto _ : state) {
        previewFirstServerOn(doc, target);
        view->viewport()->repaint();
        target = target % (servers - 1) + 1;
    }
    doc.endPreview();
    QApplication::processEvents();
}

/// Frames of a watched collective: `scenario` in a main window, `target` playing at 4 steps a
/// second; each iteration is one tick of 1/60 s and the repaint it causes.
void watchFrames(benchmark::State &state, const Scenario &scenario, const WatchTarget &target)
{
    MainWindow window;
    window.document()->load(scenario);
    window.document()->waitForEvaluation();
    window.resize(1400, 900);
    window.show();
    window.fabricView()->fitAll();
    QApplication::processEvents();
    CollectiveController *c = window.collectives();
    if (!c->watch(target)) {
        state.SkipWithError("nothing to watch");
        return;
    }
    c->player()->speedBox()->setCurrentIndex(3); // 4 steps a second
    QWidget *viewport = window.fabricView()->viewport();
    viewport->repaint();
    for (auto _ : state) {
        c->advance(1.0 / 60.0);
        if (c->step() + 1 >= c->watched().steps.stepCount())
            c->setStep(0);
        viewport->repaint();
    }
    state.counters["chunks"] = c->overlay()->chunkCount();
    state.counters["links"] = static_cast<double>(c->overlay()->highlightedLinks().size());
    state.counters["steps"] = c->watched().steps.stepCount();
    state.counters["fps"]
        = benchmark::Counter(static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

void BM_WatchDpAllReduce(benchmark::State &state)
{
    // Without the distributed optimizer the gradient sync is one all-reduce (the sample syncs
    // by reduce-scatter and all-gather).
    Scenario s = loadScenario(RAILYARD_SOURCE_DIR "/samples/seed-128.json");
    s.training.distributedOptimizer = false;
    watchFrames(state, s, { Dim::Dp, 0, false, 0 });
}

void BM_WatchRing16k(benchmark::State &state)
{
    Scenario s = scenarioWith(16384);
    s.degrees.tp = 1;
    s.degrees.pp = 1;
    s.degrees.dp = 16384;
    s.training.globalBatch = 16384;
    s.training.distributedOptimizer = false;
    s.collectives.algorithm = CollectiveAlgorithm::Ring;
    watchFrames(state, s, { Dim::Dp, 0, false, 0 });
}

} // namespace

void BM_CounterOverlay16k(benchmark::State &state)
{
    static std::unique_ptr<ScenarioDocument> doc = [] {
        auto d = std::make_unique<ScenarioDocument>();
        d->load(scenarioWith(16384));
        while (d->evaluator()->isEvaluating())
            QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
        return d;
    }();
    const Fabric &f = doc->engine().fabric();
    const CostReport &report = doc->report();
    // Every NIC port read over a 10 s window at 10 % above its prediction, and every 97th
    // idle: a real ranking to build.
    std::vector<PortRate> rates;
    for (int server = 0; server < f.servers(); ++server) {
        for (int nic = 0; nic < f.nicsPerServer(); ++nic) {
            const int up
                = f.linkBetween(f.nicVertex(server, nic), f.leafVertex(f.leafOfNic(server, nic)));
            const double k = (server * f.nicsPerServer() + nic) % 97 == 0 ? 0.0 : 1.1;
            PortRate r;
            r.host = f.serverName(server);
            r.device = "mlx5_" + std::to_string(nic);
            r.port = "1";
            r.txRate = k * report.utilisation(up) * f.linkBandwidth(up);
            r.rxRate = k * report.utilisation(f.link(up).reverse) * f.linkBandwidth(up);
            r.window = 10.0;
            rates.push_back(std::move(r));
        }
    }
    auto view = std::make_unique<FabricView>(doc.get());
    view->resize(1400, 900);
    view->show();
    view->fitAll();
    for (int k = 0; k < state.range(0); ++k)
        view->zoomIn();
    QApplication::processEvents();
    view->viewport()->repaint();
    std::size_t measured = 0, divergences = 0;
    for (auto _ : state) {
        const CounterComparison c = compareCounters(rates, nullptr, f, report);
        view->setMeasuredUtilisation(measuredUtilisation(c, f.linkCount()));
        view->setMeasuredShown(true);
        view->viewport()->repaint();
        measured = c.links.size();
        divergences = c.divergences.size();
        state.PauseTiming();
        view->setMeasuredShown(false);
        view->setMeasuredUtilisation({});
        view->viewport()->repaint();
        state.ResumeTiming();
    }
    state.counters["links_measured"] = static_cast<double>(measured);
    state.counters["divergences"] = static_cast<double>(divergences);
    state.counters["overview"] = view->rootItem()->isOverview() ? 1 : 0;
}

BENCHMARK(BM_Drop)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PreviewServerMove)->Arg(128)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PreviewServerMoveHashed)->Arg(1024)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Open131k)->Iterations(2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Close131k)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Paint131k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pan131k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Open1M)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Pan1M)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Zoom131k)->DenseRange(0, 16, 4)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ZoomAcross131k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_FirstDetail131k)->Iterations(3)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Preview131k)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_WatchDpAllReduce)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_WatchRing16k)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_CounterOverlay16k)->Arg(0)->Arg(12)->Unit(benchmark::kMillisecond)->UseRealTime();

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
