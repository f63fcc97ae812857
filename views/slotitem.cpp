#include "slotitem.h"

#include "colorscale.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "painting.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace railyard {

SlotItem::SlotItem(const FabricItem *root, int slot, QGraphicsItem *parent)
    : QGraphicsItem(parent)
    , m_root(root)
    , m_slot(slot)
{
    setFlag(ItemIsSelectable);
    // Chips repaint only when their rank, colour or highlight changes: cache them.
    setCacheMode(DeviceCoordinateCache);
    setData(kSlotKey, slot);
    setData(kRankKey, -1);
    setData(kJobKey, -1);
}

void SlotItem::syncWithModel()
{
    const ScenarioDocument *doc = m_root->document();
    const int rank = doc->mapping().rankAt(m_slot);
    QColor fill = rank >= 0 ? m_root->chipColour(rank) : QColor();
    QString coordText;
    if (rank >= 0) {
        const RankCoord c = doc->engine().layout().coord(rank);
        const ParallelDegrees &deg = doc->engine().layout().degrees();
        coordText = QStringLiteral("(%1,%2,%3").arg(c.d).arg(c.p).arg(c.t);
        if (deg.cp > 1)
            coordText += QStringLiteral(",c%1").arg(c.c);
        if (deg.ep > 1)
            coordText += QStringLiteral(",e%1").arg(c.e);
        coordText += QLatin1Char(')');
    }
    // Several jobs: the active job's chips carry its hue as a band, another job's GPU is filled
    // with that job's hue and named (docs/shared-fabric.md, "In the explorer").
    int job = -1, otherRank = -1;
    QColor jobColour, shown = fill;
    QString jobName;
    const Scenario &scenario = doc->scenario();
    if (!scenario.jobs.empty()) {
        const int other = rank >= 0 ? -1 : doc->otherJobOfSlot(m_slot);
        job = rank >= 0 ? doc->activeJob() : other;
        if (job >= 0 && static_cast<std::size_t>(job) < scenario.jobs.size()) {
            jobColour = QColor(
                QString::fromStdString(scenario.jobs[static_cast<std::size_t>(job)].colour));
            if (other >= 0) {
                otherRank = doc->otherJobRankOfSlot(m_slot);
                jobName
                    = QString::fromStdString(scenario.jobs[static_cast<std::size_t>(other)].name);
                shown = otherJobFill(jobColour);
            }
        }
    }
    if (rank == m_rank && shown == m_fill && coordText == m_coordText && job == m_job
        && jobColour == m_jobColour && otherRank == m_otherRank && jobName == m_jobName)
        return;
    m_job = job;
    m_jobColour = jobColour;
    m_otherRank = otherRank;
    m_jobName = jobName;
    setData(kJobKey, job);
    fill = shown;
    m_rank = rank;
    m_fill = fill;
    m_coordText = coordText;
    m_coordPixels = coordinateFont(coordText).pixelSize();
    m_rankText = rank >= 0 ? QString::number(rank) : QString();
    setData(kRankKey, rank);
    update();
}

void SlotItem::setPartnerMask(unsigned mask)
{
    if (mask == m_partnerMask)
        return;
    m_partnerMask = mask;
    update();
}

void SlotItem::setFocused(bool focused)
{
    if (focused == m_focused)
        return;
    m_focused = focused;
    update();
}

void SlotItem::setDropTarget(bool target)
{
    if (target == m_dropTarget)
        return;
    m_dropTarget = target;
    update();
}

void SlotItem::setDragSource(bool source)
{
    if (source == m_dragSource)
        return;
    m_dragSource = source;
    update();
}

void SlotItem::setEmphasised(bool emphasised)
{
    if (emphasised == m_emphasised)
        return;
    m_emphasised = emphasised;
    update();
}

void SlotItem::setFailed(bool failed)
{
    if (failed == m_failed)
        return;
    m_failed = failed;
    update();
}

QColor SlotItem::otherJobFill(const QColor &hue)
{
    // 45 % of the hue over white: light enough that the active job's chips, filled by their
    // coordinate at full strength, read first; strong enough to tell the Okabe-Ito hues apart.
    return FabricItem::overOpaque(QColor(hue.red(), hue.green(), hue.blue(), 115), Qt::white);
}

QFont SlotItem::coordinateFont(const QString &text)
{
    QFont f; // the application font's family, as the chip paints it
    f.setBold(false);
    f.setPixelSize(kCoordinatesMaxPixels);
    // Type scales with its size: one measurement at the largest size gives the fitting one.
    const double room = FabricLayout::kChipWidth - 4.0;
    const double wide = QFontMetricsF(f).horizontalAdvance(text);
    if (wide > room)
        f.setPixelSize(
            std::max(kCoordinatesMinPixels, static_cast<int>(kCoordinatesMaxPixels * room / wide)));
    return f;
}

QFont SlotItem::coordinateFont() const
{
    QFont f = coordinateFont(QString());
    f.setPixelSize(m_coordPixels);
    return f;
}

QRectF SlotItem::boundingRect() const
{
    return QRectF(-4.0, -4.0, FabricLayout::kChipWidth + 8.0, FabricLayout::kChipHeight + 8.0);
}

QVariant SlotItem::itemChange(GraphicsItemChange change, const QVariant &value)
{
    if (change == ItemSelectedHasChanged)
        update();
    return QGraphicsItem::itemChange(change, value);
}

void SlotItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    const QRectF r(0.0, 0.0, FabricLayout::kChipWidth, FabricLayout::kChipHeight);
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);

    if (m_rank < 0 && m_otherRank >= 0) {
        // Another job's GPU: its hue, its name and its rank there; not draggable here.
        painter->setPen(QPen(m_jobColour.darker(160), 1.0));
        painter->setBrush(m_fill);
        drawBox(painter, r.adjusted(0.5, 0.5, -0.5, -0.5), 4, lod);
        if (lod > kRankOnlyLod) {
            painter->setPen(QColor(0x21, 0x25, 0x29));
            QFont f = painter->font();
            f.setBold(true);
            f.setPixelSize(lod > kCoordinatesLod ? 12 : 16);
            painter->setFont(f);
            const QString text = lod > kCoordinatesLod
                ? QStringLiteral("%1\n%2").arg(m_jobName).arg(m_otherRank)
                : m_jobName;
            painter->drawText(r.adjusted(2, 0, -2, 0), Qt::AlignCenter, text);
        }
    } else if (m_rank < 0) {
        QPen pen(QColor(0xad, 0xb5, 0xbd), 1.0, Qt::DashLine);
        pen.setCosmetic(true);
        painter->setPen(pen);
        painter->setBrush(m_dropTarget ? QColor(0xd0, 0xeb, 0xff) : QColor(0xf1, 0xf3, 0xf5));
        drawBox(painter, r.adjusted(0.5, 0.5, -0.5, -0.5), 4, lod);
        if (lod > 0.45) {
            painter->setPen(QColor(0x86, 0x8e, 0x96));
            QFont f = painter->font();
            f.setPixelSize(9);
            painter->setFont(f);
            painter->drawText(r, Qt::AlignCenter, QStringLiteral("empty"));
        }
    } else {
        QColor fill = m_fill;
        if (m_dragSource)
            fill.setAlpha(70);
        painter->setPen(QPen(QColor(0x49, 0x50, 0x57), 0.8));
        painter->setBrush(fill);
        drawBox(painter, r.adjusted(0.5, 0.5, -0.5, -0.5), 4, lod);
        painter->setPen(m_dragSource ? QColor(0x86, 0x8e, 0x96) : QColor(0x21, 0x25, 0x29));
        QFont f = coordinateFont();
        f.setBold(true);
        if (lod > kCoordinatesLod) {
            // Near: the rank and under it its (d,p,t) coordinates, as large as the chip allows
            // (at the window's default zoom they reach the readable size, FabricView::fitDefault).
            f.setPixelSize(14);
            painter->setFont(f);
            painter->drawText(
                QRectF(0, 1, r.width(), 18), Qt::AlignHCenter | Qt::AlignVCenter, m_rankText);
            painter->setFont(coordinateFont());
            painter->drawText(QRectF(0, 18, r.width(), r.height() - 18.5),
                Qt::AlignHCenter | Qt::AlignVCenter, m_coordText);
        } else if (lod > kRankOnlyLod) {
            // Fitted on a small screen: the rank number alone, as large as the chip allows.
            f.setPixelSize(m_rankText.size() > 3 ? 17 : 22);
            painter->setFont(f);
            painter->drawText(r, Qt::AlignCenter, m_rankText);
        }
        if (m_jobColour.isValid()) {
            // The active job's hue: a band along the chip's top edge.
            painter->setPen(Qt::NoPen);
            painter->setBrush(m_jobColour);
            painter->drawRect(QRectF(r.left() + 3.0, r.top() + 0.5, r.width() - 6.0, 4.0));
        }
    }

    // Partner rings, outermost first: each dimension the chip shares with the focused rank.
    int ring = 0;
    for (Dim d : { Dim::Dp, Dim::Pp, Dim::Ep, Dim::Cp, Dim::Tp }) {
        if (!(m_partnerMask & (1u << index(d))))
            continue;
        QPen pen(ColorScale::dimColour(d), 2.4);
        painter->setPen(pen);
        painter->setBrush(Qt::NoBrush);
        const double inset = 1.2 + 2.4 * ring++;
        drawBox(painter, r.adjusted(inset, inset, -inset, -inset), 4, lod);
    }
    if (m_focused) {
        painter->setPen(QPen(QColor(0x21, 0x25, 0x29), 3.0));
        painter->setBrush(Qt::NoBrush);
        drawBox(painter, r.adjusted(-1.5, -1.5, 1.5, 1.5), 5, lod);
    }
    if (isSelected()) {
        QPen pen(QColor(0x1c, 0x7e, 0xd6), 2.0, Qt::DashLine);
        painter->setPen(pen);
        painter->setBrush(Qt::NoBrush);
        drawBox(painter, r.adjusted(-2, -2, 2, 2), 5, lod);
    }
    if (m_failed) {
        // Greyed out and crossed: the GPU is gone, whatever rank the mapping still puts there.
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(0x86, 0x8e, 0x96, 170));
        drawBox(painter, r.adjusted(0.5, 0.5, -0.5, -0.5), 4, lod);
        painter->setPen(QPen(FabricItem::failedColour(), 2.5, Qt::SolidLine, Qt::RoundCap));
        painter->drawLine(r.topLeft() + QPointF(5, 5), r.bottomRight() - QPointF(5, 5));
        painter->drawLine(r.topRight() + QPointF(-5, 5), r.bottomLeft() + QPointF(5, -5));
    }
    if (m_emphasised) {
        painter->setPen(QPen(FabricItem::emphasisColour(), 2.5));
        painter->setBrush(Qt::NoBrush);
        drawBox(painter, r.adjusted(-2.5, -2.5, 2.5, 2.5), 5, lod);
    }
    if (m_dropTarget) {
        painter->setPen(QPen(QColor(0x1c, 0x7e, 0xd6), 3.0));
        painter->setBrush(QColor(0x1c, 0x7e, 0xd6, 40));
        drawBox(painter, r.adjusted(-1.5, -1.5, 1.5, 1.5), 5, lod);
    }
}

} // namespace railyard
