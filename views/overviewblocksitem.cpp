#include "overviewblocksitem.h"

#include "fabricitem.h"
#include "fabriclayout.h"
#include "serveritem.h"
#include "switchitem.h"

#include <QPainter>
#include <QStyleOptionGraphicsItem>

#include <algorithm>
#include <cstddef>

namespace railyard {

namespace {

/// Switch boxes narrower than this on screen are filled, not stroked.
constexpr double kSolidBelowPixels = 12.0;

} // namespace

OverviewBlocksItem::OverviewBlocksItem(const FabricItem *root)
    : m_root(root)
{
    setAcceptedMouseButtons(Qt::NoButton);
    setFlag(ItemUsesExtendedStyleOption); // exposedRect: skip what is off screen
    setCacheMode(DeviceCoordinateCache);
}

void OverviewBlocksItem::readServer(int server)
{
    const ServerItem *item = m_root->serverItem(server);
    if (item == nullptr)
        return;
    const int gpus = m_root->fabric().gpusPerServer();
    for (int g = 0; g < gpus && g < item->gpuCount(); ++g)
        m_chips[static_cast<std::size_t>(server * gpus + g)]
            = ServerItem::blockColour(item->slotItem(g));
    m_failed[static_cast<std::size_t>(server)] = item->isFailed() ? 1 : 0;
}

void OverviewBlocksItem::syncServer(int server)
{
    if (server < 0 || server >= static_cast<int>(m_failed.size()))
        return; // not read yet: syncAll() reads every server
    readServer(server);
    update(m_root->layout().serverRect(server).adjusted(-3, -3, 3, 3)); // a failed mark's cross
}

void OverviewBlocksItem::syncAll()
{
    const int servers = m_root->fabric().servers();
    m_chips.assign(static_cast<std::size_t>(servers * m_root->fabric().gpusPerServer()),
        qRgb(0xf1, 0xf3, 0xf5));
    m_failed.assign(static_cast<std::size_t>(servers), 0);
    for (int server = 0; server < servers; ++server)
        readServer(server);
    m_switches.clear();
    for (SwitchItem *sw : m_root->switchItems()) {
        const QPointF at = sw->pos();
        m_switches.push_back({ sw->boundingRect().translated(at), sw->box().translated(at),
            sw->fill(), sw->isEmphasised(), sw });
    }
    update();
}

QRectF OverviewBlocksItem::boundingRect() const
{
    return m_root->boundingRect();
}

void OverviewBlocksItem::paint(
    QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget)
{
    const QRectF exposed = option->exposedRect;
    const double lod = option->levelOfDetailFromTransform(painter->worldTransform());
    const FabricLayout &layout = m_root->layout();
    const int servers = std::min(m_root->fabric().servers(), static_cast<int>(m_failed.size()));
    const int gpus = m_root->fabric().gpusPerServer();
    // Axis-aligned fills a few pixels wide: without antialiasing the raster engine fills whole
    // device pixels (a span fill) instead of rasterising each rectangle's coverage, which was
    // most of a 131k overview frame; the blocks' edges land on pixel boundaries.
    painter->setRenderHint(QPainter::Antialiasing, false);
    for (int server = 0; server < servers; ++server) {
        const QRectF rect = layout.serverRect(server);
        if (!rect.intersects(exposed))
            continue;
        painter->translate(rect.topLeft());
        if (m_failed[static_cast<std::size_t>(server)] != 0) {
            if (ServerItem *item = m_root->serverItem(server))
                item->paintOverviewBlock(painter, lod); // the veil and the cross too
        } else {
            const QRgb *chips = m_chips.data() + static_cast<std::ptrdiff_t>(server) * gpus;
            ServerItem::paintBlock(painter, layout, chips, gpus, lod);
        }
        painter->translate(-rect.topLeft());
    }
    for (const Switch &sw : m_switches) {
        if (!sw.bounds.intersects(exposed))
            continue;
        if (!sw.emphasised && lod * sw.box.width() < kSolidBelowPixels) {
            // A few pixels wide: a filled box, no rounded outline to stroke (thousands of
            // switches at 131,072 GPUs).
            painter->fillRect(sw.box, sw.fill);
            continue;
        }
        painter->save();
        painter->setRenderHint(QPainter::Antialiasing, true); // its rounded outline
        painter->translate(sw.item->pos());
        sw.item->paint(painter, option, widget); // its own look; it reads only the level of detail
        painter->restore();
    }
}

} // namespace railyard
