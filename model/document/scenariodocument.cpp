#include "document/scenariodocument.h"

#include "document/applyplacement.h"
#include "document/changescenario.h"
#include "fabric/failedcomponent.h"
#include "document/moveranks.h"
#include "studies/remapplacement.h"
#include "scenario/scenariocheck.h"
#include "document/swapranks.h"

#include <QMetaObject>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <set>
#include <thread>

namespace railyard {

namespace {

/// An edit that arrived while a rebuild was running: a swap, or a whole state.
struct PendingEdit
{
    bool isSwap = true;
    int a = -1;
    int b = -1;
    Scenario state;
    bool structural = false;
};

/// One engine step of a drag preview: `rank` moved from slot `from`, swapping with `other`
/// (or onto an empty slot when other < 0). Undone in reverse order.
struct PreviewStep
{
    int rank = -1;
    int other = -1;
    int from = -1;
};

/// One engine rebuild on the worker thread: its input, then its output.
struct BuildJob
{
    Scenario scenario;
    bool structural = false;
    std::shared_ptr<const Fabric> fabric;
    std::shared_ptr<Router> router;
    std::unique_ptr<CostEngine> engine;
    std::string error;
};

std::int64_t slotCountOf(const Scenario &s)
{
    return std::int64_t(s.fabric.servers) * s.fabric.gpusPerServer;
}

bool sameDegrees(const ParallelDegrees &a, const ParallelDegrees &b)
{
    return a.tp == b.tp && a.pp == b.pp && a.dp == b.dp && a.cp == b.cp && a.ep == b.ep;
}

QString coordText(const CostEngine &engine, int rank)
{
    const RankCoord c = engine.layout().coord(rank);
    return QStringLiteral("rank %1 (d%2 p%3 t%4)").arg(rank).arg(c.d).arg(c.p).arg(c.t);
}

} // namespace

struct ScenarioDocument::Private
{
    ScenarioDocument *q;
    Scenario scenario;                  ///< the document, including queued edits
    std::unique_ptr<CostEngine> engine; ///< the evaluation on screen
    Mapping mapping;                    ///< on screen, without the preview swap
    QUndoStack *undoStack = nullptr;
    QString filePath;
    std::vector<PreviewStep> preview; ///< applied to the engine, not to `mapping`
    std::vector<std::pair<int, int>> previewRequest; ///< what previewMoves() was asked
    int asyncThreshold = 2048;

    std::shared_ptr<BuildJob> job; ///< the running rebuild, if any
    std::thread worker;
    bool announcedBusy = false;
    std::deque<PendingEdit> pending;           ///< edits made while `job` runs
    std::unique_ptr<CostEngine> prebuilt;      ///< built by editScenario's check, used by redo
    std::shared_ptr<const Fabric> spareFabric; ///< built by checkScenario for the next rebuild

    explicit Private(ScenarioDocument *doc) : q(doc) {}

    bool busy() const { return job != nullptr; }

    /// False for a slot a failed server, GPU, NIC or leaf made unusable: the engine refuses
    /// ranks there, so no gesture may put one there. Follows the engine on screen.
    bool slotUsable(int slot)
    {
        const std::vector<FailedComponent> &failures = engine->scenario().failures;
        if (failures.empty())
            return true;
        if (usableFor != engine.get()) {
            usable = usableSlots(engine->fabric(), failures);
            usableFor = engine.get();
        }
        return slot >= 0 && slot < static_cast<int>(usable.size()) && usable[static_cast<std::size_t>(slot)];
    }
    std::vector<char> usable;          ///< per slot, for `usableFor`'s failures
    const CostEngine *usableFor = nullptr;

    /// The fabric (and router, when it is the engine's) an engine for `spec` may share.
    std::pair<std::shared_ptr<const Fabric>, std::shared_ptr<Router>> reusable(const FabricSpec &spec) const
    {
        if (engine && sameFabricSpec(engine->fabric().spec(), spec))
            return {engine->sharedFabric(), engine->sharedRouter()};
        if (spareFabric && sameFabricSpec(spareFabric->spec(), spec))
            return {spareFabric, nullptr};
        return {nullptr, nullptr};
    }

    bool shouldRunAsync(const Scenario &s) const
    {
        const std::int64_t shown = engine ? engine->fabric().slotCount() : 0;
        return std::max(slotCountOf(s), shown) > asyncThreshold;
    }

    /// Undo a preview's swaps and moves without a signal (the caller emits).
    void dropPreview()
    {
        for (auto it = preview.rbegin(); it != preview.rend(); ++it) {
            if (it->other >= 0)
                engine->swapRanks(it->rank, it->other);
            else
                engine->moveRank(it->rank, it->from);
        }
        preview.clear();
        previewRequest.clear();
    }

    /// One preview step on the engine: `rank` onto `slot` (a swap when the slot is taken).
    void previewStep(int rank, int slot)
    {
        const PreviewStep step{rank, engine->mapping().rankAt(slot), engine->mapping().slotOf(rank)};
        engine->moveRank(rank, slot);
        preview.push_back(step);
    }

    void install(std::unique_ptr<CostEngine> next)
    {
        engine = std::move(next);
        mapping = engine->mapping();
        if (spareFabric == engine->sharedFabric())
            spareFabric.reset();
    }

    void emitChanged(bool structural)
    {
        if (structural)
            Q_EMIT q->scenarioChanged();
        Q_EMIT q->mappingChanged();
        Q_EMIT q->reportChanged();
    }

    void setState(const Scenario &s, bool structural);
    void startJob(const Scenario &s, bool structural);
    void finishJob(const std::shared_ptr<BuildJob> &finished);
    void drain();
    void fail(const std::string &message);
};

/// Brings the engine to `s` now (small scenarios) or starts a rebuild (large ones).
void ScenarioDocument::Private::setState(const Scenario &s, bool structural)
{
    if (prebuilt) {
        install(std::move(prebuilt));
        emitChanged(structural);
        return;
    }
    if (shouldRunAsync(s)) {
        startJob(s, structural);
        return;
    }
    try {
        if (!structural && engine && sameFabricSpec(engine->fabric().spec(), s.fabric)) {
            engine->setMapping(Mapping(s.slots, engine->fabric().slotCount()));
            mapping = engine->mapping();
        } else {
            auto [fabric, router] = reusable(s.fabric);
            install(std::make_unique<CostEngine>(s, fabric, router));
        }
    } catch (const std::exception &e) {
        fail(e.what());
        return;
    }
    emitChanged(structural);
}

void ScenarioDocument::Private::startJob(const Scenario &s, bool structural)
{
    auto next = std::make_shared<BuildJob>();
    next->scenario = s;
    next->structural = structural;
    // Sharing the router is safe: while a job runs the UI thread does not evaluate (previews
    // are refused and edits are queued), so only the worker touches it.
    std::tie(next->fabric, next->router) = reusable(s.fabric);
    if (worker.joinable())
        worker.join(); // the previous job has delivered already; this returns at once
    job = next;
    ScenarioDocument *doc = q;
    worker = std::thread([next, doc] {
        try {
            next->engine = std::make_unique<CostEngine>(next->scenario, next->fabric, next->router);
        } catch (const std::exception &e) {
            next->error = e.what();
        }
        // Queued back to the document's thread. The destructor joins this thread first, and
        // Qt drops calls queued for a destroyed context object.
        QMetaObject::invokeMethod(doc, [doc, next] { doc->d->finishJob(next); }, Qt::QueuedConnection);
    });
    if (!announcedBusy) {
        announcedBusy = true;
        Q_EMIT q->evaluatingChanged(true);
    }
}

void ScenarioDocument::Private::finishJob(const std::shared_ptr<BuildJob> &finished)
{
    if (finished != job)
        return; // delivered already by waitForEvaluation()
    if (worker.joinable())
        worker.join();
    job.reset();
    if (!finished->error.empty() || !finished->engine) {
        fail(finished->error.empty() ? "the evaluation failed" : finished->error);
    } else {
        install(std::move(finished->engine));
        emitChanged(finished->structural);
    }
    drain();
    if (!busy() && announcedBusy) {
        announcedBusy = false;
        Q_EMIT q->evaluatingChanged(false);
    }
}

/// Applies the edits queued during a rebuild, in order. A whole state supersedes everything
/// queued before it; swaps after it wait for its rebuild when that runs off-thread too.
void ScenarioDocument::Private::drain()
{
    while (!busy() && !pending.empty()) {
        auto last = std::find_if(pending.rbegin(), pending.rend(),
                                 [](const PendingEdit &e) { return !e.isSwap; });
        if (last != pending.rend()) {
            const auto end = last.base(); // one past the last whole state
            bool structural = false;
            for (auto it = pending.begin(); it != end; ++it)
                structural = structural || (!it->isSwap && it->structural);
            const Scenario state = std::prev(end)->state;
            pending.erase(pending.begin(), end);
            setState(state, structural);
            continue;
        }
        for (const PendingEdit &e : pending) {
            engine->swapRanks(e.a, e.b);
            mapping.swapRanks(e.a, e.b);
        }
        pending.clear();
        emitChanged(false);
    }
}

/// The last resort when an evaluation throws although the checks before it passed: go back to
/// the evaluated state. The undo history no longer matches it, so it is dropped.
void ScenarioDocument::Private::fail(const std::string &message)
{
    pending.clear();
    prebuilt.reset();
    Scenario shown = engine->scenario();
    shown.slots = mapping.slots();
    scenario = shown;
    undoStack->clear();
    undoStack->resetClean();
    emitChanged(true);
    Q_EMIT q->evaluationFailed(QString::fromStdString(message));
}

ScenarioDocument::ScenarioDocument(QObject *parent)
    : QObject(parent)
    , d(std::make_unique<Private>(this))
{
    d->undoStack = new QUndoStack(this);
    connect(d->undoStack, &QUndoStack::cleanChanged, this,
            [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
    // A valid document from the start (one rank on the default fabric), so views never see
    // a null engine; the application loads its real scenario right after.
    Scenario initial;
    initial.name = "untitled";
    d->engine = std::make_unique<CostEngine>(initial);
    initial.slots = d->engine->mapping().slots();
    d->mapping = d->engine->mapping();
    d->scenario = std::move(initial);
}

ScenarioDocument::~ScenarioDocument()
{
    if (d->worker.joinable())
        d->worker.join();
    // The stack's commands point back here: take it down while the document is whole.
    d->undoStack->disconnect(this);
    delete d->undoStack;
}

void ScenarioDocument::load(const Scenario &scenario, const QString &filePath)
{
    waitForEvaluation();
    Scenario next = scenario;
    auto [fabric, router] = d->reusable(next.fabric);
    auto engine = std::make_unique<CostEngine>(next, fabric, router); // throws: nothing changed
    next.slots = engine->mapping().slots();

    d->preview.clear(); // the old engine's
    d->previewRequest.clear();
    d->prebuilt.reset();
    d->scenario = std::move(next);
    d->install(std::move(engine));
    d->filePath = filePath;
    d->undoStack->clear(); // clean: emits modifiedChanged(false) when it was modified
    Q_EMIT filePathChanged(filePath);
    d->emitChanged(true);
}

const Scenario &ScenarioDocument::scenario() const { return d->scenario; }
const CostEngine &ScenarioDocument::engine() const { return *d->engine; }
const CostReport &ScenarioDocument::report() const { return d->engine->report(); }
const Mapping &ScenarioDocument::mapping() const { return d->mapping; }
QUndoStack *ScenarioDocument::undoStack() const { return d->undoStack; }
QString ScenarioDocument::filePath() const { return d->filePath; }

void ScenarioDocument::setFilePath(const QString &path)
{
    d->filePath = path;
    d->undoStack->setClean();
    Q_EMIT filePathChanged(path);
}

bool ScenarioDocument::isModified() const
{
    return !d->undoStack->isClean();
}

void ScenarioDocument::swapRanks(int a, int b)
{
    const int world = static_cast<int>(d->scenario.slots.size());
    if (a < 0 || b < 0 || a >= world || b >= world || a == b)
        return;
    QString text = QStringLiteral("Swap rank %1 and rank %2").arg(a).arg(b);
    if (d->engine->layout().worldSize() == world)
        text = QStringLiteral("Swap %1 and %2").arg(coordText(*d->engine, a), coordText(*d->engine, b));
    d->undoStack->push(new SwapRanks(this, a, b, text));
}

void ScenarioDocument::moveRanks(const std::vector<std::pair<int, int>> &rankToSlot, const QString &text)
{
    const int world = static_cast<int>(d->scenario.slots.size());
    const int slotCount = static_cast<int>(slotCountOf(d->scenario));
    std::set<int> ranks, slots;
    for (const auto &[rank, slot] : rankToSlot) {
        if (rank < 0 || rank >= world || slot < 0 || slot >= slotCount
            || !ranks.insert(rank).second || !slots.insert(slot).second)
            return; // out of range or listed twice: not a move anyone can make
        if (!d->busy() && !d->slotUsable(slot))
            return; // onto failed hardware
    }
    // Swap each rank onto its target in turn. Targets are distinct, so a later swap never
    // displaces a rank placed earlier.
    Mapping m(d->scenario.slots, slotCount);
    std::vector<std::pair<int, int>> swaps;
    bool ontoSpareSlot = false;
    for (const auto &[rank, slot] : rankToSlot) {
        if (m.slotOf(rank) == slot)
            continue;
        const int occupant = m.rankAt(slot);
        if (occupant < 0) {
            ontoSpareSlot = true;
            m.moveRank(rank, slot);
        } else {
            swaps.emplace_back(rank, occupant);
            m.swapRanks(rank, occupant);
        }
    }
    if (m.slots() == d->scenario.slots)
        return;
    const QString label = text.isEmpty() ? QStringLiteral("Move %1 ranks").arg(rankToSlot.size()) : text;
    if (!ontoSpareSlot) {
        d->undoStack->push(new MoveRanks(this, std::move(swaps), label));
        return;
    }
    // A spare slot is not a swap partner: the engine takes the whole new mapping.
    Scenario after = d->scenario;
    after.slots = m.slots();
    after.mappingVersion = d->scenario.mappingVersion + 1;
    d->undoStack->push(new ChangeScenario(this, d->scenario, std::move(after), label, false));
}

void ScenarioDocument::applyPlacement(Placement placement)
{
    waitForEvaluation(); // the preset is computed from the current layout and fabric
    const ParallelLayout &layout = d->engine->layout();
    const Fabric &fabric = d->engine->fabric();
    std::vector<int> slots = Mapping::place(placement, layout, fabric).slots();
    if (!d->engine->scenario().failures.empty()) {
        // The preset on the healthy hardware: ranks whose preset slot failed move, whole TP
        // groups onto free lanes first, by the failure remap's placement rules.
        const remap_detail::Placed placed = remap_detail::placeRanks(
            layout, fabric, usableSlots(fabric, d->engine->scenario().failures), slots);
        if (placed.shortfall > 0) {
            Q_EMIT evaluationFailed(
                QStringLiteral("%1 ranks find no healthy GPU slot: the preset needs %2 slots; use "
                               "Study ▸ Failure Remap to drop replicas or stages")
                    .arg(placed.shortfall)
                    .arg(layout.worldSize()));
            return;
        }
        slots = placed.slots;
    }
    Scenario after = d->scenario;
    after.placement = placement;
    after.slots = std::move(slots);
    if (after.slots == d->scenario.slots && placement == d->scenario.placement)
        return;
    if (after.slots != d->scenario.slots)
        after.mappingVersion = d->scenario.mappingVersion + 1;
    d->undoStack->push(new ApplyPlacement(this, d->scenario, std::move(after)));
}

QString ScenarioDocument::editScenario(const Scenario &next, const QString &text)
{
    Scenario prepared = next;
    const Scenario &current = d->scenario;
    // The slot list belongs to the old layout when the degrees or the order change (rank r
    // has other coordinates now) or when it no longer fits the fabric; then the ranks are
    // re-placed with the placement. Bandwidth or workload edits keep the user's mapping.
    const bool layoutChanged = !sameDegrees(current.degrees, next.degrees) || current.order != next.order;
    const std::int64_t world = std::int64_t(next.degrees.tp) * next.degrees.pp * next.degrees.dp * next.degrees.cp;
    const std::int64_t slots = slotCountOf(next);
    const bool slotsFit = std::int64_t(next.slots.size()) == world
                          && std::all_of(next.slots.begin(), next.slots.end(),
                                         [slots](int s) { return s >= 0 && s < slots; });
    if (next.slots == current.slots && (layoutChanged || !slotsFit))
        prepared.slots.clear();

    std::unique_ptr<CostEngine> built;
    try {
        if (d->busy() || d->shouldRunAsync(prepared)) {
            // Check now, evaluate off the UI thread when the command lands.
            auto fabric = checkScenario(prepared, d->reusable(prepared.fabric).first);
            if (fabric != d->engine->sharedFabric())
                d->spareFabric = fabric;
        } else {
            auto [fabric, router] = d->reusable(prepared.fabric);
            built = std::make_unique<CostEngine>(prepared, fabric, router);
            prepared.slots = built->mapping().slots();
        }
    } catch (const std::exception &e) {
        return QString::fromUtf8(e.what());
    }
    if (sameScenario(prepared, current))
        return QString();
    if (prepared.slots != current.slots)
        prepared.mappingVersion = current.mappingVersion + 1;
    d->prebuilt = std::move(built);
    d->undoStack->push(new ChangeScenario(this, current, std::move(prepared),
                                          text.isEmpty() ? QStringLiteral("Edit scenario") : text));
    d->prebuilt.reset(); // consumed by the command's redo
    return QString();
}

void ScenarioDocument::previewSwap(int a, int b)
{
    const int world = d->engine->layout().worldSize();
    if (d->busy() || a < 0 || b < 0 || a >= world || b >= world)
        return;
    if (a == b) {
        endPreview();
        return;
    }
    if (d->preview.size() == 1 && d->previewRequest.empty()) {
        const PreviewStep &p = d->preview.front();
        if ((p.rank == a && p.other == b) || (p.rank == b && p.other == a))
            return;
    }
    d->dropPreview();
    d->previewStep(a, d->engine->mapping().slotOf(b));
    Q_EMIT reportChanged();
}

void ScenarioDocument::previewMove(int rank, int slot)
{
    const int world = d->engine->layout().worldSize();
    if (d->busy() || rank < 0 || rank >= world || slot < 0
        || slot >= d->engine->fabric().slotCount() || !d->slotUsable(slot))
        return;
    const int other = d->mapping.rankAt(slot);
    if (other >= 0) {
        previewSwap(rank, other);
        return;
    }
    if (d->preview.size() == 1 && d->previewRequest.empty() && d->preview.front().rank == rank
        && d->preview.front().other < 0 && d->engine->mapping().slotOf(rank) == slot)
        return;
    d->dropPreview();
    d->previewStep(rank, slot);
    Q_EMIT reportChanged();
}

void ScenarioDocument::previewMoves(const std::vector<std::pair<int, int>> &rankToSlot)
{
    if (d->busy())
        return;
    const int world = d->engine->layout().worldSize();
    const int slotCount = d->engine->fabric().slotCount();
    std::set<int> ranks, slots;
    for (const auto &[rank, slot] : rankToSlot) {
        if (rank < 0 || rank >= world || slot < 0 || slot >= slotCount
            || !ranks.insert(rank).second || !slots.insert(slot).second || !d->slotUsable(slot))
            return; // the same refusals as moveRanks()
    }
    if (!d->previewRequest.empty() && d->previewRequest == rankToSlot)
        return;
    const bool moves = std::any_of(rankToSlot.begin(), rankToSlot.end(), [this](const auto &m) {
        return d->mapping.slotOf(m.first) != m.second;
    });
    if (!moves) {
        endPreview();
        return;
    }
    // The same steps as moveRanks(), from the un-previewed mapping: each rank onto its target,
    // its occupant swapped out of the way. Targets are distinct, so no step undoes another.
    d->dropPreview();
    for (const auto &[rank, slot] : rankToSlot) {
        if (d->engine->mapping().slotOf(rank) != slot)
            d->previewStep(rank, slot);
    }
    d->previewRequest = rankToSlot;
    Q_EMIT reportChanged();
}

void ScenarioDocument::endPreview()
{
    if (!isPreviewing())
        return;
    d->dropPreview();
    Q_EMIT reportChanged();
}

bool ScenarioDocument::isPreviewing() const
{
    return !d->preview.empty();
}

bool ScenarioDocument::isEvaluating() const
{
    return d->busy();
}

void ScenarioDocument::waitForEvaluation()
{
    while (d->job) {
        const std::shared_ptr<BuildJob> running = d->job;
        if (d->worker.joinable())
            d->worker.join();
        d->finishJob(running); // may start the next queued rebuild
    }
}

void ScenarioDocument::setAsyncThreshold(int gpuSlots)
{
    d->asyncThreshold = std::max(0, gpuSlots);
}

int ScenarioDocument::asyncThreshold() const
{
    return d->asyncThreshold;
}

void ScenarioDocument::applyScenarioState(const Scenario &scenario, bool structural)
{
    d->dropPreview();
    d->scenario = scenario;
    if (d->busy()) {
        d->pending.push_back(PendingEdit{false, -1, -1, scenario, structural});
        return;
    }
    d->setState(scenario, structural);
}

void ScenarioDocument::applySwap(int a, int b)
{
    applySwaps({{a, b}});
}

void ScenarioDocument::applySwaps(const std::vector<std::pair<int, int>> &swaps)
{
    d->dropPreview();
    for (const auto &[a, b] : swaps)
        std::swap(d->scenario.slots[a], d->scenario.slots[b]);
    if (d->busy()) {
        for (const auto &[a, b] : swaps)
            d->pending.push_back(PendingEdit{true, a, b, {}, false});
        return;
    }
    for (const auto &[a, b] : swaps) {
        d->engine->swapRanks(a, b);
        d->mapping.swapRanks(a, b);
    }
    d->emitChanged(false);
}

void ScenarioDocument::applyMappingVersion(int version)
{
    d->scenario.mappingVersion = version;
}

} // namespace railyard
