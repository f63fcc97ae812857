#pragma once

#include "studies/failureremap.h"

#include <QDialog>

#include <vector>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QRadioButton;
class QTableWidget;
class QTreeWidget;

namespace railyard {

/**
 * "Mark failed…": the failure remap (model/studies/failureremap.h) for one healthy scenario and a list of failed
 * components. Every strategy (model/studies/failureremap.h) is computed up front and shown side by side
 * in one comparison table, healthy column first, the same rows `railyard-cli remap` prints;
 * impossible strategies are greyed with their reason. The user picks a strategy (radio
 * buttons), sees its notes and its moved-rank diff (keyed by the healthy coordinates), and on
 * Accept the chosen degraded scenario — a new mapping version — is available from
 * degradedScenario(). The dialog never touches a document: the caller applies the result.
 *
 * A plan that does not fit in device memory is never preselected (when none fits, nothing is):
 * its radio button says how much it needs, a red banner at the top repeats it when chosen,
 * and Apply stays disabled until "Apply although it does not fit" is ticked.
 */
class RemapDialog : public QDialog
{
    Q_OBJECT

public:
    /// Rows of the moved-rank tree; the rest is summarised in one last row.
    static constexpr int kMaxMoveRows = 5000;

    RemapDialog(
        const Scenario &healthy, std::vector<FailedComponent> failures, QWidget *parent = nullptr);

    /// The strategy selected now (meaningful when hasSelection()).
    RemapStrategy strategy() const;
    /// A possible strategy is selected (none is when no plan fits in memory).
    bool hasSelection() const;
    /// The selected plan fits in device memory.
    bool selectionFits() const;
    /// Apply is allowed: a possible strategy is selected and it fits, or the user ticked
    /// "Apply although it does not fit".
    bool canApply() const;
    QCheckBox *overrideBox() const { return m_override; }
    /// The red "does not fit" banner (visible while a plan that does not fit is selected).
    QLabel *fitBanner() const { return m_fitBanner; }
    /// "needs 85.3 GB of 80.0 GB per GPU": the memory line of a result.
    static QString memoryText(const RemapResult &result);
    /// Selects a strategy; false (and nothing changes) when it is impossible.
    bool setStrategy(RemapStrategy strategy);
    bool hasPossibleStrategy() const;
    const std::vector<RemapResult> &results() const { return m_results; }
    const RemapResult &resultFor(RemapStrategy strategy) const;
    /// The degraded scenario of the selected strategy: the new mapping version to apply.
    const Scenario &degradedScenario() const;
    /// The error when the remap itself was refused (a failure outside the fabric, a healthy
    /// scenario that does not evaluate); empty otherwise.
    QString errorText() const { return m_error; }

Q_SIGNALS:
    void strategyChanged(railyard::RemapStrategy strategy);

private:
    void buildTable();
    void showStrategy();

    Scenario m_healthy;
    std::vector<FailedComponent> m_failures;
    std::vector<RemapResult> m_results;
    static constexpr std::size_t kNone = static_cast<std::size_t>(-1);
    std::size_t m_selected = kNone;
    QString m_error;
    std::vector<QRadioButton *> m_radios;
    QLabel *m_header = nullptr;
    QLabel *m_fitBanner = nullptr;
    QCheckBox *m_override = nullptr;
    QLabel *m_notes = nullptr;
    QTableWidget *m_table = nullptr;
    QTreeWidget *m_moves = nullptr;
    QLabel *m_movesSummary = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace railyard
