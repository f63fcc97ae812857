#pragma once

#include <QWidget>

class QTabWidget;

namespace railyard {

class ChartBubbleSweep;
class ChartExposedTime;
class ChartLinkUtilisation;
class ChartTierBytes;
class ScenarioDocument;

/**
 * The report as charts, one tab each: link-utilisation distribution with its percentiles,
 * bytes per tier and dimension, exposed time per dimension, and bubble versus micro-batches.
 * Follows reportChanged; bursts (a drag preview) are coalesced and a hidden panel refreshes
 * when it is shown again.
 */
class ChartsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ChartsPanel(ScenarioDocument *doc, QWidget *parent = nullptr);

    /// Brings every chart up to the document's report now.
    void refresh();

    QTabWidget *tabs() const { return m_tabs; }
    ChartLinkUtilisation *linkUtilisation() const { return m_links; }
    ChartTierBytes *tierBytes() const { return m_tiers; }
    ChartExposedTime *exposedTime() const { return m_exposed; }
    ChartBubbleSweep *bubbleSweep() const { return m_sweep; }

protected:
    void showEvent(QShowEvent *e) override;

private:
    void scheduleRefresh();

    ScenarioDocument *m_doc = nullptr;
    QTabWidget *m_tabs = nullptr;
    ChartLinkUtilisation *m_links = nullptr;
    ChartTierBytes *m_tiers = nullptr;
    ChartExposedTime *m_exposed = nullptr;
    ChartBubbleSweep *m_sweep = nullptr;
    bool m_dirty = false;
    bool m_pending = false;
};

} // namespace railyard
