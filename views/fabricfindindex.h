#pragma once

#include <QHash>
#include <QString>
#include <QStringList>

namespace railyard {

class Fabric;
class ParallelLayout;

/**
 * What Find (Ctrl+F) can go to, built once per fabric: every server, switch and link by its
 * name (the names the engine prints: Fabric::serverName(), FabricNode::name,
 * Fabric::linkName()). Ranks and coordinates need no list: "12", "rank 12", "(1,0,3)" (d,p,t)
 * and "d=1 p=0 t=3" are parsed. A lookup is a hash probe and completion a binary search
 * over the sorted names (QCompleter on a sorted model), so a keystroke costs the same at
 * 16,384 GPUs as at 128; only build() walks the fabric.
 */
class FabricFindIndex
{
public:
    /** A part of the fabric Find can show. */
    struct Target
    {
        enum class Kind { None, Rank, Server, Switch, Link };
        Kind kind = Kind::None;
        int id = -1; ///< rank, server, switch vertex or link id
        QString error; ///< Kind::None: why the text names nothing
    };

    void build(const Fabric &fabric);
    bool isEmpty() const { return m_names.isEmpty(); }
    /// Every server, switch and link name, sorted case-insensitively (for a QCompleter with
    /// QCompleter::CaseInsensitivelySortedModel).
    const QStringList &names() const { return m_names; }
    /// The part `text` names: a rank ("12", "rank 12"), coordinates ("(d,p,t)", "d=1 p=0 t=3"; c
    /// as a fourth value or "c=" when the layout has context parallelism), or a name (any case).
    Target resolve(const QString &text, const ParallelLayout &layout) const;

private:
    QStringList m_names;
    QHash<QString, Target> m_byName; ///< lower-case name without spaces
};

} // namespace railyard
