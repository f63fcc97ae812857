#pragma once

#include "studies/compare.h"

#include <QString>
#include <QWidget>

class QCheckBox;
class QLabel;
class QPlainTextEdit;
class QPushButton;
class QStackedWidget;
class QTabWidget;
class QTableWidget;

namespace railyard {

class TimelineCanvas;

/**
 * The A/B comparison dock: a baseline placement "A" pinned by the user against the document
 * as it is now, "B". Shows every summary figure of both with the change (green when B is
 * better, red when worse), the links whose load changed most, the ranks that moved, and the
 * two pipeline timelines on one time axis. It only displays a Comparison the app computed
 * with the engine (compareEngines); it computes nothing itself.
 */
class ComparePanel : public QWidget
{
    Q_OBJECT

public:
    explicit ComparePanel(QWidget *parent = nullptr);

    /// No baseline: the panel explains how to pin one.
    void clear();
    /// `fabricB` names links and slots. `pinnedAt` is shown beside A's name.
    void setComparison(const Comparison &c, const Fabric &fabricB, const QString &pinnedAt);
    /// The two timelines, drawn on one time scale (the longer one's).
    void setTimelines(const CostReport &a, int stagesA, int chunksA, const CostReport &b,
        int stagesB, int chunksB);

    /// A text that explains how B came about (the placement optimiser's report), shown in an
    /// "Explanation" tab brought to the front; empty removes the tab. clear() removes it too.
    void setExplanation(const QString &text);
    QString explanation() const;
    QPlainTextEdit *explanationView() const { return m_explanation; }
    QTabWidget *tabs() const { return m_tabs; }

    bool hasComparison() const;
    QTableWidget *figureTable() const { return m_figures; }
    QLabel *whyLabel() const { return m_why; }
    QTableWidget *linkTable() const { return m_links; }
    QTableWidget *rankTable() const { return m_ranks; }
    TimelineCanvas *timelineA() const { return m_timelineA; }
    TimelineCanvas *timelineB() const { return m_timelineB; }
    QCheckBox *highlightBox() const { return m_highlight; }
    /// The text of the figure row with this key's label in column `column` (tests).
    QString figureText(const QString &label, int column) const;

Q_SIGNALS:
    void pinRequested();
    void clearRequested();
    /// The user wants the changed links emphasised on the fabric (or not).
    void highlightChanged(bool on);
    /// A row of the link table was activated: show that link.
    void linkActivated(int link);

private:
    void fillFigures(const Comparison &c);
    void fillLinks(const Comparison &c, const Fabric &fabric);
    void fillRanks(const Comparison &c, const Fabric &fabric);

    QStackedWidget *m_stack = nullptr;
    QLabel *m_header = nullptr;
    QLabel *m_why = nullptr; ///< what the engine attributes the change to (describeChange)
    QLabel *m_linkSummary = nullptr;
    QLabel *m_rankSummary = nullptr;
    QPushButton *m_pin = nullptr;
    QPushButton *m_clear = nullptr;
    QCheckBox *m_highlight = nullptr;
    QTabWidget *m_tabs = nullptr;
    QTableWidget *m_figures = nullptr;
    QTableWidget *m_links = nullptr;
    QTableWidget *m_ranks = nullptr;
    TimelineCanvas *m_timelineA = nullptr;
    TimelineCanvas *m_timelineB = nullptr;
    QLabel *m_timelineLabelA = nullptr;
    QLabel *m_timelineLabelB = nullptr;
    QPlainTextEdit *m_explanation = nullptr;
    bool m_syncing = false;
};

} // namespace railyard
