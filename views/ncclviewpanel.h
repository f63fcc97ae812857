#pragma once

#include "io/nccllog.h"
#include "studies/ncclview.h"

#include <QGraphicsItem>
#include <QPainterPath>
#include <QWidget>

#include <memory>
#include <vector>

class QComboBox;
class QLabel;
class QPushButton;
class QTreeWidget;

namespace railyard {

class CollectiveOverlayItem;
class Fabric;
class FabricItem;

/** One hop of an NCCL channel as drawn: the links it runs over, and whether it differs from the
 *  engine's prediction. */
struct NcclDrawnHop
{
    std::vector<int> links;
    bool differs = false;
};

/// The directed links a ring hop from `srcSlot` to `dstSlot` runs over: NVLink through the
/// scale-up switch inside a domain; else out of NIC `srcNic` of the sender's server, up to its
/// leaf, through a spine when the receiving NIC `dstNic` hangs off another leaf, and down.
std::vector<int> ncclHopLinks(
    const Fabric &fabric, int srcSlot, int dstSlot, int srcNic, int dstNic);

/**
 * NCCL's view over the fabric: the hops of one observed channel stroked along their links, in
 * blue where NCCL did what the engine predicts and in red (dashed) where it did not. The
 * controller passes the hops in; the item only turns links into lines (the collective
 * overlay's geometry) and paints.
 */
class NcclRingOverlayItem : public QGraphicsItem
{
public:
    enum { Type = UserType + 31 };

    explicit NcclRingOverlayItem(const FabricItem *root);
    ~NcclRingOverlayItem() override;

    int type() const override { return Type; }
    void setHops(std::vector<NcclDrawnHop> hops);
    const std::vector<NcclDrawnHop> &hops() const { return m_hops; }
    static QColor sameColour() { return QColor(0x1f, 0x77, 0xb4); }
    static QColor differsColour() { return QColor(0xd6, 0x27, 0x28); }

    QRectF boundingRect() const override { return m_bounds; }
    void paint(QPainter *painter, const QStyleOptionGraphicsItem *option, QWidget *widget) override;

private:
    std::unique_ptr<CollectiveOverlayItem> m_geometry; ///< never shown: its linkLine()
    std::vector<NcclDrawnHop> m_hops;
    QPainterPath m_same;
    QPainterPath m_differs;
    QRectF m_bounds;
};

/**
 * The "NCCL's view" dock: a log's communicators and channels to pick from, the hops of the
 * picked channel that differ from the engine's prediction, and "Use what NCCL did" / "Use the
 * prediction", which the controller turns into one undoable scenario edit each.
 */
class NcclViewPanel : public QWidget
{
    Q_OBJECT

public:
    explicit NcclViewPanel(QWidget *parent = nullptr);

    /// Shows a log's comparison (both must outlive the next setView()); `inUse`: the scenario
    /// holds NCCL's rings now.
    void setView(const NcclLog *log, const NcclView *view, bool inUse);
    void setInUse(bool inUse);
    /// Indexes into the view's ring diffs and that diff's channels; -1 when none.
    int commIndex() const;
    int channelIndex() const;
    void setChannelIndex(int index);

    QComboBox *commBox() const { return m_comm; }
    QComboBox *channelBox() const { return m_channel; }
    QTreeWidget *hopList() const { return m_hops; }
    QPushButton *useButton() const { return m_use; }
    QPushButton *stopButton() const { return m_stop; }

Q_SIGNALS:
    void channelChanged();
    void useRequested();
    void stopRequested();

private:
    void fillChannels();
    void fillHops();

    const NcclLog *m_log = nullptr;
    const NcclView *m_view = nullptr;
    QLabel *m_summary;
    QComboBox *m_comm;
    QComboBox *m_channel;
    QTreeWidget *m_hops;
    QPushButton *m_use;
    QPushButton *m_stop;
};

} // namespace railyard
