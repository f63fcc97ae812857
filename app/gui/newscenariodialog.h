#pragma once

#include <QDialog>

class QListWidget;

namespace railyard {

/**
 * File > New: pick one of the scenarios shipped with Railyard (the 128-GPU TP8 x PP4 x DP4 job, the
 * ToR variant, DGX SuperPOD units, an MoE job) as the starting point of a new, untitled
 * document. Everything else is then edited in the inspector.
 */
class NewScenarioDialog : public QDialog
{
    Q_OBJECT

public:
    explicit NewScenarioDialog(QWidget *parent = nullptr);

    /// The chosen template's resource path.
    QString selectedTemplate() const;

private:
    QListWidget *m_list = nullptr;
};

} // namespace railyard
