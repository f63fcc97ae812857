#include "counterscontroller.h"

#include "counterspanel.h"
#include "documentfiles.h"
#include "fabricview.h"
#include "mainwindow.h"
#include "userdialogs.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "document/scenariodocument.h"
#include "studies/countercompare.h"

#include <QAction>
#include <QCheckBox>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>

#include <exception>

namespace railyard {

namespace {

/// A mapping file by its header: the first line that is not blank or a comment names the
/// columns host, device, port, from and to (portmap.h).
bool isPortMapFile(const std::string &text)
{
    std::size_t start = 0;
    while (start < text.size()) {
        std::size_t end = text.find('\n', start);
        if (end == std::string::npos)
            end = text.size();
        std::string line = text.substr(start, end - start);
        start = end + 1;
        line.erase(0, line.find_first_not_of(" \t\r"));
        if (line.empty() || line.front() == '#')
            continue;
        return line.find("from") != std::string::npos && line.find(",to") != std::string::npos;
    }
    return false;
}

} // namespace

CountersController::CountersController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_panel = new CountersPanel;
    m_dock = new QDockWidget(tr("Port Counters"), window);
    m_dock->setObjectName(QStringLiteral("countersDock"));
    m_dock->setWidget(m_panel);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide();

    m_import = new QAction(tr("Import Port &Counters…"), window);
    m_import->setObjectName(QStringLiteral("actionImportPortCounters"));
    m_import->setStatusTip(tr("Read NIC and switch port counters (perfquery -x, Prometheus "
                              "text, CSV) and set the measured link load beside the prediction"));
    connect(m_import, &QAction::triggered, this, &CountersController::importCounters);
    window->addFileAction(m_import); // File menu, before Export
    connect(m_panel, &CountersPanel::measuredShownChanged, window->fabricView(),
        &FabricView::setMeasuredShown);
    connect(m_panel, &CountersPanel::linkActivated, window->fabricView(), &FabricView::focusLink);
    // The prediction moves with the mapping; the measurement stays. A drag's preview is not
    // compared (the list would flicker at every step); its end reports the settled load.
    connect(window->document(), &ScenarioDocument::reportChanged, this,
        [this](const ReportChange &change) {
            if (!m_rates.empty() && !change.preview)
                compare();
        });
}

void CountersController::startClean()
{
    m_rates.clear();
    m_map.reset();
    m_panel->clear();
    m_window->fabricView()->setMeasuredShown(false);
    m_window->fabricView()->setMeasuredUtilisation({});
    m_dock->hide();
}

void CountersController::importCounters()
{
    const QStringList paths = m_window->files()->dialogs()->openCounterFiles(
        m_window, QFileInfo(m_window->document()->filePath()).absolutePath());
    if (!paths.isEmpty())
        importFiles(paths);
}

bool CountersController::importFiles(const QStringList &paths)
{
    try {
        std::vector<PortCounterFile> files;
        std::optional<PortMap> map;
        for (const QString &p : paths) {
            const std::string path = p.toStdString();
            const std::string text
                = readFileLimited(path, kMaxPortCounterBytes, "a port counter file");
            if (isPortMapFile(text))
                map = parsePortMap(text, path);
            else
                files.push_back(parsePortCounters(text, path));
        }
        if (files.empty())
            throw ScenarioError(paths.front().toStdString(),
                "no counter file among the chosen files (only a port mapping)");
        std::vector<PortRate> rates = portRates(files, 0.0);
        const CounterComparison c = compareCounters(rates, map ? &*map : nullptr,
            m_window->document()->engine().fabric(), m_window->document()->report());
        m_rates = std::move(rates);
        m_map = std::move(map);
        m_source = paths.size() == 1 ? QFileInfo(paths.front()).fileName()
                                     : tr("%1 files").arg(paths.size());
        show(c);
        m_window->showBesidePipeline(m_dock);
        return true;
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Import Port Counters"), QString::fromStdString(e.what()));
        return false;
    }
}

void CountersController::compare()
{
    ScenarioDocument *doc = m_window->document();
    const Fabric &fabric = doc->engine().fabric();
    CounterComparison c;
    try {
        c = compareCounters(m_rates, m_map ? &*m_map : nullptr, fabric, doc->report());
    } catch (const std::exception &) {
        startClean(); // the fabric changed under the counters: none of them maps any more
        return;
    }
    show(c);
}

void CountersController::show(const CounterComparison &c)
{
    const Fabric &fabric = m_window->document()->engine().fabric();
    m_panel->setComparison(fabric, c, m_source);
    m_window->fabricView()->setMeasuredUtilisation(measuredUtilisation(c, fabric.linkCount()));
}

} // namespace railyard
