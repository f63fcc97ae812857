#include "chartspanel.h"

#include "chartbubblesweep.h"
#include "chartexposedtime.h"
#include "chartlinkutilisation.h"
#include "charttierbytes.h"
#include "document/scenariodocument.h"

#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>

namespace railyard {

namespace {

constexpr int kCoalesceMs = 40; // one refresh per burst of preview steps

} // namespace

ChartsPanel::ChartsPanel(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent)
    , m_doc(doc)
{
    m_tabs = new QTabWidget(this);
    m_tabs->setObjectName(QStringLiteral("chartTabs"));
    m_tabs->setDocumentMode(true);
    m_links = new ChartLinkUtilisation;
    m_tiers = new ChartTierBytes;
    m_exposed = new ChartExposedTime;
    m_sweep = new ChartBubbleSweep;
    m_tabs->addTab(m_links, tr("Link utilisation"));
    m_tabs->addTab(m_tiers, tr("Bytes per tier"));
    m_tabs->addTab(m_exposed, tr("Exposed time"));
    m_tabs->addTab(m_sweep, tr("Bubble vs m"));
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_tabs);

    connect(m_doc, &ScenarioDocument::reportChanged, this, &ChartsPanel::scheduleRefresh);
    connect(m_doc, &ScenarioDocument::mappingChanged, this, &ChartsPanel::scheduleRefresh);
    refresh();
}

void ChartsPanel::refresh()
{
    m_dirty = false;
    m_pending = false;
    const CostReport &r = m_doc->report();
    m_links->setReport(r);
    m_tiers->setReport(r);
    m_exposed->setReport(r);
    m_sweep->setEngine(m_doc->engine());
}

void ChartsPanel::scheduleRefresh()
{
    m_dirty = true;
    if (!isVisible() || m_pending)
        return;
    m_pending = true;
    QTimer::singleShot(kCoalesceMs, this, [this] {
        m_pending = false;
        if (m_dirty && isVisible())
            refresh();
    });
}

void ChartsPanel::showEvent(QShowEvent *e)
{
    QWidget::showEvent(e);
    if (m_dirty)
        refresh();
}

} // namespace railyard
