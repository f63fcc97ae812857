#include "document/scenariodocument.h"

#include "base/text.h"
#include "cost/scenariocheck.h"
#include "document/applyplacement.h"
#include "document/changecatalogue.h"
#include "document/changescenario.h"
#include "document/activejob.h"
#include "document/changewhiteboard.h"
#include "document/evaluator.h"
#include "document/moveranks.h"
#include "fabric/failedcomponent.h"
#include "studies/bomcost.h"
#include "studies/remapplacement.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <set>

namespace railyard {

namespace {

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
    // With jobs the first is the active one, on its own device (document/activejob.h).
    const DeviceSpec sharedDevice = scenario.device;
    activejob::activate(next, 0, sharedDevice);
    std::unique_ptr<CostEngine> engine = m_evaluator->build(next); // throws: nothing changed
    next.slots = engine->mapping().slots();
    m_scenario = std::move(next);
    m_sharedDevice = sharedDevice;
    const bool jobChanged = m_activeJob != 0;
    m_activeJob = 0;
    refreshJobSlots();
    m_filePath = filePath;
    m_undoStack->clear(); // clean: emits modifiedChanged(false) when it was modified
    // QUndoStack::clear() returns early on an empty stack, so a stack made never-clean with
    // nothing on it (a crash restore's resetClean()) would stay "modified" with nothing to
    // undo: the loaded file is clean whatever the stack was.
    m_undoStack->setClean();
    Q_EMIT filePathChanged(filePath);
    m_evaluator->install(std::move(engine));
    if (jobChanged)
        Q_EMIT activeJobChanged(0);
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
    const int slotCount = static_cast<int>(m_scenario.fabric.slotCount());
    std::set<int> ranks, slots;
    for (const auto &[rank, slot] : rankToSlot) {
        if (rank < 0 || rank >= world || slot < 0 || slot >= slotCount
            || !ranks.insert(rank).second || !slots.insert(slot).second)
            return; // out of range or listed twice: not a move anyone can make
        if (!isEvaluating() && !m_evaluator->slotUsable(slot))
            return; // onto failed hardware
    }
    if (!moveRefusal(rankToSlot).isEmpty())
        return; // onto another job's GPU
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
    if (!engine().scenario().failures.empty() || fabric.cabled()) {
        // The preset on the healthy hardware: ranks whose preset slot failed (or whose NIC has
        // no cable) move, whole TP groups onto free lanes first, by the failure remap's rules.
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
    if (!m_scenario.jobs.empty()) { // a preset packs from GPU 0: other jobs may sit there
        std::vector<std::pair<int, int>> moves;
        for (std::size_t r = 0; r < slots.size(); ++r)
            moves.emplace_back(static_cast<int>(r), slots[r]);
        if (const QString refusal = moveRefusal(moves); !refusal.isEmpty()) {
            Q_EMIT evaluationFailed(QStringLiteral("The preset would put ranks on another job's "
                                                   "GPUs (%1); move the job as a whole instead")
                                        .arg(refusal));
            return;
        }
    }
    Scenario after = m_scenario;
    after.placement = placement;
    after.slots = std::move(slots);
    // Ranks already where the preset puts them: no step, even when the file named another
    // preset (a packed seed-128 is also rail-aligned); an empty step would only mark it modified.
    if (after.slots == m_scenario.slots)
        return;
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
    const std::int64_t slots = next.fabric.slotCount();
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

const EcmpReport *ScenarioDocument::ecmpReport() const
{
    if (isEvaluating() || isPreviewing())
        return nullptr;
    const CostEngine &e = engine();
    const EcmpRouting &routing = e.scenario().fabric.routing;
    if (routing.mode == EcmpMode::Ideal)
        return nullptr;
    const int world = e.layout().worldSize();
    std::vector<int> slots(static_cast<std::size_t>(world));
    for (int r = 0; r < world; ++r)
        slots[static_cast<std::size_t>(r)] = e.mapping().slotOf(r);
    if (!m_ecmp || m_ecmpEngine != &e || m_ecmp->routing != routing || m_ecmpSlots != slots
        || m_ecmpIteration != e.report().iterationTime) {
        m_ecmp = e.ecmp(routing);
        m_ecmpEngine = &e;
        m_ecmpSlots = std::move(slots);
        m_ecmpIteration = e.report().iterationTime;
    }
    return &*m_ecmp;
}
bool ScenarioDocument::isEvaluating() const { return m_evaluator->isEvaluating(); }
void ScenarioDocument::waitForEvaluation() { m_evaluator->waitForEvaluation(); }
void ScenarioDocument::setAsyncThreshold(int gpuSlots) { m_evaluator->setAsyncThreshold(gpuSlots); }
int ScenarioDocument::asyncThreshold() const { return m_evaluator->asyncThreshold(); }
PartnerRoutes ScenarioDocument::partnerRoutes(int rank) { return m_evaluator->partnerRoutes(rank); }

void ScenarioDocument::applyMoves(const MovedRanks &moves, int mappingVersion, int job)
{
    if (job != m_activeJob)
        setActiveJob(job); // undo or redo of another job's drag: show that job again
    for (const MovedRank &m : moves)
        m_scenario.slots[static_cast<std::size_t>(m.rank)] = m.to;
    m_scenario.mappingVersion = mappingVersion;
    m_evaluator->applyMoves(moves);
}

void ScenarioDocument::applyState(const Scenario &scenario, bool structural, int job)
{
    const bool jobChanged = job != m_activeJob;
    m_scenario = scenario;
    m_activeJob = job;
    refreshJobSlots();
    // Another active job, or other jobs moved: the fabric's chips are all read again.
    m_evaluator->setScenario(scenario, structural || jobChanged);
    if (jobChanged)
        Q_EMIT activeJobChanged(job);
}

void ScenarioDocument::applyWhiteboard(const std::vector<Annotation> &annotations,
                                       const std::vector<Snapshot> &snapshots)
{
    const bool notes = annotations != m_scenario.annotations;
    const bool versions = snapshots != m_scenario.snapshots;
    m_scenario.annotations = annotations;
    m_scenario.snapshots = snapshots;
    if (notes)
        Q_EMIT annotationsChanged();
    if (versions)
        Q_EMIT snapshotsChanged();
}

void ScenarioDocument::applyCatalogue(const std::optional<PartsCatalogue> &catalogue)
{
    m_scenario.catalogue = catalogue;
    Q_EMIT catalogueChanged();
}

void ScenarioDocument::setCatalogue(std::optional<PartsCatalogue> catalogue, const QString &text)
{
    if (catalogue == m_scenario.catalogue)
        return;
    m_undoStack->push(new ChangeCatalogue(this, m_scenario.catalogue, std::move(catalogue), text));
}

PricedBom ScenarioDocument::pricedBom() const
{
    return priceScenarioBom(engine().fabric(), m_scenario, report());
}

void ScenarioDocument::pushWhiteboard(std::vector<Annotation> annotations, std::vector<Snapshot> snapshots,
                                      const QString &text)
{
    ChangeWhiteboard::State before{m_scenario.annotations, m_scenario.snapshots};
    ChangeWhiteboard::State after{std::move(annotations), std::move(snapshots)};
    if (before == after)
        return;
    m_undoStack->push(new ChangeWhiteboard(this, std::move(before), std::move(after), text));
}

int ScenarioDocument::addAnnotation(const Annotation &annotation)
{
    std::vector<Annotation> next = m_scenario.annotations;
    next.push_back(annotation);
    const QString what = annotation.kind == Annotation::Kind::Note ? QStringLiteral("note") : QStringLiteral("arrow");
    pushWhiteboard(std::move(next), m_scenario.snapshots,
                   QStringLiteral("Add %1 on %2").arg(what, QString::fromStdString(anchorText(annotation.anchor))));
    return static_cast<int>(m_scenario.annotations.size()) - 1;
}

void ScenarioDocument::editAnnotation(int index, const Annotation &annotation, const QString &text)
{
    if (index < 0 || index >= static_cast<int>(m_scenario.annotations.size()))
        return;
    std::vector<Annotation> next = m_scenario.annotations;
    next[static_cast<std::size_t>(index)] = annotation;
    pushWhiteboard(std::move(next), m_scenario.snapshots, text.isEmpty() ? QStringLiteral("Edit note") : text);
}

void ScenarioDocument::removeAnnotation(int index)
{
    if (index < 0 || index >= static_cast<int>(m_scenario.annotations.size()))
        return;
    std::vector<Annotation> next = m_scenario.annotations;
    const Annotation gone = next[static_cast<std::size_t>(index)];
    next.erase(next.begin() + index);
    pushWhiteboard(std::move(next), m_scenario.snapshots,
                   QStringLiteral("Delete %1 on %2")
                       .arg(gone.kind == Annotation::Kind::Note ? QStringLiteral("note") : QStringLiteral("arrow"),
                            QString::fromStdString(anchorText(gone.anchor))));
}

bool ScenarioDocument::takeSnapshot(const QString &name, const QString &takenAt)
{
    const std::string n = name.trimmed().toStdString();
    if (n.empty() || !isPrintableUtf8(n)) // what the file reader would refuse to load
        return false;
    for (const Snapshot &s : m_scenario.snapshots)
        if (s.name == n)
            return false;
    waitForEvaluation(); // the mapping as it will be shown, queued edits included
    std::vector<Snapshot> next = m_scenario.snapshots;
    next.push_back(railyard::takeSnapshot(m_scenario, n, takenAt.toStdString()));
    pushWhiteboard(m_scenario.annotations, std::move(next), QStringLiteral("Take snapshot \"%1\"").arg(name.trimmed()));
    return true;
}

bool ScenarioDocument::renameSnapshot(int index, const QString &name)
{
    const std::string n = name.trimmed().toStdString();
    if (index < 0 || index >= static_cast<int>(m_scenario.snapshots.size()) || n.empty()
        || !isPrintableUtf8(n))
        return false;
    for (std::size_t i = 0; i < m_scenario.snapshots.size(); ++i)
        if (m_scenario.snapshots[i].name == n)
            return static_cast<int>(i) == index;
    std::vector<Snapshot> next = m_scenario.snapshots;
    const QString old = QString::fromStdString(next[static_cast<std::size_t>(index)].name);
    next[static_cast<std::size_t>(index)].name = n;
    pushWhiteboard(m_scenario.annotations, std::move(next),
                   QStringLiteral("Rename snapshot \"%1\" to \"%2\"").arg(old, name.trimmed()));
    return true;
}

void ScenarioDocument::removeSnapshot(int index)
{
    if (index < 0 || index >= static_cast<int>(m_scenario.snapshots.size()))
        return;
    std::vector<Snapshot> next = m_scenario.snapshots;
    const QString name = QString::fromStdString(next[static_cast<std::size_t>(index)].name);
    next.erase(next.begin() + index);
    pushWhiteboard(m_scenario.annotations, std::move(next), QStringLiteral("Delete snapshot \"%1\"").arg(name));
}

QString ScenarioDocument::restoreSnapshot(int index)
{
    if (index < 0 || index >= static_cast<int>(m_scenario.snapshots.size()))
        return QStringLiteral("no snapshot %1").arg(index);
    const Snapshot &snap = m_scenario.snapshots[static_cast<std::size_t>(index)];
    if (matchesSnapshot(m_scenario, snap))
        return QString();
    return editScenario(withSnapshot(m_scenario, snap),
                        QStringLiteral("Restore snapshot \"%1\"").arg(QString::fromStdString(snap.name)));
}

int ScenarioDocument::currentSnapshot() const
{
    for (std::size_t i = 0; i < m_scenario.snapshots.size(); ++i)
        if (matchesSnapshot(m_scenario, m_scenario.snapshots[i]))
            return static_cast<int>(i);
    return -1;
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
