#pragma once

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QObject>
#include <QString>
#include <QThread>

#include <atomic>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

namespace railyard {

/**
 * A dialog's one computation on a background thread (the placement optimiser, the layout
 * search): the thread, the stop request its monitor polls, and its outcome (the result, or the
 * text of what it threw) taken on the GUI thread once, whether the thread's finished() signal
 * or a wait got there first. The progress a dialog shows stays its own: its monitor writes it
 * and the dialog's timer reads it.
 */
template<typename Result> class BackgroundRun
{
public:
    /// The computation; it polls `stop` (through its monitor) and returns early when set.
    using Work = std::function<Result(const std::atomic<bool> &stop)>;
    struct Outcome
    {
        std::optional<Result> result; ///< nothing when the work threw
        std::string error; ///< what it threw
    };

    BackgroundRun() = default;
    BackgroundRun(const BackgroundRun &) = delete;
    BackgroundRun &operator=(const BackgroundRun &) = delete;
    /// Never outlives its thread: a run still going is stopped and joined, its outcome dropped.
    ~BackgroundRun()
    {
        if (!m_thread)
            return;
        requestStop();
        m_thread->wait();
        delete m_thread;
    }

    bool isRunning() const { return m_thread != nullptr; }

    /// Runs `work` on a low-priority thread named `name`; `finished` is called on `receiver`'s
    /// thread when it ends (it calls take(); the waits below call it too, and a second call
    /// finds nothing to take). `failure` is the error text of an exception that is no
    /// std::exception.
    void start(QObject *receiver, const QString &name, Work work, std::string failure,
        std::function<void()> finished)
    {
        m_state = std::make_shared<State>();
        m_thread = QThread::create(
            [state = m_state, work = std::move(work), failure = std::move(failure)] {
                Outcome out;
                try {
                    out.result = work(state->stop);
                } catch (const std::exception &e) {
                    out.error = e.what();
                } catch (...) {
                    out.error = failure;
                }
                std::lock_guard lock(state->mutex);
                state->outcome = std::move(out);
            });
        m_thread->setObjectName(name);
        m_finished = finished;
        QObject::connect(m_thread, &QThread::finished, receiver, std::move(finished));
        m_thread->start(QThread::LowPriority);
    }

    /// Asks the work to stop at its monitor's next call.
    void requestStop()
    {
        if (m_state)
            m_state->stop.store(true);
    }

    /// Processes events until the run has ended and its `finished` ran, or `timeoutMs`
    /// passed; true when none runs. The thread's finished() is queued behind other events, so
    /// an ended thread's outcome is handed over here.
    bool waitForFinished(int timeoutMs)
    {
        const QDeadlineTimer deadline(timeoutMs);
        while (isRunning() && !deadline.hasExpired()) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
            if (m_thread && m_thread->wait(QDeadlineTimer(20)))
                m_finished();
        }
        return !isRunning();
    }

    /// Stops a run, waits for its thread and hands its outcome over (a dialog closing).
    void stopAndJoin()
    {
        if (!m_thread)
            return;
        requestStop();
        m_thread->wait();
        m_finished();
    }

    /// The outcome of a run whose thread has ended, once; nothing while it runs or after the
    /// outcome was taken.
    std::optional<Outcome> take()
    {
        if (!m_thread || !m_thread->isFinished())
            return std::nullopt;
        m_thread->deleteLater();
        m_thread = nullptr;
        const std::shared_ptr<State> state = std::move(m_state);
        std::lock_guard lock(state->mutex);
        return std::move(state->outcome);
    }

private:
    struct State
    {
        std::mutex mutex;
        std::atomic<bool> stop { false };
        Outcome outcome;
    };
    QThread *m_thread = nullptr;
    std::shared_ptr<State> m_state; ///< shared with the thread
    std::function<void()> m_finished; ///< the receiver's handler of the end
};

} // namespace railyard
