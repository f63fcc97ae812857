#include "serveritem.h"
#include "stagetext.h"

#include "colorscale.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "painting.h"
#include "scenario/devicepools.h"
#include "serverlinksitem.h"
#include "slotitem.h"

#include <QImage>
#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>

namespace railyard {

ServerItem::ServerItem(const FabricItem *root, int server)
    : m_root(root)
    , m_server(server)
{
    const Fabric &f = root->fabric();
    const FabricLayout &layout = root->layout();
    const int gpus = f.gpusPerServer();
    m_name = QString::fromStdString(f.serverName(server));
    setPos(layout.serverPos(server));
    setCacheMode(DeviceCoordinateCache);
    // Its chips and links lie inside its box: the scene skips them with a server outside the
    // exposed area or the mouse's probe instead of testing each (detailtile.h).
    setFlag(ItemContainsChildrenInShape);
    m_links = new ServerLinksItem(this); // first child: below the chips
    m_slots.reserve(static_cast<std::size_t>(gpus));
    for (int g = 0; g < gpus; ++g) {
        const int slot = server * gpus + g;
        auto *item = new SlotItem(root, slot, this);
        item->setPos(layout.slotRect(g).topLeft());
        m_slots.push_back(item);
        m_scaleUpLinks.push_back(f.linkBetween(f.gpuVertex(slot), f.scaleUpVertex(server)));
        m_pcieLinks.push_back(f.linkBetween(f.gpuVertex(slot), f.nicVertex(server, f.nicOfGpu(g))));
    }
    m_scaleUpMask.assign(static_cast<std::size_t>(gpus), 0);
    m_pcieMask.assign(static_cast<std::size_t>(gpus), 0);
    m_emphasis.assign(static_cast<std::size_t>(gpus), 0);
    m_nicEmphasis.assign(static_cast<std::size_t>(std::max(0, f.nicsPerServer())), 0);
    // Mixed devices: the pool holding this server names its device (the engine has checked the
    // names before a scene shows the fabric). A binary search per pool, so a large fabric does
    // not build the per-server table once per server.
    if (const ScenarioDocument *doc = root->document()) {
        const Scenario &s = doc->scenario();
        for (std::size_t p = 0; p < s.fabric.devicePools.size(); ++p) {
            const DevicePool &pool = s.fabric.devicePools[p];
            if (!std::binary_search(pool.servers.begin(), pool.servers.end(), server))
                continue;
            const std::optional<DeviceSpec> d = poolDevice(pool.device, s.device);
            if (d && d->name != s.device.name) {
                m_device = QString::fromStdString(d->name);
                m_deviceIndex = static_cast<int>(p) + 1;
            }
        }
        if (!s.fabric.devicePools.empty() && m_device.isEmpty())
            m_device = QString::fromStdString(s.device.name);
    }
}

QColor ServerItem::boxColour() const
{
    if (m_device.isEmpty() || m_deviceIndex == 0)
        return QColor(0xfc, 0xfc, 0xfd);
    // Light tints of Okabe-Ito hues (the jobs' palette), one per further device kind.
    static const QColor tints[] = { QColor(0xff, 0xf1, 0xd6), QColor(0xe3, 0xf2, 0xfb),
        QColor(0xdf, 0xf3, 0xec), QColor(0xf7, 0xe6, 0xf0) };
    return tints[(m_deviceIndex - 1) % 4];
}

void ServerItem::syncWithModel()
{
    updateLinks();
}

QGraphicsItem *ServerItem::linksItem() const
{
    return m_links;
}

void ServerItem::updateLinks()
{
    if (m_failed)
        update(); // drawn under the veil by this item
    else
        m_links->update();
}

bool ServerItem::isOnHandle(const QPointF &localPos) const
{
    return m_root->layout().barRect().adjusted(-2, -2, 2, 2).contains(localPos);
}

double ServerItem::shownUtilisation(int gpu, bool scaleUp) const
{
    // The report's utilisation, or the external overlay's value when one is shown.
    const int link = (scaleUp ? m_scaleUpLinks : m_pcieLinks)[static_cast<std::size_t>(gpu)];
    const int links = static_cast<int>(m_root->document()->report().links.size());
    if (link < 0 || (link | 1) >= links)
        return 0.0;
    return std::max(m_root->shownUtilisation(link), m_root->shownUtilisation(link ^ 1));
}

void ServerItem::setRouteMask(int gpu, bool scaleUp, unsigned mask)
{
    auto &masks = scaleUp ? m_scaleUpMask : m_pcieMask;
    auto &m = masks[static_cast<std::size_t>(gpu)];
    if (m == static_cast<unsigned char>(mask))
        return;
    m = static_cast<unsigned char>(mask);
    updateLinks();
}

void ServerItem::clearRouteMasks()
{
    std::fill(m_scaleUpMask.begin(), m_scaleUpMask.end(), 0);
    std::fill(m_pcieMask.begin(), m_pcieMask.end(), 0);
    updateLinks();
}

void ServerItem::setBottleneckLink(int link)
{
    if (link == m_bottleneck)
        return;
    m_bottleneck = link;
    updateLinks();
}

void ServerItem::setDropTarget(bool target)
{
    if (target == m_dropTarget)
        return;
    m_dropTarget = target;
    update();
}

void ServerItem::setLinkEmphasised(int gpu, bool scaleUp, bool emphasised)
{
    if (gpu < 0 || gpu >= gpuCount())
        return;
    auto &bits = m_emphasis[static_cast<std::size_t>(gpu)];
    const unsigned char bit = scaleUp ? 2 : 1;
    const unsigned char next = emphasised ? (bits | bit) : (bits & ~bit);
    if (next == bits)
        return;
    bits = next;
    updateLinks();
}

bool ServerItem::isLinkEmphasised(int gpu, bool scaleUp) const
{
    return gpu >= 0 && gpu < gpuCount()
        && (m_emphasis[static_cast<std::size_t>(gpu)] & (scaleUp ? 2 : 1));
}

bool ServerItem::isNicEmphasised(int nic) const
{
    return nic >= 0 && nic < static_cast<int>(m_nicEmphasis.size())
        && m_nicEmphasis[static_cast<std::size_t>(nic)];
}

void ServerItem::setNicEmphasised(int nic, bool emphasised)
{
    if (nic < 0 || nic >= static_cast<int>(m_nicEmphasis.size())
        || bool(m_nicEmphasis[static_cast<std::size_t>(nic)]) == emphasised)
        return;
    m_nicEmphasis[static_cast<std::size_t>(nic)] = emphasised;
    update();
}

void ServerItem::setBarEmphasised(bool emphasised)
{
    if (emphasised == m_barEmphasis)
        return;
    m_barEmphasis = emphasised;
    update();
}

void ServerItem::clearEmphasis()
{
    std::fill(m_emphasis.begin(), m_emphasis.end(), 0);
    std::fill(m_nicEmphasis.begin(), m_nicEmphasis.end(), 0);
    m_barEmphasis = false;
    update();
    m_links->update();
}

void ServerItem::setFailed(bool failed)
{
    if (failed == m_failed)
        return;
    m_failed = failed;
    m_links->setVisible(!failed);
    update();
}

void ServerItem::paintFailed(QPainter *painter)
{
    // Greyed and crossed out over everything the server drew (its chips draw their own).
    const QRectF box(QPointF(0, 0), m_root->layout().serverSize());
    painter->setPen(Qt::NoPen);
    painter->setBrush(QColor(0x49, 0x50, 0x57, 110));
    painter->drawRect(box);
    painter->setPen(QPen(FabricItem::failedColour(), 3.0, Qt::SolidLine, Qt::RoundCap));
    painter->drawLine(box.topLeft(), box.bottomRight());
    painter->drawLine(box.topRight(), box.bottomLeft());
}

QRectF ServerItem::boundingRect() const
{
    const QSizeF s = m_root->layout().serverSize();
    return QRectF(-3.0, -3.0, s.width() + 6.0, s.height() + 6.0);
}

void ServerItem::paintOverviewBlock(QPainter *painter, double lod)
{
    paintOverview(painter, lod);
    if (m_failed) {
        const bool antialiased = painter->testRenderHint(QPainter::Antialiasing);
        painter->setRenderHint(QPainter::Antialiasing, true); // the cross's diagonals
        paintFailed(painter);
        painter->setRenderHint(QPainter::Antialiasing, antialiased);
    }
}

QRgb ServerItem::blockColour(const SlotItem *slot)
{
    return slot->rank() >= 0 || slot->otherJobRank() >= 0 ? slot->fillColour().rgb()
                                                          : qRgb(0xf1, 0xf3, 0xf5);
}

void ServerItem::paintOverview(QPainter *painter, double lod)
{
    std::vector<QRgb> chips;
    chips.reserve(m_slots.size());
    for (const SlotItem *slot : m_slots)
        chips.push_back(blockColour(slot));
    paintBlock(painter, m_root->layout(), chips.data(), static_cast<int>(chips.size()), lod);
}

void ServerItem::paintBlock(
    QPainter *painter, const FabricLayout &layout, const QRgb *chips, int gpus, double lod)
{
    const QRectF box(QPointF(0, 0), layout.serverSize());
    if (lod * box.width() < kSolidBelowPixels * static_cast<double>(std::max(1, gpus))) {
        // Under two device pixels per GPU the chips cannot be told apart: one block in their
        // mean colour, what an area-averaging downscale of the chips would show, costs one
        // fill instead of nine (16,384 servers at a 131,072-GPU fit-to-window zoom).
        int r = 0, g = 0, b = 0;
        for (int k = 0; k < gpus; ++k) {
            r += qRed(chips[k]);
            g += qGreen(chips[k]);
            b += qBlue(chips[k]);
        }
        const int n = std::max(1, gpus);
        painter->fillRect(box, QColor(r / n, g / n, b / n));
        return;
    }
    painter->fillRect(box, QColor(0x86, 0x8e, 0x96));
    const double pitch = FabricLayout::kChipWidth + FabricLayout::kChipGap;
    if (lod * pitch < kImageBelowPixels) {
        // A few device pixels per chip: the one-unit seams between the chips' rectangles
        // (grown by two units each side, below) are a quarter of a pixel or less. The chips as one
        // image of a pixel per GPU, scaled without smoothing over the chips' band: one draw
        // for the server instead of a fill per chip (the 16,384 servers of a 131,072-GPU
        // overview, repainted whole on every zoom step).
        const int cols = layout.chipsPerRow(), rows = layout.chipRows();
        static QImage strip; // reused; implicit sharing detaches it if an engine kept it
        if (strip.width() != cols || strip.height() != rows)
            strip = QImage(cols, rows, QImage::Format_RGB32);
        for (int row = 0; row < rows; ++row) {
            auto *line = reinterpret_cast<QRgb *>(strip.scanLine(row));
            for (int col = 0; col < cols; ++col) {
                const int k = row * cols + col;
                line[col] = k < gpus ? chips[k] : qRgb(0x86, 0x8e, 0x96);
            }
        }
        const QRectF first = layout.slotRect(0).adjusted(-2, -10, 2, 2);
        const QRectF last = layout.slotRect(cols * rows - 1).adjusted(-2, -10, 2, 2);
        const bool smooth = painter->testRenderHint(QPainter::SmoothPixmapTransform);
        painter->setRenderHint(QPainter::SmoothPixmapTransform, false);
        painter->drawImage(QRectF(first.topLeft(), last.bottomRight()), strip);
        painter->setRenderHint(QPainter::SmoothPixmapTransform, smooth);
        return;
    }
    for (int k = 0; k < gpus; ++k)
        painter->fillRect(layout.slotRect(k).adjusted(-2, -10, 2, 2), QColor(chips[k]));
}

namespace {

/// The highlight underlay of a link on a partner's route (first dimension of the mask).
void drawRouteUnderlay(QPainter *painter, const QLineF &line, unsigned mask)
{
    for (Dim d : { Dim::Dp, Dim::Pp, Dim::Ep, Dim::Cp, Dim::Tp }) {
        if (mask & (1u << index(d))) {
            QColor c = ColorScale::dimColour(d);
            c.setAlpha(170);
            painter->setPen(QPen(c, 6.0, Qt::SolidLine, Qt::RoundCap));
            painter->drawLine(line);
            return;
        }
    }
}

} // namespace

void ServerItem::paintLinks(QPainter *painter, double lod) const
{
    const FabricLayout &layout = m_root->layout();
    const Fabric &f = m_root->fabric();
    const double maxUtil = m_root->maxUtilisation();
    const QRectF bar = layout.barRect();
    painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);
    for (std::size_t g = 0; g < m_slots.size(); ++g) {
        const int gpu = static_cast<int>(g);
        const QRectF chip = layout.slotRect(gpu);
        // PCIe: from the GPU's NIC down to the chip.
        const QRectF nic = layout.nicRect(f.nicOfGpu(gpu));
        const QLineF pcie(nic.center().x(), nic.bottom(), chip.center().x(), chip.top());
        const QLineF nvlink(chip.center().x(), chip.bottom(), chip.center().x(), bar.top());
        for (const auto &[line, link, util, mask, emphasised] :
            { std::tuple(pcie, m_pcieLinks[g], shownUtilisation(gpu, false), m_pcieMask[g],
                  (m_emphasis[g] & 1) != 0),
                std::tuple(nvlink, m_scaleUpLinks[g], shownUtilisation(gpu, true), m_scaleUpMask[g],
                    (m_emphasis[g] & 2) != 0) }) {
            if (mask)
                drawRouteUnderlay(painter, line, mask);
            if (emphasised) {
                painter->setPen(
                    QPen(FabricItem::emphasisColour(), 7.0, Qt::SolidLine, Qt::RoundCap));
                painter->drawLine(line);
                painter->setPen(QPen(Qt::white, 4.0, Qt::SolidLine, Qt::RoundCap));
                painter->drawLine(line);
            }
            if (m_bottleneck >= 0 && (m_bottleneck | 1) == (link | 1)) {
                painter->setPen(
                    QPen(QColor(0xe0, 0x31, 0x31, 110), 9.0, Qt::SolidLine, Qt::RoundCap));
                painter->drawLine(line);
            }
            painter->setPen(QPen(ColorScale::utilisationColour(util, maxUtil),
                util > 0.0 ? 3.0 : 1.5, Qt::SolidLine, Qt::FlatCap));
            painter->drawLine(line);
        }
    }
}

void ServerItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *)
{
    if (m_root->isOverview()) {
        paintOverview(painter, option->levelOfDetailFromTransform(painter->worldTransform()));
        if (m_failed)
            paintFailed(painter);
        return;
    }
    const FabricLayout &layout = m_root->layout();
    const Fabric &f = m_root->fabric();
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const QRectF box(QPointF(0, 0), layout.serverSize());
    painter->setRenderHint(QPainter::Antialiasing, lod > 0.3);

    painter->setPen(QPen(m_dropTarget ? QColor(0x1c, 0x7e, 0xd6) : QColor(0x86, 0x8e, 0x96),
        m_dropTarget ? 3.0 : 1.0));
    painter->setBrush(m_dropTarget ? QColor(0xe7, 0xf5, 0xff) : boxColour());
    drawBox(painter, box.adjusted(0.5, 0.5, -0.5, -0.5), 5, lod);

    if (m_failed)
        paintLinks(painter, lod); // under the veil; ServerLinksItem is hidden

    const QRectF bar = layout.barRect();
    // The NVSwitch bar doubles as the handle that drags the whole server.
    painter->setPen(m_barEmphasis ? QPen(FabricItem::emphasisColour(), 2.5)
                                  : QPen(QColor(0x86, 0x8e, 0x96), 0.8));
    painter->setBrush(QColor(0xe9, 0xec, 0xef));
    drawBox(painter, bar, 3, lod);
    if (lod > 0.4) {
        painter->setPen(QColor(0x86, 0x8e, 0x96));
        painter->setBrush(QColor(0x86, 0x8e, 0x96));
        for (int i = 0; i < 3; ++i)
            for (int j = 0; j < 2; ++j)
                painter->drawEllipse(
                    QPointF(bar.left() + 6 + 4 * j, bar.top() + 3.5 + 3.5 * i), 0.9, 0.9);
    }
    if (lod > 0.4 && !stageDrawsLabels(this)) {
        QFont font = painter->font();
        font.setPixelSize(10);
        font.setBold(true);
        painter->setFont(font);
        painter->setPen(QColor(0x34, 0x3a, 0x40));
        painter->drawText(bar.adjusted(16, 0, -4, 0), Qt::AlignLeft | Qt::AlignVCenter, m_name);
        font.setBold(false);
        font.setPixelSize(9);
        painter->setFont(font);
        painter->setPen(QColor(0x6c, 0x75, 0x7d));
        // On a fabric of mixed devices the bar names the server's device instead.
        painter->drawText(bar.adjusted(4, 0, -6, 0), Qt::AlignRight | Qt::AlignVCenter,
            m_device.isEmpty() ? QStringLiteral("NVSwitch") : m_device);
    }

    // NICs on the top edge, in their rail's colour (grey on a ToR fabric).
    const bool rail = f.railCount() > 0;
    // Under four device pixels tall a NIC's outline cannot be told from its fill: a plain
    // fill, a span fill instead of a rectangle and its outline (eight per server, thousands of
    // servers in the first detailed frame of a 131,072-GPU fabric).
    const bool outlined = lod * FabricLayout::kNicHeight >= 4.0;
    for (int n = 0; n < f.nicsPerServer(); ++n) {
        const QColor fill = rail ? ColorScale::railColour(n) : QColor(0xce, 0xd4, 0xda);
        if (!outlined) {
            painter->fillRect(layout.nicRect(n), fill);
        } else {
            painter->setPen(QPen(fill.darker(170), 0.8));
            painter->setBrush(fill);
            painter->drawRect(layout.nicRect(n));
        }
        if (n < static_cast<int>(m_nicEmphasis.size())
            && m_nicEmphasis[static_cast<std::size_t>(n)]) {
            painter->setPen(QPen(FabricItem::emphasisColour(), 2.5));
            painter->setBrush(Qt::NoBrush);
            painter->drawRect(layout.nicRect(n).adjusted(-2, -2, 2, 2));
        }
    }
    if (m_failed)
        paintFailed(painter);
}

} // namespace railyard
