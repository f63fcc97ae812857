#pragma once

#include "lesson.h"
#include "lessonfigures.h"
#include "scenario/scenario.h"
#include "studies/changeattribution.h"

#include <QHash>
#include <QObject>

#include <vector>

class QDockWidget;

namespace railyard {

class LessonsPanel;
class MainWindow;

/**
 * The lessons for teaching, wired between the Lessons dock, the document and the engine: it
 * reads the built-in lessons (resources/lessons, embedded) and any lesson file the user opens,
 * starts one (its scenario as a new untitled document, after the unsaved-changes prompt),
 * keeps the figures at its start, and after every change evaluates its check from the
 * engine's figures (LessonFigures) and tells the panel. A met goal is announced once.
 */
class LessonController : public QObject
{
    Q_OBJECT

public:
    explicit LessonController(MainWindow *window);

    LessonsPanel *panel() const { return m_panel; }
    QDockWidget *dock() const { return m_dock; }
    const std::vector<Lesson> &lessons() const { return m_lessons; }
    /// The lesson running (its scenario was started), or -1.
    int activeLesson() const { return m_active; }
    /// The running lesson's check now.
    const LessonState &state() const { return m_state; }
    /// What the engine attributes the change since the lesson started to (valid while a lesson
    /// runs); the explanation opens with describeChange() of it.
    const ChangeAttribution &attribution() const { return m_attribution; }

    /// Opens lesson `index`'s scenario and starts checking it. False when cancelled or refused.
    bool startLesson(int index);
    /// Reads a lesson file and adds it to the list (then shows it). False (and the reader's
    /// message) when it is not a lesson.
    bool addLessonFile(const QString &path);
    /// Re-evaluates the running lesson now (otherwise it follows the document, coalesced).
    void refresh();

Q_SIGNALS:
    /// The running lesson's goal was just met.
    void lessonMet(int index);

private:
    void loadBuiltIn();
    void choose(int index);
    void scheduleRefresh();
    Scenario lessonScenario(const Lesson &lesson) const;
    LessonFigures::Context context() const;

    MainWindow *m_window;
    LessonsPanel *m_panel = nullptr;
    QDockWidget *m_dock = nullptr;
    std::vector<Lesson> m_lessons;
    int m_active = -1;
    bool m_met = false;
    bool m_pending = false;
    bool m_starting = false;
    std::vector<int> m_startSlots;
    QHash<QString, FigureValue> m_startFigures;
    CostReport m_startReport;
    ChangeAttribution m_attribution;
    LessonState m_state;
};

} // namespace railyard
