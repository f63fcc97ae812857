#include "lesson.h"

#include "base/fileio.h"
#include "base/jsonfields.h"
#include "base/scenarioerror.h"

#include <QFile>
#include <QFileInfo>
#include <QObject>
#include <QRegularExpression>

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

using nlohmann::json;

constexpr int kLessonFormat = 1;
constexpr std::size_t kMaxText = 1 << 14;
constexpr std::size_t kMaxItems = 64;

struct OpName
{
    LessonCondition::Op op;
    const char *key;
    const char *words;
};
constexpr OpName kOps[] = {
    {LessonCondition::Op::Below, "below", "below"},
    {LessonCondition::Op::AtMost, "at_most", "at most"},
    {LessonCondition::Op::Above, "above", "above"},
    {LessonCondition::Op::AtLeast, "at_least", "at least"},
    {LessonCondition::Op::Equals, "equals", "equal to"},
};

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

/// Levenshtein distance, for "did you mean".
int distance(const QString &a, const QString &b)
{
    std::vector<int> row(static_cast<std::size_t>(b.size()) + 1);
    for (std::size_t j = 0; j < row.size(); ++j)
        row[j] = static_cast<int>(j);
    for (int i = 1; i <= a.size(); ++i) {
        int diagonal = row[0];
        row[0] = i;
        for (int j = 1; j <= b.size(); ++j) {
            const int above = row[static_cast<std::size_t>(j)];
            row[static_cast<std::size_t>(j)] = std::min({above + 1, row[static_cast<std::size_t>(j) - 1] + 1,
                                                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[static_cast<std::size_t>(b.size())];
}

LessonCondition readCondition(const json &value, const std::string &path,
                              const std::function<bool(const QString &)> &knownFigure, const QStringList &names)
{
    JsonFields f(value, path, {"figure", "below", "at_most", "above", "at_least", "equals", "of_start"});
    f.rejectUnknown();
    LessonCondition c;
    f.required("figure");
    c.figure = qs(f.string("figure", std::string(), 128, false));
    if (!knownFigure(c.figure)) {
        QString best;
        int bestDistance = 4;
        for (const QString &n : names)
            if (const int d = distance(c.figure, n); d < bestDistance) {
                bestDistance = d;
                best = n;
            }
        throw ScenarioError(f.fieldPath("figure"), "unknown figure '" + c.figure.toStdString() + "'"
                                                       + (best.isEmpty() ? std::string(" (README \"Lesson files\" lists them)")
                                                                         : " (did you mean '" + best.toStdString() + "'?)"));
    }
    int ops = 0;
    for (const OpName &o : kOps) {
        const json *v = f.find(o.key);
        if (!v)
            continue;
        ++ops;
        c.op = o.op;
        if (v->is_string() && o.op == LessonCondition::Op::Equals)
            c.text = qs(v->get<std::string>());
        else
            c.value = jsonNumber(*v, f.fieldPath(o.key), -1e300, 1e300);
    }
    if (ops != 1)
        throw ScenarioError(path, ops == 0 ? "needs one of below, at_most, above, at_least, equals"
                                           : "has more than one of below, at_most, above, at_least, equals");
    c.ofStart = f.boolean("of_start", false);
    if (c.ofStart && !c.text.isEmpty())
        throw ScenarioError(f.fieldPath("of_start"), "compares numbers only");
    return c;
}

QStringList readTexts(const JsonFields &f, std::string_view key, bool required)
{
    QStringList out;
    const json *list = f.array(key, kMaxItems);
    if (!list) {
        if (required)
            f.required(key);
        return out;
    }
    for (std::size_t i = 0; i < list->size(); ++i) {
        const std::string path = jsonElementPath(f.fieldPath(key), i);
        if (!(*list)[i].is_string())
            throw ScenarioError(path, "expected a string, got " + jsonTypeName((*list)[i]));
        out << qs((*list)[i].get<std::string>());
    }
    return out;
}

Lesson parse(const json &root, const QString &path, const std::function<bool(const QString &)> &knownFigure,
             const QStringList &names)
{
    JsonFields f(root, "", {"lesson_format", "id", "title", "scenario", "start", "goal", "check", "hints", "explanation"});
    const std::int64_t format = f.requiredInteger("lesson_format", 1, 1000);
    if (format > kLessonFormat)
        throw ScenarioError("lesson_format", "lesson format " + std::to_string(format)
                                                 + " is newer than this Railyard reads (" + std::to_string(kLessonFormat) + ")");
    f.rejectUnknown();
    Lesson l;
    l.path = path;
    f.required("id");
    l.id = qs(f.string("id", std::string(), 64, false));
    f.required("title");
    l.title = qs(f.string("title", std::string(), 200, false));
    f.required("goal");
    l.goal = qs(f.string("goal", std::string(), kMaxText, false));
    l.explanation = qs(f.string("explanation", std::string(), kMaxText));
    const json &scenario = f.required("scenario");
    if (scenario.is_string())
        l.scenarioRef = qs(scenario.get<std::string>());
    else if (scenario.is_object())
        l.inlineScenario = QByteArray::fromStdString(scenario.dump());
    else
        throw ScenarioError("scenario", "expected a file name (\"sample:seed-128.json\", \"my-job.json\") or a "
                                        "scenario object, got " + jsonTypeName(scenario));
    if (const json *start = f.find("start")) {
        JsonFields s(*start, "start", {"placement", "global_batch", "watch"});
        s.rejectUnknown();
        l.startPlacement = qs(s.string("placement", std::string(), 32));
        if (!l.startPlacement.isEmpty() && l.startPlacement != QLatin1String("packed")
            && l.startPlacement != QLatin1String("rail-aligned") && l.startPlacement != QLatin1String("scattered"))
            throw ScenarioError("start.placement", "expected packed, rail-aligned or scattered, got \""
                                                       + l.startPlacement.toStdString() + "\"");
        l.startGlobalBatch = s.integer("global_batch", 0, 1, 1 << 30);
        // The collective the class watches once the lesson starts (View > Watch a Collective):
        // DIM:RANK[:OP] or DIM:all, as `railyard --watch` takes it.
        l.startWatch = qs(s.string("watch", std::string(), 32));
        static const QRegularExpression watchForm(
            QStringLiteral("^(tp|pp|dp|ep|cp):([0-9]{1,9}|all)(:[0-9]{1,3})?$"));
        if (!l.startWatch.isEmpty() && !watchForm.match(l.startWatch).hasMatch())
            throw ScenarioError("start.watch", "expected DIM:RANK[:OP] or DIM:all with DIM one of "
                                               "tp, pp, dp, ep, cp (\"dp:0\"), got \""
                                                   + l.startWatch.toStdString() + "\"");
    }
    const json *check = f.array("check", kMaxItems);
    if (!check)
        f.required("check");
    if (check->empty())
        throw ScenarioError("check", "needs at least one condition");
    for (std::size_t i = 0; i < check->size(); ++i)
        l.check.push_back(readCondition((*check)[i], jsonElementPath("check", i), knownFigure, names));
    l.hints = readTexts(f, "hints", false);
    // Placeholders in the explanation must name figures too.
    static const QRegularExpression placeholder(QStringLiteral("\\{(start:)?([a-z0-9_.]+)\\}"));
    for (auto it = placeholder.globalMatch(l.explanation); it.hasNext();) {
        const QString name = it.next().captured(2);
        if (!knownFigure(name))
            throw ScenarioError("explanation", "{" + name.toStdString() + "} names no figure");
    }
    return l;
}

} // namespace

Lesson Lesson::fromJson(const QByteArray &text, const QString &path, const std::function<bool(const QString &)> &knownFigure,
                        const QStringList &figureNames)
{
    const std::string file = QFileInfo(path).fileName().toStdString();
    try {
        return parse(parseJsonGuarded(text.toStdString(), 16), path, knownFigure, figureNames);
    } catch (const ScenarioError &e) {
        throw ScenarioError(e.field().empty() ? file : file + ": " + e.field(), e.reason());
    }
}

Lesson Lesson::fromFile(const QString &path, const std::function<bool(const QString &)> &knownFigure,
                        const QStringList &figureNames)
{
    if (path.startsWith(QLatin1Char(':'))) { // a built-in lesson in the Qt resources
        QFile file(path);
        if (!file.open(QIODevice::ReadOnly))
            throw ScenarioError(path.toStdString(), "cannot open: " + file.errorString().toStdString());
        return fromJson(file.readAll(), path, knownFigure, figureNames);
    }
    // The engine's reader refuses a FIFO, directory or device at once (base/fileio.h).
    const std::string text = readFileLimited(QFile::encodeName(path).toStdString(), 1 << 20,
        "a lesson file", " (a lesson file is at most 1 MiB)");
    return fromJson(QByteArray::fromStdString(text), path, knownFigure, figureNames);
}

LessonState evaluateLesson(const Lesson &lesson, const std::function<FigureValue(const QString &)> &now,
                           const std::function<FigureValue(const QString &)> &atStart,
                           const std::function<QString(const QString &, double)> &format)
{
    LessonState state;
    state.met = true;
    for (const LessonCondition &c : lesson.check) {
        const FigureValue v = now(c.figure);
        ConditionState s;
        const char *words = "";
        for (const OpName &o : kOps)
            if (o.op == c.op)
                words = o.words;
        if (!c.text.isEmpty()) {
            s.met = v.word == c.text;
            s.text = QObject::tr("%1 is %2 — needs %3").arg(c.figure, v.word.isEmpty() ? QObject::tr("unknown") : v.word, c.text);
        } else if (!v.number) {
            s.text = QObject::tr("%1: not available for this scenario").arg(c.figure);
        } else {
            double target = c.value;
            if (c.ofStart) {
                const FigureValue start = atStart(c.figure);
                target = start.number ? *start.number * c.value : std::nan("");
            }
            const double x = *v.number;
            // Equality with a relative tolerance: the engine's sums are floating point.
            const bool equal = std::abs(x - target) <= 1e-9 * std::max({1.0, std::abs(x), std::abs(target)});
            switch (c.op) {
            case LessonCondition::Op::Below: s.met = x < target && !equal; break;
            case LessonCondition::Op::AtMost: s.met = x < target || equal; break;
            case LessonCondition::Op::Above: s.met = x > target && !equal; break;
            case LessonCondition::Op::AtLeast: s.met = x > target || equal; break;
            case LessonCondition::Op::Equals: s.met = equal; break;
            }
            s.text = QObject::tr("%1 %2 — needs %3 %4%5")
                         .arg(c.figure, format(c.figure, x), QString::fromLatin1(words), format(c.figure, target),
                              c.ofStart ? QObject::tr(" (%1 × its value at the start)").arg(c.value) : QString());
        }
        state.met = state.met && s.met;
        state.conditions.push_back(s);
    }
    if (state.met) {
        QString text = lesson.explanation;
        static const QRegularExpression placeholder(QStringLiteral("\\{(start:)?([a-z0-9_.]+)\\}"));
        QString out;
        qsizetype last = 0;
        for (auto it = placeholder.globalMatch(text); it.hasNext();) {
            const QRegularExpressionMatch m = it.next();
            out += text.mid(last, m.capturedStart() - last);
            const FigureValue v = m.captured(1).isEmpty() ? now(m.captured(2)) : atStart(m.captured(2));
            out += v.number ? format(m.captured(2), *v.number) : v.word;
            last = m.capturedEnd();
        }
        out += text.mid(last);
        state.explanation = out;
    }
    return state;
}

} // namespace railyard
