#pragma once

#include "cost/costengine.h"
#include "cost/partnerroutes.h"
#include "document/changeevents.h"
#include "scenario/scenario.h"

#include <QFutureWatcher>
#include <QObject>
#include <QString>

#include <deque>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace railyard {

/**
 * The evaluation on screen: the CostEngine for the document's scenario, its background
 * rebuilds and the drag preview laid over it. ScenarioDocument owns one and tells it every
 * change; views read engine(), report() and mapping() through the document.
 *
 * Moves update the engine incrementally on the UI thread. Structural changes rebuild it,
 * sharing the Fabric and Router when the fabric spec is unchanged; above asyncThreshold() GPU
 * slots the rebuild runs on Qt's thread pool (QtConcurrent::run, delivered through a
 * QFutureWatcher) while the previous engine and report stay visible (isEvaluating()). Changes
 * that arrive meanwhile are queued and applied in order when the rebuild lands, so none is lost
 * and no two threads touch one engine.
 *
 * A preview moves ranks on the engine only (mapping() stays the committed one) and is undone
 * by endPreview() or the next change; when the next change is exactly the previewed moves (the
 * drop after its preview), the engine is already there and is kept as it is.
 *
 * Every change is announced once: scenarioChanged() then reportChanged() (all links) for a
 * rebuild, mappingChanged() for moves, reportChanged() for a preview step. The links named are
 * those whose load differs from the previous announcement.
 */
class Evaluator : public QObject
{
    Q_OBJECT

public:
    explicit Evaluator(QObject *parent = nullptr);
    ~Evaluator() override;

    const CostEngine &engine() const { return *m_engine; }
    const CostReport &report() const { return m_engine->report(); }
    /// The mapping on screen without the preview's moves (engine().mapping() has them).
    const Mapping &mapping() const { return m_committed ? *m_committed : m_engine->mapping(); }

    /// An engine for `scenario`, sharing the fabric (and router) on screen when it fits.
    /// Throws ScenarioError like the CostEngine constructor.
    std::unique_ptr<CostEngine> build(const Scenario &scenario) const;
    /// Show `engine` from now on (File > Open): drops any preview; one rebuild announcement.
    /// Call waitForEvaluation() first.
    void install(std::unique_ptr<CostEngine> engine);

    /// Validates an edit before its command is pushed: builds its engine now (kept for the
    /// next setScenario()) or, when it will be rebuilt off the UI thread, checks it and keeps
    /// its fabric. Fills `scenario.slots` from the placement when it has none and the engine
    /// is built here. Returns the message of the first problem, or an empty string.
    QString prepare(Scenario &scenario);
    /// Drops what prepare() built (its command did not use it).
    void discardPrepared();

    /// Evaluate `scenario` from now on. `structural` = more than the mapping changed.
    void setScenario(const Scenario &scenario, bool structural);
    /// Apply an edit's moves (planned on the document's mapping).
    void applyMoves(const MovedRanks &moves);

    /// Preview ranks on slots (planMoves() semantics, from mapping()): the links show the load
    /// as if dropped. Ignored while isEvaluating(); the same request again does nothing.
    void preview(const std::vector<std::pair<int, int>> &rankToSlot);
    void endPreview();
    bool isPreviewing() const { return m_committed.has_value(); }

    /// False for a slot a failed server, GPU, NIC or leaf made unusable (the engine refuses
    /// ranks there). Follows the engine on screen.
    bool slotUsable(int slot);

    bool isEvaluating() const { return m_job != nullptr; }
    /// Blocks until every queued evaluation has landed (Save, tests, --screenshot).
    void waitForEvaluation();
    /// True when a rebuild for `scenario` would run off the UI thread.
    bool runsAsync(const Scenario &scenario) const;
    void setAsyncThreshold(int gpuSlots) { m_asyncThreshold = std::max(0, gpuSlots); }
    int asyncThreshold() const { return m_asyncThreshold; }

    /// `rank`'s partners and the links of its routes to them, on screen (with a router of
    /// its own: the engine's may be busy on a worker thread).
    PartnerRoutes partnerRoutes(int rank);

    /// How often the engine was changed: a rebuild landing, an edit's moves, a preview step
    /// or its end. A drop after its preview adds none.
    int engineUpdates() const { return m_engineUpdates; }

Q_SIGNALS:
    void scenarioChanged();
    void mappingChanged(const railyard::MappingChange &change);
    void reportChanged(const railyard::ReportChange &change);
    void evaluatingChanged(bool evaluating);
    /// A rebuild or a mapping threw although prepare() passed; the queued changes are dropped
    /// and the last evaluated state stays. The document then resets to it.
    void failed(const QString &message);

private:
    struct Job;
    struct Pending
    {
        bool isState = false;
        Scenario state;
        bool structural = false;
        MovedRanks moves;
    };

    std::pair<std::shared_ptr<const Fabric>, std::shared_ptr<Router>> reusable(
        const FabricSpec &spec) const;
    void show(std::unique_ptr<CostEngine> engine);
    /// Brings the engine to `scenario` now and announces it, or starts a rebuild; false when
    /// nothing landed now (a rebuild started, or it failed).
    bool setState(const Scenario &scenario, bool structural);
    void startJob(const Scenario &scenario, bool structural);
    void onJobFinished();
    void finishJob();
    void drain();
    void revertPreview();
    void fail(const std::string &message);
    std::vector<int> takeChangedLinks();
    void announceRebuild(bool structural);

    std::unique_ptr<CostEngine> m_engine;
    std::optional<Mapping> m_committed; ///< while previewing: the mapping without the preview
    MovedRanks m_previewMoves; ///< applied to the engine, not to m_committed
    std::vector<double> m_shownBytes; ///< per link, as last announced
    int m_engineUpdates = 0;
    int m_asyncThreshold = 2048;

    std::shared_ptr<Job> m_job; ///< the running rebuild, if any
    QFutureWatcher<void> m_watcher;
    bool m_announcedBusy = false;
    std::deque<Pending> m_pending; ///< changes made while m_job runs
    std::unique_ptr<CostEngine> m_prepared; ///< built by prepare(), used by setScenario()
    std::shared_ptr<const Fabric> m_spareFabric; ///< checked by prepare() for the next rebuild

    std::vector<char> m_usable; ///< per slot, for m_usableFor's failures
    const CostEngine *m_usableFor = nullptr;
    std::unique_ptr<Router> m_routes; ///< for partnerRoutes(), over m_routesFabric
    std::shared_ptr<const Fabric> m_routesFabric;
};

} // namespace railyard
