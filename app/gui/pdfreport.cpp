#include "pdfreport.h"

#include "chartbubblesweep.h"
#include "chartexposedtime.h"
#include "chartformat.h"
#include "chartlinkutilisation.h"
#include "chartspanel.h"
#include "charttierbytes.h"
#include "fabricview.h"
#include "document/scenariodocument.h"
#include "scenariotemplates.h"
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
#include <QTemporaryDir>

#include <utility>
#include <vector>

namespace railyard {

namespace {

constexpr int kDpi = 150;

QString latin(std::string_view s)
{
    return QString::fromLatin1(s.data(), static_cast<qsizetype>(s.size()));
}

/// (caption, value) rows of the summary, as the summary bar shows them.
std::vector<std::pair<QString, QString>> summaryRows(const ScenarioDocument &doc)
{
    const CostReport &r = doc.report();
    const CostEngine &engine = doc.engine();
    const Scenario &s = doc.scenario();
    std::vector<std::pair<QString, QString>> rows;
    rows.emplace_back(QObject::tr("Iteration"), chartformat::seconds(r.iterationTime));
    rows.emplace_back(QObject::tr("MFU"), chartformat::percent(r.mfu));
    rows.emplace_back(QObject::tr("Bubble"), chartformat::percent(r.bubbleFraction));
    if (r.bottleneckLink >= 0 && r.bottleneckLink < engine.fabric().linkCount()) {
        const FabricLink &link = engine.fabric().link(r.bottleneckLink);
        // Link names are long ("node012/gpu0 -> node012/nic0"): a line of their own.
        rows.emplace_back(QObject::tr("Bottleneck link"), QObject::tr("%1 busy")
                                                              .arg(chartformat::percent(r.utilisation(r.bottleneckLink))));
        rows.emplace_back(QString(), QString::fromStdString(engine.fabric().linkName(r.bottleneckLink)));
        rows.emplace_back(QString(), QObject::tr("%1 tier, mostly %2 traffic")
                                         .arg(latin(tierName(link.tier)), latin(dimName(r.bottleneckDim))));
    } else {
        rows.emplace_back(QObject::tr("Bottleneck link"), QObject::tr("none"));
    }
    rows.emplace_back(QObject::tr("Spine share"), chartformat::percent(r.spineBytesShare, 2));
    rows.emplace_back(QObject::tr("Memory / rank"),
                      QObject::tr("%1 of %2 (%3)")
                          .arg(chartformat::bytes(r.maxMemoryPerRank), chartformat::bytes(s.device.hbmBytes),
                               r.memoryFits ? QObject::tr("fits") : QObject::tr("does NOT fit")));
    rows.emplace_back(QObject::tr("Links p50/95/99"),
                      QObject::tr("%1 / %2 / %3")
                          .arg(chartformat::percent(r.linkStats.p50), chartformat::percent(r.linkStats.p95),
                               chartformat::percent(r.linkStats.p99)));
    return rows;
}

/// Draws the summary rows and the per-dimension table into `rect`.
void drawSummary(QPainter &p, const QRectF &rect, const ScenarioDocument &doc)
{
    QFont font = p.font();
    font.setPointSizeF(9.0);
    font.setBold(false);
    QFont bold = font;
    bold.setBold(true);
    const double line = QFontMetricsF(font, p.device()).height() * 1.25;
    const double captionWidth = rect.width() * 0.41;
    double y = rect.top();
    for (const auto &[caption, value] : summaryRows(doc)) {
        p.setFont(bold);
        p.drawText(QRectF(rect.left(), y, captionWidth, line), Qt::AlignLeft | Qt::AlignVCenter, caption);
        p.setFont(font);
        // A row without a caption continues the one above, indented, over the full width.
        const double x = caption.isEmpty() ? rect.width() * 0.06 : captionWidth;
        const QString shown = QFontMetricsF(font, p.device()).elidedText(value, Qt::ElideMiddle, rect.width() - x);
        p.drawText(QRectF(rect.left() + x, y, rect.width() - x, line), Qt::AlignLeft | Qt::AlignVCenter, shown);
        y += line;
    }

    // Per dimension: bytes over links per iteration and exposed (critical-path) time.
    y += line * 0.6;
    const CostReport &r = doc.report();
    const double cols[] = {0.0, 0.22, 0.62};
    const QString heads[] = {QObject::tr("dim"), QObject::tr("bytes / iteration"), QObject::tr("exposed")};
    p.setFont(bold);
    for (int c = 0; c < 3; ++c)
        p.drawText(QRectF(rect.left() + cols[c] * rect.width(), y, rect.width() * 0.38, line),
                   Qt::AlignLeft | Qt::AlignVCenter, heads[c]);
    y += line;
    p.setPen(QPen(Qt::gray, 0));
    p.drawLine(QPointF(rect.left(), y), QPointF(rect.right(), y));
    p.setPen(Qt::black);
    p.setFont(font);
    for (Dim d : kAllDims) {
        const auto i = static_cast<std::size_t>(d);
        const QString cells[] = {latin(dimName(d)), chartformat::bytes(r.dimBytes[i]),
                                 chartformat::seconds(r.dimExposed[i])};
        for (int c = 0; c < 3; ++c)
            p.drawText(QRectF(rect.left() + cols[c] * rect.width(), y, rect.width() * 0.4, line),
                       Qt::AlignLeft | Qt::AlignVCenter, cells[c]);
        y += line;
    }
}

/// Draws `image` centred in `rect`, keeping its aspect ratio.
void drawFitted(QPainter &p, const QRectF &rect, const QImage &image)
{
    if (image.isNull())
        return;
    const QSizeF size = QSizeF(image.size()).scaled(rect.size(), Qt::KeepAspectRatio);
    const QRectF target(rect.center() - QPointF(size.width() / 2, size.height() / 2), size);
    p.drawImage(target, image);
}

/// Renders a widget at `logical` size, scaled into `rect` (vector where the widget paints so).
void drawWidget(QPainter &p, const QRectF &rect, QWidget *widget, const QSize &logical)
{
    const QSize old = widget->size();
    widget->resize(logical); // a chart on a hidden tab may never have been laid out
    p.save();
    p.translate(rect.topLeft());
    const double scale = std::min(rect.width() / logical.width(), rect.height() / logical.height());
    p.scale(scale, scale);
    widget->render(&p, QPoint(), QRegion(), QWidget::DrawChildren);
    p.restore();
    widget->resize(old);
}

void drawFrameTitle(QPainter &p, const QRectF &rect, const QString &title)
{
    QFont font = p.font();
    font.setPointSizeF(8.0);
    font.setBold(true);
    p.setFont(font);
    p.setPen(QColor(0x44, 0x44, 0x44));
    p.drawText(rect, Qt::AlignLeft | Qt::AlignTop, title);
    p.setPen(Qt::black);
}

} // namespace

bool writePdfReport(const QString &path, ScenarioDocument *doc, FabricView *fabric,
                    TimelineView *timeline, ChartsPanel *charts, QString *error)
{
    auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    // The page shows the mapping on screen, not one a background rebuild is replacing.
    doc->waitForEvaluation();
    charts->refresh();

    // The fabric through its own image export: that places the legend and picks the
    // overview for large fabrics.
    QTemporaryDir scratch;
    QImage fabricImage;
    if (scratch.isValid() && fabric->exportImage(scratch.filePath(QStringLiteral("fabric.png"))))
        fabricImage.load(scratch.filePath(QStringLiteral("fabric.png")));

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
        const QRectF page(QPointF(0, 0), writer.pageLayout().paintRectPixels(kDpi).size());
        const double gap = page.width() * 0.012;

        // Title line: scenario name left, fabric summary under it, date right.
        QFont titleFont = p.font();
        titleFont.setPointSizeF(16.0);
        titleFont.setBold(true);
        p.setFont(titleFont);
        const double titleHeight = QFontMetricsF(titleFont, &writer).height();
        p.drawText(QRectF(page.left(), page.top(), page.width() * 0.7, titleHeight), Qt::AlignLeft | Qt::AlignVCenter,
                   QObject::tr("Railyard — %1").arg(name));
        QFont small = titleFont;
        small.setPointSizeF(9.0);
        small.setBold(false);
        p.setFont(small);
        p.drawText(QRectF(page.left(), page.top(), page.width(), titleHeight), Qt::AlignRight | Qt::AlignVCenter,
                   QDateTime::currentDateTime().toString(QStringLiteral("yyyy-MM-dd HH:mm")));
        const double subHeight = QFontMetricsF(small, &writer).height() * 1.3;
        p.drawText(QRectF(page.left(), page.top() + titleHeight, page.width(), subHeight),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   QObject::tr("%1 ranks on %2").arg(doc->scenario().slots.size()).arg(scenarioSummary(doc->scenario())));
        const double top = page.top() + titleHeight + subHeight + gap;
        p.setPen(QPen(Qt::gray, 0));
        p.drawLine(QPointF(page.left(), top - gap / 2), QPointF(page.right(), top - gap / 2));
        p.setPen(Qt::black);

        // Upper band: summary left, fabric right. Lower band: timeline left, charts right.
        const double bandHeight = (page.bottom() - top - gap) / 2.0;
        const double labelHeight = QFontMetricsF(small, &writer).height() * 1.2;
        const QRectF summaryRect(page.left(), top, page.width() * 0.28, bandHeight);
        const QRectF fabricRect(summaryRect.right() + gap, top, page.right() - summaryRect.right() - gap, bandHeight);
        const double lowerTop = top + bandHeight + gap;
        const QRectF timelineRect(page.left(), lowerTop, page.width() * 0.44, page.bottom() - lowerTop);
        const QRectF chartsRect(timelineRect.right() + gap, lowerTop, page.right() - timelineRect.right() - gap,
                                page.bottom() - lowerTop);

        drawFrameTitle(p, summaryRect, QObject::tr("Summary"));
        drawSummary(p, summaryRect.adjusted(0, labelHeight, 0, 0), *doc);
        drawFrameTitle(p, fabricRect, QObject::tr("Fabric (links coloured by predicted utilisation)"));
        drawFitted(p, fabricRect.adjusted(0, labelHeight, 0, 0), fabricImage);
        drawFrameTitle(p, timelineRect, QObject::tr("Pipeline timeline"));
        timeline->canvas()->renderAll(p, timelineRect.adjusted(0, labelHeight, 0, 0),
                                      QObject::tr("bubble %1").arg(chartformat::percent(doc->report().bubbleFraction)));

        // The four charts, 2 x 2, each drawn at a screen-like size so its fonts stay in scale.
        QWidget *chartWidgets[] = {charts->linkUtilisation(), charts->tierBytes(), charts->exposedTime(),
                                   charts->bubbleSweep()};
        const QSizeF cell((chartsRect.width() - gap) / 2, (chartsRect.height() - gap) / 2);
        const QSize logical(480, qRound(480 * cell.height() / cell.width()));
        for (int i = 0; i < 4; ++i) {
            const QPointF at(chartsRect.left() + (i % 2) * (cell.width() + gap),
                             chartsRect.top() + (i / 2) * (cell.height() + gap));
            drawWidget(p, QRectF(at, cell), chartWidgets[i], logical);
        }
        if (!p.end())
            return fail(QObject::tr("Could not finish the PDF %1").arg(QDir::toNativeSeparators(path)));
    }
    if (!file.commit())
        return fail(QObject::tr("Could not write %1: %2").arg(QDir::toNativeSeparators(path), file.errorString()));
    return true;
}

} // namespace railyard
