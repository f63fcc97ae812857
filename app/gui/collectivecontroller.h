#pragma once

#include "cost/collectivewatch.h"

#include <QObject>
#include <QString>

#include <memory>
#include <optional>
#include <vector>

class QElapsedTimer;
class QMenu;
class QTimer;

namespace railyard {

class CollectiveOverlayItem;
class CollectivePlayer;
class MainWindow;
class Router;

/**
 * "Watch a collective": plays one op of a dimension on a rank's group, or on every group of
 * the dimension, step by step on the fabric as the engine plans it (watchCollective(),
 * model/cost/collectivewatch.h). It owns the player bar laid over the bottom of the fabric view
 * (so it stays in presentation mode, where the docks are hidden), the overlay item that
 * highlights the step's links with their bytes and moves its chunks, a router of its own (the
 * engine's may be busy on a worker thread) and the animation timer. A change of the document
 * re-plans the watched collective on the new mapping and keeps the step.
 *
 * Entry points: a rank's right-click menu (extendMenu(): "Watch Its DP All-Reduce", ...) and
 * View ▸ Watch a Collective (the selected rank's groups, or every group of a dimension).
 */
class CollectiveController : public QObject
{
    Q_OBJECT

public:
    explicit CollectiveController(MainWindow *window);
    ~CollectiveController() override;

    /// Starts watching `target` at its first step, paused. False (and a status message) when
    /// the engine refuses it (a dimension of degree 1, a rank outside the layout).
    bool watch(const WatchTarget &target);
    /// Stops watching: the overlay and the bar go.
    void stop();
    bool isWatching() const { return m_watched.has_value(); }
    const WatchedCollective &watched() const { return *m_watched; }

    int step() const { return m_step; }
    void setStep(int step);
    void play();
    void pause();
    bool isPlaying() const;
    /// Where the chunks are in the current step, 0..1.
    double progress() const { return m_progress; }
    void setProgress(double progress);
    /// Advances the animation by `seconds` (what each timer tick does with the time elapsed).
    void advance(double seconds);

    /// Writes the watched collective as numbered PNG frames `frame-0001.png`... and
    /// `collective.png`, an animated PNG of the same frames, into `directory`: `framesPerStep`
    /// frames a step (chunks at evenly spaced positions) of every step, or, past kMaxExportSteps
    /// steps, of each phase's first two steps and its last. False with `error` set on failure.
    bool exportFrames(const QString &directory, int framesPerStep, QString *error);
    static constexpr int kMaxExportSteps = 64;

    /// `text` as a target: DIM:RANK[:OP] or DIM:all (DIM one of tp, pp, dp, ep, cp), what
    /// `railyard --watch` and a lesson's start.watch take. False for anything else.
    static bool parseTarget(const QString &text, WatchTarget &out);

    /// Adds "Watch Its TP/DP/PP/EP/CP ..." for `rank` to a fabric context menu.
    void extendMenu(QMenu *menu, int rank);

    CollectivePlayer *player() const { return m_player; }
    CollectiveOverlayItem *overlay() const { return m_overlay; }

Q_SIGNALS:
    void stepChanged(int step);
    void watchingChanged(bool watching);

protected:
    bool eventFilter(QObject *watched, QEvent *event) override;

private:
    void replan();
    void showStep();
    void placePlayer();
    void tick();
    Router &router();
    void buildMenu();
    QString stepDetail() const;

    MainWindow *m_window;
    CollectivePlayer *m_player = nullptr;
    CollectiveOverlayItem *m_overlay = nullptr;
    std::unique_ptr<Router> m_router;
    const void *m_routerFabric = nullptr;
    std::optional<WatchedCollective> m_watched;
    int m_step = 0;
    double m_progress = 0.0;
    QTimer *m_timer = nullptr;
    std::unique_ptr<QElapsedTimer> m_clock;
    QMenu *m_menu = nullptr;
    /// What the overlay shows: the phase of which plan (m_generation counts the plans), so
    /// that the next step of the same phase only recolours its chunks (a ring's n-1 steps).
    int m_generation = 0;
    int m_shownGeneration = -1;
    int m_shownPhase = -1;
};

} // namespace railyard
