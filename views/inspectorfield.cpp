#include "inspectorfield.h"

#include "chartpalette.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QSignalBlocker>
#include <QSpinBox>

#include <cmath>
#include <utility>

namespace railyard {

InspectorField::InspectorField(
    Kind kind, const QString &path, const QString &label, Getter get, Setter set)
    : m_kind(kind)
    , m_path(path)
    , m_labelText(label)
    , m_get(std::move(get))
    , m_set(std::move(set))
{
    m_label = new QLabel(label);
}

InspectorField::~InspectorField() = default; // the widgets belong to the form

InspectorField *InspectorField::integer(
    const QString &path, const QString &label, int min, int max, Getter get, Setter set)
{
    auto *f = new InspectorField(Kind::Int, path, label, std::move(get), std::move(set));
    auto *spin = new QSpinBox;
    spin->setRange(min, max);
    spin->setKeyboardTracking(false); // valueChanged on Enter, focus out and arrow steps only
    spin->setAccelerated(true);
    QObject::connect(spin, &QSpinBox::valueChanged, spin, [f] { f->commit(); });
    f->m_editor = spin;
    f->setToolTip(f->defaultToolTip());
    return f;
}

InspectorField *InspectorField::real(const QString &path, const QString &label, double min,
    double max, int decimals, const QString &suffix, Getter get, Setter set)
{
    auto *f = new InspectorField(Kind::Double, path, label, std::move(get), std::move(set));
    auto *spin = new QDoubleSpinBox;
    spin->setRange(min, max);
    spin->setDecimals(decimals);
    spin->setSuffix(suffix);
    spin->setKeyboardTracking(false);
    spin->setAccelerated(true);
    QObject::connect(spin, &QDoubleSpinBox::valueChanged, spin, [f] { f->commit(); });
    f->m_editor = spin;
    f->setToolTip(f->defaultToolTip());
    f->m_decimals = decimals;
    return f;
}

InspectorField *InspectorField::boolean(
    const QString &path, const QString &label, Getter get, Setter set)
{
    auto *f = new InspectorField(Kind::Bool, path, label, std::move(get), std::move(set));
    auto *box = new QCheckBox;
    QObject::connect(box, &QCheckBox::toggled, box, [f] { f->commit(); });
    f->m_editor = box;
    f->setToolTip(f->defaultToolTip());
    return f;
}

InspectorField *InspectorField::choice(
    const QString &path, const QString &label, const QStringList &values, Getter get, Setter set)
{
    auto *f = new InspectorField(Kind::Choice, path, label, std::move(get), std::move(set));
    auto *combo = new QComboBox;
    for (const QString &v : values)
        combo->addItem(v, v);
    QObject::connect(combo, &QComboBox::currentIndexChanged, combo, [f] { f->commit(); });
    f->m_editor = combo;
    f->setToolTip(f->defaultToolTip());
    return f;
}

InspectorField *InspectorField::text(
    const QString &path, const QString &label, Getter get, Setter set)
{
    auto *f = new InspectorField(Kind::Text, path, label, std::move(get), std::move(set));
    auto *edit = new QLineEdit;
    QObject::connect(edit, &QLineEdit::editingFinished, edit, [f] { f->commit(); });
    f->m_editor = edit;
    f->setToolTip(f->defaultToolTip());
    return f;
}

QString InspectorField::defaultToolTip() const
{
    // Until a field says more: what it is and the scenario-file field it edits (README).
    return QObject::tr("%1 (scenario file: %2)").arg(m_labelText, m_path);
}

void InspectorField::setToolTip(const QString &tip)
{
    m_toolTip = tip;
    m_editor->setToolTip(tip);
    m_label->setToolTip(tip);
}

void InspectorField::setSpecialValueText(const QString &text)
{
    if (auto *spin = qobject_cast<QSpinBox *>(m_editor))
        spin->setSpecialValueText(text);
}

QVariant InspectorField::editorValue() const
{
    switch (m_kind) {
    case Kind::Int:
        return static_cast<QSpinBox *>(m_editor)->value();
    case Kind::Double:
        return static_cast<QDoubleSpinBox *>(m_editor)->value();
    case Kind::Bool:
        return static_cast<QCheckBox *>(m_editor)->isChecked();
    case Kind::Choice:
        return static_cast<QComboBox *>(m_editor)->currentData().toString();
    case Kind::Text:
        return static_cast<QLineEdit *>(m_editor)->text();
    }
    return {};
}

bool InspectorField::differs(const Scenario &s) const
{
    if (m_kind == Kind::Double) {
        // Compare at the precision shown, so a loaded value never "differs" by rounding.
        const double tolerance = 0.5 * std::pow(10.0, -m_decimals);
        return std::abs(editorValue().toDouble() - m_get(s).toDouble()) > tolerance;
    }
    return editorValue() != m_get(s);
}

void InspectorField::load(const Scenario &s)
{
    const QVariant v = m_get(s);
    const QSignalBlocker block(m_editor);
    switch (m_kind) {
    case Kind::Int:
        static_cast<QSpinBox *>(m_editor)->setValue(v.toInt());
        break;
    case Kind::Double:
        static_cast<QDoubleSpinBox *>(m_editor)->setValue(v.toDouble());
        break;
    case Kind::Bool:
        static_cast<QCheckBox *>(m_editor)->setChecked(v.toBool());
        break;
    case Kind::Choice: {
        auto *combo = static_cast<QComboBox *>(m_editor);
        int i = combo->findData(v.toString());
        if (i < 0) { // a value the list does not know (free-text name): show it as is
            combo->addItem(v.toString(), v.toString());
            i = combo->count() - 1;
        }
        combo->setCurrentIndex(i);
        break;
    }
    case Kind::Text:
        static_cast<QLineEdit *>(m_editor)->setText(v.toString());
        break;
    }
    setError(QString());
}

QString InspectorField::describe() const
{
    const QVariant v = editorValue();
    QString shown;
    switch (m_kind) {
    case Kind::Bool:
        shown = v.toBool() ? QStringLiteral("on") : QStringLiteral("off");
        break;
    case Kind::Double:
        shown = QString::number(v.toDouble(), 'g', 6);
        break;
    default:
        shown = v.toString();
    }
    return QStringLiteral("%1 = %2").arg(m_labelText, shown);
}

void InspectorField::setCommitHandler(std::function<void(InspectorField *)> onCommit)
{
    m_onCommit = std::move(onCommit);
}

void InspectorField::commit()
{
    if (m_onCommit)
        m_onCommit(this);
}

void InspectorField::setError(const QString &message)
{
    const bool bad = !message.isEmpty();
    const QString red = chartpalette::badColor().name();
    m_editor->setStyleSheet(bad
            ? QStringLiteral("%1 { background-color: #fde4e4; color: %2; }")
                  .arg(QString::fromLatin1(m_editor->metaObject()->className()), red)
            : QString());
    m_label->setStyleSheet(
        bad ? QStringLiteral("color: %1; font-weight: bold;").arg(red) : QString());
    m_editor->setToolTip(bad ? message : m_toolTip);
    m_editor->setProperty("inspectorError", bad);
}

} // namespace railyard
