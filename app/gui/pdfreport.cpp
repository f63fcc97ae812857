#include "pdfreport.h"

#include "chartbubblesweep.h"
#include "chartexposedtime.h"
#include "chartformat.h"
#include "chartlinkutilisation.h"
#include "chartspanel.h"
#include "charttierbytes.h"
#include "document/scenariodocument.h"
#include "fabricview.h"
#include "reportnotes.h"
#include "scenariotemplates.h"
#include "studies/bomreport.h"
#include "summarybar.h"
#include "timelinecanvas.h"
#include "timelineview.h"

#include <QDateTime>
#include <QDir>
#include <QImage>
#include <QPageLayout>
#include <QPageSize>
#include <QPainter>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgRenderer>
#include <QTemporaryDir>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace railyard {

namespace {

// The PDF's user space at screen resolution: widgets and fonts render at the size they have
// on screen (a 9 pt label is 12 units), so nothing is laid out for one resolution and drawn
// at another. The output is vector; only the fabric of a very large scenario is a bitmap.
constexpr int kDpi = 96;
// Above this many GPUs the fabric goes in as its PNG overview (an SVG would hold every cable).
constexpr int kVectorFabricGpus = 4096;
// A timeline block narrower than this shows no micro-batch number: the page then adds strips
// that each show a part of the iteration.
constexpr double kLabelledBlock = 26.0;
constexpr int kMaxStrips = 6;

/** Writes the pages: a header line and a footer on each, content in between. */
class Pages
{
public:
    Pages(QPdfWriter &writer, QPainter &painter, const QString &name)
        : m_writer(writer)
        , m_p(painter)
        , m_name(name)
        , m_page(QPointF(0, 0), writer.pageLayout().paintRectPixels(kDpi).size())
    {
    }

    /// Starts a page titled `heading`; returns the rectangle left for its content.
    QRectF begin(const QString &heading)
    {
        if (m_count++ > 0)
            m_writer.newPage();
        m_p.setFont(font(13, true));
        const double title = QFontMetricsF(m_p.font()).height() * 1.3;
        m_p.setPen(Qt::black);
        m_p.drawText(QRectF(m_page.left(), m_page.top(), m_page.width() * 0.75, title), Qt::AlignLeft | Qt::AlignVCenter,
                     heading);
        m_p.setFont(font(8));
        m_p.setPen(QColor(0x55, 0x55, 0x55));
        const double foot = QFontMetricsF(m_p.font()).height() * 1.4;
        m_p.drawText(QRectF(m_page.left(), m_page.bottom() - foot, m_page.width(), foot), Qt::AlignLeft | Qt::AlignBottom,
                     QObject::tr("Railyard — %1").arg(m_name));
        m_p.drawText(QRectF(m_page.left(), m_page.bottom() - foot, m_page.width(), foot), Qt::AlignRight | Qt::AlignBottom,
                     QObject::tr("page %1").arg(m_count));
        m_p.setPen(QPen(Qt::gray, 0));
        m_p.drawLine(QPointF(m_page.left(), m_page.top() + title + 2), QPointF(m_page.right(), m_page.top() + title + 2));
        m_p.setPen(Qt::black);
        return QRectF(m_page.left(), m_page.top() + title + 10, m_page.width(), m_page.height() - title - foot - 16);
    }

    static QFont font(double points, bool bold = false)
    {
        QFont f;
        f.setPointSizeF(points);
        f.setBold(bold);
        return f;
    }

private:
    QPdfWriter &m_writer;
    QPainter &m_p;
    QString m_name;
    QRectF m_page;
    int m_count = 0;
};

/// Draws `image` centred in `rect`, keeping its aspect ratio.
void drawFitted(QPainter &p, const QRectF &rect, const QImage &image)
{
    if (image.isNull())
        return;
    const QSizeF size = QSizeF(image.size()).scaled(rect.size(), Qt::KeepAspectRatio);
    p.drawImage(QRectF(rect.center() - QPointF(size.width() / 2, size.height() / 2), size), image);
}

/// Draws an SVG centred in `rect`, keeping its aspect ratio (vectors and text stay so).
bool drawSvg(QPainter &p, const QRectF &rect, const QString &path)
{
    QSvgRenderer svg(path);
    if (!svg.isValid())
        return false;
    const QSizeF size = svg.viewBoxF().size().scaled(rect.size(), Qt::KeepAspectRatio);
    svg.render(&p, QRectF(rect.center() - QPointF(size.width() / 2, size.height() / 2), size));
    return true;
}

/// Renders a widget at `logical` size into `rect`, scaled down if it must be.
void drawWidget(QPainter &p, const QRectF &rect, QWidget *widget, const QSize &logical)
{
    const QSize old = widget->size();
    widget->resize(logical); // a chart on a hidden tab may never have been laid out
    p.save();
    p.translate(rect.topLeft());
    const double scale = std::min({1.0, rect.width() / logical.width(), rect.height() / logical.height()});
    p.scale(scale, scale);
    p.setClipRect(QRectF(QPointF(0, 0), QSizeF(logical)));
    widget->render(&p, QPoint(), QRegion(), QWidget::DrawChildren);
    p.restore();
    widget->resize(old);
}

/// Lines of text in two columns (caption bold), flowing onto new pages when the page is full.
class TextFlow
{
public:
    TextFlow(QPainter &p, Pages &pages, QRectF area, const QString &continued)
        : m_p(p)
        , m_pages(pages)
        , m_area(area)
        , m_continued(continued)
        , m_y(area.top())
    {
    }

    void heading(const QString &text)
    {
        m_y += m_y > m_area.top() ? line() * 0.6 : 0.0;
        room(2);
        m_p.setFont(Pages::font(10.5, true));
        m_p.drawText(QRectF(m_area.left(), m_y, m_area.width(), line() * 1.2), Qt::AlignLeft | Qt::AlignVCenter, text);
        m_y += line() * 1.3;
    }

    /// `caption` in bold in the first `split` of the width, then `value`, word-wrapped.
    void row(const QString &caption, const QString &value, double split = 0.22)
    {
        m_p.setFont(Pages::font(9));
        const double x = m_area.width() * split;
        const QRectF valueRect(m_area.left() + x, 0, m_area.width() - x, 1e6);
        const double height = std::max(line(), m_p.boundingRect(valueRect, Qt::TextWordWrap, value).height());
        room(height / line());
        m_p.setFont(Pages::font(9, true));
        m_p.drawText(QRectF(m_area.left(), m_y, x - 6, line()), Qt::AlignLeft | Qt::AlignVCenter, caption);
        m_p.setFont(Pages::font(9));
        m_p.drawText(QRectF(m_area.left() + x, m_y, m_area.width() - x, height), Qt::AlignLeft | Qt::TextWordWrap, value);
        m_y += height + 2;
    }

    /// A table row: cells at fractions of the width.
    void cells(const QStringList &texts, const std::vector<double> &at, bool bold = false)
    {
        room(1);
        m_p.setFont(Pages::font(9, bold));
        for (int i = 0; i < texts.size() && i < static_cast<int>(at.size()); ++i) {
            const double left = at[static_cast<std::size_t>(i)];
            const double right = i + 1 < static_cast<int>(at.size()) ? at[static_cast<std::size_t>(i) + 1] : 1.0;
            m_p.drawText(QRectF(m_area.left() + left * m_area.width(), m_y, (right - left) * m_area.width() - 6, line()),
                         Qt::AlignLeft | Qt::AlignVCenter, texts[i]);
        }
        m_y += line();
    }

    double y() const { return m_y; }

private:
    double line() const { return QFontMetricsF(Pages::font(9)).height() * 1.3; }
    void room(double lines)
    {
        if (m_y + lines * line() <= m_area.bottom())
            return;
        m_area = m_pages.begin(m_continued);
        m_y = m_area.top();
    }

    QPainter &m_p;
    Pages &m_pages;
    QRectF m_area;
    QString m_continued;
    double m_y;
};

void summaryPage(QPainter &p, Pages &pages, const ScenarioDocument &doc)
{
    const CostReport &r = doc.report();
    const CostEngine &engine = doc.engine();
    const Scenario &s = doc.scenario();
    TextFlow flow(p, pages, pages.begin(QObject::tr("Summary — %1").arg(QString::fromStdString(s.name))),
                  QObject::tr("Summary (continued)"));
    flow.row(QObject::tr("Scenario"), QObject::tr("%1 ranks on %2").arg(s.slots.size()).arg(scenarioSummary(s)));
    flow.row(QObject::tr("Written"), QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
    flow.heading(QObject::tr("Figures"));
    flow.row(QObject::tr("Iteration"), chartformat::seconds(r.iterationTime));
    flow.row(QObject::tr("MFU"), chartformat::percent(r.mfu));
    flow.row(QObject::tr("Bubble"), chartformat::percent(r.bubbleFraction));
    if (r.bottleneckLink >= 0 && r.bottleneckLink < engine.fabric().linkCount()) {
        const FabricLink &link = engine.fabric().link(r.bottleneckLink);
        flow.row(QObject::tr("Bottleneck link"),
                 QObject::tr("%1 — %2 busy, %3 tier, mostly %4 traffic")
                     .arg(QString::fromStdString(engine.fabric().linkName(r.bottleneckLink)),
                          chartformat::percent(r.utilisation(r.bottleneckLink)), chartformat::latin(tierName(link.tier)),
                          chartformat::latin(dimName(r.bottleneckDim))));
    } else {
        flow.row(QObject::tr("Bottleneck link"), QObject::tr("none"));
    }
    flow.row(QObject::tr("Spine share"), chartformat::percent(r.spineBytesShare, 2));
    const MemoryShown memory = memoryShown(r, s.device.hbmBytes);
    flow.row(QObject::tr("Memory / rank"),
             QObject::tr("%1 of %2%3 (%4)")
                 .arg(chartformat::bytes(memory.used), chartformat::bytes(memory.capacity), memory.device,
                      r.memoryFits ? QObject::tr("fits") : QObject::tr("does NOT fit")));
    flow.row(QObject::tr("Links p50/95/99"), QObject::tr("%1 / %2 / %3")
                                                 .arg(chartformat::percent(r.linkStats.p50),
                                                      chartformat::percent(r.linkStats.p95),
                                                      chartformat::percent(r.linkStats.p99)));

    // Per dimension: bytes over links per iteration and exposed (critical-path) time.
    flow.heading(QObject::tr("Per parallel dimension"));
    const std::vector<double> at{0.0, 0.12, 0.32, 0.52};
    flow.cells({QObject::tr("dim"), QObject::tr("bytes / iteration"), QObject::tr("exposed"),
                QObject::tr("share of the iteration")},
               at, true);
    for (Dim d : kAllDims) {
        const auto i = static_cast<std::size_t>(d);
        flow.cells({chartformat::latin(dimName(d)), chartformat::bytes(r.dimBytes[i]), chartformat::seconds(r.dimExposed[i]),
                    chartformat::percent(r.iterationTime > 0 ? r.dimExposed[i] / r.iterationTime : 0.0)},
                   at);
    }

    flow.heading(QObject::tr("Warnings"));
    const std::vector<std::string> &mapping = engine.mappingWarnings();
    if (mapping.empty() && r.warnings.empty())
        flow.row(QString(), QObject::tr("None: no TP group leaves its server, no DP group leaves its rail, the "
                                        "memory fits."),
                 0.0);
    for (const std::string &w : r.warnings)
        flow.row(QObject::tr("model"), QString::fromStdString(w));
    for (const std::string &w : mapping)
        flow.row(QObject::tr("mapping"), QString::fromStdString(w));

    for (const ReportNotes::Section &section : ReportNotes::sections(doc)) {
        flow.heading(section.title);
        for (const auto &[caption, text] : section.rows)
            flow.row(caption, text);
    }
}

/// The bill of materials priced with the scenario's catalogue, and what an iteration costs.
void bomPage(QPainter &p, Pages &pages, const ScenarioDocument &doc)
{
    const PricedBom priced = doc.pricedBom();
    const BomCost &c = priced.cost;
    TextFlow flow(p, pages, pages.begin(QObject::tr("Bill of materials — %1").arg(QString::fromStdString(c.catalogueName))),
                  QObject::tr("Bill of materials (continued)"));
    const auto text = [](const std::string &s) { return QString::fromStdString(s); };
    const std::vector<double> at{0.0, 0.40, 0.48, 0.56, 0.66, 0.76};
    flow.cells({QObject::tr("item (* = illustrative figure)"), QObject::tr("quantity"), QObject::tr("free ports"),
                QObject::tr("unit $"), QObject::tr("total $"), QObject::tr("power")},
               at, true);
    for (const BomCostLine &l : c.lines) {
        const QString mark = l.part.empty() ? QObject::tr(" (unpriced)") : (l.illustrative ? QStringLiteral(" *") : QString());
        flow.cells({text(l.what) + mark, QString::number(l.quantity), l.portsFree >= 0 ? QString::number(l.portsFree) : QString(),
                    text(formatUsd(l.unitPriceUsd)), text(formatUsd(l.priceUsd)), text(formatWatts(l.typicalW))},
                   at);
    }
    flow.heading(QObject::tr("Cost and power"));
    flow.row(QObject::tr("Capital"), QObject::tr("%1 (network %2)").arg(text(formatUsd(c.capexUsd)), text(formatUsd(c.networkCapexUsd))));
    flow.row(QObject::tr("Network power"), QObject::tr("%1 typical, %2 maximum")
                                               .arg(text(formatWatts(c.networkTypicalW)), text(formatWatts(c.networkMaxW))));
    flow.row(QObject::tr("GPU power"), QObject::tr("%1 W per job GPU: %2").arg(c.gpuW, 0, 'f', 0).arg(text(bomUtilisationModel())));
    // "job $0.3650, fabric $0.3650": `before` and `after` each number.
    const auto pair = [](double job, double fabric, int decimals, const QString &before, const QString &after) {
        const auto one = [&](double v) { return before + QString::number(v, 'f', decimals) + after; };
        return QObject::tr("job %1, fabric %2").arg(one(job), one(fabric));
    };
    const QString kwh = QStringLiteral(" kWh");
    const QString usd = QStringLiteral("$");
    flow.row(QObject::tr("kWh / iteration"), pair(c.job.kwhPerIteration, c.fabric.kwhPerIteration, 4, QString(), kwh));
    flow.row(QObject::tr("$ / iteration"), pair(c.job.usdPerIteration, c.fabric.usdPerIteration, 4, usd, QString()));
    flow.row(QObject::tr("kWh / M tokens"), pair(c.job.kwhPerMillionTokens, c.fabric.kwhPerMillionTokens, 3, QString(), kwh));
    flow.row(QObject::tr("$ / M tokens"), pair(c.job.usdPerMillionTokens, c.fabric.usdPerMillionTokens, 3, usd, QString()));
    flow.row(QObject::tr("Tokens / joule"), pair(c.job.tokensPerJoule, c.fabric.tokensPerJoule, 3, QString(), QString()));
    for (const std::string &u : c.unpriced)
        flow.row(QObject::tr("unpriced"), text(u));
}

void fabricPage(QPainter &p, Pages &pages, ScenarioDocument &doc, FabricView *fabric)
{
    const QRectF area = pages.begin(QObject::tr("Fabric — links coloured by predicted utilisation"));
    // Through the view's own image export: that places the legend (and the annotations) and
    // picks the overview for large fabrics.
    QTemporaryDir scratch;
    if (!scratch.isValid())
        return;
    const Scenario &s = doc.scenario();
    const bool vector = s.fabric.slotCount() <= kVectorFabricGpus;
    const QString file = scratch.filePath(vector ? QStringLiteral("fabric.svg") : QStringLiteral("fabric.png"));
    if (!fabric->exportImage(file))
        return;
    if (vector)
        drawSvg(p, area, file);
    else
        drawFitted(p, area, QImage(file));
}

void timelinePage(QPainter &p, Pages &pages, const ScenarioDocument &doc, TimelineView *timeline)
{
    const CostReport &r = doc.report();
    const QRectF area = pages.begin(QObject::tr("Pipeline timeline — bubble %1, makespan %2, iteration %3")
                                        .arg(chartformat::percent(r.bubbleFraction), chartformat::seconds(r.pipelineMakespan),
                                             chartformat::seconds(r.iterationTime)));
    TimelineCanvas *canvas = timeline->canvas();
    p.setFont(Pages::font(9));
    const double height = std::min(area.height() * 0.5, static_cast<double>(canvas->preferredHeight()) + 40.0);
    const QRectF whole(area.left(), area.top(), area.width(), height);
    canvas->renderAll(p, whole, QObject::tr("The whole iteration"));

    // Blocks too narrow for their micro-batch numbers: strips of the iteration, each wide
    // enough to label them (the shortest compute block decides).
    const PipelineTimeline &t = r.timeline;
    double shortest = 0.0;
    for (const PipelineEvent &e : t.events)
        if (e.kind == PipelineEventKind::Forward || e.kind == PipelineEventKind::Backward)
            shortest = shortest > 0.0 ? std::min(shortest, e.end - e.start) : e.end - e.start;
    const double span = canvas->totalSpan();
    const double plotWidth = area.width() - TimelinePainter::kGutter - TimelinePainter::kRightMargin;
    if (shortest <= 0.0 || span <= 0.0 || plotWidth <= 0.0 || shortest / span * plotWidth >= kLabelledBlock)
        return;
    const int strips = std::min(kMaxStrips, static_cast<int>(std::ceil(kLabelledBlock / (shortest / span * plotWidth))));
    const double stripHeight = (area.bottom() - whole.bottom() - 8.0) / strips;
    if (stripHeight < 80.0)
        return;
    TimelinePainter painter;
    painter.setTimeline(t, doc.engine().layout().degrees().pp, chunksPerRank(doc.engine().scenario().training),
                        r.iterationTime);
    for (int i = 0; i < strips; ++i) {
        const QRectF strip(area.left(), whole.bottom() + 8.0 + i * stripHeight, area.width(), stripHeight - 4.0);
        p.save();
        p.fillRect(strip, Qt::white);
        painter.paint(p, strip, span * i / strips, span / strips);
        p.restore();
    }
}

void chartsPages(QPainter &p, Pages &pages, ChartsPanel *charts)
{
    QWidget *widgets[] = {charts->linkUtilisation(), charts->tierBytes(), charts->exposedTime(), charts->bubbleSweep()};
    for (int page = 0; page < 2; ++page) {
        const QRectF area = pages.begin(QObject::tr("Charts (%1 of 2)").arg(page + 1));
        const double h = (area.height() - 12.0) / 2.0;
        for (int i = 0; i < 2; ++i) {
            const QRectF cell(area.left(), area.top() + i * (h + 12.0), area.width(), h);
            drawWidget(p, cell, widgets[page * 2 + i], QSize(qRound(cell.width()), qRound(cell.height())));
        }
    }
}

} // namespace

bool writePdfReport(const QString &path, ScenarioDocument *doc, FabricView *fabric, TimelineView *timeline,
                    ChartsPanel *charts, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    // The pages show the mapping on screen, not one a background rebuild is replacing.
    doc->waitForEvaluation();
    charts->refresh();

    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly))
        return fail(QObject::tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    {
        QPdfWriter writer(&file);
        writer.setResolution(kDpi);
        writer.setPageLayout(QPageLayout(QPageSize(QPageSize::A4), QPageLayout::Landscape, QMarginsF(10, 10, 10, 10),
                                         QPageLayout::Millimeter));
        const QString name = QString::fromStdString(doc->scenario().name);
        writer.setTitle(QObject::tr("Railyard report: %1").arg(name));
        writer.setCreator(QStringLiteral("Railyard"));
        QPainter p;
        if (!p.begin(&writer))
            return fail(QObject::tr("Could not start the PDF writer for %1").arg(QDir::toNativeSeparators(path)));
        p.setRenderHint(QPainter::Antialiasing);
        p.setRenderHint(QPainter::TextAntialiasing);
        p.setRenderHint(QPainter::SmoothPixmapTransform);
        Pages pages(writer, p, name);
        summaryPage(p, pages, *doc);
        fabricPage(p, pages, *doc, fabric);
        timelinePage(p, pages, *doc, timeline);
        chartsPages(p, pages, charts);
        bomPage(p, pages, *doc);
        if (!p.end())
            return fail(QObject::tr("Could not finish the PDF %1").arg(QDir::toNativeSeparators(path)));
    }
    if (!file.commit())
        return fail(QObject::tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    return true;
}

} // namespace railyard
