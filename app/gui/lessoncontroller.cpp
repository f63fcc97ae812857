#include "lessoncontroller.h"

#include "collectivecontroller.h"

#include "base/scenarioerror.h"
#include "document/scenariodocument.h"
#include "documentfiles.h"
#include "fabricview.h"
#include "lessonspanel.h"
#include "mainwindow.h"
#include "scenario/scenariofile.h"
#include "scenariotemplates.h"
#include "studycontroller.h"
#include "userdialogs.h"

#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QTimer>
#include <QUndoStack>

namespace railyard {

namespace {

const QString kBuiltIn = QStringLiteral(":/lessons");
const QString kSamplePrefix = QStringLiteral("sample:");

} // namespace

LessonController::LessonController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    m_panel = new LessonsPanel;
    m_dock = new QDockWidget(tr("Lessons"), window);
    m_dock->setObjectName(QStringLiteral("lessonsDock"));
    m_dock->setWidget(m_panel);
    window->addDockWidget(Qt::RightDockWidgetArea, m_dock);
    loadBuiltIn();

    connect(m_panel, &LessonsPanel::lessonChosen, this, &LessonController::choose);
    connect(m_panel, &LessonsPanel::startRequested, this, &LessonController::startLesson);
    connect(m_panel, &LessonsPanel::openRequested, this, [this] {
        const QString path = m_window->files()->dialogs()->openFileName(m_window, m_window->files()->startDirectory());
        if (!path.isEmpty())
            addLessonFile(path);
    });
    ScenarioDocument *doc = window->document();
    connect(doc, &ScenarioDocument::reportChanged, this, &LessonController::scheduleRefresh);
    connect(doc, &ScenarioDocument::mappingChanged, this, &LessonController::scheduleRefresh);
    connect(doc, &ScenarioDocument::scenarioChanged, this, [this] {
        // Another file replaced the lesson's scenario: the lesson is over. An edit emits this
        // signal too, from its command's redo() while QUndoStack::push() has not yet counted
        // it, so the stack is looked at once the push is over: a load leaves it empty.
        if (!m_starting && m_active >= 0) {
            QTimer::singleShot(0, this, [this] {
                if (m_active >= 0 && m_window->document()->undoStack()->count() == 0) {
                    m_active = -1;
                    choose(m_panel->currentLesson());
                }
            });
        }
        scheduleRefresh();
    });
    // Pinning or clearing the comparison is a figure too (baseline_pinned).
    connect(doc->undoStack(), &QUndoStack::indexChanged, this, &LessonController::scheduleRefresh);
    connect(m_window->studies()->compareDock(), &QDockWidget::visibilityChanged, this, &LessonController::scheduleRefresh);
}

void LessonController::loadBuiltIn()
{
    QStringList titles;
    const QStringList files = QDir(kBuiltIn).entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
    for (const QString &file : files) {
        try {
            m_lessons.push_back(Lesson::fromFile(QDir(kBuiltIn).filePath(file), &LessonFigures::isKnown, LessonFigures::names()));
            titles << m_lessons.back().title;
        } catch (const std::exception &e) {
            // Only a broken build gets here (the suite reads every built-in lesson).
            qWarning("railyard: built-in lesson %s: %s", qPrintable(file), e.what());
        }
    }
    m_panel->setLessons(titles);
}

bool LessonController::addLessonFile(const QString &path)
{
    try {
        m_lessons.push_back(Lesson::fromFile(path, &LessonFigures::isKnown, LessonFigures::names()));
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(m_window, tr("Not a lesson"), QString::fromUtf8(e.what()));
        return false;
    }
    QStringList titles;
    for (const Lesson &l : m_lessons)
        titles << l.title;
    m_panel->setLessons(titles);
    choose(static_cast<int>(m_lessons.size()) - 1);
    m_window->showPanel(m_dock);
    m_window->showStatus(tr("Added the lesson \"%1\"").arg(m_lessons.back().title));
    return true;
}

void LessonController::choose(int index)
{
    if (index < 0 || index >= static_cast<int>(m_lessons.size())) {
        m_panel->showLesson(-1, QString(), QString(), {}, false);
        return;
    }
    const Lesson &l = m_lessons[static_cast<std::size_t>(index)];
    m_panel->showLesson(index, l.title, l.goal, l.hints, index == m_active);
    if (index == m_active)
        refresh();
}

Scenario LessonController::lessonScenario(const Lesson &lesson) const
{
    Scenario s;
    if (!lesson.inlineScenario.isEmpty()) {
        s = parseScenario(lesson.inlineScenario.toStdString());
    } else if (lesson.scenarioRef.startsWith(kSamplePrefix)) {
        const QString name = lesson.scenarioRef.mid(kSamplePrefix.size());
        // seed-128.json is embedded once, as the default scenario.
        s = loadResourceScenario(name == QLatin1String("seed-128.json") ? defaultScenarioResource()
                                                                        : QStringLiteral(":/samples/") + name);
    } else if (lesson.scenarioRef.startsWith(QLatin1Char(':'))) {
        s = loadResourceScenario(lesson.scenarioRef);
    } else if (QFileInfo(lesson.scenarioRef).isAbsolute()) {
        s = loadScenario(lesson.scenarioRef.toStdString());
    } else {
        // Beside the lesson file (a built-in lesson's directory is a resource one).
        const QString path = QFileInfo(lesson.path).absoluteDir().filePath(lesson.scenarioRef);
        s = path.startsWith(QLatin1Char(':')) ? loadResourceScenario(path) : loadScenario(path.toStdString());
    }
    if (!lesson.startPlacement.isEmpty()) {
        parsePlacement(lesson.startPlacement.toStdString(), s.placement);
        s.slots.clear(); // placed by the preset
    }
    if (lesson.startGlobalBatch > 0)
        s.training.globalBatch = lesson.startGlobalBatch;
    return s;
}

bool LessonController::startLesson(int index)
{
    if (index < 0 || index >= static_cast<int>(m_lessons.size()))
        return false;
    const Lesson &lesson = m_lessons[static_cast<std::size_t>(index)];
    if (!m_window->files()->maybeSave(tr("starting the lesson")))
        return false;
    Scenario s;
    try {
        s = lessonScenario(lesson);
    } catch (const std::exception &e) {
        m_window->files()->dialogs()->showError(m_window, tr("Cannot start the lesson"),
                                                tr("%1: %2").arg(QFileInfo(lesson.path).fileName(), QString::fromUtf8(e.what())));
        return false;
    }
    m_starting = true;
    const bool loaded = m_window->files()->loadUntitled(s, tr("the lesson \"%1\"").arg(lesson.title));
    m_starting = false;
    if (!loaded)
        return false;
    m_active = index;
    m_met = false;
    ScenarioDocument *doc = m_window->document();
    doc->waitForEvaluation();
    m_startSlots = doc->mapping().slots();
    m_startReport = doc->report();
    m_startFigures.clear();
    const LessonFigures::Context at = context();
    for (const QString &name : LessonFigures::names())
        m_startFigures.insert(name, LessonFigures::value(name, at));
    m_panel->showLesson(index, lesson.title, lesson.goal, lesson.hints, true);
    m_window->showPanel(m_dock);
    refresh();
    WatchTarget watch;
    if (!lesson.startWatch.isEmpty() && CollectiveController::parseTarget(lesson.startWatch, watch))
        m_window->collectives()->watch(watch); // the lesson's collective, under the fabric
    m_window->showStatus(tr("Lesson \"%1\": %2").arg(lesson.title, lesson.goal.section(QLatin1Char('.'), 0, 0)));
    return true;
}

LessonFigures::Context LessonController::context() const
{
    LessonFigures::Context c;
    c.document = m_window->document();
    c.baselinePinned = m_window->studies()->hasBaseline();
    c.startSlots = &m_startSlots;
    return c;
}

void LessonController::scheduleRefresh()
{
    if (m_active < 0 || m_pending)
        return;
    m_pending = true;
    QTimer::singleShot(0, this, [this] {
        m_pending = false;
        refresh();
    });
}

void LessonController::refresh()
{
    m_pending = false;
    if (m_active < 0 || m_window->document()->isEvaluating())
        return;
    const Lesson &lesson = m_lessons[static_cast<std::size_t>(m_active)];
    const LessonFigures::Context now = context();
    m_state = evaluateLesson(
        lesson, [&now](const QString &name) { return LessonFigures::value(name, now); },
        [this](const QString &name) { return m_startFigures.value(name); }, &LessonFigures::format);
    // The cause is the engine's, not the lesson's: the explanation opens with what the engine
    // attributes the change to, and the lesson file adds only the framing.
    m_attribution = attributeChange(m_startReport, m_window->document()->report());
    if (m_state.met) {
        const QString why = QString::fromStdString(describeChange(m_attribution));
        if (!why.isEmpty())
            m_state.explanation = why + QStringLiteral("\n\n") + m_state.explanation;
    }
    if (m_panel->currentLesson() == m_active) {
        QStringList texts;
        QList<bool> met;
        for (const ConditionState &c : m_state.conditions) {
            texts << c.text;
            met << c.met;
        }
        m_panel->setProgress(texts, met, m_state.explanation);
    }
    if (m_state.met && !m_met) {
        m_window->showStatus(tr("Lesson \"%1\": goal met").arg(lesson.title));
        m_window->fabricView()->showNotice(tr("Goal met: %1").arg(lesson.title));
        Q_EMIT lessonMet(m_active);
    }
    m_met = m_state.met;
}

} // namespace railyard
