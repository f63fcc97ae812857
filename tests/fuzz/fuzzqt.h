#pragma once

/**
 * The fuzz targets of the GUI's readers of outside input, shared with tst_fuzzregressions: lesson
 * files (fuzz_lesson) and autosave files with their metadata sidecar (fuzz_autosave). Both need
 * only QtCore.
 *
 * fuzz_lesson runs the real reader, Lesson::fromJson (app/gui/lesson.cpp, compiled into the
 * target), and the real check, evaluateLesson. The figure names are LessonFigures::names()'s,
 * rebuilt here from the model's dimension and tier names: LessonFigures itself needs the GUI's
 * document and chart code.
 *
 * fuzz_autosave mirrors AutoSaver::read (app/gui/autosaver.cpp), which cannot be linked
 * without the widgets: the scenario through the scenario loader and the engine, and the sidecar
 * through the same QJsonDocument::fromJson of its first 64 KiB and the same two fields.
 */

#include "fuzzharness.h"
#include "fuzzreaders.h"

#include "../../app/gui/lesson.h"

#include <QByteArray>
#include <QDateTime>
#include <QJsonDocument>
#include <QJsonObject>
#include <QString>
#include <QStringList>

#include <cmath>
#include <string_view>

namespace railyard::fuzz {

/// The figure names a lesson may use (app/gui/lessonfigures.cpp, LessonFigures::names()).
inline const QStringList &lessonFigureNames()
{
    static const QStringList names = [] {
        QStringList out;
        for (const char *n : { "iteration_time", "pipeline_makespan", "mfu", "bubble",
                 "spine_share", "bottleneck_utilisation", "memory_fits", "max_memory_per_rank",
                 "mapping_warnings", "tp_groups_across_servers", "dp_groups_across_rails",
                 "microbatches", "ranks", "failed_components", "changed_slots", "baseline_pinned",
                 "fabric.kind", "placement", "schedule", "order" })
            out << QString::fromLatin1(n);
        const auto latin = [](std::string_view s) {
            return QString::fromLatin1(s.data(), static_cast<qsizetype>(s.size()));
        };
        for (Dim d : kAllDims) {
            out << QStringLiteral("degree.") + latin(dimName(d));
            out << QStringLiteral("exposed.") + latin(dimName(d));
            out << QStringLiteral("bytes.") + latin(dimName(d));
            for (Tier t : kAllTiers)
                out << QStringLiteral("tier_bytes.%1.%2")
                           .arg(latin(tierName(t)), latin(dimName(d)));
        }
        return out;
    }();
    return names;
}

inline Outcome fuzzLesson(std::string_view input)
{
    const QStringList &names = lessonFigureNames();
    const auto known = [&](const QString &name) { return names.contains(name); };
    Lesson lesson;
    try {
        lesson = Lesson::fromJson(QByteArray(input.data(), static_cast<qsizetype>(input.size())),
            QStringLiteral("fuzz.json"), known, names);
    } catch (const ScenarioError &) {
        return Outcome::Rejected;
    }
    require(!lesson.check.empty(), "a lesson without a check was accepted");
    for (const LessonCondition &c : lesson.check) {
        require(known(c.figure), "a lesson names an unknown figure: " + c.figure.toStdString());
        require(std::isfinite(c.value), "a lesson's threshold is not finite");
    }
    // The check against figures that are numbers (a figure's position in the list) or words.
    const auto figure = [&](double scale) {
        return [&names, scale](const QString &name) {
            FigureValue v;
            if (name == QLatin1String("fabric.kind") || name == QLatin1String("placement")
                || name == QLatin1String("schedule") || name == QLatin1String("order"))
                v.word = QStringLiteral("tor");
            else
                v.number = scale * static_cast<double>(names.indexOf(name));
            return v;
        };
    };
    const LessonState state = evaluateLesson(lesson, figure(1.0), figure(2.0),
        [](const QString &, double x) { return QString::number(x); });
    require(state.conditions.size() == lesson.check.size(), "a condition without a state");
    bool all = true;
    for (const ConditionState &c : state.conditions) {
        require(!c.text.isEmpty(), "a condition without words");
        all = all && c.met;
    }
    require(all == state.met, "the check's verdict is not its conditions'");
    if (!lesson.inlineScenario.isEmpty()) {
        try {
            (void)parseScenario(lesson.inlineScenario.toStdString());
        } catch (const ScenarioError &) {
        }
    }
    return Outcome::Loaded;
}

/**
 * fuzz_autosave: an autosave file (a scenario file), "@@", and its `<file>.meta` sidecar
 * ({"original_path": ..., "saved_at": ISO 8601}). A broken sidecar only loses the title; the
 * scenario goes through fuzzScenario (loader, round trip, engine).
 */
inline Outcome fuzzAutosave(std::string_view input)
{
    const std::vector<std::string_view> parts = splitSections(input, 2);
    if (parts.size() > 1) {
        // AutoSaver::read: meta.read(64 * 1024), then the object's two strings.
        const QByteArray meta(parts[1].data(),
            static_cast<qsizetype>(std::min<std::size_t>(parts[1].size(), 64 * 1024)));
        const QJsonObject object = QJsonDocument::fromJson(meta).object();
        const QString originalPath = object.value(QStringLiteral("original_path")).toString();
        const QString savedAt = object.value(QStringLiteral("saved_at")).toString();
        (void)QDateTime::fromString(savedAt, Qt::ISODate);
        (void)originalPath.toStdString();
    }
    return fuzzScenario(parts[0]);
}

} // namespace railyard::fuzz
