#pragma once

#include "scenario/scenario.h"

#include <QString>
#include <QStringList>
#include <QVariant>

#include <functional>

class QLabel;
class QWidget;

namespace railyard {

/**
 * One editable scenario parameter in the inspector: its JSON path (as ScenarioError names it,
 * e.g. "parallel.tp"), a form label, an editor widget, and how to read it from and write it
 * into a Scenario. Loading never emits the editor's signals; the editor calls the commit
 * callback once per committed value (Enter, focus out, arrow step, toggle, selection).
 */
class InspectorField
{
public:
    enum class Kind { Int, Double, Bool, Choice, Text };
    using Getter = std::function<QVariant(const Scenario &)>;
    using Setter = std::function<void(Scenario &, const QVariant &)>;

    static InspectorField *integer(
        const QString &path, const QString &label, int min, int max, Getter get, Setter set);
    static InspectorField *real(const QString &path, const QString &label, double min, double max,
        int decimals, const QString &suffix, Getter get, Setter set);
    static InspectorField *boolean(
        const QString &path, const QString &label, Getter get, Setter set);
    /// Values are the strings the getter returns and the setter takes; labels default to them.
    static InspectorField *choice(const QString &path, const QString &label,
        const QStringList &values, Getter get, Setter set);
    static InspectorField *text(const QString &path, const QString &label, Getter get, Setter set);

    ~InspectorField();
    InspectorField(const InspectorField &) = delete;
    InspectorField &operator=(const InspectorField &) = delete;

    Kind kind() const { return m_kind; }
    const QString &path() const { return m_path; }
    QString labelText() const { return m_labelText; }
    QLabel *label() const { return m_label; }
    QWidget *editor() const { return m_editor; }
    /// "layers (scenario file: model.layers)": the tooltip until setToolTip() says more.
    QString defaultToolTip() const;
    void setToolTip(const QString &tip);
    /// Int only: shows `text` at the minimum (e.g. "auto" for a derived count of 0).
    void setSpecialValueText(const QString &text);

    QVariant editorValue() const;
    QVariant documentValue(const Scenario &s) const { return m_get(s); }
    /// The editor shows something else than `s` holds (doubles: beyond the decimals shown).
    bool differs(const Scenario &s) const;
    void store(Scenario &s) const { m_set(s, editorValue()); }
    void load(const Scenario &s);
    /// "tp = 4", "recompute = full", "PXN = on": for the undo text.
    QString describe() const;

    void setCommitHandler(std::function<void(InspectorField *)> onCommit);
    void setError(const QString &message); ///< empty clears the red mark

private:
    InspectorField(Kind kind, const QString &path, const QString &label, Getter get, Setter set);
    void commit();

    Kind m_kind;
    int m_decimals = 0;
    QString m_path;
    QString m_labelText;
    Getter m_get;
    Setter m_set;
    QLabel *m_label = nullptr;
    QWidget *m_editor = nullptr;
    QString m_toolTip;
    std::function<void(InspectorField *)> m_onCommit;
};

} // namespace railyard
