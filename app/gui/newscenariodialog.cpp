#include "newscenariodialog.h"

#include "scenariotemplates.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QVBoxLayout>

namespace railyard {

NewScenarioDialog::NewScenarioDialog(QWidget *parent)
    : QDialog(parent)
    , m_list(new QListWidget(this))
{
    setWindowTitle(tr("New Scenario"));
    auto *intro = new QLabel(tr("Start from one of these scenarios; change the fabric, degrees and "
                                "workload afterwards in the inspector."), this);
    intro->setWordWrap(true);

    for (const ScenarioTemplate &t : scenarioTemplates()) {
        auto *item = new QListWidgetItem(QStringLiteral("%1\n%2").arg(t.title, t.summary), m_list);
        item->setData(Qt::UserRole, t.resource);
        item->setToolTip(t.summary);
    }
    m_list->setCurrentRow(0);
    m_list->setSpacing(2);
    m_list->setMinimumWidth(460);

    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    buttons->button(QDialogButtonBox::Ok)->setText(tr("Create"));
    buttons->button(QDialogButtonBox::Ok)->setEnabled(m_list->count() > 0);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    connect(m_list, &QListWidget::itemDoubleClicked, this, &QDialog::accept);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(m_list);
    layout->addWidget(buttons);
}

QString NewScenarioDialog::selectedTemplate() const
{
    const QListWidgetItem *item = m_list->currentItem();
    return item ? item->data(Qt::UserRole).toString() : QString();
}

} // namespace railyard
