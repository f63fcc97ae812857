#pragma once

#include <QString>
#include <QWidget>

class QComboBox;
class QLabel;
class QScrollArea;
class QScrollBar;
class QSpinBox;

namespace railyard {

class ElidedLabel;
class ScenarioDocument;
class TimelineCanvas;

/**
 * The pipeline panel: the bubble fraction in large type with makespan and iteration time, the
 * schedule controls (GPipe / 1F1B / interleaved with its chunk count, micro-batches per
 * replica) and the Gantt chart of the report's timeline. A control change is one undoable
 * ScenarioDocument::editScenario(); what the engine refuses is shown inline in red and leaves
 * the document as it was. A click on a block shows its details under the chart (phase, stage,
 * micro-batch, start, length and the block or send it waited on, pipelineWait()). Every number
 * comes from the document's report.
 */
class TimelineView : public QWidget
{
    Q_OBJECT

public:
    explicit TimelineView(ScenarioDocument *doc, QWidget *parent = nullptr);

    /// Renders the whole timeline (fitted, with a title line) to a .png or .svg file.
    bool exportImage(const QString &path);
    /// The bubble fraction the panel shows (the report's, as of the last reportChanged).
    double shownBubbleFraction() const { return m_shownBubble; }
    /// The inline error, empty when the last control change was accepted.
    QString errorText() const;

    TimelineCanvas *canvas() const { return m_canvas; }
    /// The selected block's details (phase, stage, micro-batch, start, length, what it waited
    /// on), from the report's schedule; hidden while nothing is selected.
    QLabel *blockDetailLabel() const { return m_blockDetail; }
    /// The details of event `index` of the report's timeline (empty when out of range).
    QString blockDetailText(int index) const;

private:
    void syncControls(); ///< scenarioChanged: controls show the document's values
    void syncReport(); ///< reportChanged: labels and chart
    void syncScrollBar();
    void commit(); ///< the controls' values as one editScenario()
    void showError(const QString &message);
    QString exportTitle() const;

    ScenarioDocument *m_doc = nullptr;
    QLabel *m_bubbleLabel = nullptr;
    QLabel *m_detailLabel = nullptr;
    ElidedLabel *m_batchLabel = nullptr;
    QLabel *m_errorLabel = nullptr;
    QLabel *m_blockDetail = nullptr;
    QComboBox *m_schedule = nullptr;
    QSpinBox *m_chunks = nullptr;
    QSpinBox *m_microbatches = nullptr;
    QScrollArea *m_scroll = nullptr;
    QScrollBar *m_hbar = nullptr;
    TimelineCanvas *m_canvas = nullptr;
    double m_shownBubble = 0.0;
    bool m_syncingBar = false;
};

} // namespace railyard
