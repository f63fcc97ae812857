#include "comparepanel.h"

#include "io/reportjson.h"
#include "timelinecanvas.h"

#include <QAbstractButton>
#include <QCheckBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>

#include <cmath>

namespace railyard {

namespace {

QString qs(const std::string &s)
{
    return QString::fromStdString(s);
}

QTableWidget *makeTable(const QStringList &headers, const QString &objectName, QWidget *parent)
{
    auto *t = new QTableWidget(0, static_cast<int>(headers.size()), parent);
    t->setObjectName(objectName);
    t->setHorizontalHeaderLabels(headers);
    t->verticalHeader()->setVisible(false);
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->setAlternatingRowColors(true);
    t->horizontalHeader()->setStretchLastSection(true);
    t->setWordWrap(false);
    // The select-all corner button is a control too (help: every control has a tooltip).
    for (QAbstractButton *corner :
        t->findChildren<QAbstractButton *>(QString(), Qt::FindDirectChildrenOnly))
        corner->setToolTip(QObject::tr("Select the whole table"));
    return t;
}

QTableWidgetItem *cell(const QString &text, Qt::Alignment align = Qt::AlignLeft | Qt::AlignVCenter)
{
    auto *item = new QTableWidgetItem(text);
    item->setTextAlignment(align);
    return item;
}

constexpr Qt::Alignment kRight = Qt::AlignRight | Qt::AlignVCenter;

/// Green for better, red for worse (readable on light and dark palettes).
QColor verdictColor(int verdict)
{
    return verdict > 0 ? QColor(0x2e, 0x8b, 0x57) : QColor(0xd0, 0x3b, 0x3b);
}

QString slotName(const Fabric &f, int slot)
{
    if (slot < 0)
        return QString();
    if (slot >= f.slotCount())
        return QObject::tr("slot %1").arg(slot);
    return QStringLiteral("%1/gpu%2")
        .arg(qs(f.serverName(f.serverOfSlot(slot))))
        .arg(f.gpuOfSlot(slot));
}

} // namespace

ComparePanel::ComparePanel(QWidget *parent)
    : QWidget(parent)
{
    setObjectName(QStringLiteral("comparePanel"));
    auto *outer = new QVBoxLayout(this);
    outer->setContentsMargins(4, 4, 4, 4);

    auto *bar = new QHBoxLayout;
    m_header = new QLabel(this);
    m_header->setObjectName(QStringLiteral("compareHeader"));
    m_header->setTextFormat(Qt::RichText);
    m_header->setWordWrap(true);
    bar->addWidget(m_header, 1);
    m_highlight = new QCheckBox(tr("Highlight changed links"), this);
    m_highlight->setObjectName(QStringLiteral("compareHighlight"));
    m_highlight->setChecked(true);
    m_highlight->setToolTip(tr("Outline on the fabric the links whose utilisation changed most"));
    m_pin = new QPushButton(tr("Pin Current as A"), this);
    m_pin->setObjectName(QStringLiteral("comparePin"));
    m_pin->setToolTip(tr("Keep the current placement as the baseline A (Study ▸ Pin Baseline)"));
    m_clear = new QPushButton(tr("Clear"), this);
    m_clear->setObjectName(QStringLiteral("compareClear"));
    m_clear->setToolTip(tr("Forget the baseline"));
    bar->addWidget(m_highlight);
    bar->addWidget(m_pin);
    bar->addWidget(m_clear);
    outer->addLayout(bar);
    m_why = new QLabel(this);
    m_why->setObjectName(QStringLiteral("compareWhy"));
    m_why->setWordWrap(true);
    m_why->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_why->hide();
    outer->addWidget(m_why);

    m_stack = new QStackedWidget(this);
    auto *empty = new QLabel(
        tr("<p><b>No baseline pinned.</b></p><p>Pin the current placement as <b>A</b> "
           "(Study ▸ Pin Baseline, Ctrl+Shift+B), then keep editing: every figure of the "
           "document (<b>B</b>) is shown against A with its change, the links whose load "
           "changed most are outlined on the fabric, and the two pipeline timelines share one "
           "time axis.</p><p>The same comparison of two files: "
           "<code>railyard-cli compare A.json B.json</code>.</p>"),
        m_stack);
    empty->setObjectName(QStringLiteral("compareEmpty"));
    empty->setWordWrap(true);
    empty->setAlignment(Qt::AlignTop | Qt::AlignLeft);
    empty->setMargin(8);
    m_stack->addWidget(empty);

    m_tabs = new QTabWidget(m_stack);
    m_figures = makeTable({ tr("Figure"), tr("A (baseline)"), tr("B (current)"), tr("B − A") },
        QStringLiteral("compareFigures"), m_tabs);
    m_tabs->addTab(m_figures, tr("Figures"));

    auto *linksPage = new QWidget(m_tabs);
    auto *linksLayout = new QVBoxLayout(linksPage);
    linksLayout->setContentsMargins(0, 4, 0, 0);
    m_linkSummary = new QLabel(linksPage);
    m_linkSummary->setWordWrap(true);
    m_links = makeTable({ tr("Link"), tr("A"), tr("B"), tr("Change"), tr("Bytes A → B") },
        QStringLiteral("compareLinks"), linksPage);
    m_links->setToolTip(tr("Double-click a link to show it on the fabric"));
    linksLayout->addWidget(m_linkSummary);
    linksLayout->addWidget(m_links, 1);
    m_tabs->addTab(linksPage, tr("Links"));

    auto *ranksPage = new QWidget(m_tabs);
    auto *ranksLayout = new QVBoxLayout(ranksPage);
    ranksLayout->setContentsMargins(0, 4, 0, 0);
    m_rankSummary = new QLabel(ranksPage);
    m_rankSummary->setWordWrap(true);
    m_ranks = makeTable({ tr("(d,p,t)"), tr("Rank A"), tr("Slot A"), tr("Rank B"), tr("Slot B") },
        QStringLiteral("compareRanks"), ranksPage);
    ranksLayout->addWidget(m_rankSummary);
    ranksLayout->addWidget(m_ranks, 1);
    m_tabs->addTab(ranksPage, tr("Moved Ranks"));

    // The two timelines scroll: their height grows with the stages, and a tab's minimum is the
    // tab widget's, so unscrolled they made the whole dock (and the window) that tall.
    auto *timelinesScroll = new QScrollArea(m_tabs);
    timelinesScroll->setObjectName(QStringLiteral("compareTimelines"));
    timelinesScroll->setWidgetResizable(true);
    timelinesScroll->setFrameShape(QFrame::NoFrame);
    auto *timelines = new QWidget(timelinesScroll);
    auto *tl = new QVBoxLayout(timelines);
    tl->setContentsMargins(0, 4, 0, 0);
    m_timelineLabelA = new QLabel(timelines);
    m_timelineA = new TimelineCanvas(timelines);
    m_timelineA->setObjectName(QStringLiteral("compareTimelineA"));
    m_timelineLabelB = new QLabel(timelines);
    m_timelineB = new TimelineCanvas(timelines);
    m_timelineB->setObjectName(QStringLiteral("compareTimelineB"));
    tl->addWidget(m_timelineLabelA);
    tl->addWidget(m_timelineA, 1);
    tl->addWidget(m_timelineLabelB);
    tl->addWidget(m_timelineB, 1);
    timelinesScroll->setWidget(timelines);
    m_tabs->addTab(timelinesScroll, tr("Timelines"));
    // Added as a tab only while there is something to explain (setExplanation).
    m_explanation = new QPlainTextEdit(m_tabs);
    m_explanation->setObjectName(QStringLiteral("compareExplanation"));
    m_explanation->setReadOnly(true);
    m_explanation->setLineWrapMode(QPlainTextEdit::NoWrap);
    m_explanation->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    m_explanation->setToolTip(tr("How B came about: the placement optimiser's report"));
    m_explanation->hide();
    m_stack->addWidget(m_tabs);
    outer->addWidget(m_stack, 1);

    // Zooming or panning one timeline moves the other: one time axis.
    const auto follow = [this](TimelineCanvas *from, TimelineCanvas *to) {
        connect(from, &TimelineCanvas::viewChanged, this, [this, from, to] {
            if (m_syncing)
                return;
            m_syncing = true;
            to->setView(from->viewStart(), from->viewSpan());
            m_syncing = false;
        });
    };
    follow(m_timelineA, m_timelineB);
    follow(m_timelineB, m_timelineA);

    connect(m_pin, &QPushButton::clicked, this, &ComparePanel::pinRequested);
    connect(m_clear, &QPushButton::clicked, this, &ComparePanel::clearRequested);
    connect(m_highlight, &QCheckBox::toggled, this, &ComparePanel::highlightChanged);
    connect(m_links, &QTableWidget::cellDoubleClicked, this, [this](int row, int) {
        const QTableWidgetItem *item = m_links->item(row, 0);
        if (item)
            Q_EMIT linkActivated(item->data(Qt::UserRole).toInt());
    });
    clear();
}

bool ComparePanel::hasComparison() const
{
    return m_stack->currentWidget() == m_tabs;
}

void ComparePanel::clear()
{
    m_stack->setCurrentIndex(0);
    m_header->setText(tr("<b>A/B comparison</b>"));
    m_why->clear();
    m_why->hide();
    m_clear->setEnabled(false);
    m_highlight->setEnabled(false);
    m_figures->setRowCount(0);
    m_links->setRowCount(0);
    m_ranks->setRowCount(0);
    setExplanation(QString());
}

void ComparePanel::setExplanation(const QString &text)
{
    m_explanation->setPlainText(text);
    const int index = m_tabs->indexOf(m_explanation);
    if (text.isEmpty()) {
        if (index >= 0)
            m_tabs->removeTab(index);
        m_explanation->hide();
        return;
    }
    if (index < 0)
        m_tabs->addTab(m_explanation, tr("Explanation"));
    m_tabs->setCurrentWidget(m_explanation);
}

QString ComparePanel::explanation() const
{
    return m_tabs->indexOf(m_explanation) >= 0 ? m_explanation->toPlainText() : QString();
}

void ComparePanel::setComparison(
    const Comparison &c, const Fabric &fabricB, const QString &pinnedAt)
{
    m_stack->setCurrentWidget(m_tabs);
    m_clear->setEnabled(true);
    m_highlight->setEnabled(c.sameTopology);
    m_header->setText(tr("<b>A</b> %1 <span style='color:gray'>(pinned %2)</span> &nbsp;vs&nbsp; "
                         "<b>B</b> %3 <span style='color:gray'>(current)</span>")
                          .arg(qs(c.nameA).toHtmlEscaped(), pinnedAt, qs(c.nameB).toHtmlEscaped()));
    // The cause in words, from the engine's attribution (never written by hand).
    const QString why = qs(describeChange(c.attribution));
    m_why->setText(why);
    m_why->setVisible(!why.isEmpty());
    fillFigures(c);
    fillLinks(c, fabricB);
    fillRanks(c, fabricB);
}

void ComparePanel::fillFigures(const Comparison &c)
{
    m_figures->setRowCount(static_cast<int>(c.figures.size()));
    for (int row = 0; row < static_cast<int>(c.figures.size()); ++row) {
        const ComparedFigure &f = c.figures[static_cast<std::size_t>(row)];
        m_figures->setItem(row, 0, cell(qs(f.label)));
        m_figures->setItem(row, 1, cell(qs(formatFigure(f.unit, f.a)), kRight));
        m_figures->setItem(row, 2, cell(qs(formatFigure(f.unit, f.b)), kRight));
        QTableWidgetItem *delta = cell(qs(formatFigureDelta(f)), kRight);
        if (const int v = f.verdict(); v != 0) {
            delta->setForeground(verdictColor(v));
            delta->setToolTip(v > 0 ? tr("B is better") : tr("B is worse"));
            QFont bold = delta->font();
            bold.setBold(true);
            delta->setFont(bold);
        }
        m_figures->setItem(row, 3, delta);
    }
    m_figures->resizeColumnsToContents();
}

void ComparePanel::fillLinks(const Comparison &c, const Fabric &fabric)
{
    if (!c.sameTopology) {
        m_linkSummary->setText(tr("The two fabrics differ, so links are not compared one by one; "
                                  "the figures compare the tiers."));
        m_links->setRowCount(0);
        return;
    }
    m_linkSummary->setText(c.changedLinkCount == 0
            ? tr("No link carries different bytes.")
            : tr("%n link(s) carry different bytes; the largest changes in "
                 "utilisation first.",
                nullptr, c.changedLinkCount));
    m_links->setRowCount(static_cast<int>(c.links.size()));
    for (int row = 0; row < static_cast<int>(c.links.size()); ++row) {
        const LinkChange &l = c.links[static_cast<std::size_t>(row)];
        QTableWidgetItem *name = cell(qs(fabric.linkName(l.link)));
        name->setData(Qt::UserRole, l.link);
        m_links->setItem(row, 0, name);
        m_links->setItem(
            row, 1, cell(QStringLiteral("%1 %").arg(l.utilisationA * 100.0, 0, 'f', 1), kRight));
        m_links->setItem(
            row, 2, cell(QStringLiteral("%1 %").arg(l.utilisationB * 100.0, 0, 'f', 1), kRight));
        // A change that one decimal writes as 0.0 pp is shown as 0, in the plain colour.
        const double pp = std::round(l.delta() * 1000.0) / 10.0;
        QTableWidgetItem *delta
            = cell(pp == 0.0 ? QStringLiteral("0 pp") : QStringLiteral("%1 pp").arg(pp, 0, 'f', 1),
                kRight);
        if (pp != 0.0)
            delta->setForeground(verdictColor(pp < 0.0 ? 1 : -1));
        if (pp > 0.0)
            delta->setText(QLatin1Char('+') + delta->text());
        m_links->setItem(row, 3, delta);
        m_links->setItem(row, 4,
            cell(qs(formatBytes(l.bytesA)) + QStringLiteral(" → ") + qs(formatBytes(l.bytesB))));
    }
    m_links->resizeColumnsToContents();
}

void ComparePanel::fillRanks(const Comparison &c, const Fabric &fabric)
{
    int dropped = 0, added = 0;
    for (const RankMove &m : c.moved) {
        dropped += m.rankB < 0;
        added += m.rankA < 0;
    }
    const int moved = static_cast<int>(c.moved.size()) - dropped - added;
    m_rankSummary->setText(tr("%1 of %2 ranks in both placements moved; %3 dropped, %4 added "
                              "(matched by coordinates).")
                               .arg(moved)
                               .arg(c.ranksCompared)
                               .arg(dropped)
                               .arg(added));
    // A table of every moved rank of a 16k-GPU job would be slow to fill and useless to read.
    constexpr int kMaxRows = 2000;
    const int rows = std::min(kMaxRows, static_cast<int>(c.moved.size()));
    m_ranks->setRowCount(rows);
    for (int row = 0; row < rows; ++row) {
        const RankMove &m = c.moved[static_cast<std::size_t>(row)];
        m_ranks->setItem(row, 0,
            cell(QStringLiteral("(%1,%2,%3)").arg(m.coord.d).arg(m.coord.p).arg(m.coord.t)));
        m_ranks->setItem(row, 1, cell(m.rankA >= 0 ? QString::number(m.rankA) : tr("—"), kRight));
        m_ranks->setItem(row, 2, cell(m.rankA >= 0 ? slotName(fabric, m.slotA) : tr("(added)")));
        m_ranks->setItem(row, 3, cell(m.rankB >= 0 ? QString::number(m.rankB) : tr("—"), kRight));
        m_ranks->setItem(row, 4, cell(m.rankB >= 0 ? slotName(fabric, m.slotB) : tr("(dropped)")));
    }
    m_ranks->resizeColumnsToContents();
}

void ComparePanel::setTimelines(
    const CostReport &a, int stagesA, int chunksA, const CostReport &b, int stagesB, int chunksB)
{
    m_syncing = true;
    m_timelineA->setTimeline(a.timeline, stagesA, chunksA, a.iterationTime);
    m_timelineB->setTimeline(b.timeline, stagesB, chunksB, b.iterationTime);
    // One time axis: both extend to the longer of the two iterations.
    const double extent = std::max(m_timelineA->totalSpan(), m_timelineB->totalSpan());
    m_timelineA->setExtent(extent);
    m_timelineB->setExtent(extent);
    m_syncing = false;
    m_timelineLabelA->setText(tr("<b>A</b> — bubble %1 %, iteration %2")
                                  .arg(a.bubbleFraction * 100.0, 0, 'f', 1)
                                  .arg(qs(formatSeconds(a.iterationTime))));
    m_timelineLabelB->setText(tr("<b>B</b> — bubble %1 %, iteration %2")
                                  .arg(b.bubbleFraction * 100.0, 0, 'f', 1)
                                  .arg(qs(formatSeconds(b.iterationTime))));
}

QString ComparePanel::figureText(const QString &label, int column) const
{
    for (int row = 0; row < m_figures->rowCount(); ++row)
        if (m_figures->item(row, 0) && m_figures->item(row, 0)->text() == label)
            return m_figures->item(row, column) ? m_figures->item(row, column)->text() : QString();
    return QString();
}

} // namespace railyard
