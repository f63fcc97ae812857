#pragma once

#include <QString>
#include <QStringList>

#include <functional>
#include <optional>
#include <vector>

namespace railyard {

/** One condition of a lesson's check: a figure compared with a number (or a word). */
struct LessonCondition
{
    enum class Op { Below, AtMost, Above, AtLeast, Equals };
    QString figure;     ///< a name of LessonFigures (README "Lesson files")
    Op op = Op::Equals;
    double value = 0.0;
    QString text;       ///< Equals on a word figure ("fabric.kind" equals "tor")
    bool ofStart = false; ///< `value` is a factor of the figure's value when the lesson started
};

/**
 * A lesson for teaching: a scenario to start from (a file, a shipped sample, or inline JSON,
 * with an optional placement or global batch on top), a goal in words, a check computed from
 * the engine's figures (every condition must hold), hints revealed one at a time, and an
 * explanation shown once the check is met. Read from a lesson file (README "Lesson files");
 * errors name the file and the field ("tp-scale-up.json: check[0].figure: unknown figure
 * 'spine_shar' (did you mean 'spine_share'?)").
 */
struct Lesson
{
    QString path;        ///< the file it was read from
    QString id;
    QString title;
    QString goal;
    QString scenarioRef; ///< "sample:seed-128.json", a path relative to the lesson, ":/...", or empty
    QByteArray inlineScenario; ///< the "scenario" object's JSON when given inline
    QString startPlacement; ///< "packed", "rail-aligned", "scattered" or empty
    int startGlobalBatch = 0; ///< 0: the scenario's
    QString startWatch; ///< a collective to play once started ("dp:0", DIM:RANK[:OP]) or empty
    std::vector<LessonCondition> check;
    QStringList hints;
    QString explanation; ///< may name figures in braces: {bubble}, {start:bubble}

    /// Reads and checks a lesson file (`knownFigure` tells the figure names apart). Throws
    /// ScenarioError naming the file and the field.
    static Lesson fromFile(const QString &path, const std::function<bool(const QString &)> &knownFigure,
                           const QStringList &figureNames);
    static Lesson fromJson(const QByteArray &text, const QString &path,
                           const std::function<bool(const QString &)> &knownFigure, const QStringList &figureNames);
};

/** A figure's value as the check sees it: a number, or a word for the few word figures. */
struct FigureValue
{
    std::optional<double> number;
    QString word;
};

/** One condition's state now: its value in words and whether it holds. */
struct ConditionState
{
    QString text; ///< "bubble 42.9 % — needs below 20.0 %"
    bool met = false;
};

/** The check of a lesson against the figures now (and at its start). */
struct LessonState
{
    std::vector<ConditionState> conditions;
    bool met = false;
    QString explanation; ///< with its {figures} filled in (empty until met)
};

/// Evaluates `lesson`'s check: `now` and `atStart` look figures up, `format` writes one in its
/// unit ("42.9 %", "1.23 s", "3").
LessonState evaluateLesson(const Lesson &lesson, const std::function<FigureValue(const QString &)> &now,
                           const std::function<FigureValue(const QString &)> &atStart,
                           const std::function<QString(const QString &, double)> &format);

} // namespace railyard
