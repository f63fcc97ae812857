#include "inspectorpanel.h"

#include "chartpalette.h"
#include "inspectorfield.h"
#include "inspectorgroups.h"
#include "document/scenariodocument.h"

#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QScrollArea>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace railyard {

namespace {

/// ScenarioError paths that have no field of their own, mapped to the field that sets them.
QString fieldForErrorPath(const QString &path)
{
    if (path == QLatin1String("training.microbatches"))
        return QStringLiteral("training.global_batch");
    return path;
}

} // namespace

InspectorPanel::InspectorPanel(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent)
    , m_doc(doc)
{
    setObjectName(QStringLiteral("inspector"));

    m_error = new QLabel;
    m_error->setObjectName(QStringLiteral("inspectorError"));
    m_error->setWordWrap(true);
    m_error->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_error->setStyleSheet(QStringLiteral("color: %1;").arg(chartpalette::badColor().name()));
    auto *revertButton = new QToolButton;
    revertButton->setObjectName(QStringLiteral("inspectorRevert"));
    revertButton->setText(tr("Revert"));
    revertButton->setToolTip(tr("Put the fields back to the document's values"));
    connect(revertButton, &QToolButton::clicked, this, &InspectorPanel::revert);
    m_errorBox = new QFrame;
    m_errorBox->setObjectName(QStringLiteral("inspectorErrorBox"));
    m_errorBox->setStyleSheet(
        QStringLiteral("#inspectorErrorBox { background: #fdecea; border: 1px solid %1; "
                       "border-radius: 3px; }")
            .arg(chartpalette::badColor().name()));
    auto *errorLayout = new QHBoxLayout(m_errorBox);
    errorLayout->setContentsMargins(6, 4, 4, 4);
    errorLayout->addWidget(m_error, 1);
    errorLayout->addWidget(revertButton, 0, Qt::AlignTop);
    m_errorBox->hide();

    auto *content = new QWidget;
    auto *form = new QVBoxLayout(content);
    form->setContentsMargins(2, 4, 2, 4); // narrow sides: the editors' arrows fit a 266-px panel (scale 2)
    addGroup(form, tr("Parallel layout"), inspectorgroups::parallelFields());
    addGroup(form, tr("Workload"), inspectorgroups::workloadFields());
    addGroup(form, tr("Device"), inspectorgroups::deviceFields());
    addGroup(form, tr("Fabric"), inspectorgroups::fabricFields());
    // One label column width for every group, so the editors line up down the panel.
    int labelWidth = 0;
    for (const auto &f : m_fields)
        labelWidth = std::max(labelWidth, f->label()->sizeHint().width());
    for (const auto &f : m_fields) {
        f->label()->setMinimumWidth(labelWidth);
        f->label()->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }

    auto *hint = new QLabel(tr("Fields apply on Enter or when you leave them; every change is "
                               "one undo step."));
    hint->setWordWrap(true);
    hint->setStyleSheet(QStringLiteral("color: gray;"));
    form->addWidget(hint);
    form->addStretch(1);

    auto *scroll = new QScrollArea;
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    // A spin box asks for the width of its range's longest number (ten digits for an int): a
    // six-digit field is enough to read and type (longer values scroll inside it), and keeps
    // the form narrow enough to fit the panel (there is no horizontal scroll bar: a wider form
    // had the spin boxes' arrows cut off at 1280x720 and at scale 2).
    for (QAbstractSpinBox *spin : content->findChildren<QAbstractSpinBox *>())
        spin->setMinimumWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("000000")) + 30);
    // A combo box asks for its longest item (a model's name): eight characters, the rest in
    // its list.
    for (QComboBox *combo : content->findChildren<QComboBox *>()) {
        combo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        combo->setMinimumContentsLength(8);
    }

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(4);
    layout->addWidget(m_errorBox);
    layout->addWidget(scroll, 1);

    connect(m_doc, &ScenarioDocument::scenarioChanged, this, &InspectorPanel::reload);
    reload();
}

InspectorPanel::~InspectorPanel()
{
    // The editors outlive the fields by a moment (QWidget deletes its children after the
    // members are gone), and their signal handlers point at the fields: cut them first.
    for (const auto &f : m_fields)
        f->editor()->disconnect();
}

QGroupBox *InspectorPanel::addGroup(
    QVBoxLayout *layout, const QString &title, const std::vector<InspectorField *> &fields)
{
    auto *box = new QGroupBox(title);
    auto *form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    form->setLabelAlignment(Qt::AlignRight);
    for (InspectorField *f : fields) {
        f->editor()->setObjectName(f->path());
        f->setCommitHandler([this](InspectorField *origin) { commit(origin); });
        form->addRow(f->label(), f->editor());
        m_fields.emplace_back(f);
    }
    layout->addWidget(box);
    return box;
}

QString InspectorPanel::errorText() const
{
    return m_errorBox->isHidden() ? QString() : m_error->text();
}

InspectorField *InspectorPanel::field(const QString &path) const
{
    for (const auto &f : m_fields)
        if (f->path() == path)
            return f.get();
    return nullptr;
}

QWidget *InspectorPanel::editor(const QString &path) const
{
    InspectorField *f = field(path);
    return f ? f->editor() : nullptr;
}

void InspectorPanel::reload()
{
    const Scenario &s = m_doc->scenario();
    for (const auto &f : m_fields)
        f->load(s); // QSignalBlocker inside: loading never commits
    m_lastFailed.clear();
    m_errorBox->hide();
    m_error->clear();
}

void InspectorPanel::revert()
{
    reload();
}

void InspectorPanel::commit(InspectorField *origin)
{
    if (m_committing)
        return;
    const Scenario &current = m_doc->scenario();
    Scenario next = current;
    QStringList changes;
    bool modelEdited = false, deviceEdited = false;
    // Presets first, so fields edited alongside a preset land on top of it.
    for (const bool presets : { true, false }) {
        for (const auto &f : m_fields) {
            if (inspectorgroups::isPresetPath(f->path()) != presets || !f->differs(current))
                continue;
            f->store(next);
            changes << f->describe();
            modelEdited |= f->path().startsWith(QLatin1String("model."));
            deviceEdited |= f->path().startsWith(QLatin1String("device."));
        }
    }
    if (changes.isEmpty()) {
        reload(); // e.g. "custom" picked, or a value typed back to the document's
        return;
    }
    inspectorgroups::renameDepartedPresets(next, modelEdited, deviceEdited);

    const QString text = tr("Set %1").arg(changes.join(QStringLiteral(", ")));
    if (text == m_lastFailed)
        return; // the same refused edit again (Enter after a spin-box step): keep the message
    m_committing = true;
    const QString error = m_doc->editScenario(next, text);
    m_committing = false;
    if (error.isEmpty()) {
        reload(); // scenarioChanged did it already unless the document compares equal
        return;
    }
    m_lastFailed = text;
    showError(error, origin);
}

void InspectorPanel::showError(const QString &message, InspectorField *origin)
{
    m_error->setText(message);
    m_errorBox->show();
    for (const auto &f : m_fields)
        f->setError(f.get() == origin || f->differs(m_doc->scenario()) ? message : QString());
    // The engine names the field at fault first ("model.heads: ..."): mark it as well.
    const QString path = fieldForErrorPath(message.section(QStringLiteral(": "), 0, 0));
    if (InspectorField *named = field(path))
        named->setError(message);
}

} // namespace railyard
