#pragma once

#include "studies/failureremap.h"

#include <QDialog>

#include <vector>

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
 */
class RemapDialog : public QDialog
{
    Q_OBJECT

public:
    /// Rows of the moved-rank tree; the rest is summarised in one last row.
    static constexpr int kMaxMoveRows = 5000;

    RemapDialog(
        const Scenario &healthy, std::vector<FailedComponent> failures, QWidget *parent = nullptr);

    /// The strategy selected now (meaningful when hasPossibleStrategy()).
    RemapStrategy strategy() const;
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
    std::size_t m_selected = 0;
    QString m_error;
    std::vector<QRadioButton *> m_radios;
    QLabel *m_header = nullptr;
    QLabel *m_notes = nullptr;
    QTableWidget *m_table = nullptr;
    QTreeWidget *m_moves = nullptr;
    QLabel *m_movesSummary = nullptr;
    QDialogButtonBox *m_buttons = nullptr;
};

} // namespace railyard
