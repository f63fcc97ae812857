#include "lessonspanel.h"

#include "chartpalette.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QListWidget>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

namespace railyard {

namespace {

QLabel *wrapped(const QString &objectName, QWidget *parent)
{
    auto *l = new QLabel(parent);
    l->setObjectName(objectName);
    l->setWordWrap(true);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
}

} // namespace

LessonsPanel::LessonsPanel(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("lessonsPanel"));
    m_list = new QListWidget(this);
    m_list->setObjectName(QStringLiteral("lessonList"));
    m_list->setToolTip(tr("The lessons: pick one to read its goal, then Start opens its scenario"));
    m_list->setMaximumHeight(150);

    auto *content = new QWidget;
    m_title = wrapped(QStringLiteral("lessonTitle"), content);
    QFont bold = m_title->font();
    bold.setBold(true);
    bold.setPointSizeF(bold.pointSizeF() * 1.15);
    m_title->setFont(bold);
    m_goal = wrapped(QStringLiteral("lessonGoal"), content);
    m_progress = wrapped(QStringLiteral("lessonProgress"), content);
    m_progress->setTextFormat(Qt::RichText);
    m_progress->setToolTip(tr("The lesson's check, from the engine's figures for the scenario on screen"));
    m_hints = wrapped(QStringLiteral("lessonHints"), content);
    m_hints->setTextFormat(Qt::RichText);
    m_explanation = wrapped(QStringLiteral("lessonExplanation"), content);
    m_explanation->setStyleSheet(QStringLiteral("QLabel { background: #e6f4ea; border: 1px solid %1; border-radius: "
                                                "3px; padding: 6px; }")
                                     .arg(chartpalette::goodColor().name()));
    m_explanation->hide();

    m_start = new QPushButton(tr("Start Lesson"), content);
    m_start->setObjectName(QStringLiteral("lessonStart"));
    m_start->setToolTip(tr("Open the lesson's scenario as a new, untitled document (asks first about unsaved changes)"));
    m_hint = new QPushButton(tr("Show a Hint"), content);
    m_hint->setObjectName(QStringLiteral("lessonHint"));
    m_hint->setToolTip(tr("Reveal the next hint"));
    m_open = new QPushButton(tr("Open Lesson File…"), this);
    m_open->setObjectName(QStringLiteral("lessonOpen"));
    m_open->setToolTip(tr("Load a lesson written as a file (README \"Lesson files\" describes the format)"));

    auto *buttons = new QHBoxLayout;
    buttons->addWidget(m_start);
    buttons->addWidget(m_hint);
    buttons->addStretch(1);
    auto *inner = new QVBoxLayout(content);
    inner->setContentsMargins(4, 4, 4, 4);
    inner->addWidget(m_title);
    inner->addWidget(m_goal);
    inner->addLayout(buttons);
    inner->addWidget(m_progress);
    inner->addWidget(m_hints);
    inner->addWidget(m_explanation);
    inner->addStretch(1);
    auto *scroll = new QScrollArea(this);
    scroll->setWidget(content);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->addWidget(m_list);
    layout->addWidget(scroll, 1);
    layout->addWidget(m_open);

    connect(m_list, &QListWidget::currentRowChanged, this, [this](int row) {
        if (!m_syncing && row >= 0)
            Q_EMIT lessonChosen(row);
    });
    connect(m_start, &QPushButton::clicked, this, [this] { Q_EMIT startRequested(currentLesson()); });
    connect(m_hint, &QPushButton::clicked, this, [this] {
        if (m_hintsShown < m_hintTexts.size())
            ++m_hintsShown;
        showHints();
    });
    connect(m_open, &QPushButton::clicked, this, &LessonsPanel::openRequested);
    showLesson(-1, QString(), QString(), {}, false);
}

void LessonsPanel::setLessons(const QStringList &titles)
{
    m_syncing = true;
    const int row = m_list->currentRow();
    m_list->clear();
    for (int i = 0; i < titles.size(); ++i)
        m_list->addItem(tr("%1. %2").arg(i + 1).arg(titles[i]));
    m_syncing = false;
    if (row >= 0 && row < titles.size())
        setCurrentLesson(row);
}

int LessonsPanel::currentLesson() const
{
    return m_list->currentRow();
}

void LessonsPanel::setCurrentLesson(int index)
{
    m_syncing = true;
    m_list->setCurrentRow(index);
    m_syncing = false;
}

void LessonsPanel::showLesson(int index, const QString &title, const QString &goal, const QStringList &hints, bool active)
{
    setCurrentLesson(index);
    m_title->setText(index < 0 ? tr("Lessons") : title);
    m_goal->setText(index < 0 ? tr("Pick a lesson above. Each one opens a scenario, states a goal and checks it with "
                                   "the engine's figures as you change the layout.")
                              : goal);
    m_start->setEnabled(index >= 0);
    m_start->setText(active ? tr("Start Again") : tr("Start Lesson"));
    m_hintTexts = hints;
    m_hintsShown = 0;
    showHints();
    m_progress->setVisible(active);
    if (!active) {
        m_progress->clear();
        m_explanation->hide();
    }
}

void LessonsPanel::setProgress(const QStringList &conditions, const QList<bool> &met, const QString &explanation)
{
    QString html = tr("<b>Check</b>");
    for (int i = 0; i < conditions.size(); ++i) {
        const bool ok = i < met.size() && met[i];
        html += QStringLiteral("<br><span style='color:%1'>%2</span> %3")
                    .arg(ok ? chartpalette::goodColor().name() : chartpalette::badColor().name(),
                         ok ? QStringLiteral("✔") : QStringLiteral("✘"), conditions[i].toHtmlEscaped());
    }
    m_progress->setText(html);
    m_progress->show();
    m_explanation->setText(explanation);
    m_explanation->setVisible(!explanation.isEmpty());
}

void LessonsPanel::showHints()
{
    m_hint->setEnabled(m_hintsShown < m_hintTexts.size());
    m_hint->setText(m_hintTexts.isEmpty() ? tr("No Hints")
                        : m_hintsShown < m_hintTexts.size()
                        ? tr("Show a Hint (%1 of %2)").arg(m_hintsShown + 1).arg(m_hintTexts.size())
                        : tr("All Hints Shown"));
    QString html;
    for (int i = 0; i < m_hintsShown; ++i)
        html += (i ? QStringLiteral("<br>") : QString()) + tr("<b>Hint %1.</b> %2").arg(i + 1).arg(m_hintTexts[i].toHtmlEscaped());
    m_hints->setText(html);
    m_hints->setVisible(m_hintsShown > 0);
}

} // namespace railyard
