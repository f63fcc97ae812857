#pragma once

#include "io/portcounters.h"
#include "io/portmap.h"

#include <optional>
#include <vector>

#include <QObject>
#include <QString>
#include <QStringList>

class QAction;
class QDockWidget;

namespace railyard {

struct CounterComparison;
class CountersPanel;
class MainWindow;

/**
 * File ▸ Import Port Counters…: reads counter files (perfquery -x, Prometheus text, CSV;
 * io/portcounters.h) and a port mapping file among them (told by its header
 * host,device,port,from,to), turns them into rates, compares them with the report on screen
 * (studies/countercompare.h) and shows the result in the Port Counters dock and, with its
 * toggle, on the fabric. The comparison is made again whenever the report changes (a moved
 * rank changes the prediction, not the measurement). A bad file is an error box naming
 * FILE:LINE; what was shown stays.
 */
class CountersController : public QObject
{
    Q_OBJECT

public:
    explicit CountersController(MainWindow *window);

    /// Asks for the files (UserDialogs::openCounterFiles) and imports them.
    void importCounters();
    /// Imports these files; false (and an error box) when one cannot be read or nothing maps.
    bool importFiles(const QStringList &paths);

    CountersPanel *panel() const { return m_panel; }
    QDockWidget *dockWidget() const { return m_dock; }
    QAction *importAction() const { return m_import; }
    /// Another scenario replaced the document: the counters were measured on the last one's
    /// fabric.
    void startClean();

private:
    /// compareCounters() against the document's report, shown in the dock and on the fabric.
    void compare();
    void show(const CounterComparison &comparison);

    MainWindow *m_window;
    CountersPanel *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    QAction *m_import = nullptr;
    std::vector<PortRate> m_rates;
    std::optional<PortMap> m_map;
    QString m_source;
};

} // namespace railyard
