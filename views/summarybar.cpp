#include "summarybar.h"

#include "chartformat.h"
#include "chartpalette.h"
#include "document/scenariodocument.h"
#include "workload/workloadnames.h"

#include <QDockWidget>
#include <QHBoxLayout>
#include <QLabel>
#include <QLayout>
#include <QResizeEvent>
#include <QScreen>
#include <QTextDocument>

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

/// Width of a rich-text label's text in `font` (one line).
int htmlWidth(const QFont &font, const QString &html)
{
    QTextDocument doc;
    doc.setDefaultFont(font);
    doc.setDocumentMargin(0);
    doc.setHtml(html);
    return static_cast<int>(std::ceil(doc.idealWidth()));
}

/// "Caption" small and grey above the value.
QString item(const QString &caption, const QString &value, const QColor &color = QColor())
{
    const QString styled = color.isValid()
        ? QStringLiteral("<span style='color:%1'>%2</span>").arg(color.name(), value)
        : value;
    return QStringLiteral("<span style='color:gray; font-size:small'>%1</span><br><b>%2</b>")
        .arg(caption, styled);
}

} // namespace

MemoryShown memoryShown(const CostReport &report, double deviceHbm)
{
    const TightestMemory m = tightestMemory(report, deviceHbm);
    return { m.used, m.capacity,
        m.device.empty() ? QString()
                         : QStringLiteral(" (%1)").arg(QString::fromStdString(m.device)) };
}

SummaryBar::SummaryBar(ScenarioDocument *doc, QWidget *parent)
    : QFrame(parent)
    , m_doc(doc)
{
    setObjectName(QStringLiteral("summaryBar"));
    setFrameShape(QFrame::StyledPanel);
    auto *layout = new QHBoxLayout(this);
    layout->setContentsMargins(8, 3, 8, 3);
    layout->setSpacing(12);
    m_job = addItem(QStringLiteral("summaryJob"));
    m_job->setVisible(false);
    m_iteration = addItem(QStringLiteral("summaryIteration"));
    m_mfu = addItem(QStringLiteral("summaryMfu"));
    m_bubble = addItem(QStringLiteral("summaryBubble"));
    m_bottleneck = addItem(QStringLiteral("summaryBottleneck"));
    m_spine = addItem(QStringLiteral("summarySpine"));
    m_memory = addItem(QStringLiteral("summaryMemory"));
    m_warnings = addItem(QStringLiteral("summaryWarnings"));
    // A badge per active calibration, two lines like the items: what, and where it came from.
    const QString badgeStyle = QStringLiteral(
        "QLabel { color: white; background: #2e7d32; border-radius: 4px; padding: 0px 6px; }");
    m_calibrated = new QLabel(tr("calibrated"), this);
    m_calibrated->setObjectName(QStringLiteral("summaryCalibrated"));
    m_calibrated->setStyleSheet(badgeStyle);
    m_calibrated->setTextFormat(Qt::RichText);
    layout->addWidget(m_calibrated);
    m_computeBadge = new QLabel(this);
    m_computeBadge->setObjectName(QStringLiteral("summaryComputeCalibrated"));
    m_computeBadge->setStyleSheet(badgeStyle);
    m_computeBadge->setTextFormat(Qt::RichText);
    m_computeBadge->setVisible(false);
    layout->addWidget(m_computeBadge);
    layout->addStretch(1);
    m_evaluating = new QLabel(tr("evaluating…"), this);
    m_evaluating->setObjectName(QStringLiteral("summaryEvaluating"));
    m_evaluating->setStyleSheet(QStringLiteral("color: gray; font-style: italic;"));
    m_evaluating->setToolTip(tr("The engine is re-evaluating a large scenario; the numbers shown "
                                "are the previous ones"));
    m_evaluating->setVisible(m_doc->isEvaluating());
    layout->addWidget(m_evaluating);

    m_bottleneck->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
    layout->setStretchFactor(m_bottleneck, 4);
    m_bottleneck->installEventFilter(this); // re-elide whenever its column changes width
    fitColumns();

    connect(m_doc, &ScenarioDocument::reportChanged, this, &SummaryBar::refresh);
    connect(m_doc, &ScenarioDocument::scenarioChanged, this, &SummaryBar::refresh);
    connect(m_doc, &ScenarioDocument::mappingChanged, this, &SummaryBar::refresh);
    connect(m_doc, &ScenarioDocument::evaluatingChanged, m_evaluating, &QLabel::setVisible);
    refresh();
    fitHeight();
}

void SummaryBar::setJob(
    const QString &name, const QColor &hue, double shared, double alone, int jobs)
{
    const double slowdown = alone > 0.0 ? shared / alone : 1.0;
    m_job->setText(item(tr("Job %1 of %2 · shared").arg(name.toHtmlEscaped()).arg(jobs),
        QStringLiteral("<span style='color:%1'>■</span> %2 ×%3")
            .arg(hue.name(), chartformat::seconds(shared))
            .arg(slowdown, 0, 'f', 3)));
    m_job->setToolTip(tr("Job \"%1\": iteration %2 with the other jobs on the fabric, %3 alone. "
                         "The other figures are the job's own, alone on the fabric.")
                          .arg(name, chartformat::seconds(shared), chartformat::seconds(alone)));
    m_job->setVisible(true);
}

void SummaryBar::clearJob()
{
    m_job->setVisible(false);
    m_job->clear();
}

void SummaryBar::fitColumns()
{
    // Every column has a width of its own, set from the widest value it can show, so the
    // columns stay put when a value changes length (a new bottleneck, "does not fit").
    const QFont f = font();
    const auto fix = [&f](QLabel *label, const QString &caption, const QString &widest) {
        label->setFixedWidth(
            std::max(htmlWidth(f, item(caption, widest)), htmlWidth(f, item(caption, QString())))
            + 4);
    };
    fix(m_iteration, tr("Iteration"), QStringLiteral("999.99 ms"));
    // The same columns show TTFT, TPOT and end-to-end beside a KV overlay (setKvFigures()).
    fix(m_mfu, tr("MFU"), QStringLiteral("999.99 ms"));
    fix(m_bubble, tr("Bubble"), QStringLiteral("999.99 ms"));
    fix(m_spine, tr("Spine share"), QStringLiteral("100.00 %"));
    fix(m_memory, tr("Memory / rank"),
        QStringLiteral("999.9 GB / 999.9 GB %1").arg(tr("does not fit")));
    fix(m_warnings, tr("Mapping warnings"), QStringLiteral("9999"));
    // The bottleneck's link name is the longest item: its column takes what the window can
    // spare between a readable minimum and room for a typical name, and elides longer names
    // (the tooltip has it all), so it neither widens the window nor moves with the name.
    m_bottleneckFull = htmlWidth(f,
        item(tr("Bottleneck link"),
            QStringLiteral("node000/gpu0 -> leaf-su0-rail0 <span "
                           "style='font-weight:normal'>(super-spine · dp · 100.0 %)</span>")));
    m_bottleneck->setMinimumWidth(m_bottleneckFull / 3);
    m_bottleneck->setMaximumWidth(m_bottleneckFull);
    // Wider than the screen with every column at its widest value (large type on a narrow
    // screen): each column as wide as what it shows now instead, moving when a value grows.
    const int screenWidth = screen() ? screen()->availableGeometry().width() : QWIDGETSIZE_MAX;
    int total = m_bottleneckFull / 3 + 16;
    for (QLabel *label : { m_iteration, m_mfu, m_bubble, m_spine, m_memory, m_warnings })
        total += label->minimumWidth() + layout()->spacing();
    if (total > screenWidth) {
        for (QLabel *label : { m_iteration, m_mfu, m_bubble, m_spine, m_memory, m_warnings }) {
            label->setMinimumWidth(0);
            label->setMaximumWidth(QWIDGETSIZE_MAX);
        }
    }
}

void SummaryBar::fitHeight()
{
    // Its height is that of its two-line items (filled in): the top dock area must never
    // squeeze them, whatever the docks below ask for.
    setMinimumHeight(0);
    setMaximumHeight(QWIDGETSIZE_MAX);
    setFixedHeight(minimumSizeHint().height());
    // Its dock (title-less) must follow now: its size constraints were measured with the old
    // height, and a name broken over two lines would be cut at the dock's bottom.
    // A font change (presentation mode) also gives the dock's layout the style's margins.
    if (auto *dock = qobject_cast<QDockWidget *>(parentWidget())) {
        if (dock->layout())
            dock->layout()->setContentsMargins(0, 0, 0, 0);
        const int title = dock->titleBarWidget() ? dock->titleBarWidget()->height() : 0;
        dock->setFixedHeight(height() + title);
    }
}

bool SummaryBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_bottleneck && event->type() == QEvent::Resize)
        showBottleneck();
    return QFrame::eventFilter(watched, event);
}

void SummaryBar::changeEvent(QEvent *event)
{
    QFrame::changeEvent(event);
    // A new font (presentation mode's larger one, a system change): every fixed width and
    // the height were measured in the old one.
    if (event->type() == QEvent::FontChange) {
        fitColumns();
        fitHeight();
        showBottleneck();
    }
}

QLabel *SummaryBar::addItem(const QString &objectName)
{
    auto *label = new QLabel(this);
    label->setObjectName(objectName);
    label->setTextFormat(Qt::RichText);
    layout()->addWidget(label);
    return label;
}

void SummaryBar::showEvent(QShowEvent *event)
{
    QFrame::showEvent(event);
    fitHeight();
}

void SummaryBar::resizeEvent(QResizeEvent *event)
{
    QFrame::resizeEvent(event);
    showBottleneck();
}

void SummaryBar::showBottleneck()
{
    if (m_warningsHiddenAt > 0 && (m_warningCount > 0 || window()->width() > m_warningsHiddenAt)) {
        m_warningsHiddenAt = 0;
        m_warnings->show();
    }
    QString detail = m_bottleneckDetail.isEmpty()
        ? QString()
        : QStringLiteral(" <span style='font-weight:normal'>(%1)</span>")
              .arg(m_bottleneckDetail.toHtmlEscaped());
    QFont bold = font();
    bold.setBold(true);
    const QFontMetrics fm(bold);
    const int nameWidth = fm.horizontalAdvance(m_bottleneckName);
    const int room = m_bottleneck->width() - 6;
    QString value;
    if (nameWidth + htmlWidth(font(), item(QString(), detail)) <= room) {
        value = m_bottleneckName.toHtmlEscaped() + detail;
    } else if (nameWidth <= room) {
        value = m_bottleneckName.toHtmlEscaped(); // the tooltip keeps the detail
    } else {
        // Broken after the arrow of "a -> b" (a link's name), both halves whole; a name
        // without one on one line. The column grows to the longer line when it must: other
        // columns have fixed widths and the bar's stretch gives way first.
        const qsizetype arrow = m_bottleneckName.indexOf(QStringLiteral(" -> "));
        const QString first = arrow < 0 ? m_bottleneckName : m_bottleneckName.left(arrow + 3);
        const QString second = arrow < 0 ? QString() : m_bottleneckName.mid(arrow + 4);
        // The caption goes before the first half, so the item keeps the bar's two lines.
        const QString caption = m_kv ? tr("Hottest KV link") : tr("Bottleneck link");
        const QString head
            = QStringLiteral("<span style='color:gray; font-size:small'>%1</span> <b>%2</b>")
                  .arg(caption, first.toHtmlEscaped());
        int widest = std::max(htmlWidth(font(), head), fm.horizontalAdvance(second));
        // Never wider than the screen leaves it beside the other columns: past that, the
        // name in the caption's smaller type (still whole).
        const auto othersWidth = [this] {
            int w = layout()->contentsMargins().left() + layout()->contentsMargins().right()
                + 2 * frameWidth() + 2;
            for (QLabel *label : { m_iteration, m_mfu, m_bubble, m_spine, m_memory, m_warnings })
                if (!label->isHidden())
                    w += std::max(label->minimumWidth(), label->minimumSizeHint().width())
                        + layout()->spacing();
            return w;
        };
        int others = othersWidth();
        // The window's width (never pushed wider, so a first launch keeps its size), within
        // the screen's.
        const int screenWidth = std::min(
            screen() ? screen()->availableGeometry().width() : QWIDGETSIZE_MAX, window()->width());
        QString second2 = QStringLiteral("<b>") + second.toHtmlEscaped() + QStringLiteral("</b>");
        QString head2 = head;
        if (widest + 8 > screenWidth - others) {
            head2 = QStringLiteral("<span style='color:gray; font-size:small'>%1</span> <b "
                                   "style='font-size:small'>%2</b>")
                        .arg(caption, first.toHtmlEscaped());
            second2 = QStringLiteral("<b style='font-size:small'>") + second.toHtmlEscaped()
                + QStringLiteral("</b>");
            widest = std::max(htmlWidth(font(), head2), htmlWidth(font(), second2));
        }
        int budget = std::max(screenWidth - others, m_bottleneckFull / 3) - 8;
        if (widest > budget) {
            // The other columns keep room for their widest values ("999.9 GB / 999.9 GB does
            // not fit"); on a narrow screen they give it to the name and fit what they show.
            for (QLabel *label : { m_iteration, m_mfu, m_bubble, m_spine, m_memory, m_warnings }) {
                label->setMinimumWidth(0);
                label->setMaximumWidth(QWIDGETSIZE_MAX);
            }
            others = othersWidth();
            budget = std::max(screenWidth - others, m_bottleneckFull / 3) - 8;
        }
        if (widest > budget && m_warningCount == 0 && !m_warnings->isHidden()) {
            // Still short: "Mapping warnings 0" says nothing a room needs; it makes way (and
            // comes back on a wider window or with a warning).
            m_warnings->hide();
            m_warningsHiddenAt = screenWidth;
            others = othersWidth();
            budget = std::max(screenWidth - others, m_bottleneckFull / 3) - 8;
        }
        if (widest > budget) {
            // Narrower still than that (a 960-px logical screen): as a last resort each line
            // loses its middle (the tooltip has the name whole).
            QFont small = font();
            small.setPointSizeF(font().pointSizeF() / 1.2); // CSS "small" (Qt: one step down)
            small.setBold(true);
            const QFontMetrics sm(small);
            const int captionWidth = htmlWidth(font(),
                QStringLiteral("<span style='color:gray; font-size:small'>%1</span> ")
                    .arg(caption));
            head2
                = QStringLiteral("<span style='color:gray; font-size:small'>%1</span> <b "
                                 "style='font-size:small'>%2</b>")
                      .arg(caption,
                          sm.elidedText(first, Qt::ElideMiddle, std::max(40, budget - captionWidth))
                              .toHtmlEscaped());
            second2 = QStringLiteral("<b style='font-size:small'>")
                + sm.elidedText(second, Qt::ElideMiddle, std::max(40, budget)).toHtmlEscaped()
                + QStringLiteral("</b>");
            widest = std::max(htmlWidth(font(), head2), htmlWidth(font(), second2));
        }
        if (widest > room) {
            // Not past the screen, though: a window wider than its screen cannot be shown
            // whole (nor full screen); on a screen that narrow the name's end is cut instead.
            const int wanted
                = std::min(widest + 8, std::max(screenWidth - others, m_bottleneckFull / 3));
            m_bottleneck->setMaximumWidth(std::max(m_bottleneck->maximumWidth(), wanted));
            m_bottleneck->setMinimumWidth(wanted);
        }
        const QString text = second.isEmpty() ? head2 : head2 + QStringLiteral("<br>") + second2;
        if (text != m_bottleneck->text())
            m_bottleneck->setText(text);
        return;
    }
    const QString text = item(m_kv ? tr("Hottest KV link") : tr("Bottleneck link"), value);
    if (text != m_bottleneck->text())
        m_bottleneck->setText(text);
}

void SummaryBar::setKvFigures(const KvFigures &figures)
{
    m_kv = figures;
    refresh();
}

void SummaryBar::clearKvFigures()
{
    if (!m_kv)
        return;
    m_kv.reset();
    refresh();
}

void SummaryBar::setComputeCalibration(const std::optional<ComputeCalibration> &calibration)
{
    m_compute = calibration;
    refresh();
}

namespace {

/// A badge's two lines: "what · source" over the details, in the captions' small type.
QString badgeText(const QString &what, const QString &source, const QString &details)
{
    return QStringLiteral("<span style='font-size:small'><b>%1</b> · %2<br>%3</span>")
        .arg(what, source.toHtmlEscaped(), details.toHtmlEscaped());
}

/// A file's name without its folders, at most 28 characters (the tooltip has the path).
QString shortFileName(const std::string &path)
{
    QString name = QString::fromStdString(path);
    name = name.mid(name.lastIndexOf(QLatin1Char('/')) + 1);
    return name.size() > 28 ? name.left(13) + QStringLiteral("…") + name.right(14) : name;
}

} // namespace

void SummaryBar::refresh()
{
    const CostReport &r = m_doc->report();
    const CostEngine &engine = m_doc->engine();
    const Scenario &s = m_doc->scenario();

    if (m_kv) {
        // The links show KV load: the numbers beside them are the serving figures the same
        // study computes, not the training step's.
        m_iteration->setText(item(tr("TTFT"), chartformat::seconds(m_kv->ttft)));
        m_iteration->setToolTip(tr("Time to first token: prefill plus the KV transfer"));
        m_mfu->setText(item(tr("TPOT"), chartformat::seconds(m_kv->tpot)));
        m_mfu->setToolTip(tr("Time per output token: one decode step at the mean context"));
        m_bubble->setText(item(tr("End-to-end"), chartformat::seconds(m_kv->endToEnd)));
        m_bubble->setToolTip(tr("One request: TTFT plus the remaining decode steps"));
        m_bottleneckName = m_kv->hottestLink.isEmpty() ? tr("none") : m_kv->hottestLink;
        m_bottleneckDetail = m_kv->hottestLink.isEmpty() ? QString()
            : m_kv->hottestOffered > 1.0                 ? tr("KV · %1 (offered %2) at %3 req/s")
                                               .arg(chartformat::percent(m_kv->hottestUtilisation),
                                                   chartformat::percent(m_kv->hottestOffered))
                                               .arg(m_kv->requestRate)
                                         : tr("KV · %1 at %2 req/s")
                                               .arg(chartformat::percent(m_kv->hottestUtilisation))
                                               .arg(m_kv->requestRate);
        showBottleneck();
        m_bottleneck->setToolTip(tr("The link the KV transfer loads most at the request rate"));
    }

    if (!m_kv) {
        m_iteration->setText(item(tr("Iteration"), chartformat::seconds(r.iterationTime)));
        m_iteration->setToolTip(
            tr("One training iteration: pipeline %1 plus exposed DP sync and the "
               "optimizer step; %2 micro-batches per replica")
                .arg(chartformat::seconds(r.pipelineMakespan))
                .arg(engine.plan().microbatches));
        m_mfu->setText(item(tr("MFU"), chartformat::percent(r.mfu)));
        m_mfu->setToolTip(tr("Model FLOPs utilisation of the whole job at %1 peak")
                              .arg(chartformat::latin(precisionName(s.training.precision))));
        m_bubble->setText(item(tr("Bubble"), chartformat::percent(r.bubbleFraction)));
        m_bubble->setToolTip(tr("Idle stage-time / (stages × makespan)"));

        if (r.bottleneckLink >= 0 && r.bottleneckLink < engine.fabric().linkCount()) {
            const FabricLink &link = engine.fabric().link(r.bottleneckLink);
            const QString name = QString::fromStdString(engine.fabric().linkName(r.bottleneckLink));
            const QString detail = QStringLiteral("%1 · %2 · %3")
                                       .arg(chartformat::latin(tierName(link.tier)),
                                           chartformat::latin(dimName(r.bottleneckDim)),
                                           chartformat::percent(r.utilisation(r.bottleneckLink)));
            m_bottleneckName = name;
            m_bottleneckDetail = detail;
            showBottleneck();
            m_bottleneck->setToolTip(
                tr("%1\ntier %2, mostly %3 traffic, busy %4 of the iteration")
                    .arg(name, chartformat::latin(tierName(link.tier)),
                        chartformat::latin(dimName(r.bottleneckDim)),
                        chartformat::percent(r.utilisation(r.bottleneckLink))));
        } else {
            m_bottleneckName = tr("none");
            m_bottleneckDetail.clear();
            showBottleneck();
            m_bottleneck->setToolTip(QString());
        }
    } // training figures

    m_spine->setText(item(tr("Spine share"), chartformat::percent(r.spineBytesShare, 2)));
    m_spine->setToolTip(tr("Share of NIC→leaf bytes that go on up to a spine"));

    const bool fits = r.memoryFits;
    const MemoryShown shown = memoryShown(r, s.device.hbmBytes);
    m_memory->setText(item(tr("Memory / rank"),
        QStringLiteral("%1 / %2%3 %4")
            .arg(chartformat::bytes(shown.used), chartformat::bytes(shown.capacity), shown.device,
                fits ? tr("fits") : tr("does not fit")),
        fits ? chartpalette::goodColor() : chartpalette::badColor()));
    QString memTip = tr("Largest per-rank footprint (stage: parameters + gradients + optimizer + "
                        "activations):");
    for (std::size_t st = 0; st < r.memory.size(); ++st) {
        const MemoryLedger &m = r.memory[st];
        memTip += tr("\nstage %1: %2 = %3 + %4 + %5 + %6")
                      .arg(st)
                      .arg(chartformat::bytes(m.total()), chartformat::bytes(m.parameters),
                          chartformat::bytes(m.gradients), chartformat::bytes(m.optimizer),
                          chartformat::bytes(m.activations));
    }
    m_memory->setToolTip(memTip);

    const std::vector<std::string> &warnings = engine.mappingWarnings();
    const int n = static_cast<int>(warnings.size());
    m_warningCount = n;
    if (n > 0 && m_warningsHiddenAt > 0) { // a warning always shows
        m_warningsHiddenAt = 0;
        m_warnings->show();
    }
    m_warnings->setText(item(tr("Mapping warnings"), QString::number(n),
        n > 0 ? chartpalette::warnColor() : chartpalette::goodColor()));
    QString tip
        = n == 0 ? tr("No TP group leaves its server, no DP group leaves its rail") : QString();
    for (int i = 0; i < n && i < 40; ++i)
        tip += (i ? QStringLiteral("\n") : QString())
            + QString::fromStdString(warnings[static_cast<std::size_t>(i)]);
    if (n > 40)
        tip += tr("\n… and %1 more").arg(n - 40);
    m_warnings->setToolTip(tip);

    const CalibrationSpec &cal = s.calibration;
    m_calibrated->setVisible(!cal.empty());
    m_calibrated->setText(badgeText(tr("network"), tr("nccl-tests"),
        (cal.runs.size() == 1 ? tr("1 run · %1") : tr("%1 runs · %2").arg(cal.runs.size()))
            .arg(QString::fromStdString(cal.measuredAt.substr(0, 10)))));
    QString calTip = tr("Network calibration, fitted on %1 measured nccl-tests run(s), %2:")
                         .arg(cal.runs.size())
                         .arg(QString::fromStdString(cal.measuredAt));
    if (!cal.ncclVersion.empty())
        calTip += tr(" NCCL %1").arg(QString::fromStdString(cal.ncclVersion));
    for (const CalibratedTier &t : cal.tiers)
        calTip += QStringLiteral("\n") + chartformat::latin(tierName(t.tier))
            + (t.algorithm.empty()
                    ? QString()
                    : QStringLiteral(" (%1)").arg(QString::fromStdString(t.algorithm)));
    m_calibrated->setToolTip(calTip);

    // The compute calibration is active while the device carries its fitted efficiency: an
    // undo, another document or an edit of the efficiency takes it off.
    const bool fp8 = s.training.precision == Precision::Fp8;
    const bool computeActive = m_compute && m_compute->device == s.device.name
        && m_compute->precision == s.training.precision
        && (fp8 ? s.device.maxEfficiencyFp8 : s.device.maxEfficiency) == m_compute->maxEfficiency;
    m_computeBadge->setVisible(computeActive);
    if (computeActive) {
        const ComputeCalibration &c = *m_compute;
        const QString stack
            = c.stack ? chartformat::latin(stackName(*c.stack)) : tr("stack unknown");
        m_computeBadge->setText(badgeText(tr("compute"), shortFileName(c.file),
            QStringLiteral("%1 · %2 · %3")
                .arg(QString::fromStdString(c.device), stack,
                    QString::fromStdString(c.measuredAt.substr(0, 10)))));
        m_computeBadge->setToolTip(tr("Compute calibration from a training run: %1")
                                       .arg(QString::fromStdString(computeCalibrationText(c))));
    }
}

} // namespace railyard
