#pragma once

#include <QList>
#include <QStringList>
#include <QWidget>

class QLabel;
class QListWidget;
class QPushButton;

namespace railyard {

/**
 * The Lessons dock: the lessons on offer, the chosen one's goal, a Start button, hints revealed
 * one at a time, the check's conditions with their figures now (a tick once each holds), and
 * the explanation once the goal is met. The application computes everything it shows
 * (LessonController, from the engine's figures); this panel only displays it and asks.
 */
class LessonsPanel : public QWidget
{
    Q_OBJECT

public:
    explicit LessonsPanel(QWidget *parent = nullptr);

    void setLessons(const QStringList &titles);
    /// Shows lesson `index`'s goal and its hints (none revealed yet). `active`: it is the one
    /// running (its scenario is open), so its progress is shown.
    void showLesson(int index, const QString &title, const QString &goal, const QStringList &hints, bool active);
    /// The running lesson's conditions (text and whether each holds), and its explanation when met.
    void setProgress(const QStringList &conditions, const QList<bool> &met, const QString &explanation);
    int currentLesson() const;
    void setCurrentLesson(int index);

    QListWidget *lessonList() const { return m_list; }
    QPushButton *startButton() const { return m_start; }
    QPushButton *hintButton() const { return m_hint; }
    QPushButton *openButton() const { return m_open; }
    QLabel *goalLabel() const { return m_goal; }
    QLabel *progressLabel() const { return m_progress; }
    QLabel *hintsLabel() const { return m_hints; }
    QLabel *explanationLabel() const { return m_explanation; }
    int hintsShown() const { return m_hintsShown; }

Q_SIGNALS:
    void lessonChosen(int index);
    void startRequested(int index);
    void openRequested();

private:
    void showHints();

    QListWidget *m_list = nullptr;
    QLabel *m_title = nullptr;
    QLabel *m_goal = nullptr;
    QPushButton *m_start = nullptr;
    QPushButton *m_hint = nullptr;
    QPushButton *m_open = nullptr;
    QLabel *m_progress = nullptr;
    QLabel *m_hints = nullptr;
    QLabel *m_explanation = nullptr;
    QStringList m_hintTexts;
    int m_hintsShown = 0;
    bool m_syncing = false;
};

} // namespace railyard
