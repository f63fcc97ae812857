#include "expertpanel.h"

#include "epmatrixview.h"
#include "document/scenariodocument.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QVBoxLayout>

namespace railyard {

ExpertPanel::ExpertPanel(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent)
    , m_doc(doc)
{
    setObjectName(QStringLiteral("expertPanel"));
    // Controls and notes on the left, the matrix beside them: the dock is wide, not tall.
    auto *outer = new QHBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);
    auto *left = new QVBoxLayout;
    m_kind = new QComboBox(this);
    m_kind->setObjectName(QStringLiteral("expertRouting"));
    m_kind->addItem(tr("Uniform"), static_cast<int>(RoutingKind::Uniform));
    m_kind->addItem(tr("Zipf-skewed"), static_cast<int>(RoutingKind::Zipf));
    m_kind->addItem(tr("Explicit hotness (from file)"), static_cast<int>(RoutingKind::Explicit));
    m_kind->setToolTip(tr("The router's destination distribution over the experts"));
    m_exponent = new QDoubleSpinBox(this);
    m_exponent->setObjectName(QStringLiteral("expertZipfExponent"));
    m_exponent->setRange(0.0, kMaxZipfExponent);
    m_exponent->setSingleStep(0.1);
    m_exponent->setDecimals(2);
    // Typed text commits on Enter or focus out: with keyboard tracking every keystroke would
    // commit ("1" of "1.5" at once, and the refresh then writes 1.00 over the rest).
    m_exponent->setKeyboardTracking(false);
    m_exponent->setToolTip(tr("Zipf exponent s: expert i gets weight 1/(i+1)^s (0 = uniform)"));
    m_group = new QSpinBox(this);
    m_group->setObjectName(QStringLiteral("expertGroup"));
    m_group->setToolTip(tr("Which expert-parallel group the matrix shows"));
    auto *form = new QFormLayout;
    form->addRow(tr("Router"), m_kind);
    form->addRow(tr("Exponent s"), m_exponent);
    form->addRow(tr("EP group"), m_group);
    left->addLayout(form);

    m_error = new QLabel(this);
    m_error->setObjectName(QStringLiteral("expertError"));
    m_error->setStyleSheet(QStringLiteral("color: #c0392b;"));
    m_error->setWordWrap(true);
    m_error->hide();
    left->addWidget(m_error);
    m_note = new QLabel(this);
    m_note->setWordWrap(true);
    m_note->setStyleSheet(QStringLiteral("color: gray;"));
    left->addWidget(m_note);
    left->addStretch(1);
    auto *leftWidget = new QWidget(this);
    leftWidget->setLayout(left);
    leftWidget->setMaximumWidth(330);
    outer->addWidget(leftWidget);

    m_matrix = new EpMatrixView(this);
    m_matrix->setObjectName(QStringLiteral("expertMatrix"));
    outer->addWidget(m_matrix, 1);

    connect(m_kind, &QComboBox::currentIndexChanged, this, &ExpertPanel::commit);
    connect(m_exponent, &QDoubleSpinBox::valueChanged, this, &ExpertPanel::commit);
    connect(m_group, &QSpinBox::valueChanged, this, [this](int g) {
        if (!m_syncing)
            Q_EMIT groupChanged(g);
    });
    connect(m_doc, &ScenarioDocument::scenarioChanged, this, &ExpertPanel::syncControls);
    syncControls();
}

int ExpertPanel::group() const
{
    return m_group->value();
}

QString ExpertPanel::errorText() const
{
    return m_error->isVisible() ? m_error->text() : QString();
}

void ExpertPanel::syncControls()
{
    m_syncing = true;
    const Scenario &s = m_doc->scenario();
    const ExpertRouting &r = s.model.routing;
    const bool moe = s.model.experts > 0;
    m_kind->setCurrentIndex(m_kind->findData(static_cast<int>(r.kind)));
    m_exponent->setValue(r.zipfExponent);
    m_exponent->setEnabled(moe && r.kind == RoutingKind::Zipf);
    // Explicit weights come from a file (model.routing.hotness or hotness_file); the entry is
    // offered only when the document has them.
    const bool hasHotness = static_cast<int>(r.hotness.size()) == s.model.experts && moe;
    if (auto *model = qobject_cast<QStandardItemModel *>(m_kind->model()); model)
        model->item(2)->setEnabled(hasHotness);
    m_kind->setEnabled(moe);
    const int world = static_cast<int>(s.slots.size());
    const int groups = s.degrees.ep > 0 ? std::max(1, world / s.degrees.ep) : 1;
    m_group->setRange(0, groups - 1);
    m_group->setEnabled(moe && s.degrees.ep > 1);
    m_note->setText(moe
            ? tr("%1 experts, top-%2, EP %3: each EP member holds %4 contiguous experts "
                 "(Megatron-Core). The matrix is one MoE layer's dispatch; combine "
                 "sends the same bytes back.")
                  .arg(s.model.experts)
                  .arg(s.model.topK)
                  .arg(s.degrees.ep)
                  .arg(s.degrees.ep > 0 ? s.model.experts / s.degrees.ep : 0)
            : tr("A dense model: no experts, no expert-parallel traffic. Open a MoE "
                 "scenario (File ▸ New ▸ mixtral-ep8) to study routing skew."));
    m_syncing = false;
}

void ExpertPanel::commit()
{
    if (m_syncing)
        return;
    Scenario next = m_doc->scenario();
    next.model.routing.kind = static_cast<RoutingKind>(m_kind->currentData().toInt());
    next.model.routing.zipfExponent = m_exponent->value();
    m_exponent->setEnabled(next.model.routing.kind == RoutingKind::Zipf);
    if (next.model.routing == m_doc->scenario().model.routing)
        return;
    // Spin-box clicks on the exponent merge into one undo step (same text).
    const QString message = m_doc->editScenario(next, tr("Expert routing"));
    m_error->setText(message);
    m_error->setVisible(!message.isEmpty());
    if (!message.isEmpty())
        syncControls(); // the document stayed as it was
}

void ExpertPanel::setSummary(const EpSummary &summary)
{
    m_matrix->setSummary(summary);
}

} // namespace railyard
