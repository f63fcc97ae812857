#include "reportnotes.h"

#include "document/scenariodocument.h"
#include "scenario/annotation.h"

#include <QObject>

namespace railyard {

QString ReportNotes::anchorName(const ScenarioDocument &doc, const AnnotationAnchor &anchor)
{
    const CostEngine &engine = doc.engine();
    const Fabric &fabric = engine.fabric();
    switch (anchor.kind) {
    case AnnotationAnchor::Kind::Server:
        if (anchor.index < fabric.servers())
            return QString::fromStdString(fabric.serverName(anchor.index));
        break;
    case AnnotationAnchor::Kind::Rank:
        if (anchor.index < engine.layout().worldSize()) {
            const RankCoord c = engine.layout().coord(anchor.index);
            return QObject::tr("rank %1 (d%2 p%3 t%4)").arg(anchor.index).arg(c.d).arg(c.p).arg(c.t);
        }
        break;
    case AnnotationAnchor::Kind::Link:
        if (anchor.index < fabric.linkCount())
            return QString::fromStdString(fabric.linkName(anchor.index));
        break;
    }
    return QObject::tr("%1 (not on this fabric)").arg(QString::fromStdString(anchorText(anchor)));
}

std::vector<ReportNotes::Section> ReportNotes::sections(const ScenarioDocument &doc)
{
    std::vector<Section> out;
    const Scenario &s = doc.scenario();
    if (!s.annotations.empty()) {
        Section notes{QObject::tr("Annotations"), {}};
        for (const Annotation &a : s.annotations) {
            if (a.kind == Annotation::Kind::Note)
                notes.rows.emplace_back(QObject::tr("note on %1").arg(anchorName(doc, a.anchor)),
                                        QString::fromStdString(a.text));
            else
                notes.rows.emplace_back(QObject::tr("arrow"), QObject::tr("%1 → %2%3")
                                                                  .arg(anchorName(doc, a.anchor), anchorName(doc, a.target),
                                                                       a.text.empty() ? QString()
                                                                                      : QStringLiteral(": ") + QString::fromStdString(a.text)));
        }
        out.push_back(std::move(notes));
    }
    if (!s.snapshots.empty()) {
        Section versions{QObject::tr("Snapshots"), {}};
        const int current = doc.currentSnapshot();
        for (std::size_t i = 0; i < s.snapshots.size(); ++i) {
            const Snapshot &snap = s.snapshots[i];
            int elsewhere = 0;
            const bool comparable = snap.slots.size() == s.slots.size();
            for (std::size_t r = 0; comparable && r < snap.slots.size(); ++r)
                elsewhere += snap.slots[r] != s.slots[r] ? 1 : 0;
            const QString state = static_cast<int>(i) == current ? QObject::tr("the mapping shown")
                : comparable ? QObject::tr("%n rank(s) sit elsewhere now", nullptr, elsewhere)
                             : QObject::tr("another layout");
            versions.rows.emplace_back(QString::fromStdString(snap.name),
                                       QObject::tr("tp %1 × pp %2 × dp %3, %4 ranks, %5; %6")
                                           .arg(snap.degrees.tp)
                                           .arg(snap.degrees.pp)
                                           .arg(snap.degrees.dp)
                                           .arg(snap.slots.size())
                                           .arg(snap.takenAt.empty() ? QObject::tr("taken at an unknown time")
                                                                     : QObject::tr("taken %1").arg(QString::fromStdString(snap.takenAt)))
                                           .arg(state));
        }
        out.push_back(std::move(versions));
    }
    return out;
}

} // namespace railyard
