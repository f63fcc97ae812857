#include "optimisedialog.h"

#include "io/reportjson.h"
#include "optimise/optimiser.h"
#include "optimise/optimisetext.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <QVBoxLayout>

#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <mutex>
#include <optional>
#include <string>

namespace railyard {

/**
 * What the worker thread and the dialog share. The worker writes progress from the search
 * monitor and its result at the end under the mutex; the dialog reads it from its timer and
 * when the thread has finished. `stop` is read by the monitor without the lock.
 */
struct OptimiseDialog::Shared
{
    std::mutex mutex;
    long long evaluated = 0;
    double fraction = 0.0;
    double bestValue = 0.0;
    bool haveValue = false;
    std::vector<int> bestSlots;
    bool slotsFresh = false; ///< bestSlots changed since the dialog last took them
    bool valueMoved = false; ///< a better mapping is known but not yet copied
    std::chrono::steady_clock::time_point lastCopy {};
};

namespace {

QString optText(const std::string &s)
{
    return QString::fromStdString(s);
}

QString optLatin(std::string_view s)
{
    return QString::fromLatin1(s.data(), static_cast<qsizetype>(s.size()));
}

template<typename E>
void optAddChoice(QComboBox *box, const QString &label, E value, std::string_view name)
{
    box->addItem(label, static_cast<int>(value));
    box->setItemData(box->count() - 1, optLatin(name), Qt::ToolTipRole);
}

template<typename E> E optChoiceOf(const QComboBox *box)
{
    return static_cast<E>(box->currentData().toInt());
}

template<typename E> void optSelectChoice(QComboBox *box, E value)
{
    const int index = box->findData(static_cast<int>(value));
    if (index >= 0)
        box->setCurrentIndex(index);
}

/// The copy of the best mapping handed to the dialog is taken at most this often (ms): copying
/// a 16k-rank mapping every few hundred moves would slow the search.
constexpr auto kOptCopyEvery = std::chrono::milliseconds(100);

} // namespace

OptimiseDialog::OptimiseDialog(const Scenario &scenario, QWidget *parent)
    : QDialog(parent)
    , m_scenario(scenario)
{
    setObjectName(QStringLiteral("optimiseDialog"));
    setWindowTitle(tr("Optimise Placement"));
    auto *layout = new QVBoxLayout(this);

    auto *intro
        = new QLabel(tr("Searches rank-to-slot mappings of <b>%1</b> (%2 ranks) by simulated "
                        "annealing through the cost engine's incremental update, keeping "
                        "the constraint and the failed hardware. The document stays as it "
                        "is until you apply the result.")
                         .arg(optText(scenario.name).toHtmlEscaped())
                         .arg(static_cast<long long>(scenario.degrees.tp) * scenario.degrees.pp
                             * scenario.degrees.dp * scenario.degrees.cp),
            this);
    intro->setObjectName(QStringLiteral("optimiseIntro"));
    intro->setWordWrap(true);
    layout->addWidget(intro);

    auto *form = new QFormLayout;
    m_objective = new QComboBox(this);
    m_objective->setObjectName(QStringLiteral("optimiseObjective"));
    optAddChoice(m_objective, tr("Iteration time"), Objective::Iteration,
        objectiveName(Objective::Iteration));
    optAddChoice(m_objective, tr("Spine bytes"), Objective::Spine, objectiveName(Objective::Spine));
    optAddChoice(
        m_objective, tr("p99 link busy time"), Objective::P99, objectiveName(Objective::P99));
    optAddChoice(m_objective, tr("Busiest link's busy time"), Objective::MaxLink,
        objectiveName(Objective::MaxLink));
    // Hashed ECMP (fabric.routing, docs/ecmp.md): the p99 over its seeds.
    optAddChoice(m_objective, tr("p99 iteration under hashed ECMP"), Objective::EcmpP99,
        objectiveName(Objective::EcmpP99));
    m_objective->setToolTip(tr("What the search minimises: the predicted iteration time, the bytes "
                               "over spine links, or the p99 or the largest link busy time per "
                               "iteration"));
    form->addRow(tr("&Objective:"), m_objective);

    m_keep = new QComboBox(this);
    m_keep->setObjectName(QStringLiteral("optimiseKeep"));
    optAddChoice(m_keep, tr("TP groups on as few servers as they need"), KeepConstraint::TpInServer,
        keepName(KeepConstraint::TpInServer));
    optAddChoice(m_keep, tr("TP groups inside one scale-up domain"), KeepConstraint::TpInScaleUp,
        keepName(KeepConstraint::TpInScaleUp));
    optAddChoice(m_keep, tr("None"), KeepConstraint::None, keepName(KeepConstraint::None));
    m_keep->setToolTip(tr("What a move may not break (failed hardware is always avoided)"));
    form->addRow(tr("&Constraint:"), m_keep);

    m_start = new QComboBox(this);
    m_start->setObjectName(QStringLiteral("optimiseStart"));
    optAddChoice(
        m_start, tr("The current mapping"), StartFrom::Current, startName(StartFrom::Current));
    optAddChoice(m_start, tr("Packed preset"), StartFrom::Packed, startName(StartFrom::Packed));
    optAddChoice(m_start, tr("Rail-aligned preset"), StartFrom::RailAligned,
        startName(StartFrom::RailAligned));
    optAddChoice(
        m_start, tr("Scattered preset"), StartFrom::Scattered, startName(StartFrom::Scattered));
    m_start->setToolTip(tr("The mapping the search starts from; it becomes baseline A when you "
                           "apply the result"));
    form->addRow(tr("&Start from:"), m_start);

    m_seed = new QSpinBox(this);
    m_seed->setObjectName(QStringLiteral("optimiseSeed"));
    m_seed->setRange(0, std::numeric_limits<int>::max());
    m_seed->setValue(1);
    m_seed->setToolTip(tr("Seed of the random moves: the same seed and move budget give the same "
                          "result on every machine"));
    form->addRow(tr("S&eed:"), m_seed);

    auto *budget = new QHBoxLayout;
    m_budgetKind = new QComboBox(this);
    m_budgetKind->setObjectName(QStringLiteral("optimiseBudgetKind"));
    m_budgetKind->addItem(tr("Seconds"));
    m_budgetKind->addItem(tr("Evaluated moves"));
    m_budgetKind->setToolTip(tr("Stop after a wall time, or after a number of evaluated moves "
                                "(deterministic)"));
    m_seconds = new QDoubleSpinBox(this);
    m_seconds->setObjectName(QStringLiteral("optimiseSeconds"));
    m_seconds->setRange(0.1, 86400.0);
    m_seconds->setDecimals(1);
    m_seconds->setValue(10.0);
    m_seconds->setSuffix(tr(" s"));
    m_seconds->setToolTip(tr("Wall-time limit of the search"));
    m_moves = new QSpinBox(this);
    m_moves->setObjectName(QStringLiteral("optimiseMoves"));
    m_moves->setRange(1, std::numeric_limits<int>::max());
    m_moves->setValue(20000);
    m_moves->setGroupSeparatorShown(true);
    m_moves->setToolTip(tr("Evaluated moves before the search stops"));
    budget->addWidget(m_budgetKind);
    budget->addWidget(m_seconds, 1);
    budget->addWidget(m_moves, 1);
    auto *budgetLabel = new QLabel(tr("&Budget:"), this);
    budgetLabel->setBuddy(m_budgetKind);
    form->addRow(budgetLabel, budget);
    layout->addLayout(form);

    auto *runRow = new QHBoxLayout;
    m_run = new QPushButton(tr("&Run"), this);
    m_run->setObjectName(QStringLiteral("optimiseRun"));
    m_run->setToolTip(tr("Start the search on a worker thread"));
    m_stop = new QPushButton(tr("S&top"), this);
    m_stop->setObjectName(QStringLiteral("optimiseStop"));
    m_stop->setToolTip(tr("End the search now and keep the best mapping it found"));
    m_progress = new QProgressBar(this);
    m_progress->setObjectName(QStringLiteral("optimiseProgress"));
    m_progress->setRange(0, 1000);
    m_progress->setValue(0);
    m_progress->setTextVisible(false);
    m_progress->setToolTip(tr("The share of the budget used"));
    runRow->addWidget(m_run);
    runRow->addWidget(m_stop);
    runRow->addWidget(m_progress, 1);
    layout->addLayout(runRow);

    m_status = new QLabel(tr("Set the search up and press Run."), this);
    m_status->setObjectName(QStringLiteral("optimiseStatus"));
    m_status->setWordWrap(true);
    layout->addWidget(m_status);

    m_report = new QPlainTextEdit(this);
    m_report->setObjectName(QStringLiteral("optimiseReport"));
    m_report->setReadOnly(true);
    m_report->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_report->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_report->setPlaceholderText(tr("The explanation of the result appears here."));
    m_report->setToolTip(tr("The optimiser's report, as railyard-cli optimise prints it"));
    m_report->setMinimumHeight(220);
    layout->addWidget(m_report, 1);

    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    m_apply = new QPushButton(tr("&Apply"), this);
    m_apply->setObjectName(QStringLiteral("optimiseApply"));
    m_apply->setToolTip(tr("Move the ranks to the result's slots (one undo step) and compare it "
                           "with the start in the Compare A/B dock"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("optimiseCancel"));
    m_cancel->setToolTip(tr("Stop any search and close; the document stays as it was"));
    buttons->addWidget(m_apply);
    buttons->addWidget(m_cancel);
    layout->addLayout(buttons);

    m_timer = new QTimer(this);
    m_timer->setInterval(kRefreshMs);
    connect(m_timer, &QTimer::timeout, this, &OptimiseDialog::poll);
    connect(m_run, &QPushButton::clicked, this, &OptimiseDialog::run);
    connect(m_stop, &QPushButton::clicked, this, &OptimiseDialog::stop);
    connect(m_apply, &QPushButton::clicked, this, &OptimiseDialog::accept);
    connect(m_cancel, &QPushButton::clicked, this, &OptimiseDialog::reject);
    connect(m_budgetKind, &QComboBox::currentIndexChanged, this, &OptimiseDialog::showBudgetKind);
    showBudgetKind();
    updateButtons();
    resize(640, 560);
}

OptimiseDialog::~OptimiseDialog()
{
    // Nobody hears about a result while the dialog goes away (the window may be closing).
    blockSignals(true);
    stopAndJoin();
}

OptimiseOptions OptimiseDialog::options() const
{
    OptimiseOptions o;
    o.objective = optChoiceOf<Objective>(m_objective);
    o.keep = optChoiceOf<KeepConstraint>(m_keep);
    o.from = optChoiceOf<StartFrom>(m_start);
    o.seed = static_cast<std::uint64_t>(m_seed->value());
    if (m_budgetKind->currentIndex() == 1) {
        o.seconds = 0.0;
        o.maxMoves = m_moves->value();
    } else {
        o.seconds = m_seconds->value();
        o.maxMoves = 0;
    }
    return o;
}

void OptimiseDialog::setOptions(const OptimiseOptions &o)
{
    optSelectChoice(m_objective, o.objective);
    optSelectChoice(m_keep, o.keep);
    optSelectChoice(m_start, o.from);
    m_seed->setValue(
        static_cast<int>(std::min<std::uint64_t>(o.seed, std::numeric_limits<int>::max())));
    if (o.maxMoves > 0) {
        m_budgetKind->setCurrentIndex(1);
        m_moves->setValue(
            static_cast<int>(std::min<long long>(o.maxMoves, std::numeric_limits<int>::max())));
    } else {
        m_budgetKind->setCurrentIndex(0);
        m_seconds->setValue(o.seconds);
    }
}

void OptimiseDialog::showBudgetKind()
{
    const bool moves = m_budgetKind->currentIndex() == 1;
    m_moves->setVisible(moves);
    m_seconds->setVisible(!moves);
}

QString OptimiseDialog::objectiveValueText(Objective objective, double value)
{
    return objective == Objective::Spine ? optText(formatBytes(value))
                                         : optText(formatSeconds(value));
}

bool OptimiseDialog::isRunning() const
{
    return m_worker.isRunning();
}

bool OptimiseDialog::run()
{
    if (isRunning())
        return false;
    m_running = options();
    m_result.reset();
    m_error.clear();
    m_report->clear();
    m_progress->setValue(0);
    m_status->setText(tr("Starting the search…"));
    m_status->setStyleSheet(QString());

    m_shared = std::make_shared<Shared>();
    // The worker owns copies of everything it reads: the scenario and the options.
    std::shared_ptr<Shared> shared = m_shared;
    const auto work = [shared, scenario = m_scenario, opts = m_running](
                          const std::atomic<bool> &stop) {
        const SearchMonitor monitor = [&shared, &stop](const SearchProgress &p) {
            const auto now = std::chrono::steady_clock::now();
            std::lock_guard lock(shared->mutex);
            shared->evaluated = p.evaluated;
            shared->fraction = p.fraction;
            if (!shared->haveValue || p.bestValue != shared->bestValue)
                shared->valueMoved = true;
            shared->bestValue = p.bestValue;
            shared->haveValue = true;
            if (p.bestSlots && shared->valueMoved && now - shared->lastCopy >= kOptCopyEvery) {
                shared->bestSlots = *p.bestSlots;
                shared->slotsFresh = true;
                shared->valueMoved = false;
                shared->lastCopy = now;
            }
            return !stop.load(std::memory_order_relaxed);
        };
        return optimise(scenario, opts, monitor);
    };
    m_clock.start();
    m_worker.start(this, QStringLiteral("railyard-optimise"), work, "the optimiser failed",
        [this] { onWorkerFinished(); });
    m_timer->start();
    updateButtons();
    Q_EMIT runningChanged(true);
    return true;
}

void OptimiseDialog::stop()
{
    m_worker.requestStop();
}

void OptimiseDialog::poll()
{
    if (!m_shared)
        return;
    long long evaluated = 0;
    double fraction = 0.0, best = 0.0;
    bool haveValue = false;
    std::vector<int> slots;
    {
        std::lock_guard lock(m_shared->mutex);
        evaluated = m_shared->evaluated;
        fraction = m_shared->fraction;
        best = m_shared->bestValue;
        haveValue = m_shared->haveValue;
        if (m_shared->slotsFresh) {
            slots = m_shared->bestSlots;
            m_shared->slotsFresh = false;
        }
    }
    m_progress->setValue(static_cast<int>(fraction * 1000.0));
    const double seconds = static_cast<double>(m_clock.elapsed()) / 1000.0;
    const QLocale locale;
    if (haveValue)
        m_status->setText(
            tr("%1 moves evaluated · %2 moves/s · best so far: %3 %4")
                .arg(locale.toString(evaluated))
                .arg(locale.toString(
                    seconds > 0.0 ? static_cast<double>(evaluated) / seconds : 0.0, 'f', 0))
                .arg(objectiveValueText(m_running.objective, best))
                .arg(optLatin(objectiveName(m_running.objective))));
    if (!slots.empty())
        Q_EMIT bestMappingChanged(slots);
}

void OptimiseDialog::onWorkerFinished()
{
    std::optional<BackgroundRun<OptimiseResult>::Outcome> outcome = m_worker.take();
    if (!outcome)
        return; // taken already (a wait got there before the thread's finished())
    m_timer->stop();
    m_shared.reset();
    std::optional<OptimiseResult> &result = outcome->result;
    if (!result) {
        m_error = optText(outcome->error);
        m_progress->setValue(0);
        m_status->setText(tr("The search was refused: %1").arg(m_error));
        m_status->setStyleSheet(QStringLiteral("QLabel { color: #a61e1e; }"));
    } else {
        m_result = std::make_unique<OptimiseResult>(std::move(*result));
        const OptimiseResult &r = *m_result;
        const Objective o = r.options.objective;
        m_progress->setValue(r.cancelled ? m_progress->value() : 1000);
        const QLocale locale;
        QString text
            = tr("%1 after %2 moves (%3 moves/s): %4 → %5 %6, %7 ranks moved.")
                  .arg(r.cancelled ? tr("Stopped") : tr("Finished"), locale.toString(r.evaluated),
                      locale.toString(r.movesPerSecond, 'f', 0),
                      objectiveValueText(o, r.start.value(o)),
                      objectiveValueText(o, r.result.value(o)), optLatin(objectiveName(o)))
                  .arg(r.ranksMoved);
        if (!r.improved)
            text += tr(" Nothing better than the start was found.");
        m_status->setText(text);
        m_report->setPlainText(optText(optimiseText(r)));
        Q_EMIT bestMappingChanged(r.scenario.slots);
    }
    updateButtons();
    Q_EMIT runningChanged(false);
}

bool OptimiseDialog::waitForFinished(int timeoutMs)
{
    return m_worker.waitForFinished(timeoutMs);
}

void OptimiseDialog::stopAndJoin()
{
    m_worker.stopAndJoin();
}

void OptimiseDialog::updateButtons()
{
    const bool running = isRunning();
    m_run->setEnabled(!running);
    m_stop->setEnabled(running);
    m_apply->setEnabled(!running && m_result);
    for (QWidget *w : std::initializer_list<QWidget *> {
             m_objective, m_keep, m_start, m_seed, m_budgetKind, m_seconds, m_moves })
        w->setEnabled(!running);
}

void OptimiseDialog::accept()
{
    if (isRunning() || !m_result)
        return;
    QDialog::accept();
}

void OptimiseDialog::reject()
{
    stopAndJoin();
    QDialog::reject();
}

} // namespace railyard
