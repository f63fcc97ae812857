#include "timelineview.h"

#include "base/sizelimits.h"
#include "chartformat.h"
#include "chartpalette.h"
#include "cost/pipelinewait.h"
#include "document/scenariodocument.h"
#include "elidedlabel.h"
#include "timelinecanvas.h"

#include <QComboBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSvgGenerator>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <cstdint>
#include <limits>

namespace railyard {

namespace {

constexpr int kBarUnits = 100000; // scroll bar resolution over the whole time span

QString scheduleLabel(ScheduleKind k)
{
    switch (k) {
    case ScheduleKind::GPipe:
        return QStringLiteral("GPipe");
    case ScheduleKind::OneFOneB:
        return QStringLiteral("1F1B");
    case ScheduleKind::Interleaved:
        return QStringLiteral("Interleaved 1F1B");
    case ScheduleKind::ZbH1:
        return QStringLiteral("ZB-H1 (zero bubble)");
    case ScheduleKind::DualPipe:
        return QStringLiteral("DualPipe");
    }
    return {};
}

/// Bubble colour: green while small, amber, red once a quarter of the time idles.
QColor bubbleColor(double bubble)
{
    if (bubble < 0.10)
        return chartpalette::goodColor();
    if (bubble < 0.25)
        return chartpalette::warnColor();
    return chartpalette::badColor();
}

} // namespace

TimelineView::TimelineView(ScenarioDocument *doc, QWidget *parent)
    : QWidget(parent)
    , m_doc(doc)
{
    m_bubbleLabel = new QLabel(this);
    m_bubbleLabel->setObjectName(QStringLiteral("bubbleLabel"));
    QFont big = m_bubbleLabel->font();
    big.setPointSizeF(big.pointSizeF() * 1.9);
    big.setBold(true);
    m_bubbleLabel->setFont(big);
    m_bubbleLabel->setToolTip(tr("Bubble fraction: idle stage-time / (stages × makespan)"));

    m_detailLabel = new QLabel(this);
    m_detailLabel->setObjectName(QStringLiteral("timelineDetails"));
    m_detailLabel->setTextFormat(Qt::RichText);

    m_schedule = new QComboBox(this);
    m_schedule->setObjectName(QStringLiteral("scheduleCombo"));
    for (const ScheduleKind k : kScheduleKinds)
        m_schedule->addItem(scheduleLabel(k), static_cast<int>(k));
    m_schedule->setToolTip(tr("Pipeline schedule: GPipe (all forwards, then all backwards), 1F1B "
                              "(one forward, one backward in the steady state), interleaved 1F1B "
                              "(several model chunks per rank), ZB-H1 (1F1B with the weight "
                              "gradients deferred into the bubbles) or DualPipe (micro-batches "
                              "from both ends, two stages per rank; even stages, m >= 2 pp)"));

    m_chunks = new QSpinBox(this);
    m_chunks->setObjectName(QStringLiteral("chunksSpin"));
    m_chunks->setRange(2, 64);
    m_chunks->setKeyboardTracking(false);
    m_chunks->setToolTip(tr("Model chunks (virtual stages) per pipeline rank"));

    m_microbatches = new QSpinBox(this);
    m_microbatches->setObjectName(QStringLiteral("microbatchSpin"));
    m_microbatches->setRange(1, static_cast<int>(limits::kMaxMicrobatches));
    m_microbatches->setKeyboardTracking(false);
    m_microbatches->setAccelerated(true);
    m_microbatches->setToolTip(tr("Micro-batches per replica per iteration; sets the global batch "
                                  "to m × micro-batch × dp"));

    m_batchLabel = new ElidedLabel(this);
    m_batchLabel->setObjectName(QStringLiteral("globalBatchLabel"));
    m_batchLabel->setStyleSheet(QStringLiteral("color: palette(mid);"));

    m_errorLabel = new QLabel(this);
    m_errorLabel->setObjectName(QStringLiteral("timelineError"));
    m_errorLabel->setWordWrap(true);
    m_errorLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_errorLabel->setStyleSheet(
        QStringLiteral("color: %1; font-weight: bold;").arg(chartpalette::badColor().name()));
    m_errorLabel->hide();

    m_blockDetail = new QLabel(this);
    m_blockDetail->setObjectName(QStringLiteral("timelineBlockDetail"));
    m_blockDetail->setTextFormat(Qt::RichText);
    m_blockDetail->setWordWrap(true); // a narrow panel wraps it; nothing is cut
    m_blockDetail->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_blockDetail->setFrameShape(QFrame::StyledPanel);
    m_blockDetail->setStyleSheet(QStringLiteral("QLabel { background: palette(tool-tip-base); "
                                                "color: palette(tool-tip-text); padding: 3px; }"));
    m_blockDetail->hide();

    m_canvas = new TimelineCanvas;
    m_canvas->setObjectName(QStringLiteral("timelineCanvas"));
    m_scroll = new QScrollArea(this);
    m_scroll->setWidget(m_canvas);
    m_scroll->setWidgetResizable(true);
    m_scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    m_scroll->setFrameShape(QFrame::StyledPanel);
    m_hbar = new QScrollBar(Qt::Horizontal, this);
    m_hbar->setObjectName(QStringLiteral("timelineScrollBar"));

    auto tool = [this](const QString &text, const QString &tip) {
        auto *b = new QToolButton(this);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(true);
        return b;
    };
    QToolButton *zoomIn = tool(QStringLiteral("+"), tr("Zoom in (Ctrl+wheel, +)"));
    QToolButton *zoomOut = tool(QStringLiteral("−"), tr("Zoom out (Ctrl+wheel, -)"));
    QToolButton *fit = tool(tr("Fit"), tr("Show the whole iteration (double-click, 0)"));

    // Two short rows rather than one long one: the panel stays usable at 600 px wide.
    auto *header = new QHBoxLayout;
    header->addWidget(m_bubbleLabel);
    header->addSpacing(16);
    header->addWidget(m_detailLabel, 1);
    header->addWidget(zoomOut);
    header->addWidget(zoomIn);
    header->addWidget(fit);

    auto *controls = new QHBoxLayout;
    auto *scheduleCaption = new QLabel(tr("&Schedule"), this);
    scheduleCaption->setBuddy(m_schedule);
    auto *chunksCaption = new QLabel(tr("&Chunks"), this);
    chunksCaption->setBuddy(m_chunks);
    auto *mbCaption = new QLabel(tr("&Micro-batches"), this);
    mbCaption->setBuddy(m_microbatches);
    controls->addWidget(scheduleCaption);
    controls->addWidget(m_schedule);
    controls->addSpacing(8);
    controls->addWidget(chunksCaption);
    controls->addWidget(m_chunks);
    controls->addSpacing(8);
    controls->addWidget(mbCaption);
    controls->addWidget(m_microbatches);
    controls->addSpacing(8);
    controls->addWidget(m_batchLabel, 1);

    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(6, 6, 6, 6);
    layout->setSpacing(4);
    layout->addLayout(header);
    layout->addLayout(controls);
    layout->addWidget(m_errorLabel);
    layout->addWidget(m_scroll, 1);
    layout->addWidget(m_hbar);
    layout->addWidget(m_blockDetail);

    connect(m_schedule, &QComboBox::currentIndexChanged, this, [this] {
        m_chunks->setEnabled(
            m_schedule->currentData().toInt() == static_cast<int>(ScheduleKind::Interleaved));
        commit();
    });
    // keyboardTracking is off: valueChanged arrives on Enter, focus out and arrow steps.
    connect(m_chunks, &QSpinBox::valueChanged, this, &TimelineView::commit);
    connect(m_microbatches, &QSpinBox::valueChanged, this, &TimelineView::commit);

    connect(zoomIn, &QToolButton::clicked, this,
        [this] { m_canvas->zoomBy(1.5, m_canvas->width() / 2.0); });
    connect(zoomOut, &QToolButton::clicked, this,
        [this] { m_canvas->zoomBy(1.0 / 1.5, m_canvas->width() / 2.0); });
    connect(fit, &QToolButton::clicked, m_canvas, &TimelineCanvas::fit);
    connect(m_canvas, &TimelineCanvas::viewChanged, this, &TimelineView::syncScrollBar);
    connect(m_canvas, &TimelineCanvas::eventSelected, this, [this](int index) {
        const QString text = blockDetailText(index);
        m_blockDetail->setText(text);
        m_blockDetail->setVisible(!text.isEmpty());
    });
    connect(m_hbar, &QScrollBar::valueChanged, this, [this](int v) {
        if (!m_syncingBar)
            m_canvas->setViewStart(m_canvas->totalSpan() * v / kBarUnits);
    });

    connect(m_doc, &ScenarioDocument::scenarioChanged, this, &TimelineView::syncControls);
    connect(m_doc, &ScenarioDocument::reportChanged, this, &TimelineView::syncReport);
    connect(m_doc, &ScenarioDocument::mappingChanged, this, &TimelineView::syncReport);
    syncControls();
    syncReport();
}

QString TimelineView::blockDetailText(int index) const
{
    const PipelineTimeline &t = m_canvas->timeline();
    // The canvas's stages: the timeline it shows (the scenario may be ahead of the report).
    const int stages = m_canvas->stages();
    if (index < 0 || index >= static_cast<int>(t.events.size()) || stages < 1)
        return {};
    const PipelineEvent &e = t.events[static_cast<std::size_t>(index)];
    const auto name = [stages](const PipelineEvent &ev) {
        return isCompute(ev) ? tr("%1 of micro-batch %2 on stage %3")
                                   .arg(TimelinePainter::eventLabel(ev.kind))
                                   .arg(ev.microbatch)
                                   .arg(ev.stage)
                             : tr("%1 of micro-batch %2, stage %3 → %4")
                                   .arg(TimelinePainter::eventLabel(ev.kind))
                                   .arg(ev.microbatch)
                                   .arg(ev.stage)
                                   .arg(pipelineReceiver(ev, stages));
    };
    const bool compute = isCompute(e);
    QString head = compute ? tr("<b>%1</b> · stage %2 · micro-batch %3")
                                 .arg(TimelinePainter::eventLabel(e.kind))
                                 .arg(e.stage)
                                 .arg(e.microbatch)
                           : tr("<b>%1</b> · stage %2 → %3 · micro-batch %4")
                                 .arg(TimelinePainter::eventLabel(e.kind))
                                 .arg(e.stage)
                                 .arg(pipelineReceiver(e, stages))
                                 .arg(e.microbatch);
    if (m_canvas->chunks() > 1)
        head += tr(" · chunk %1").arg(e.chunk);
    head += tr(" · start %1 · length %2")
                .arg(chartformat::seconds(e.start), chartformat::seconds(e.end - e.start));
    const PipelineWait w = pipelineWait(t, stages, index);
    QString waits;
    switch (w.kind) {
    case PipelineWait::Kind::None:
        break;
    case PipelineWait::Kind::Start:
        waits = tr("nothing: the stage's first block, at the start of the iteration");
        break;
    case PipelineWait::Kind::StageBusy:
        waits = tr("the stage's previous block, %1 (ended %2)")
                    .arg(name(t.events[static_cast<std::size_t>(w.event)]),
                        chartformat::seconds(t.events[static_cast<std::size_t>(w.event)].end));
        break;
    case PipelineWait::Kind::Input:
        waits = tr("%1 %2 (ended %3)")
                    .arg(compute ? tr("its input,") : tr("the block that computed it,"),
                        name(t.events[static_cast<std::size_t>(w.event)]),
                        chartformat::seconds(t.events[static_cast<std::size_t>(w.event)].end));
        break;
    case PipelineWait::Kind::Ready:
        waits = tr("its parameters (started %1 after %2)")
                    .arg(chartformat::seconds(w.gap),
                        w.event >= 0 ? name(t.events[static_cast<std::size_t>(w.event)])
                                     : tr("the iteration's start"));
        break;
    }
    if (waits.isEmpty())
        return head;
    return head + QStringLiteral("<br>") + tr("Waits on: %1").arg(waits.toHtmlEscaped());
}

QString TimelineView::errorText() const
{
    return m_errorLabel->isVisible() || !m_errorLabel->text().isEmpty() ? m_errorLabel->text()
                                                                        : QString();
}

void TimelineView::syncControls()
{
    const Scenario &s = m_doc->scenario();
    const QSignalBlocker b1(m_schedule), b2(m_chunks), b3(m_microbatches);
    m_schedule->setCurrentIndex(m_schedule->findData(static_cast<int>(s.training.schedule)));
    const bool interleaved = s.training.schedule == ScheduleKind::Interleaved;
    m_chunks->setValue(std::max(2, s.training.interleave));
    m_chunks->setEnabled(interleaved);
    // The document's own m (scenario(), not the engine: a large rebuild may still be running).
    const std::int64_t perStep = std::int64_t { s.training.microBatch } * s.degrees.dp;
    m_microbatches->setValue(perStep > 0 ? static_cast<int>(s.training.globalBatch / perStep) : 1);
    m_batchLabel->setFullText(tr("global batch %1 = m × micro-batch %2 × dp %3")
                                  .arg(s.training.globalBatch)
                                  .arg(s.training.microBatch)
                                  .arg(s.degrees.dp));
    showError(QString()); // the controls now show a valid document again
}

void TimelineView::syncReport()
{
    const CostReport &r = m_doc->report();
    const Scenario &s = m_doc->scenario();
    m_shownBubble = r.bubbleFraction;
    m_bubbleLabel->setText(tr("Bubble %1").arg(chartformat::percent(r.bubbleFraction)));
    QPalette pal = m_bubbleLabel->palette();
    pal.setColor(QPalette::WindowText, bubbleColor(r.bubbleFraction));
    m_bubbleLabel->setPalette(pal);

    const int chunks = chunksPerRank(s.training);
    QString schedule = scheduleLabel(s.training.schedule);
    if (chunks > 1)
        schedule += tr(" (%1 chunks)").arg(chunks);
    m_detailLabel->setText(
        tr("makespan <b>%1</b> &nbsp;·&nbsp; iteration <b>%2</b><br>"
           "<span style='color:gray'>%3 &nbsp;·&nbsp; %4 stages × %5 micro-batches</span>")
            .arg(chartformat::seconds(r.pipelineMakespan), chartformat::seconds(r.iterationTime),
                schedule)
            .arg(s.degrees.pp)
            .arg(m_doc->engine().plan().microbatches));
    m_canvas->setTimeline(r.timeline, s.degrees.pp, chunks, r.iterationTime,
        s.training.schedule == ScheduleKind::DualPipe);
    syncScrollBar();
}

void TimelineView::syncScrollBar()
{
    const double total = m_canvas->totalSpan();
    const int page
        = std::clamp(static_cast<int>(m_canvas->viewSpan() / total * kBarUnits), 1, kBarUnits);
    m_syncingBar = true;
    m_hbar->setRange(0, kBarUnits - page);
    m_hbar->setPageStep(page);
    m_hbar->setSingleStep(std::max(1, page / 10));
    m_hbar->setValue(static_cast<int>(m_canvas->viewStart() / total * kBarUnits));
    m_hbar->setEnabled(page < kBarUnits);
    m_syncingBar = false;
}

void TimelineView::commit()
{
    const Scenario &current = m_doc->scenario();
    Scenario next = current;
    next.training.schedule = static_cast<ScheduleKind>(m_schedule->currentData().toInt());
    if (next.training.schedule == ScheduleKind::Interleaved)
        next.training.interleave = m_chunks->value();
    // m micro-batches per replica: global batch = m * micro_batch * dp (workloadplan.cpp).
    const std::int64_t global = std::int64_t { m_microbatches->value() }
        * current.training.microBatch * current.degrees.dp;
    if (global > std::numeric_limits<int>::max()) {
        showError(tr("global batch %1 is too large").arg(global));
        return;
    }
    next.training.globalBatch = static_cast<int>(global);

    // The undo text names what differs from the document (a refused choice may be pending).
    QStringList changes;
    const bool interleaved = next.training.schedule == ScheduleKind::Interleaved;
    if (next.training.schedule != current.training.schedule)
        changes << (interleaved ? tr("schedule %1 (%2 chunks)")
                                      .arg(m_schedule->currentText())
                                      .arg(next.training.interleave)
                                : tr("schedule %1").arg(m_schedule->currentText()));
    else if (next.training.interleave != current.training.interleave)
        changes << tr("chunks = %1").arg(next.training.interleave);
    if (next.training.globalBatch != current.training.globalBatch)
        changes << tr("micro-batches = %1").arg(m_microbatches->value());
    if (changes.isEmpty()) {
        showError(QString());
        return;
    }
    const QString text = tr("Set %1").arg(changes.join(QStringLiteral(", ")));
    const QString error = m_doc->editScenario(next, text);
    showError(error);
}

void TimelineView::showError(const QString &message)
{
    m_errorLabel->setText(message);
    m_errorLabel->setVisible(!message.isEmpty());
}

QString TimelineView::exportTitle() const
{
    const Scenario &s = m_doc->scenario();
    const CostReport &r = m_doc->report();
    return tr("%1 — %2, %3 stages × %4 micro-batches — bubble %5, makespan %6, iteration %7")
        .arg(QString::fromStdString(s.name.empty() ? std::string("scenario") : s.name),
            scheduleLabel(s.training.schedule))
        .arg(s.degrees.pp)
        .arg(m_doc->engine().plan().microbatches)
        .arg(chartformat::percent(r.bubbleFraction), chartformat::seconds(r.pipelineMakespan),
            chartformat::seconds(r.iterationTime));
}

bool TimelineView::exportImage(const QString &path)
{
    const QSize size(std::max(1400, m_canvas->width()), m_canvas->preferredHeight());
    const QString title = exportTitle();
    if (QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0) {
        QSvgGenerator svg;
        svg.setFileName(path);
        svg.setSize(size);
        svg.setViewBox(QRect(QPoint(0, 0), size));
        svg.setTitle(title);
        svg.setDescription(tr("Railyard pipeline timeline"));
        QPainter p;
        if (!p.begin(&svg))
            return false;
        m_canvas->renderAll(p, QRectF(QPointF(0, 0), size), title);
        p.end();
        return QFileInfo(path).size() > 0;
    }
    QImage image(size * 2, QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(2.0);
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::TextAntialiasing);
    m_canvas->renderAll(p, QRectF(QPointF(0, 0), size), title);
    p.end();
    return image.save(path);
}

} // namespace railyard
