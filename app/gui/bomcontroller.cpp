#include "bomcontroller.h"

#include "bomdock.h"
#include "documentfiles.h"
#include "mainwindow.h"
#include "userdialogs.h"

#include "base/scenarioerror.h"
#include "document/scenariodocument.h"
#include "scenario/cataloguesection.h"

#include <QDockWidget>
#include <QFileInfo>

namespace railyard {

BomController::BomController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_panel = new BomDock(window->document());
    m_dock = new QDockWidget(tr("Bill of Materials"), window);
    m_dock->setObjectName(QStringLiteral("bomDock"));
    m_dock->setWidget(m_panel);
    window->addDockWidget(Qt::BottomDockWidgetArea, m_dock);
    m_dock->hide();
    connect(m_panel, &BomDock::loadRequested, this, &BomController::askAndLoad);
}

void BomController::askAndLoad()
{
    const QString path = m_window->files()->dialogs()->openFileName(
        m_window, QFileInfo(m_window->document()->filePath()).absolutePath());
    if (!path.isEmpty())
        loadCatalogue(path);
}

bool BomController::loadCatalogue(const QString &path)
{
    try {
        PartsCatalogue catalogue = cataloguesection::loadCatalogueFile(path.toStdString());
        m_window->document()->setCatalogue(
            std::move(catalogue), tr("Load parts catalogue %1").arg(QFileInfo(path).fileName()));
        return true;
    } catch (const ScenarioError &e) {
        m_window->files()->dialogs()->showError(
            m_window, tr("Load Catalogue"), QString::fromStdString(e.what()));
        return false;
    }
}

} // namespace railyard
