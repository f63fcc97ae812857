#include "studycontroller.h"
#include "summarybar.h"

#include "annotationcontroller.h"
#include "base/scenarioerror.h"
#include "collectivecontroller.h"
#include "comparepanel.h"
#include "cost/costengine.h"
#include "cost/epsummary.h"
#include "document/scenariodocument.h"
#include "documentfiles.h"
#include "expertpanel.h"
#include "fabriccomparedialog.h"
#include "fabricview.h"
#include "inferencepanel.h"
#include "layoutsearchdialog.h"
#include "mainwindow.h"
#include "optimise/optimisetext.h"
#include "optimisedialog.h"
#include "presentationmode.h"
#include "remapdialog.h"
#include "scenario/jobssection.h"
#include "scenario/scenariofile.h"
#include "slowparts.h"
#include "spotlightcontroller.h"
#include "studies/compare.h"
#include "studies/failureremap.h"
#include "studies/inference.h"
#include "userdialogs.h"

#include <QAction>
#include <QCheckBox>
#include <QDialog>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QStyle>
#include <QTimer>
#include <QUndoStack>

namespace railyard {

StudyController::StudyController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    ScenarioDocument *doc = window->document();
    m_panel = new ComparePanel;
    m_compareDock = addDock(m_panel, tr("Compare A/B"), QStringLiteral("compareDock"));
    m_experts = new ExpertPanel(doc);
    m_expertDock = addDock(m_experts, tr("Experts"), QStringLiteral("expertsDock"));
    m_inference = new InferencePanel;
    m_inference->setObjectName(QStringLiteral("inferencePanel"));
    m_inferenceDock = addDock(m_inference, tr("Inference"), QStringLiteral("inferenceDock"));

    buildMenu();

    connect(doc, &ScenarioDocument::reportChanged, this, &StudyController::scheduleRefresh);
    connect(doc, &ScenarioDocument::mappingChanged, this, &StudyController::scheduleRefresh);
    connect(doc, &ScenarioDocument::evaluatingChanged, this, [this](bool evaluating) {
        if (!evaluating)
            scheduleRefresh();
    });
    connect(doc, &ScenarioDocument::scenarioChanged, this, &StudyController::onScenarioChanged);
    connect(m_experts, &ExpertPanel::groupChanged, this, &StudyController::refreshExperts);
    // A hidden panel is brought up to date when it is shown.
    connect(m_expertDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible)
            refreshExperts();
    });
    connect(window->fabricView(), &FabricView::serverContextMenuRequested, this,
        [this](int server, const QPoint &pos) { serverMenu(server)->popup(pos); });
    connect(window->fabricView(), &FabricView::slotContextMenuRequested, this,
        [this](int slot, const QPoint &pos) { slotMenu(slot)->popup(pos); });
    connect(m_inferenceDock, &QDockWidget::visibilityChanged, this, [this](bool visible) {
        if (visible)
            refreshInference();
    });
    connect(m_panel, &ComparePanel::pinRequested, this, &StudyController::pinBaseline);
    connect(m_panel, &ComparePanel::clearRequested, this, &StudyController::clearBaseline);
    connect(m_panel, &ComparePanel::highlightChanged, this, &StudyController::applyHighlight);
    connect(m_panel, &ComparePanel::linkActivated, this, [this](int link) {
        m_window->fabricView()->setEmphasis({ link }, tr("link from the comparison"));
    });
}

StudyController::~StudyController() = default;

QDockWidget *StudyController::addDock(
    QWidget *panel, const QString &title, const QString &objectName)
{
    auto *dock = new QDockWidget(title, m_window);
    dock->setObjectName(objectName);
    dock->setWidget(panel);
    m_window->addDockWidget(Qt::BottomDockWidgetArea, dock);
    dock->hide();
    return dock;
}

void StudyController::buildMenu()
{
    m_menu = new QMenu(tr("&Study"), m_window);
    m_menu->setObjectName(QStringLiteral("studyMenu"));
    // Before Help, which is conventionally last.
    QAction *before = nullptr;
    for (QAction *a : m_window->menuBar()->actions())
        if (a->menu() && a->text().remove(QLatin1Char('&')) == tr("Help"))
            before = a;
    m_window->menuBar()->insertMenu(before, m_menu);

    QAction *pin = m_menu->addAction(tr("&Pin Baseline (A)"), this, &StudyController::pinBaseline);
    pin->setObjectName(QStringLiteral("actionPinBaseline"));
    pin->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_B));
    pin->setStatusTip(
        tr("Keep the current placement as baseline A and compare every change against it"));
    QAction *fromFile = m_menu->addAction(tr("Compare with &File…"), this, [this] {
        const QString path = m_window->files()->dialogs()->openFileName(m_window, QString());
        if (!path.isEmpty())
            pinBaselineFromFile(path);
    });
    fromFile->setObjectName(QStringLiteral("actionCompareWithFile"));
    fromFile->setStatusTip(
        tr("Load a scenario file as baseline A and compare the document against it"));
    m_clearAction = m_menu->addAction(tr("&Clear Baseline"), this, &StudyController::clearBaseline);
    m_clearAction->setObjectName(QStringLiteral("actionClearBaseline"));
    m_clearAction->setEnabled(false);
    QAction *show = m_compareDock->toggleViewAction();
    show->setText(tr("Show &Comparison"));
    show->setObjectName(QStringLiteral("actionShowComparison"));
    m_menu->addAction(show);

    m_menu->addSeparator();
    QAction *remap = m_menu->addAction(tr("Failure &Remap…"), this, &StudyController::askFailures);
    remap->setObjectName(QStringLiteral("actionFailureRemap"));
    remap->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    remap->setStatusTip(tr("Mark a server, GPU, NIC or leaf failed and re-place the job (drop DP, "
                           "spares, shrink PP)"));

    QAction *optimise
        = m_menu->addAction(tr("&Optimise Placement…"), this, &StudyController::optimisePlacement);
    optimise->setObjectName(QStringLiteral("actionOptimisePlacement"));
    optimise->setStatusTip(tr("Search rank-to-slot mappings for a lower iteration time, fewer "
                              "spine bytes or less loaded links, and explain the result"));

    QAction *search
        = m_menu->addAction(tr("Search &Layouts…"), this, &StudyController::showLayoutSearch);
    search->setObjectName(QStringLiteral("actionSearchLayouts"));
    search->setStatusTip(tr("Search TP, PP, DP, CP, EP, micro-batch, schedule, recompute and "
                            "placement for a model on a generated fabric"));

    QAction *fabrics
        = m_menu->addAction(tr("Compare &Fabrics…"), this, &StudyController::showFabricCompare);
    fabrics->setObjectName(QStringLiteral("actionCompareFabrics"));
    fabrics->setStatusTip(tr("The job on rail-optimised, ToR, rail-only, oversubscribed and "
                             "multi-plane fabrics: iteration time, cost and power, Pareto chart"));

    m_menu->addSeparator();
    QAction *experts = m_menu->addAction(
        tr("&Expert Routing…"), this, [this] { m_window->showPanel(m_expertDock); });
    experts->setObjectName(QStringLiteral("actionExpertRouting"));
    experts->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_X));
    experts->setStatusTip(tr("The MoE router's skew and the expert-parallel dispatch matrix"));

    m_menu->addSeparator();
    QAction *inference = m_menu->addAction(
        tr("&Inference Pools…"), this, [this] { m_window->showPanel(m_inferenceDock); });
    inference->setObjectName(QStringLiteral("actionInferencePools"));
    inference->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_I));
    inference->setStatusTip(tr("Prefill and decode pools: KV bytes, transfer, TTFT/TPOT, Minimal "
                               "or Distributed Inference"));
    m_kvAction = m_menu->addAction(tr("Colour Links by &KV Load"));
    m_kvAction->setObjectName(QStringLiteral("actionKvOverlay"));
    m_kvAction->setCheckable(true);
    m_kvAction->setEnabled(false);
    m_kvAction->setStatusTip(
        tr("Colour the links by the prefill-to-decode KV traffic at the request rate"));
    connect(m_kvAction, &QAction::toggled, this, &StudyController::setKvOverlay);
}

void StudyController::askFailures()
{
    const QString text = m_window->files()->dialogs()->askText(m_window, tr("Failure Remap"),
        tr("Failed components (server:S, gpu:N, nic:N, leaf:N; comma-separated):"),
        QStringLiteral("server:0"));
    if (text.trimmed().isEmpty())
        return;
    std::vector<FailedComponent> failures;
    try {
        for (const QString &part : text.split(QLatin1Char(','), Qt::SkipEmptyParts))
            failures.push_back(parseFailure(part.trimmed().toStdString(), "failure"));
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Failure Remap"), QString::fromStdString(e.what()));
        return;
    }
    remapAfterFailure(failures);
}

QMenu *StudyController::serverMenu(int server)
{
    auto *menu = new QMenu(m_window);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const QString name
        = QString::fromStdString(m_window->document()->engine().fabric().serverName(server));
    QAction *fail
        = menu->addAction(tr("Mark %1 Failed and Remap…").arg(name), this, [this, server] {
              remapAfterFailure({ { FailedComponent::Kind::Server, server } });
          });
    fail->setObjectName(QStringLiteral("actionFailServer"));
    m_window->annotations()->extendMenu(menu, { AnnotationAnchor::Kind::Server, server }, name);
    return menu;
}

QMenu *StudyController::slotMenu(int slot)
{
    auto *menu = new QMenu(m_window);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const Fabric &fabric = m_window->document()->engine().fabric();
    const QString name
        = QStringLiteral("%1/gpu%2")
              .arg(QString::fromStdString(fabric.serverName(fabric.serverOfSlot(slot))))
              .arg(fabric.gpuOfSlot(slot));
    QAction *gpu
        = menu->addAction(tr("Mark GPU %1 Failed and Remap…").arg(name), this, [this, slot] {
              remapAfterFailure({ { FailedComponent::Kind::Gpu, slot } });
          });
    gpu->setObjectName(QStringLiteral("actionFailGpu"));
    const int server = fabric.serverOfSlot(slot);
    const int nic = server * fabric.nicsPerServer() + fabric.nicOfGpu(fabric.gpuOfSlot(slot));
    QAction *nicAction = menu->addAction(tr("Mark Its NIC Failed and Remap…"), this, [this, nic] {
        remapAfterFailure({ { FailedComponent::Kind::Nic, nic } });
    });
    nicAction->setObjectName(QStringLiteral("actionFailNic"));
    QAction *serverAction
        = menu->addAction(tr("Mark Server Failed and Remap…"), this, [this, server] {
              remapAfterFailure({ { FailedComponent::Kind::Server, server } });
          });
    serverAction->setObjectName(QStringLiteral("actionFailServer"));
    slowparts::extendSlotMenu(menu, m_window, slot); // a straggler rather than a failure
    // A note on a chip follows its rank; on an empty slot it pins the server.
    const int rank = m_window->document()->mapping().rankAt(slot);
    if (rank >= 0) {
        m_window->annotations()->extendMenu(
            menu, { AnnotationAnchor::Kind::Rank, rank }, tr("Rank %1").arg(rank));
        m_window->presentation()->spotlight()->extendMenu(menu, rank);
    } else {
        m_window->annotations()->extendMenu(menu, { AnnotationAnchor::Kind::Server, server },
            QString::fromStdString(fabric.serverName(server)));
    }
    if (rank >= 0 && m_window->collectives())
        m_window->collectives()->extendMenu(menu, rank);
    return menu;
}

bool StudyController::remapAfterFailure(const std::vector<FailedComponent> &added)
{
    ScenarioDocument *doc = m_window->document();
    UserDialogs *dialogs = m_window->files()->dialogs();
    doc->waitForEvaluation();
    const Scenario healthy = doc->scenario();
    std::vector<FailedComponent> failures = healthy.failures;
    for (const FailedComponent &f : added)
        if (std::find(failures.begin(), failures.end(), f) == failures.end())
            failures.push_back(f);
    RemapDialog dialog(healthy, failures, m_window);
    if (!dialog.errorText().isEmpty()) {
        dialogs->showError(m_window, tr("Failure Remap"), dialog.errorText());
        return false;
    }
    if (dialogs->execDialog(&dialog) != QDialog::Accepted || !dialog.hasSelection())
        return false;
    if (!dialog.canApply()) { // accepted without the button (a script): say why not
        dialogs->showError(m_window, tr("Failure Remap"),
            tr("%1 does not fit in device memory (it %2); tick \"Apply although it does not fit\" "
               "to apply it anyway")
                .arg(QString::fromLatin1(remapStrategyName(dialog.strategy())),
                    RemapDialog::memoryText(dialog.resultFor(dialog.strategy()))));
        return false;
    }
    const QString what = QString::fromStdString(failureListText(added));
    const QString message = doc->editScenario(dialog.degradedScenario(),
        tr("Remap after %1 (%2)")
            .arg(what, QString::fromLatin1(remapStrategyName(dialog.strategy()))));
    if (!message.isEmpty()) {
        dialogs->showError(m_window, tr("Failure Remap"), message);
        return false;
    }
    // The healthy placement is the baseline the degraded one is judged against.
    setBaseline(healthy, tr("healthy, before %1").arg(what));
    return true;
}

bool StudyController::optimisePlacement()
{
    ScenarioDocument *doc = m_window->document();
    doc->waitForEvaluation();
    // With jobs, the job on show moves with the others fixed: their GPUs count as failed
    // (jobWithOthersFixed(), the path of `optimise --job`).
    const Scenario shown = doc->scenario();
    const Scenario before = shown.jobs.empty()
        ? doc->scenario()
        : jobWithOthersFixed(doc->fileScenario(), static_cast<std::size_t>(doc->activeJob()));
    OptimiseDialog dialog(before, m_window);
    // The best mapping so far, shown as a drag shows a drop: the links' load as if the ranks
    // sat there. Not an edit; endPreview() below puts the document's own evaluation back.
    connect(
        &dialog, &OptimiseDialog::bestMappingChanged, this, [doc](const std::vector<int> &slots) {
            if (static_cast<int>(slots.size()) != doc->mapping().rankCount())
                return;
            std::vector<std::pair<int, int>> all;
            all.reserve(slots.size());
            for (int rank = 0; rank < static_cast<int>(slots.size()); ++rank)
                all.emplace_back(rank, slots[static_cast<std::size_t>(rank)]);
            doc->previewMoves(all);
        });
    const int answer = m_window->files()->dialogs()->execDialog(&dialog);
    doc->endPreview();
    if (answer != QDialog::Accepted || !dialog.hasResult())
        return false;

    const OptimiseResult &result = dialog.optimiseResult();
    const QString objective
        = QString::fromStdString(std::string(objectiveName(result.options.objective)));
    const QString from = QString::fromStdString(std::string(startName(result.options.from)));
    std::vector<std::pair<int, int>> moves;
    const Mapping &mapping = doc->mapping();
    for (int rank = 0; rank < static_cast<int>(result.scenario.slots.size()); ++rank) {
        const int slot = result.scenario.slots[static_cast<std::size_t>(rank)];
        if (mapping.slotOf(rank) != slot)
            moves.emplace_back(rank, slot);
    }
    // One MoveRanks: one undo step puts every rank back.
    if (!moves.empty())
        doc->moveRanks(moves, tr("Optimise placement (%1, from %2)").arg(objective, from));
    // The start is what the result is judged against.
    Scenario start = shown;
    start.slots = result.startSlots;
    if (!setBaseline(start, tr("optimiser start (%1)").arg(from)))
        return false;
    m_panel->setExplanation(QString::fromStdString(optimiseText(result)));
    m_window->showStatus(tr("Optimised the placement for %1: %2 ranks moved against the start")
                             .arg(objective)
                             .arg(result.ranksMoved));
    return true;
}

LayoutSearchDialog *StudyController::showLayoutSearch()
{
    if (!m_layoutSearch) {
        auto *dialog = new LayoutSearchDialog(m_window);
        m_layoutSearch = dialog;
        connect(dialog, &LayoutSearchDialog::candidateOpened, this,
            [this](const Scenario &scenario) { openInNewWindow(scenario); });
        // The search starts from the open file: its GPUs, fabric wiring, model, batch and
        // sequence (a model or wiring the search has no preset for keeps the dialog's own).
        const Scenario &s = m_window->document()->scenario();
        LayoutSearchOptions o = dialog->options();
        o.gpus = s.fabric.servers * s.fabric.gpusPerServer;
        o.fabricKind = s.fabric.kind;
        o.globalBatch = s.training.globalBatch;
        if (dialog->modelBox()->findText(QString::fromStdString(s.model.name)) >= 0) {
            o.model = s.model.name;
            o.seq = s.model.seq; // the file's sequence belongs to its model
        }
        dialog->setOptions(o);
    }
    m_layoutSearch->show();
    m_layoutSearch->raise();
    m_layoutSearch->activateWindow();
    return m_layoutSearch;
}

FabricCompareDialog *StudyController::showFabricCompare()
{
    // A new comparison each time: it is of the document as it is now.
    if (m_fabricCompare)
        m_fabricCompare->deleteLater();
    auto *dialog = new FabricCompareDialog(m_window->document()->scenario(), m_window);
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    m_fabricCompare = dialog;
    connect(dialog, &FabricCompareDialog::designOpened, this,
        [this](const Scenario &scenario) { openInNewWindow(scenario); });
    dialog->show();
    dialog->raise();
    dialog->activateWindow();
    return dialog;
}

MainWindow *StudyController::openInNewWindow(const Scenario &scenario)
{
    auto *window = new MainWindow;
    window->setAttribute(Qt::WA_DeleteOnClose);
    if (!window->files()->loadUntitled(
            scenario, tr("candidate %1").arg(QString::fromStdString(scenario.name)))) {
        delete window;
        return nullptr;
    }
    window->resize(m_window->size());
    // A cascade step down and right (the title bar's height, as window managers cascade), so
    // the new window never hides the one it came from exactly.
    const int step = std::max(32, m_window->style()->pixelMetric(QStyle::PM_TitleBarHeight));
    window->move(m_window->pos() + QPoint(step, step));
    window->show();
    return window;
}

void StudyController::onScenarioChanged()
{
    // Failed hardware drawn crossed out (the engine's fabric matches the engine's scenario).
    {
        const CostEngine &engine = m_window->document()->engine();
        const std::vector<FailedComponent> &failures = engine.scenario().failures;
        std::vector<int> servers, slots;
        if (!failures.empty()) {
            for (const FailedComponent &f : failures)
                if (f.kind == FailedComponent::Kind::Server)
                    servers.push_back(f.index);
            const std::vector<char> usable = usableSlots(engine.fabric(), failures);
            for (int slot = 0; slot < static_cast<int>(usable.size()); ++slot)
                if (!usable[static_cast<std::size_t>(slot)])
                    slots.push_back(slot);
        }
        m_window->fabricView()->markFailed(servers, slots);
    }

    // A new document (its undo stack is empty): the studies of the last one make way.
    if (m_window->document()->undoStack()->count() == 0)
        hideIdleStudies();

    // An inference scenario opens on its pools' KV traffic; a training one on its own load.
    const bool inference = m_window->document()->scenario().inference.has_value();
    m_kvAction->setEnabled(inference);
    m_inferenceDirty = true;
    if (m_kvAction->isChecked() != inference)
        m_kvAction->setChecked(inference);
    else
        setKvOverlay(inference);
    if (inference && !m_inferenceDock->isVisible()) // once the window is laid out
        QTimer::singleShot(0, this, [this] { m_window->showPanel(m_inferenceDock); });
}

void StudyController::hideIdleStudies()
{
    const Scenario &s = m_window->document()->scenario();
    bool hid = false;
    const auto hideIf = [&hid](QDockWidget *dock, bool idle) {
        if (idle && !dock->isHidden()) {
            dock->hide();
            hid = true;
        }
    };
    hideIf(m_compareDock, !m_baseline);
    hideIf(m_expertDock, s.model.experts <= 1);
    hideIf(m_inferenceDock, !s.inference.has_value());
    if (hid)
        if (QDockWidget *timeline
            = m_window->findChild<QDockWidget *>(QStringLiteral("timelineDock")))
            m_window->showPanel(timeline);
}

bool StudyController::kvOverlay() const
{
    return m_kvAction->isChecked();
}

void StudyController::setKvOverlay(bool on)
{
    if (m_kvAction->isChecked() != on) {
        m_kvAction->setChecked(on); // comes back here through toggled
        return;
    }
    refreshInference();
}

void StudyController::refreshExperts()
{
    const ScenarioDocument *doc = m_window->document();
    // epSummary routes with the engine's router, which a background rebuild may be using.
    if (!m_expertDock->isVisible() || doc->isEvaluating())
        return;
    try {
        m_experts->setSummary(epSummary(doc->engine(), m_experts->group()));
    } catch (const std::exception &e) {
        m_window->showStatus(tr("Expert routing: %1").arg(QString::fromStdString(e.what())));
    }
}

void StudyController::refreshInference()
{
    const ScenarioDocument *doc = m_window->document();
    FabricView *view = m_window->fabricView();
    const Scenario &s = doc->engine().scenario();
    if (doc->isEvaluating())
        return;
    m_inferenceDirty = false;
    if (!s.inference) {
        m_inference->clear();
        m_window->summaryBar()->clearKvFigures();
        view->clearLinkOverlay();
        m_kvLinks.clear();
        applyHighlight();
        return;
    }
    InferenceReport report;
    try {
        report = evaluateInference(s, doc->engine().fabric());
    } catch (const std::exception &e) {
        m_inference->clear();
        m_window->summaryBar()->clearKvFigures();
        view->clearLinkOverlay();
        m_window->showStatus(tr("Inference: %1").arg(QString::fromStdString(e.what())));
        return;
    }
    m_inference->setReport(report);
    m_kvLinks.clear();
    if (!kvOverlay()) {
        m_window->summaryBar()->clearKvFigures();
        view->clearLinkOverlay();
        applyHighlight();
        return;
    }
    // The caption names the pools and where they sit, so the outline reads as the deployment.
    QStringList pools;
    for (const PoolResult &p : report.pools) {
        QStringList servers;
        for (const std::string &name : p.serverNames)
            servers << QString::fromStdString(name);
        pools << tr("%1 (%2)").arg(
            QString::fromStdString(p.name), servers.join(QStringLiteral(", ")));
    }
    m_kvCaption = tr("outlined: KV paths %1").arg(pools.join(QStringLiteral(" → ")));
    std::unordered_map<int, double> values;
    for (const KvLinkLoad &l : report.kvLinks) {
        values[l.link] = l.utilisation;
        m_kvLinks.push_back(l.link);
    }
    view->setLinkOverlay(std::move(values), tr("KV load, %1 req/s").arg(s.inference->requestRate));
    // The summary beside KV-coloured links shows the serving figures, not the training step's.
    SummaryBar::KvFigures kv;
    kv.ttft = report.ttft;
    kv.tpot = report.tpot;
    kv.endToEnd = report.endToEnd;
    kv.requestRate = s.inference->requestRate;
    if (!report.kvLinks.empty()) {
        kv.hottestLink = QString::fromStdString(report.kvLinks.front().name);
        kv.hottestUtilisation = report.kvLinks.front().utilisation;
        kv.hottestOffered = report.kvLinks.front().offeredLoad;
    }
    m_window->summaryBar()->setKvFigures(kv);
    applyHighlight();
}

void StudyController::applyHighlight()
{
    // One outline at a time: the comparison's changed links first, else the KV paths.
    FabricView *view = m_window->fabricView();
    if (m_baseline && m_panel->highlightBox()->isChecked() && !m_highlighted.empty())
        view->setEmphasis(
            m_highlighted, tr("outlined: links whose load changed most against baseline A"));
    else if (kvOverlay() && !m_kvLinks.empty())
        view->setEmphasis(m_kvLinks, m_kvCaption);
    else
        view->clearEmphasis();
}

} // namespace railyard
