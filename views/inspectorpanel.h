#pragma once

#include <QString>
#include <QWidget>

#include <memory>
#include <vector>

class QGroupBox;
class QLabel;
class QVBoxLayout;

namespace railyard {

class InspectorField;
class ScenarioDocument;

/**
 * The scenario's parameters as forms: parallel degrees and rank order, workload (model preset
 * and shape, batch, precision, Megatron-LM switches), device, fabric. Committing a field builds
 * the next Scenario from the document's plus the edited values and calls
 * ScenarioDocument::editScenario() (one undo step). When the engine refuses it, its message
 * stays inline above the form and the offending fields keep the typed value, marked red; the
 * document is unchanged. Document changes refresh every field without re-triggering edits.
 */
class InspectorPanel : public QWidget
{
    Q_OBJECT

public:
    explicit InspectorPanel(ScenarioDocument *doc, QWidget *parent = nullptr);
    ~InspectorPanel() override;

    /// The engine's message of the last refused edit, empty when the form matches the document.
    QString errorText() const;
    /// The field with this JSON path ("parallel.tp", "training.recompute"), or nullptr.
    InspectorField *field(const QString &path) const;
    /// Its editor widget (QSpinBox, QDoubleSpinBox, QCheckBox, QComboBox or QLineEdit).
    QWidget *editor(const QString &path) const;

    /// Puts every field back to the document's value and clears the error.
    void revert();

private:
    QGroupBox *addGroup(
        QVBoxLayout *layout, const QString &title, const std::vector<InspectorField *> &fields);
    void reload();
    void commit(InspectorField *origin);
    void showError(const QString &message, InspectorField *origin);

    ScenarioDocument *m_doc = nullptr;
    std::vector<std::unique_ptr<InspectorField>> m_fields;
    QWidget *m_errorBox = nullptr;
    QLabel *m_error = nullptr;
    QString m_lastFailed; ///< the edit text that was refused (not retried until something changes)
    bool m_committing = false;
};

} // namespace railyard
