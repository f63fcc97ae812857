#include "collectivecontroller.h"

#include "collectiveoverlayitem.h"
#include "collectiveplayer.h"
#include "document/scenariodocument.h"
#include "documentfiles.h"
#include "fabric/failedcomponent.h"
#include "fabric/router.h"
#include "fabricitem.h"
#include "fabricview.h"
#include "frameexport.h"
#include "mainwindow.h"
#include "presentationmode.h"

#include "base/quantityformat.h"
#include "base/scenarioerror.h"

#include <QDir>
#include <QElapsedTimer>
#include <QEvent>
#include <QGraphicsScene>
#include <QMenu>
#include <QMenuBar>
#include <QPainter>
#include <QScrollBar>
#include <QTimer>

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

/// The animation's tick: 60 Hz, a display's refresh, so the chunks move smoothly.
constexpr int kTickMs = 16;

QString upperDim(Dim d)
{
    return QString::fromLatin1(dimName(d).data()).toUpper();
}

/// "All-Reduce", "Sends": a collective's name for a menu item.
QString opTitle(const WatchableOp &op)
{
    if (op.collective == Collective::SendRecv)
        return CollectiveController::tr("Pipeline Sends");
    QString name = QString::fromLatin1(collectiveName(op.collective).data());
    QStringList parts = name.split(QLatin1Char('-'));
    for (QString &p : parts)
        p[0] = p[0].toUpper();
    return parts.join(QLatin1Char('-'));
}

} // namespace

CollectiveController::CollectiveController(MainWindow *window)
    : QObject(window)
    , m_window(window)
    , m_clock(std::make_unique<QElapsedTimer>())
{
    FabricView *view = window->fabricView();
    m_player = new CollectivePlayer(view);
    m_player->hide();
    view->installEventFilter(this);
    m_timer = new QTimer(this);
    m_timer->setInterval(kTickMs);
    connect(m_timer, &QTimer::timeout, this, &CollectiveController::tick);
    connect(m_player, &CollectivePlayer::playToggled, this, [this] {
        if (isPlaying())
            pause();
        else
            play();
    });
    connect(m_player, &CollectivePlayer::stepBy, this, [this](int delta) {
        pause();
        setStep(m_step + delta);
    });
    connect(m_player, &CollectivePlayer::seek, this, [this](int step) { setStep(step); });
    connect(m_player, &CollectivePlayer::closeRequested, this, &CollectiveController::stop);
    connect(m_player, &CollectivePlayer::exportRequested, this, [this] {
        const QString dir = QDir::current().absoluteFilePath(QStringLiteral("collective-frames"));
        QString error;
        if (exportFrames(dir, 6, &error))
            m_window->showStatus(
                tr("Frames written to %1 (frame-0001.png…, collective.png animated)").arg(dir));
        else
            m_window->showStatus(tr("Frames not written: %1").arg(error));
    });
    ScenarioDocument *doc = window->document();
    // One document, one state: a watch belongs to the document it was started on.
    connect(window->files(), &DocumentFiles::documentReplaced, this, &CollectiveController::stop);
    connect(doc, &ScenarioDocument::mappingChanged, this, &CollectiveController::replan);
    connect(doc, &ScenarioDocument::scenarioChanged, this, &CollectiveController::replan);
    connect(window->presentation(), &PresentationMode::activeChanged, this, [this](bool on) {
        if (m_overlay)
            m_overlay->setTextScale(on ? PresentationMode::kFontScale : 1.0);
        placePlayer();
    });
    connect(view->rootItem(), &FabricItem::rebuilt, this, [this] {
        // A new fabric: the overlay's link geometry is the new layout's.
        replan();
    });
    buildMenu();
}

CollectiveController::~CollectiveController() = default;

Router &CollectiveController::router()
{
    const CostEngine &engine = m_window->document()->engine();
    std::vector<char> failed = routedFailures(engine.fabric(), engine.scenario().failures);
    if (!m_router || m_routerFabric != &engine.fabric() || m_router->failedLeaves() != failed) {
        m_router = std::make_unique<Router>(engine.fabric(), std::move(failed));
        m_routerFabric = &engine.fabric();
    }
    return *m_router;
}

bool CollectiveController::watch(const WatchTarget &target)
{
    ScenarioDocument *doc = m_window->document();
    doc->waitForEvaluation();
    try {
        m_watched = watchCollective(doc->engine(), router(), target);
        ++m_generation;
    } catch (const ScenarioError &e) {
        m_window->showStatus(tr("Nothing to watch: %1").arg(QString::fromStdString(e.what())));
        return false;
    }
    FabricView *view = m_window->fabricView();
    if (!m_overlay) {
        m_overlay = new CollectiveOverlayItem(view->rootItem());
        view->scene()->addItem(m_overlay);
    }
    m_overlay->setTextScale(
        m_window->presentation()->isActive() ? PresentationMode::kFontScale : 1.0);
    m_overlay->show();
    m_player->setTitle(QString::fromStdString(m_watched->title));
    m_player->show();
    m_player->raise();
    placePlayer();
    pause();
    m_step = 0;
    m_progress = 0.0;
    showStep();
    Q_EMIT watchingChanged(true);
    return true;
}

void CollectiveController::stop()
{
    pause();
    m_watched.reset();
    if (m_overlay) {
        m_overlay->clearStep();
        m_overlay->hide();
    }
    m_shownPhase = -1;
    m_player->hide();
    Q_EMIT watchingChanged(false);
}

void CollectiveController::replan()
{
    if (!m_watched)
        return;
    const WatchTarget target = m_watched->target;
    const int step = m_step;
    const double progress = m_progress;
    const bool playing = isPlaying();
    ScenarioDocument *doc = m_window->document();
    try {
        m_watched = watchCollective(doc->engine(), router(), target);
        ++m_generation;
    } catch (const ScenarioError &) {
        stop(); // the rank or the dimension is gone
        return;
    }
    if (!m_overlay) {
        m_overlay = new CollectiveOverlayItem(m_window->fabricView()->rootItem());
        m_window->fabricView()->scene()->addItem(m_overlay);
    }
    m_player->setTitle(QString::fromStdString(m_watched->title));
    m_step = std::clamp(step, 0, std::max(0, m_watched->steps.stepCount() - 1));
    m_progress = progress;
    showStep();
    if (playing)
        play();
}

void CollectiveController::setStep(int step)
{
    if (!m_watched)
        return;
    m_step = std::clamp(step, 0, std::max(0, m_watched->steps.stepCount() - 1));
    m_progress = 0.0;
    showStep();
}

void CollectiveController::showStep()
{
    const CollectiveSteps &steps = m_watched->steps;
    int inPhase = 0;
    const int phase = steps.phaseOf(m_step, &inPhase);
    const auto chunkColours = [&](const StepPhase &p) {
        std::vector<int> colours;
        colours.reserve(p.sends.size() + p.direct.size());
        for (std::size_t i = 0; i < p.sends.size(); ++i) {
            const int chunk = steps.chunkOf(m_step, static_cast<int>(i));
            colours.push_back(chunk >= 0 ? chunk : p.sends[i].from);
        }
        for (std::size_t i = 0; i < p.direct.size(); ++i) // NVLS: a GPU's way in and out
            colours.push_back(static_cast<int>(i / 2));
        return colours;
    };
    if (phase >= 0 && phase == m_shownPhase && m_generation == m_shownGeneration) {
        // Same links, same routes: only the chunks' indexes moved on.
        m_overlay->setChunkColours(chunkColours(steps.phases[static_cast<std::size_t>(phase)]));
    } else {
        std::vector<std::pair<int, double>> links;
        std::vector<CollectiveOverlayItem::Chunk> chunks;
        if (phase >= 0) {
            const Fabric &fabric = m_window->document()->engine().fabric();
            const StepPhase &p = steps.phases[static_cast<std::size_t>(phase)];
            links.reserve(p.links.size());
            for (const StepLink &l : p.links)
                links.emplace_back(l.link, l.bytes);
            const std::vector<int> colours = chunkColours(p);
            chunks.reserve(colours.size());
            Router &r = router();
            for (std::size_t i = 0; i < p.sends.size(); ++i)
                chunks.push_back({ sendPath(fabric, r, p.sends[i].fromSlot, p.sends[i].toSlot,
                                       static_cast<int>(i)),
                    colours[i] });
            for (std::size_t i = 0; i < p.direct.size(); ++i)
                chunks.push_back({ { p.direct[i].link }, colours[p.sends.size() + i] });
        }
        m_overlay->setStep(links, chunks, steps.chunks);
        m_shownPhase = phase;
        m_shownGeneration = m_generation;
    }
    m_overlay->setProgress(m_progress);
    m_player->setStep(
        m_step, steps.stepCount(), QString::fromStdString(steps.label(m_step)), stepDetail());
    Q_EMIT stepChanged(m_step);
}

QString CollectiveController::stepDetail() const
{
    const CollectiveSteps &steps = m_watched->steps;
    const std::vector<StepLink> &links = steps.stepLinks(m_step);
    if (links.empty())
        return tr("nothing moves in this step");
    const auto busiest = std::max_element(links.begin(), links.end(),
        [](const StepLink &a, const StepLink &b) { return a.bytes < b.bytes; });
    const Fabric &fabric = m_window->document()->engine().fabric();
    int sends = 0;
    if (const int p = steps.phaseOf(m_step); p >= 0)
        sends = static_cast<int>(steps.phases[static_cast<std::size_t>(p)].sends.size());
    return tr("%1 sends over %2 links; the busiest, %3, carries %4 in this step")
        .arg(sends)
        .arg(links.size())
        .arg(QString::fromStdString(fabric.linkName(busiest->link)))
        .arg(QString::fromStdString(formatBytes(busiest->bytes)));
}

void CollectiveController::play()
{
    if (!m_watched)
        return;
    if (m_step + 1 >= m_watched->steps.stepCount() && m_progress >= 1.0)
        setStep(0); // played to the end: from the start again
    m_clock->start();
    m_timer->start();
    m_player->setPlaying(true);
}

void CollectiveController::pause()
{
    m_timer->stop();
    m_player->setPlaying(false);
}

bool CollectiveController::isPlaying() const
{
    return m_timer->isActive();
}

void CollectiveController::setProgress(double progress)
{
    m_progress = std::clamp(progress, 0.0, 1.0);
    if (m_overlay)
        m_overlay->setProgress(m_progress);
}

void CollectiveController::advance(double seconds)
{
    if (!m_watched)
        return;
    double p = m_progress + seconds * m_player->speed();
    const int last = m_watched->steps.stepCount() - 1;
    if (p >= 1.0 && m_step < last) {
        const int jump = std::min(last - m_step, static_cast<int>(std::floor(p)));
        const double rest = p - jump;
        setStep(m_step + jump);
        p = rest;
    }
    if (p >= 1.0 && m_step >= last) {
        setProgress(1.0);
        pause();
        return;
    }
    setProgress(p);
}

void CollectiveController::tick()
{
    const double seconds = static_cast<double>(m_clock->restart()) / 1000.0;
    advance(seconds);
}

void CollectiveController::placePlayer()
{
    if (!m_player->isVisible())
        return;
    FabricView *view = m_window->fabricView();
    const int margin = 8;
    const int bottom = view->height()
        - (view->horizontalScrollBar()->isVisible() ? view->horizontalScrollBar()->height() : 0);
    const int right = view->width()
        - (view->verticalScrollBar()->isVisible() ? view->verticalScrollBar()->width() : 0);
    const int width = std::max(200, right - 2 * margin);
    const int height = m_player->heightForWidth(width) > 0 ? m_player->heightForWidth(width)
                                                           : m_player->sizeHint().height();
    m_player->setGeometry(margin, bottom - height - margin, width, height);
}

bool CollectiveController::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_window->fabricView() && event->type() == QEvent::Resize)
        placePlayer();
    return QObject::eventFilter(watched, event);
}

bool CollectiveController::exportFrames(const QString &directory, int framesPerStep, QString *error)
{
    if (!m_watched) {
        if (error)
            *error = tr("no collective is being watched");
        return false;
    }
    if (!QDir().mkpath(directory)) {
        if (error)
            *error = tr("%1: the folder cannot be created").arg(directory);
        return false;
    }
    const CollectiveSteps &steps = m_watched->steps;
    std::vector<int> exported;
    if (steps.stepCount() <= kMaxExportSteps) {
        for (int s = 0; s < steps.stepCount(); ++s)
            exported.push_back(s);
    } else { // a long ring: each phase's first two steps and its last say what it does
        int first = 0;
        for (const StepPhase &p : steps.phases) {
            for (const int s : { first, first + 1, first + p.count - 1 })
                if (s >= first && s < first + p.count && (exported.empty() || exported.back() < s))
                    exported.push_back(s);
            first += p.count;
        }
    }
    const bool playing = isPlaying();
    pause();
    const int oldStep = m_step;
    const double oldProgress = m_progress;
    FabricView *view = m_window->fabricView();
    QList<QImage> frames;
    const int perStep = std::max(1, framesPerStep);
    for (const int s : exported) {
        setStep(s);
        for (int f = 0; f < perStep; ++f) {
            setProgress(perStep == 1 ? 1.0 : static_cast<double>(f) / (perStep - 1));
            QImage image
                = view->viewport()->grab().toImage().convertToFormat(QImage::Format_ARGB32);
            QPainter painter(&image);
            QFont font = painter.font();
            font.setPixelSize(std::max(12, image.height() / 40));
            font.setBold(true);
            painter.setFont(font);
            const QString caption = QString::fromStdString(steps.label(s));
            const QRectF box = painter.fontMetrics().boundingRect(caption).adjusted(-6, -3, 6, 3);
            const QRectF placed = box.translated(12 - box.left(), 12 - box.top());
            painter.fillRect(placed, QColor(255, 255, 255, 230));
            painter.setPen(Qt::black);
            painter.drawText(placed, Qt::AlignCenter, caption);
            painter.end();
            const QString name = QDir(directory).filePath(
                QStringLiteral("frame-%1.png").arg(frames.size() + 1, 4, 10, QLatin1Char('0')));
            if (!image.save(name, "PNG")) {
                if (error)
                    *error = tr("%1: the frame cannot be written").arg(name);
                return false;
            }
            frames.push_back(image);
        }
    }
    m_step = oldStep;
    showStep();
    setProgress(oldProgress);
    if (playing)
        play();
    // 1/speed seconds a step, as the player plays it.
    const int delay = static_cast<int>(std::lround(1000.0 / (m_player->speed() * perStep)));
    return frameexport::writeApng(
        QDir(directory).filePath(QStringLiteral("collective.png")), frames, delay, error);
}

bool CollectiveController::parseTarget(const QString &text, WatchTarget &out)
{
    const QStringList parts = text.split(QLatin1Char(':'));
    if (parts.size() < 2 || parts.size() > 3)
        return false;
    WatchTarget t;
    bool dimOk = false;
    for (const Dim d : kAllDims)
        if (parts[0] == QLatin1String(dimName(d).data())) {
            t.dim = d;
            dimOk = true;
        }
    bool rankOk = true;
    if (parts[1] == QLatin1String("all"))
        t.wholeDimension = true;
    else
        t.rank = parts[1].toInt(&rankOk);
    bool opOk = true;
    if (parts.size() == 3)
        t.op = parts[2].toInt(&opOk);
    if (!dimOk || !rankOk || !opOk || t.rank < 0 || t.op < 0)
        return false;
    out = t;
    return true;
}

void CollectiveController::extendMenu(QMenu *menu, int rank)
{
    const CostEngine &engine = m_window->document()->engine();
    bool first = true;
    for (const Dim d : kAllDims) {
        const std::vector<WatchableOp> ops = watchableOps(engine, d, rank);
        // The gradient sync's ops each (a distributed optimizer's reduce-scatter and
        // all-gather); of the per-layer ops (TP, EP, CP) the first, the others are in the
        // player's reach through View > Watch a Collective's whole dimension.
        const std::size_t listed = d == Dim::Dp ? ops.size() : std::min<std::size_t>(1, ops.size());
        for (std::size_t i = 0; i < listed; ++i) {
            if (first)
                menu->addSeparator();
            first = false;
            const int op = static_cast<int>(i);
            QAction *a = menu->addAction(
                tr("Watch Its %1 %2").arg(upperDim(d), opTitle(ops[i])), this, [this, d, rank, op] {
                    watch({ d, rank, false, op });
                });
            a->setObjectName(QStringLiteral("actionWatch%1%2")
                                 .arg(upperDim(d))
                                 .arg(i == 0 ? QString() : QString::number(i)));
            a->setStatusTip(tr("Play rank %1's %2 group's %3 step by step on the fabric")
                                .arg(rank)
                                .arg(upperDim(d), QString::fromStdString(ops[i].name)));
        }
    }
}

void CollectiveController::buildMenu()
{
    QMenu *view = nullptr;
    for (QAction *a : m_window->menuBar()->actions())
        if (a->menu() && a->text().remove(QLatin1Char('&')) == tr("View"))
            view = a->menu();
    if (!view)
        return;
    view->addSeparator();
    m_menu = view->addMenu(tr("Watch a &Collective"));
    m_menu->setObjectName(QStringLiteral("watchMenu"));
    connect(m_menu, &QMenu::aboutToShow, this, [this] {
        m_menu->clear();
        const CostEngine &engine = m_window->document()->engine();
        const std::vector<int> selected = m_window->fabricView()->selectedRanks();
        const int rank = selected.empty() ? 0 : selected.front();
        for (const Dim d : kAllDims) {
            const std::vector<WatchableOp> ops = watchableOps(engine, d, rank);
            if (ops.empty())
                continue;
            m_menu->addAction(
                tr("Rank %1's %2 %3").arg(rank).arg(upperDim(d), opTitle(ops.front())), this,
                [this, d, rank] {
                    watch({ d, rank, false, 0 });
                });
            m_menu->addAction(tr("Every %1 Group at Once").arg(upperDim(d)), this, [this, d, rank] {
                watch({ d, rank, true, 0 });
            });
        }
        m_menu->addSeparator();
        QAction *stopAction
            = m_menu->addAction(tr("Stop Watching"), this, &CollectiveController::stop);
        stopAction->setEnabled(isWatching());
    });
}

} // namespace railyard
