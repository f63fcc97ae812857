#include "fabricfindindex.h"

#include "fabric/fabric.h"
#include "layout/parallellayout.h"

#include <QRegularExpression>

#include <algorithm>

namespace railyard {

namespace {

/// "(1, 0, 3)", "1,0,3" or "(1 0 3)": d, p, t (and c) in the order the chips show them.
const QRegularExpression &tupleForm()
{
    static const QRegularExpression re(QStringLiteral(
        "^\\(?\\s*(\\d+)\\s*[, ]\\s*(\\d+)\\s*[, ]\\s*(\\d+)(?:\\s*[, ]\\s*(\\d+))?\\s*\\)?$"));
    return re;
}

/// One "d=1" of the named form.
const QRegularExpression &namedPart()
{
    static const QRegularExpression re(QStringLiteral("([dptc])\\s*=\\s*(\\d+)"));
    return re;
}

/// The key a name is found by: any case, and "a->b" as "a -> b" (spaces do not matter).
QString nameKey(const QString &name)
{
    QString k = name.toLower();
    k.remove(QLatin1Char(' '));
    return k;
}

} // namespace

void FabricFindIndex::build(const Fabric &fabric)
{
    m_names.clear();
    m_byName.clear();
    const auto add = [this](const std::string &name, Target::Kind kind, int id) {
        const QString n = QString::fromStdString(name);
        if (n.isEmpty() || m_byName.contains(nameKey(n)))
            return;
        m_byName.insert(nameKey(n), Target { kind, id, {} });
        m_names.push_back(n);
    };
    for (int s = 0; s < fabric.servers(); ++s)
        add(fabric.serverName(s), Target::Kind::Server, s);
    for (int i = 0; i < fabric.leafCount(); ++i)
        add(fabric.node(fabric.leafVertex(i)).name, Target::Kind::Switch, fabric.leafVertex(i));
    for (int i = 0; i < fabric.spineCount(); ++i)
        add(fabric.node(fabric.spineVertex(i)).name, Target::Kind::Switch, fabric.spineVertex(i));
    for (int i = 0; i < fabric.superSpineCount(); ++i)
        add(fabric.node(fabric.superSpineVertex(i)).name, Target::Kind::Switch,
            fabric.superSpineVertex(i));
    for (int i = 0; i < fabric.coreCount(); ++i)
        add(fabric.node(fabric.coreVertex(i)).name, Target::Kind::Switch, fabric.coreVertex(i));
    for (int l = 0; l < fabric.linkCount(); ++l)
        add(fabric.linkName(l), Target::Kind::Link, l);
    std::sort(m_names.begin(), m_names.end(),
        [](const QString &a, const QString &b) { return a.compare(b, Qt::CaseInsensitive) < 0; });
}

FabricFindIndex::Target FabricFindIndex::resolve(
    const QString &text, const ParallelLayout &layout) const
{
    const QString t = text.trimmed();
    Target none;
    if (t.isEmpty()) {
        none.error = QStringLiteral("type a rank, (d,p,t), a server, a switch or a link");
        return none;
    }
    const auto rankTarget = [&layout](int rank, const QString &what) {
        if (rank < 0 || rank >= layout.worldSize())
            return Target { Target::Kind::None, -1,
                QStringLiteral("%1: no such rank (ranks 0-%2)")
                    .arg(what)
                    .arg(layout.worldSize() - 1) };
        return Target { Target::Kind::Rank, rank, {} };
    };
    // A rank: "12" or "rank 12".
    static const QRegularExpression rankForm(
        QStringLiteral("^(?:rank\\s*)?(\\d+)$"), QRegularExpression::CaseInsensitiveOption);
    if (const auto m = rankForm.match(t); m.hasMatch())
        return rankTarget(m.captured(1).toInt(), t);
    // Coordinates: (d,p,t[,c]) or d=.. p=.. t=.. [c=..], each within its degree.
    int d = -1, p = -1, tt = -1, c = 0;
    if (const auto m = tupleForm().match(t); m.hasMatch()) {
        d = m.captured(1).toInt();
        p = m.captured(2).toInt();
        tt = m.captured(3).toInt();
        c = m.captured(4).isEmpty() ? 0 : m.captured(4).toInt();
    } else if (t.contains(QLatin1Char('='))) {
        const QString lower = t.toLower();
        auto it = namedPart().globalMatch(lower);
        int parts = 0;
        while (it.hasNext()) {
            const auto part = it.next();
            const int v = part.captured(2).toInt();
            switch (part.captured(1).at(0).toLatin1()) {
            case 'd':
                d = v;
                break;
            case 'p':
                p = v;
                break;
            case 't':
                tt = v;
                break;
            case 'c':
                c = v;
                break;
            default:
                break;
            }
            ++parts;
        }
        if (parts == 0 || d < 0 || p < 0 || tt < 0) {
            none.error = QStringLiteral("%1: give d=, p= and t= (e.g. d=1 p=0 t=3)").arg(t);
            return none;
        }
    }
    if (d >= 0) {
        const ParallelDegrees &g = layout.degrees();
        if (d >= g.dp || p >= g.pp || tt >= g.tp || c >= g.cp) {
            none.error = QStringLiteral("%1: out of range (d < %2, p < %3, t < %4%5)")
                             .arg(t)
                             .arg(g.dp)
                             .arg(g.pp)
                             .arg(g.tp)
                             .arg(g.cp > 1 ? QStringLiteral(", c < %1").arg(g.cp) : QString());
            return none;
        }
        return rankTarget(layout.rankOf(tt, p, d, c), t);
    }
    const auto found = m_byName.constFind(nameKey(t));
    if (found != m_byName.constEnd())
        return *found;
    none.error = QStringLiteral("%1: no rank, server, switch or link of this name").arg(t);
    return none;
}

} // namespace railyard
