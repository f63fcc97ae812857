#include "lessonfigures.h"

#include "scenario/scenariosections.h"

#include "chartformat.h"
#include "cost/pipelineschedule.h"
#include "document/scenariodocument.h"
#include "studies/remapresult.h"
#include "workload/workloadnames.h"

#include <cmath>

namespace railyard {

namespace {

struct Plain
{
    const char *name;
    LessonFigures::Unit unit;
};

// Figures with a fixed name; the per-dimension and per-tier ones are built below.
constexpr Plain kPlain[] = {
    { "iteration_time", LessonFigures::Unit::Seconds },
    { "pipeline_makespan", LessonFigures::Unit::Seconds },
    { "mfu", LessonFigures::Unit::Fraction },
    { "bubble", LessonFigures::Unit::Fraction },
    { "spine_share", LessonFigures::Unit::Fraction },
    { "bottleneck_utilisation", LessonFigures::Unit::Fraction },
    { "memory_fits", LessonFigures::Unit::Count },
    { "max_memory_per_rank", LessonFigures::Unit::Bytes },
    { "mapping_warnings", LessonFigures::Unit::Count },
    { "tp_groups_across_servers", LessonFigures::Unit::Count },
    { "dp_groups_across_rails", LessonFigures::Unit::Count },
    { "microbatches", LessonFigures::Unit::Count },
    { "ranks", LessonFigures::Unit::Count },
    { "failed_components", LessonFigures::Unit::Count },
    { "changed_slots", LessonFigures::Unit::Count },
    { "baseline_pinned", LessonFigures::Unit::Count },
    { "fabric.kind", LessonFigures::Unit::Word },
    { "placement", LessonFigures::Unit::Word },
    { "schedule", LessonFigures::Unit::Word },
    { "order", LessonFigures::Unit::Word },
};

} // namespace

QStringList LessonFigures::names()
{
    QStringList out;
    for (const Plain &p : kPlain)
        out << QString::fromLatin1(p.name);
    for (Dim d : kAllDims) {
        out << QStringLiteral("degree.") + chartformat::latin(dimName(d));
        out << QStringLiteral("exposed.") + chartformat::latin(dimName(d));
        out << QStringLiteral("bytes.") + chartformat::latin(dimName(d));
        for (Tier t : kAllTiers)
            out << QStringLiteral("tier_bytes.%1.%2")
                       .arg(chartformat::latin(tierName(t)), chartformat::latin(dimName(d)));
    }
    return out;
}

bool LessonFigures::isKnown(const QString &name)
{
    return names().contains(name);
}

LessonFigures::Unit LessonFigures::unit(const QString &name)
{
    for (const Plain &p : kPlain)
        if (name == QLatin1String(p.name))
            return p.unit;
    if (name.startsWith(QLatin1String("degree.")))
        return Unit::Count;
    if (name.startsWith(QLatin1String("exposed.")))
        return Unit::Seconds;
    return Unit::Bytes; // bytes.<dim>, tier_bytes.<tier>.<dim>
}

FigureValue LessonFigures::value(const QString &name, const Context &context)
{
    FigureValue v;
    if (!context.document)
        return v;
    const ScenarioDocument &doc = *context.document;
    const CostEngine &engine = doc.engine();
    const CostReport &r = engine.report();
    const Scenario &s = engine.scenario();
    const auto number = [&v](double x) {
        v.number = x;
        return v;
    };
    if (name == QLatin1String("iteration_time"))
        return number(r.iterationTime);
    if (name == QLatin1String("pipeline_makespan"))
        return number(r.pipelineMakespan);
    if (name == QLatin1String("mfu"))
        return number(r.mfu);
    if (name == QLatin1String("bubble"))
        return number(r.bubbleFraction);
    if (name == QLatin1String("spine_share"))
        return number(r.spineBytesShare);
    if (name == QLatin1String("bottleneck_utilisation"))
        return number(r.bottleneckLink >= 0 ? r.utilisation(r.bottleneckLink) : 0.0);
    if (name == QLatin1String("memory_fits"))
        return number(r.memoryFits ? 1.0 : 0.0);
    if (name == QLatin1String("max_memory_per_rank"))
        return number(r.maxMemoryPerRank);
    if (name == QLatin1String("mapping_warnings"))
        return number(static_cast<double>(engine.mappingWarnings().size()));
    if (name == QLatin1String("tp_groups_across_servers"))
        return number(remapSummary(engine).tpGroupsAcrossServers);
    if (name == QLatin1String("dp_groups_across_rails"))
        return number(remapSummary(engine).dpGroupsAcrossRails);
    if (name == QLatin1String("microbatches"))
        return number(engine.plan().microbatches);
    if (name == QLatin1String("ranks"))
        return number(engine.layout().worldSize());
    if (name == QLatin1String("failed_components"))
        return number(static_cast<double>(s.failures.size()));
    if (name == QLatin1String("baseline_pinned"))
        return number(context.baselinePinned ? 1.0 : 0.0);
    if (name == QLatin1String("changed_slots")) {
        const std::vector<int> &now = doc.mapping().slots();
        if (!context.startSlots || context.startSlots->size() != now.size())
            return v; // another layout: no rank-by-rank comparison
        int changed = 0;
        for (std::size_t i = 0; i < now.size(); ++i)
            changed += now[i] != (*context.startSlots)[i] ? 1 : 0;
        return number(changed);
    }
    if (name == QLatin1String("fabric.kind")) {
        const std::string_view kind = scenariosections::fabricKindText(s.fabric.kind);
        v.word = QString::fromUtf8(kind.data(), static_cast<qsizetype>(kind.size()));
        return v;
    }
    if (name == QLatin1String("placement")) {
        v.word = chartformat::latin(placementName(s.placement));
        return v;
    }
    if (name == QLatin1String("schedule")) {
        v.word = chartformat::latin(scheduleName(s.training.schedule));
        return v;
    }
    if (name == QLatin1String("order")) {
        v.word = QString::fromStdString(s.order);
        return v;
    }
    for (Dim d : kAllDims) {
        const QString dim = chartformat::latin(dimName(d));
        const auto i = static_cast<std::size_t>(d);
        if (name == QStringLiteral("degree.") + dim) {
            const ParallelDegrees &g = engine.layout().degrees();
            const int values[] = { g.tp, g.pp, g.dp, g.ep, g.cp };
            return number(values[i]);
        }
        if (name == QStringLiteral("exposed.") + dim)
            return number(r.dimExposed[i]);
        if (name == QStringLiteral("bytes.") + dim)
            return number(r.dimBytes[i]);
        for (Tier t : kAllTiers)
            if (name
                == QStringLiteral("tier_bytes.%1.%2").arg(chartformat::latin(tierName(t)), dim))
                return number(r.tierBytes[static_cast<std::size_t>(index(t))][i]);
    }
    return v;
}

QString LessonFigures::format(const QString &name, double value)
{
    if (!std::isfinite(value))
        return QStringLiteral("?");
    switch (unit(name)) {
    case Unit::Seconds:
        return chartformat::seconds(value);
    case Unit::Fraction:
        return chartformat::percent(value);
    case Unit::Bytes:
        return chartformat::bytes(value);
    case Unit::Count:
        return value == std::floor(value) ? QString::number(static_cast<long long>(value))
                                          : QString::number(value, 'g', 4);
    case Unit::Word:
        break;
    }
    return QString::number(value);
}

} // namespace railyard
