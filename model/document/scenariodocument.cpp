#include "document/scenariodocument.h"

#include "document/applyplacement.h"
#include "document/changescenario.h"
#include "document/evaluator.h"
#include "document/moveranks.h"
#include "fabric/failedcomponent.h"
#include "scenario/scenariocheck.h"
#include "studies/remapplacement.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

namespace railyard {

namespace {

std::int64_t slotCountOf(const Scenario &s)
{
    return std::int64_t(s.fabric.servers) * s.fabric.gpusPerServer;
}

bool sameDegrees(const ParallelDegrees &a, const ParallelDegrees &b)
{
    return a.tp == b.tp && a.pp == b.pp && a.dp == b.dp && a.cp == b.cp && a.ep == b.ep;
}

} // namespace

ScenarioDocument::ScenarioDocument(QObject *parent)
    : QObject(parent)
    , m_undoStack(new QUndoStack(this))
    , m_evaluator(new Evaluator(this))
{
    connect(m_undoStack, &QUndoStack::cleanChanged, this,
            [this](bool clean) { Q_EMIT modifiedChanged(!clean); });
    connect(m_evaluator, &Evaluator::scenarioChanged, this, &ScenarioDocument::scenarioChanged);
    connect(m_evaluator, &Evaluator::mappingChanged, this, &ScenarioDocument::mappingChanged);
    connect(m_evaluator, &Evaluator::reportChanged, this, &ScenarioDocument::reportChanged);
    connect(m_evaluator, &Evaluator::evaluatingChanged, this, &ScenarioDocument::evaluatingChanged);
    connect(m_evaluator, &Evaluator::failed, this, &ScenarioDocument::onEvaluationFailed);
    m_scenario = m_evaluator->engine().scenario();
    m_scenario.slots = m_evaluator->mapping().slots();
}

ScenarioDocument::~ScenarioDocument()
{
    // The stack's commands point back here: take it down while the document is whole.
    m_undoStack->disconnect(this);
    delete m_undoStack;
}

void ScenarioDocument::load(const Scenario &scenario, const QString &filePath)
{
    waitForEvaluation();
    Scenario next = scenario;
    std::unique_ptr<CostEngine> engine = m_evaluator->build(next); // throws: nothing changed
    next.slots = engine->mapping().slots();
    m_scenario = std::move(next);
    m_filePath = filePath;
    m_undoStack->clear(); // clean: emits modifiedChanged(false) when it was modified
    Q_EMIT filePathChanged(filePath);
    m_evaluator->install(std::move(engine));
}

// Out of line: GCC 12's -Wnull-dereference flags these accessors when inlined into callers.
const Scenario &ScenarioDocument::scenario() const { return m_scenario; }
QUndoStack *ScenarioDocument::undoStack() const { return m_undoStack; }
Evaluator *ScenarioDocument::evaluator() const { return m_evaluator; }
QString ScenarioDocument::filePath() const { return m_filePath; }
const CostEngine &ScenarioDocument::engine() const { return m_evaluator->engine(); }
const CostReport &ScenarioDocument::report() const { return m_evaluator->report(); }
const Mapping &ScenarioDocument::mapping() const { return m_evaluator->mapping(); }

void ScenarioDocument::setFilePath(const QString &path)
{
    m_filePath = path;
    m_undoStack->setClean();
    Q_EMIT filePathChanged(path);
}

bool ScenarioDocument::isModified() const
{
    return !m_undoStack->isClean();
}

QString ScenarioDocument::rankText(int rank) const
{
    const CostEngine &e = engine();
    if (e.layout().worldSize() != static_cast<int>(m_scenario.slots.size()))
        return QStringLiteral("rank %1").arg(rank); // a rebuild for another layout is running
    const RankCoord c = e.layout().coord(rank);
    return QStringLiteral("rank %1 (d%2 p%3 t%4)").arg(rank).arg(c.d).arg(c.p).arg(c.t);
}

void ScenarioDocument::swapRanks(int a, int b)
{
    const int world = static_cast<int>(m_scenario.slots.size());
    if (a < 0 || b < 0 || a >= world || b >= world || a == b)
        return;
    moveRanks({{a, m_scenario.slots[static_cast<std::size_t>(b)]}},
              QStringLiteral("Swap %1 and %2").arg(rankText(a), rankText(b)));
}

void ScenarioDocument::moveRanks(const std::vector<std::pair<int, int>> &rankToSlot, const QString &text)
{
    const int world = static_cast<int>(m_scenario.slots.size());
    const int slotCount = static_cast<int>(slotCountOf(m_scenario));
    std::set<int> ranks, slots;
    for (const auto &[rank, slot] : rankToSlot) {
        if (rank < 0 || rank >= world || slot < 0 || slot >= slotCount
            || !ranks.insert(rank).second || !slots.insert(slot).second)
            return; // out of range or listed twice: not a move anyone can make
        if (!isEvaluating() && !m_evaluator->slotUsable(slot))
            return; // onto failed hardware
    }
    // Planned on the document's own mapping. It is the one on screen unless a rebuild runs
    // (then edits since are queued behind it), and building it costs a copy of the slots.
    std::optional<Mapping> queued;
    if (isEvaluating())
        queued.emplace(m_scenario.slots, slotCount);
    MovedRanks moves = planMoves(queued ? *queued : mapping(), rankToSlot);
    if (moves.empty())
        return;
    const QString label = text.isEmpty() ? QStringLiteral("Move %1 ranks").arg(rankToSlot.size()) : text;
    m_undoStack->push(new MoveRanks(this, std::move(moves), label));
}

void ScenarioDocument::applyPlacement(Placement placement)
{
    waitForEvaluation(); // the preset is computed from the current layout and fabric
    const ParallelLayout &layout = engine().layout();
    const Fabric &fabric = engine().fabric();
    std::vector<int> slots = Mapping::place(placement, layout, fabric).slots();
    if (!engine().scenario().failures.empty()) {
        // The preset on the healthy hardware: ranks whose preset slot failed move, whole TP
        // groups onto free lanes first, by the failure remap's placement rules.
        const remap_detail::Placed placed = remap_detail::placeRanks(
            layout, fabric, usableSlots(fabric, engine().scenario().failures), slots);
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
    Scenario after = m_scenario;
    after.placement = placement;
    after.slots = std::move(slots);
    if (after.slots == m_scenario.slots && placement == m_scenario.placement)
        return;
    if (after.slots != m_scenario.slots)
        after.mappingVersion = m_scenario.mappingVersion + 1;
    m_undoStack->push(new ApplyPlacement(this, m_scenario, std::move(after)));
}

QString ScenarioDocument::editScenario(const Scenario &next, const QString &text)
{
    Scenario prepared = next;
    const Scenario &current = m_scenario;
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

    if (const QString message = m_evaluator->prepare(prepared); !message.isEmpty())
        return message;
    if (sameScenario(prepared, current)) {
        m_evaluator->discardPrepared();
        return QString();
    }
    if (prepared.slots != current.slots)
        prepared.mappingVersion = current.mappingVersion + 1;
    m_undoStack->push(new ChangeScenario(this, current, std::move(prepared),
                                         text.isEmpty() ? QStringLiteral("Edit scenario") : text));
    m_evaluator->discardPrepared(); // consumed by the command's redo
    return QString();
}

void ScenarioDocument::previewSwap(int a, int b)
{
    const int world = engine().layout().worldSize();
    if (a < 0 || b < 0 || a >= world || b >= world)
        return;
    if (a == b) {
        endPreview();
        return;
    }
    m_evaluator->preview({{a, mapping().slotOf(b)}});
}

void ScenarioDocument::previewMove(int rank, int slot)
{
    m_evaluator->preview({{rank, slot}});
}

void ScenarioDocument::previewMoves(const std::vector<std::pair<int, int>> &rankToSlot)
{
    m_evaluator->preview(rankToSlot);
}

void ScenarioDocument::endPreview() { m_evaluator->endPreview(); }
bool ScenarioDocument::isPreviewing() const { return m_evaluator->isPreviewing(); }
bool ScenarioDocument::isEvaluating() const { return m_evaluator->isEvaluating(); }
void ScenarioDocument::waitForEvaluation() { m_evaluator->waitForEvaluation(); }
void ScenarioDocument::setAsyncThreshold(int gpuSlots) { m_evaluator->setAsyncThreshold(gpuSlots); }
int ScenarioDocument::asyncThreshold() const { return m_evaluator->asyncThreshold(); }
PartnerRoutes ScenarioDocument::partnerRoutes(int rank) { return m_evaluator->partnerRoutes(rank); }

void ScenarioDocument::applyMoves(const MovedRanks &moves, int mappingVersion)
{
    for (const MovedRank &m : moves)
        m_scenario.slots[static_cast<std::size_t>(m.rank)] = m.to;
    m_scenario.mappingVersion = mappingVersion;
    m_evaluator->applyMoves(moves);
}

void ScenarioDocument::applyState(const Scenario &scenario, bool structural)
{
    m_scenario = scenario;
    m_evaluator->setScenario(scenario, structural);
}

/// The last resort when an evaluation throws although the checks before it passed: go back to
/// the evaluated state. The undo history no longer matches it, so it is dropped.
void ScenarioDocument::onEvaluationFailed(const QString &message)
{
    Scenario shown = engine().scenario();
    shown.slots = mapping().slots();
    m_scenario = std::move(shown);
    m_undoStack->clear();
    m_undoStack->resetClean();
    Q_EMIT scenarioChanged();
    Q_EMIT reportChanged(ReportChange{{}, true, false});
    Q_EMIT evaluationFailed(message);
}

} // namespace railyard
