#include "ncclviewpanel.h"

#include "collectiveoverlayitem.h"
#include "fabric/fabric.h"
#include "fabricitem.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTreeWidget>
#include <QVBoxLayout>

namespace railyard {

namespace {

constexpr double kNcclStrokePixels = 3.0; // as wide as the collective overlay's thin class

void addLink(const Fabric &fabric, int a, int b, std::vector<int> &out)
{
    if (const int id = fabric.linkBetween(a, b); id >= 0)
        out.push_back(id);
}

QString ncclPanelHopText(const NcclLogComm *c, const NcclRingHop &h)
{
    const auto who = [&](int rank) {
        if (c != nullptr)
            if (const auto r = c->ranks.find(rank); r != c->ranks.end())
                return QStringLiteral("%1 (%2 GPU %3)")
                    .arg(rank)
                    .arg(QString::fromStdString(r->second.host))
                    .arg(r->second.cudaDev);
        return QString::number(rank);
    };
    QString s = who(h.src) + QStringLiteral(" → ") + who(h.dst);
    if (!h.network)
        return s + QObject::tr(" over NVLink");
    s += QObject::tr(" over NIC %1 → NIC %2").arg(h.srcNic).arg(h.dstNic);
    if (h.crossesRail)
        s += QObject::tr(", leaves its rail");
    if (h.reachesSpine)
        s += QObject::tr(", reaches a spine");
    return s;
}

} // namespace

std::vector<int> ncclHopLinks(
    const Fabric &fabric, int srcSlot, int dstSlot, int srcNic, int dstNic)
{
    std::vector<int> out;
    if (srcSlot < 0 || dstSlot < 0 || srcSlot >= fabric.slotCount()
        || dstSlot >= fabric.slotCount())
        return out;
    const int a = fabric.serverOfSlot(srcSlot), b = fabric.serverOfSlot(dstSlot);
    if (fabric.sameScaleUpDomain(srcSlot, dstSlot)) {
        addLink(fabric, fabric.gpuVertex(srcSlot), fabric.scaleUpVertex(a), out);
        addLink(fabric, fabric.scaleUpVertex(b), fabric.gpuVertex(dstSlot), out);
        return out;
    }
    const int nics = fabric.nicsPerServer();
    if (srcNic < 0 || dstNic < 0 || srcNic >= nics || dstNic >= nics)
        return out;
    const int nicA = fabric.nicVertex(a, srcNic), nicB = fabric.nicVertex(b, dstNic);
    addLink(fabric, fabric.gpuVertex(srcSlot), nicA, out); // only where it is the GPU's own NIC
    const int leafA = fabric.leafOfNic(a, srcNic), leafB = fabric.leafOfNic(b, dstNic);
    if (leafA < 0 || leafB < 0)
        return out;
    addLink(fabric, nicA, fabric.leafVertex(leafA), out);
    if (leafA != leafB)
        for (int s = 0; s < fabric.spineCount(); ++s) {
            const int spine = fabric.spineVertex(s);
            if (fabric.linkBetween(fabric.leafVertex(leafA), spine) >= 0
                && fabric.linkBetween(spine, fabric.leafVertex(leafB)) >= 0) {
                addLink(fabric, fabric.leafVertex(leafA), spine, out);
                addLink(fabric, spine, fabric.leafVertex(leafB), out);
                break;
            }
        }
    addLink(fabric, fabric.leafVertex(leafB), nicB, out);
    addLink(fabric, nicB, fabric.gpuVertex(dstSlot), out);
    return out;
}

NcclRingOverlayItem::NcclRingOverlayItem(const FabricItem *root)
    : m_geometry(std::make_unique<CollectiveOverlayItem>(root))
{
    setZValue(20); // above the fabric's items and the collective overlay
    setAcceptedMouseButtons(Qt::NoButton);
}

NcclRingOverlayItem::~NcclRingOverlayItem() = default;

void NcclRingOverlayItem::setHops(std::vector<NcclDrawnHop> hops)
{
    prepareGeometryChange();
    m_hops = std::move(hops);
    m_same = QPainterPath();
    m_differs = QPainterPath();
    for (const NcclDrawnHop &h : m_hops)
        for (const int link : h.links) {
            const QPolygonF line = m_geometry->linkLine(link);
            if (line.size() < 2)
                continue;
            (h.differs ? m_differs : m_same).addPolygon(line);
        }
    m_bounds = m_same.boundingRect().united(m_differs.boundingRect()).adjusted(-8, -8, 8, 8);
    update();
}

void NcclRingOverlayItem::paint(QPainter *painter, const QStyleOptionGraphicsItem *, QWidget *)
{
    painter->setRenderHint(QPainter::Antialiasing);
    painter->setBrush(Qt::NoBrush);
    QPen same(sameColour(), kNcclStrokePixels);
    same.setCosmetic(true);
    painter->setPen(same);
    painter->drawPath(m_same);
    QPen differs(differsColour(), kNcclStrokePixels * 1.5, Qt::DashLine);
    differs.setCosmetic(true);
    painter->setPen(differs);
    painter->drawPath(m_differs);
}

NcclViewPanel::NcclViewPanel(QWidget *parent)
    : QWidget(parent)
    , m_summary(new QLabel(this))
    , m_comm(new QComboBox(this))
    , m_channel(new QComboBox(this))
    , m_hops(new QTreeWidget(this))
    , m_use(new QPushButton(tr("Use What NCCL Did"), this))
    , m_stop(new QPushButton(tr("Use the Prediction"), this))
{
    m_summary->setWordWrap(true);
    m_comm->setObjectName(QStringLiteral("ncclComm"));
    m_channel->setObjectName(QStringLiteral("ncclChannel"));
    m_hops->setObjectName(QStringLiteral("ncclHops"));
    m_use->setObjectName(QStringLiteral("ncclUse"));
    m_stop->setObjectName(QStringLiteral("ncclStop"));
    m_comm->setToolTip(tr("The communicator NCCL built, and the job group it matches"));
    m_channel->setToolTip(tr("The channel (ring) drawn over the fabric"));
    m_stop->setToolTip(tr("Take NCCL's rings out of the scenario: the engine's own rings again "
                          "(one undo step)"));
    m_use->setToolTip(tr("Re-evaluate the link loads with the rings NCCL logged (a scenario "
                         "section, one undo step)"));
    m_hops->setColumnCount(3);
    m_hops->setHeaderLabels({ tr("Rank"), tr("NCCL"), tr("Predicted") });
    m_hops->setRootIsDecorated(false);
    m_hops->header()->setStretchLastSection(true);
    auto *pick = new QHBoxLayout;
    pick->addWidget(new QLabel(tr("Communicator:"), this));
    pick->addWidget(m_comm, 1);
    pick->addWidget(new QLabel(tr("Channel:"), this));
    pick->addWidget(m_channel);
    auto *buttons = new QHBoxLayout;
    buttons->addStretch(1);
    buttons->addWidget(m_use);
    buttons->addWidget(m_stop);
    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_summary);
    layout->addLayout(pick);
    layout->addWidget(m_hops, 1);
    layout->addLayout(buttons);
    connect(m_comm, &QComboBox::currentIndexChanged, this, [this] {
        fillChannels();
        Q_EMIT channelChanged();
    });
    connect(m_channel, &QComboBox::currentIndexChanged, this, [this] {
        fillHops();
        Q_EMIT channelChanged();
    });
    connect(m_use, &QPushButton::clicked, this, &NcclViewPanel::useRequested);
    connect(m_stop, &QPushButton::clicked, this, &NcclViewPanel::stopRequested);
    setInUse(false);
}

void NcclViewPanel::setView(const NcclLog *log, const NcclView *view, bool inUse)
{
    m_log = log;
    m_view = view;
    const QSignalBlocker block(m_comm);
    m_comm->clear();
    int compared = 0;
    if (m_view != nullptr)
        for (const NcclCommDiff &d : m_view->rings) {
            m_comm->addItem(QString::fromStdString(d.comm)
                + (d.group.empty() ? QString()
                                   : QStringLiteral(" (%1)").arg(QString::fromStdString(d.group))));
            compared += d.skipped.empty();
        }
    m_summary->setText(m_view == nullptr
            ? tr("Open an NCCL log (File ▸ Open NCCL Log…) to see the rings NCCL built.")
            : tr("%1 communicator(s), %2 compared with the engine's rings; %3 finding(s) on NICs "
                 "and rails.")
                  .arg(m_view->rings.size())
                  .arg(compared)
                  .arg(m_view->findings.size()));
    fillChannels();
    setInUse(inUse);
}

void NcclViewPanel::setInUse(bool inUse)
{
    m_use->setEnabled(m_view != nullptr && !inUse);
    m_stop->setEnabled(inUse);
}

int NcclViewPanel::commIndex() const
{
    return m_view != nullptr && m_comm->currentIndex() < static_cast<int>(m_view->rings.size())
        ? m_comm->currentIndex()
        : -1;
}

int NcclViewPanel::channelIndex() const
{
    return commIndex() < 0 ? -1 : m_channel->currentIndex();
}

void NcclViewPanel::setChannelIndex(int index)
{
    m_channel->setCurrentIndex(index);
}

void NcclViewPanel::fillChannels()
{
    const QSignalBlocker block(m_channel);
    m_channel->clear();
    const int c = commIndex();
    if (c >= 0)
        for (const NcclChannelDiff &cd : m_view->rings[static_cast<std::size_t>(c)].channels)
            m_channel->addItem(
                tr("%1%2").arg(cd.channel).arg(cd.same ? QString() : tr(" (differs)")));
    fillHops();
}

void NcclViewPanel::fillHops()
{
    m_hops->clear();
    const int c = commIndex(), ch = channelIndex();
    if (c < 0 || ch < 0)
        return;
    const NcclCommDiff &d = m_view->rings[static_cast<std::size_t>(c)];
    if (ch >= static_cast<int>(d.channels.size()))
        return;
    const NcclLogComm *lc = nullptr;
    if (m_log != nullptr)
        for (const NcclLogComm &k : m_log->comms)
            if (k.id == d.comm)
                lc = &k;
    const NcclChannelDiff &cd = d.channels[static_cast<std::size_t>(ch)];
    for (std::size_t i = 0; i < cd.observed.size(); ++i) {
        auto *item = new QTreeWidgetItem(m_hops);
        item->setText(0, QString::number(cd.ranks[i]));
        item->setText(1, ncclPanelHopText(lc, cd.observed[i]));
        item->setText(2, ncclPanelHopText(lc, cd.expected[i]));
        item->setForeground(1, NcclRingOverlayItem::differsColour());
    }
}

} // namespace railyard
