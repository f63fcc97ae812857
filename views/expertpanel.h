#pragma once

#include "cost/epsummary.h"

#include <QWidget>

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QSpinBox;

namespace railyard {

class EpMatrixView;
class ScenarioDocument;

/**
 * The expert-parallel study: the router model (uniform, Zipf with its exponent, or the file's
 * explicit hotness) as an undoable edit of the document, which EP group to show, and the
 * dispatch matrix of that group (EpMatrixView). The application computes the EpSummary with the
 * engine and passes it in (setSummary); this panel computes nothing.
 */
class ExpertPanel : public QWidget
{
    Q_OBJECT

public:
    explicit ExpertPanel(ScenarioDocument *doc, QWidget *parent = nullptr);

    void setSummary(const EpSummary &summary);
    int group() const;

    EpMatrixView *matrixView() const { return m_matrix; }
    QComboBox *routingBox() const { return m_kind; }
    QDoubleSpinBox *exponentBox() const { return m_exponent; }
    QSpinBox *groupBox() const { return m_group; }
    QString errorText() const;

Q_SIGNALS:
    /// The user picked another EP group: recompute its summary.
    void groupChanged(int group);

private:
    void syncControls(); ///< the document's routing into the controls
    void commit(); ///< the controls' routing as one undoable edit

    ScenarioDocument *m_doc;
    QComboBox *m_kind = nullptr;
    QDoubleSpinBox *m_exponent = nullptr;
    QSpinBox *m_group = nullptr;
    QLabel *m_error = nullptr;
    QLabel *m_note = nullptr;
    EpMatrixView *m_matrix = nullptr;
    bool m_syncing = false;
};

} // namespace railyard
