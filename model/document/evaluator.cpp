#include "document/evaluator.h"

#include "cost/nccltuning.h"
#include "cost/scenariocheck.h"
#include "fabric/failedcomponent.h"

#include <QtConcurrent/QtConcurrentRun>

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <utility>
#include <vector>

namespace railyard {

namespace {

/// Puts each listed rank on its slot in one engine step (CostEngine::moveRanks(): every group
/// of the moved ranks re-planned once, one report). Targets are distinct and every displaced
/// rank is listed, so the batch is one the engine accepts.
void placeOnEngine(CostEngine &engine, const std::vector<std::pair<int, int>> &rankToSlot)
{
    std::vector<std::pair<int, int>> batch;
    batch.reserve(rankToSlot.size());
    for (const auto &[rank, slot] : rankToSlot)
        if (engine.mapping().slotOf(rank) != slot)
            batch.emplace_back(rank, slot);
    if (!batch.empty())
        engine.moveRanks(batch);
}

/// A complete move list applied to the engine: each rank onto its `to` slot.
void moveOnEngine(CostEngine &engine, const MovedRanks &moves)
{
    std::vector<std::pair<int, int>> rankToSlot;
    rankToSlot.reserve(moves.size());
    for (const MovedRank &m : moves)
        rankToSlot.emplace_back(m.rank, m.to);
    placeOnEngine(engine, rankToSlot);
}

} // namespace

/** One engine rebuild on the thread pool: its input, then its output. */
struct Evaluator::Job
{
    Scenario scenario;
    bool structural = false;
    std::shared_ptr<const Fabric> fabric;
    std::shared_ptr<Router> router;
    std::unique_ptr<CostEngine> engine;
    std::string error;
};

Evaluator::Evaluator(QObject *parent)
    : QObject(parent)
{
    connect(&m_watcher, &QFutureWatcherBase::finished, this, &Evaluator::onJobFinished);
    // A valid evaluation from the start (one rank on the default fabric), so views never see a
    // null engine; the document loads its real scenario right after.
    Scenario initial;
    initial.name = "untitled";
    show(std::make_unique<CostEngine>(initial));
}

Evaluator::~Evaluator()
{
    if (m_job)
        m_watcher.waitForFinished(); // the job shares the fabric and router with us
}

std::pair<std::shared_ptr<const Fabric>, std::shared_ptr<Router>> Evaluator::reusable(
    const FabricSpec &spec) const
{
    if (m_engine && sameFabricSpec(m_engine->fabric().spec(), spec))
        return { m_engine->sharedFabric(), m_engine->sharedRouter() };
    if (m_spareFabric && sameFabricSpec(m_spareFabric->spec(), spec))
        return { m_spareFabric, nullptr };
    return { nullptr, nullptr };
}

std::unique_ptr<CostEngine> Evaluator::build(const Scenario &scenario) const
{
    auto [fabric, router] = reusable(scenario.fabric);
    return std::make_unique<CostEngine>(scenario, fabric, router);
}

bool Evaluator::runsAsync(const Scenario &scenario) const
{
    const std::int64_t shown = m_engine ? m_engine->fabric().slotCount() : 0;
    return std::max(scenario.fabric.slotCount(), shown) > m_asyncThreshold;
}

void Evaluator::show(std::unique_ptr<CostEngine> engine)
{
    m_engine = std::move(engine);
    m_committed.reset();
    m_previewMoves.clear();
    const LinkLoadTable &links = m_engine->report().links;
    m_shownBytes.resize(links.size());
    for (std::size_t i = 0; i < links.size(); ++i)
        m_shownBytes[i] = links[i].bytes;
    if (m_spareFabric == m_engine->sharedFabric())
        m_spareFabric.reset();
    m_usableFor = nullptr; // another engine may reuse the old one's address
    ++m_engineUpdates;
}

void Evaluator::install(std::unique_ptr<CostEngine> engine)
{
    m_prepared.reset();
    show(std::move(engine));
    announceRebuild(true);
}

std::vector<int> Evaluator::takeChangedLinks()
{
    // The engine's report is the truth; compare it with what was last announced. Every link is
    // one comparison (microseconds at 16k GPUs), and the list names exactly the links whose
    // load a view shows differently now.
    const LinkLoadTable &links = m_engine->report().links;
    std::vector<int> changed;
    for (std::size_t i = 0; i < links.size(); ++i) {
        if (links[i].bytes != m_shownBytes[i]) {
            m_shownBytes[i] = links[i].bytes;
            changed.push_back(static_cast<int>(i));
        }
    }
    return changed;
}

void Evaluator::announceRebuild(bool structural)
{
    if (structural) {
        Q_EMIT scenarioChanged();
        Q_EMIT reportChanged(ReportChange { {}, true, false });
    } else {
        Q_EMIT mappingChanged(MappingChange { {}, true, ReportChange { {}, true, false } });
    }
}

QString Evaluator::prepare(Scenario &scenario)
{
    m_prepared.reset();
    try {
        if (m_job || runsAsync(scenario)) {
            // Checked now, evaluated off the UI thread when the command lands.
            auto fabric = checkScenario(scenario, reusable(scenario.fabric).first);
            if (fabric != m_engine->sharedFabric())
                m_spareFabric = fabric;
        } else {
            m_prepared = build(scenario);
            scenario.slots = m_prepared->mapping().slots();
        }
    } catch (const std::exception &e) {
        m_prepared.reset();
        return QString::fromUtf8(e.what());
    }
    return QString();
}

void Evaluator::discardPrepared()
{
    m_prepared.reset();
}

void Evaluator::setScenario(const Scenario &scenario, bool structural)
{
    if (m_job) {
        m_pending.push_back(Pending { true, scenario, structural, {} });
        return;
    }
    revertPreview();
    setState(scenario, structural);
}

bool Evaluator::setState(const Scenario &scenario, bool structural)
{
    if (m_prepared) {
        show(std::move(m_prepared));
        announceRebuild(structural);
        return true;
    }
    if (runsAsync(scenario)) {
        startJob(scenario, structural);
        return false;
    }
    bool mappingOnly = false;
    MovedRanks moves;
    try {
        if (!structural && sameFabricSpec(m_engine->fabric().spec(), scenario.fabric)) {
            const Mapping next(scenario.slots, m_engine->fabric().slotCount());
            const Mapping &shown = m_engine->mapping();
            for (int r = 0; r < std::min(next.rankCount(), shown.rankCount()); ++r) {
                if (next.slotOf(r) != shown.slotOf(r))
                    moves.push_back({ r, shown.slotOf(r), next.slotOf(r) });
            }
            m_engine->setMapping(next);
            ++m_engineUpdates;
            mappingOnly = true;
        } else {
            show(build(scenario));
        }
    } catch (const std::exception &e) {
        fail(e.what());
        return false;
    }
    if (mappingOnly)
        Q_EMIT mappingChanged(
            MappingChange { std::move(moves), false, ReportChange { takeChangedLinks() } });
    else
        announceRebuild(structural);
    return true;
}

void Evaluator::startJob(const Scenario &scenario, bool structural)
{
    auto job = std::make_shared<Job>();
    job->scenario = scenario;
    job->structural = structural;
    // Sharing the router is safe: while a job runs nothing on the UI thread evaluates
    // (previews are refused, changes queued; partnerRoutes() has its own router).
    std::tie(job->fabric, job->router) = reusable(scenario.fabric);
    m_job = job;
    m_watcher.setFuture(QtConcurrent::run([job] {
        try {
            job->engine = std::make_unique<CostEngine>(job->scenario, job->fabric, job->router);
        } catch (const std::exception &e) {
            job->error = e.what();
        }
    }));
    if (!m_announcedBusy) {
        m_announcedBusy = true;
        Q_EMIT evaluatingChanged(true);
    }
}

void Evaluator::onJobFinished()
{
    // A finished signal of a job that waitForEvaluation() delivered already finds another
    // (unfinished) future, or none.
    if (m_job && m_watcher.future().isFinished())
        finishJob();
}

void Evaluator::waitForEvaluation()
{
    while (m_job) {
        m_watcher.waitForFinished();
        finishJob(); // may start the next queued rebuild
    }
}

void Evaluator::finishJob()
{
    const std::shared_ptr<Job> job = std::exchange(m_job, nullptr);
    if (!job->error.empty() || !job->engine) {
        fail(job->error.empty() ? "the evaluation failed" : job->error);
    } else {
        show(std::move(job->engine));
        announceRebuild(job->structural);
        drain();
    }
    if (!m_job && m_announcedBusy) {
        m_announcedBusy = false;
        Q_EMIT evaluatingChanged(false);
    }
}

/// Applies the changes queued during a rebuild, in order. A whole state supersedes everything
/// queued before it (it was taken from the document after those); moves after it wait for its
/// rebuild when that runs off the UI thread too.
void Evaluator::drain()
{
    while (!m_job && !m_pending.empty()) {
        auto last = std::find_if(
            m_pending.rbegin(), m_pending.rend(), [](const Pending &p) { return p.isState; });
        if (last != m_pending.rend()) {
            const auto end = last.base(); // one past the last whole state
            bool anyStructural = false;
            for (auto it = m_pending.begin(); it != end; ++it)
                anyStructural = anyStructural || (it->isState && it->structural);
            const Scenario state = std::prev(end)->state;
            m_pending.erase(m_pending.begin(), end);
            setState(state, anyStructural);
            continue;
        }
        try {
            for (const Pending &p : m_pending)
                moveOnEngine(*m_engine, p.moves);
        } catch (const std::exception &e) {
            fail(e.what());
            return;
        }
        m_pending.clear();
        ++m_engineUpdates;
        Q_EMIT mappingChanged(MappingChange { {}, true, ReportChange { takeChangedLinks() } });
    }
}

/// The last resort when an evaluation throws although the checks before it passed: the last
/// evaluated state stays; the document goes back to it.
void Evaluator::fail(const std::string &message)
{
    m_pending.clear();
    m_prepared.reset();
    Q_EMIT failed(QString::fromStdString(message));
}

void Evaluator::applyMoves(const MovedRanks &moves)
{
    if (m_job) {
        m_pending.push_back(Pending { false, {}, false, moves });
        return;
    }
    if (isPreviewing() && moves == m_previewMoves) {
        // The drop of what the preview shows: the engine is there already.
        m_committed.reset();
        m_previewMoves.clear();
    } else {
        revertPreview();
        try {
            moveOnEngine(*m_engine, moves);
        } catch (const std::exception &e) {
            fail(e.what());
            return;
        }
        ++m_engineUpdates;
    }
    Q_EMIT mappingChanged(MappingChange { moves, false, ReportChange { takeChangedLinks() } });
}

void Evaluator::revertPreview()
{
    if (!isPreviewing())
        return;
    moveOnEngine(*m_engine, inverseMoves(m_previewMoves)); // back onto usable slots only
    m_committed.reset();
    m_previewMoves.clear();
    ++m_engineUpdates;
}

void Evaluator::preview(const std::vector<std::pair<int, int>> &rankToSlot)
{
    if (m_job)
        return; // the engine is being replaced
    const int world = m_engine->layout().worldSize();
    const int slotCount = m_engine->fabric().slotCount();
    std::set<int> ranks, slots;
    for (const auto &[rank, slot] : rankToSlot) {
        if (rank < 0 || rank >= world || slot < 0 || slot >= slotCount || !ranks.insert(rank).second
            || !slots.insert(slot).second || !slotUsable(slot))
            return; // the same refusals as an edit: the preview stays as it was
    }
    MovedRanks moves = planMoves(mapping(), rankToSlot);
    if (moves.empty()) {
        endPreview();
        return;
    }
    if (isPreviewing() && moves == m_previewMoves)
        return;
    // Each step's figures are those of the committed mapping with this step's moves, never
    // built on the previous step's: one engine step takes the previous step's ranks back to
    // their committed slots and this step's onto their targets.
    if (isPreviewing()) {
        std::map<int, int> target;
        for (const MovedRank &m : m_previewMoves)
            target[m.rank] = m.from;
        for (const MovedRank &m : moves)
            target[m.rank] = m.to;
        placeOnEngine(*m_engine, { target.begin(), target.end() });
    } else {
        m_committed = m_engine->mapping();
        moveOnEngine(*m_engine, moves);
    }
    m_previewMoves = std::move(moves);
    ++m_engineUpdates;
    Q_EMIT reportChanged(ReportChange { takeChangedLinks(), false, true });
}

void Evaluator::endPreview()
{
    if (!isPreviewing())
        return;
    revertPreview();
    Q_EMIT reportChanged(ReportChange { takeChangedLinks(), false, false });
}

bool Evaluator::slotUsable(int slot)
{
    const std::vector<FailedComponent> &failures = m_engine->scenario().failures;
    if (failures.empty())
        return true;
    if (m_usableFor != m_engine.get()) {
        m_usable = usableSlots(m_engine->fabric(), failures);
        m_usableFor = m_engine.get();
    }
    return slot >= 0 && slot < static_cast<int>(m_usable.size())
        && m_usable[static_cast<std::size_t>(slot)];
}

PartnerRoutes Evaluator::partnerRoutes(int rank)
{
    // A multi-plane fabric's routes avoid the failed leaves' ports (Router), so the router is
    // rebuilt when the failures it routes around change as well as with the fabric.
    std::vector<char> failed = routedFailures(m_engine->fabric(), m_engine->scenario().failures);
    if (m_routesFabric != m_engine->sharedFabric() || !m_routes
        || m_routes->failedLeaves() != failed) {
        m_routesFabric = m_engine->sharedFabric();
        m_routes = std::make_unique<Router>(*m_routesFabric, std::move(failed));
    }
    // The routes the engine used: TP and DP planned with the algorithms its report says ran.
    const Scenario &s = m_engine->scenario();
    PartnerRouteContext context;
    context.fabric = m_routesFabric.get();
    context.report = &m_engine->report();
    context.nvlsEfficiency
        = nccltuning::deviceTuning(s.device, s.collectives, s.calibration).nvlsEfficiency;
    context.dpShard = s.training.fsdpShard;
    return railyard::partnerRoutes(m_engine->layout(), mapping(), *m_routes, rank, context);
}

} // namespace railyard
