#pragma once

#include "lesson.h"

#include <QString>
#include <QStringList>

#include <vector>

namespace railyard {

class ScenarioDocument;

/**
 * The figures a lesson's check may name, read from what the engine reports for the document
 * on screen (its CostReport, its workload plan, the failure-remap summary of TP and DP groups
 * across servers and rails) and from the document itself (degrees, fabric kind, placement,
 * failures, ranks moved since the lesson started). Nothing here computes a cost. README
 * "Lesson files" lists the names and units.
 */
class LessonFigures
{
public:
    enum class Unit { Seconds, Fraction, Bytes, Count, Word };

    /// What the figures are read from: the document, plus what the application knows.
    struct Context
    {
        const ScenarioDocument *document = nullptr;
        bool baselinePinned = false;
        const std::vector<int> *startSlots = nullptr; ///< the mapping when the lesson started
    };

    static QStringList names();
    static bool isKnown(const QString &name);
    static Unit unit(const QString &name);
    static FigureValue value(const QString &name, const Context &context);
    /// "42.9 %", "1.234 s", "12.0 GB", "3".
    static QString format(const QString &name, double value);
};

} // namespace railyard
