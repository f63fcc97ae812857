#include "nccllogcontroller.h"

#include "documentfiles.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "mainwindow.h"
#include "ncclviewpanel.h"
#include "userdialogs.h"

#include "cost/costengine.h"
#include "document/scenariodocument.h"
#include "fabric/fabric.h"
#include "studies/ncclringdiff.h"

#include <QAction>
#include <QDateTime>
#include <QDockWidget>
#include <QFileInfo>
#include <QGraphicsScene>
#include <QMenu>
#include <QMenuBar>

#include <exception>
#include <set>

namespace railyard {

NcclLogController::NcclLogController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_panel = new NcclViewPanel;
    m_dock = new QDockWidget(tr("NCCL's View"), window);
    m_dock->setObjectName(QStringLiteral("ncclViewDock"));
    m_dock->setWidget(m_panel);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide();

    m_open = new QAction(tr("Open &NCCL Log…"), window);
    m_open->setObjectName(QStringLiteral("actionOpenNcclLog"));
    m_open->setStatusTip(tr("Read NCCL's own log (NCCL_DEBUG=INFO) and compare its rings and "
                            "NICs with the engine's"));
    connect(m_open, &QAction::triggered, this, &NcclLogController::openLog);
    window->addFileAction(m_open); // File menu, before Export
    connect(m_panel, &NcclViewPanel::channelChanged, this, &NcclLogController::showChannel);
    connect(m_panel, &NcclViewPanel::useRequested, this, &NcclLogController::useObserved);
    connect(m_panel, &NcclViewPanel::stopRequested, this, &NcclLogController::usePrediction);
    connect(window->document(), &ScenarioDocument::scenarioChanged, this,
        [this] { m_panel->setInUse(!m_window->document()->scenario().ncclObserved.empty()); });
    connect(window->fabricView()->rootItem(), &FabricItem::rebuilt, this,
        &NcclLogController::showChannel);
    // The channel is drawn while the dock is open: closing it clears the fabric (its tab going
    // behind the pipeline's does not).
    connect(m_dock->toggleViewAction(), &QAction::toggled, this, [this](bool open) {
        if (m_overlay)
            m_overlay->setVisible(open);
    });
}

void NcclLogController::openLog()
{
    const QStringList paths = m_window->files()->dialogs()->openMeasurementFiles(
        m_window, QFileInfo(m_window->document()->filePath()).absolutePath());
    if (!paths.isEmpty())
        openFiles(paths);
}

bool NcclLogController::openFiles(const QStringList &paths)
{
    try {
        std::vector<std::string> files;
        for (const QString &p : paths)
            files.push_back(p.toStdString());
        NcclLog log = readNcclLogs(files);
        NcclView view = compareNcclLog(log, m_window->document()->engine());
        m_log = std::move(log);
        m_view = std::move(view);
        m_hasLog = true;
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Open NCCL Log"), QString::fromStdString(e.what()));
        return false;
    }
    m_panel->setView(&m_log, &m_view, !m_window->document()->scenario().ncclObserved.empty());
    m_window->showBesidePipeline(m_dock);
    showChannel();
    return true;
}

bool NcclLogController::useObserved()
{
    if (!m_hasLog)
        return false;
    const CostEngine &engine = m_window->document()->engine();
    Scenario next = m_window->document()->scenario();
    next.ncclObserved
        = ncclObservedSpec(m_log, m_view.rings, placeNcclHosts(m_log, engine.fabric()),
            engine.fabric(), QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString());
    if (next.ncclObserved.empty()) {
        m_window->files()->dialogs()->showError(m_window, tr("Use What NCCL Did"),
            tr("No communicator of the log has rings and every rank placed: nothing to use."));
        return false;
    }
    const QString error = m_window->document()->editScenario(next, tr("Use What NCCL Did"));
    if (!error.isEmpty()) {
        m_window->files()->dialogs()->showError(m_window, tr("Use What NCCL Did"), error);
        return false;
    }
    return true;
}

bool NcclLogController::usePrediction()
{
    Scenario next = m_window->document()->scenario();
    if (next.ncclObserved.empty())
        return false;
    next.ncclObserved = {};
    return m_window->document()->editScenario(next, tr("Use the Prediction")).isEmpty();
}

void NcclLogController::startClean()
{
    m_hasLog = false;
    m_log = {};
    m_view = {};
    m_panel->setView(nullptr, nullptr, false);
    if (m_overlay)
        m_overlay->setHops({});
    m_dock->hide();
}

void NcclLogController::showChannel()
{
    const int c = m_panel->commIndex(), ch = m_panel->channelIndex();
    std::vector<NcclDrawnHop> hops;
    if (m_hasLog && c >= 0 && ch >= 0) {
        const NcclCommDiff &d = m_view.rings[static_cast<std::size_t>(c)];
        const NcclLogComm *lc = nullptr;
        for (const NcclLogComm &k : m_log.comms)
            if (k.id == d.comm)
                lc = &k;
        const Fabric &fabric = m_window->fabricView()->rootItem()->fabric();
        if (lc != nullptr && ch < static_cast<int>(d.channels.size()) && d.skipped.empty()) {
            const NcclChannelDiff &cd = d.channels[static_cast<std::size_t>(ch)];
            const std::vector<int> slots
                = ncclRankSlots(*lc, placeNcclHosts(m_log, fabric), fabric);
            const std::vector<int> &ring = lc->rings[static_cast<std::size_t>(cd.channel)];
            for (std::size_t i = 0; i < ring.size(); ++i) {
                const int a = ring[i], b = ring[(i + 1) % ring.size()];
                const int sa = slots[static_cast<std::size_t>(a)];
                const int sb = slots[static_cast<std::size_t>(b)];
                NcclDrawnHop h;
                int srcNic = fabric.nicOfGpu(fabric.gpuOfSlot(sa));
                int dstNic = fabric.nicOfGpu(fabric.gpuOfSlot(sb));
                for (std::size_t k = 0; k < cd.ranks.size(); ++k)
                    if (cd.ranks[k] == a) { // NCCL's hop from `a` is not the predicted one
                        h.differs = true;
                        srcNic = cd.observed[k].srcNic;
                        dstNic = cd.observed[k].dstNic;
                    }
                h.links = ncclHopLinks(fabric, sa, sb, srcNic, dstNic);
                hops.push_back(std::move(h));
            }
        }
    }
    if (!m_overlay && !hops.empty()) {
        FabricView *view = m_window->fabricView();
        m_overlay = new NcclRingOverlayItem(view->rootItem());
        view->scene()->addItem(m_overlay);
    }
    if (m_overlay)
        m_overlay->setHops(std::move(hops));
}

} // namespace railyard
