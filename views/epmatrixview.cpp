#include "epmatrixview.h"

#include "colorscale.h"
#include "io/reportjson.h"

#include <QEvent>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

constexpr int kMargin = 8;
constexpr int kSummaryHeight = 54; ///< three text lines above the matrix
constexpr int kRowLabelWidth = 64; ///< "r12 e0-3" left of each row
constexpr int kColumnLabelHeight = 30;
constexpr int kLegendRows = 2; ///< the key under the matrix: the scale, then the marks

QString bytesText(double bytes)
{
    return QString::fromStdString(formatBytes(bytes));
}

} // namespace

EpMatrixView::EpMatrixView(QWidget *parent)
    : QWidget(parent)
{
    setMouseTracking(true);
    setObjectName(QStringLiteral("epMatrixView"));
}

void EpMatrixView::setSummary(const EpSummary &summary)
{
    m_summary = summary;
    updateGeometry();
    update();
}

QSize EpMatrixView::sizeHint() const
{
    return { 420, 380 };
}

QSize EpMatrixView::minimumSizeHint() const
{
    return { 280, 220 };
}

QString EpMatrixView::summaryText() const
{
    const EpSummary &s = m_summary;
    if (!s.present)
        return tr("Dense model: no experts, no expert-parallel traffic.");
    QString routing = QString::fromLatin1(
        routingKindName(s.kind).data(), static_cast<int>(routingKindName(s.kind).size()));
    if (s.kind == RoutingKind::Zipf)
        routing += QStringLiteral(" (s = %1)").arg(s.zipfExponent);
    QString hot = tr("flat, no hot destination");
    if (s.skew > 1.0 + 1e-9)
        hot = s.hottestFirstExpert == s.hottestLastExpert
            ? tr("hottest rank %1 (expert %2)").arg(s.hottestRank).arg(s.hottestFirstExpert)
            : tr("hottest rank %1 (experts %2-%3)")
                  .arg(s.hottestRank)
                  .arg(s.hottestFirstExpert)
                  .arg(s.hottestLastExpert);
    return tr("%1 routing, EP %2, top-%3: skew max/mean %4\n"
              "%5; %6 per MoE layer per group\n"
              "spine %7/iteration (%8 of a layer); %9")
        .arg(routing)
        .arg(s.ep)
        .arg(s.topK)
        .arg(s.skew, 0, 'g', 3)
        .arg(hot)
        .arg(bytesText(s.dispatchBytesPerLayer))
        .arg(bytesText(s.spineBytes))
        .arg(bytesText(s.spineDispatchBytesPerLayer))
        .arg(QString::fromStdString(s.locality));
}

QRect EpMatrixView::gridRect() const
{
    const int n = m_summary.present ? m_summary.ep : 0;
    if (n <= 0)
        return {};
    const QRect area(kMargin + kRowLabelWidth, kMargin + kSummaryHeight + kColumnLabelHeight,
        width() - 2 * kMargin - kRowLabelWidth,
        height() - 2 * kMargin - kSummaryHeight - kColumnLabelHeight - legendHeight());
    const int cell = std::max(1, std::min(area.width(), area.height()) / n);
    return { area.topLeft(), QSize(cell * n, cell * n) };
}

int EpMatrixView::legendHeight() const
{
    return kLegendRows * (fontMetrics().height() + 6) + 4;
}

QStringList EpMatrixView::legendEntries() const
{
    if (!m_summary.present)
        return {};
    return {tr("0"), tr("%1 per MoE layer").arg(bytesText(maxOffDiagonal())), tr("stays on the rank"),
            tr("crosses a spine"), tr("hottest destination")};
}

QRect EpMatrixView::legendRect() const
{
    const QRect g = gridRect();
    if (g.isEmpty())
        return {};
    return {kMargin, g.bottom() + 8, width() - 2 * kMargin, legendHeight()};
}

void EpMatrixView::paintLegend(QPainter &p) const
{
    const QRect area = legendRect();
    if (area.isEmpty())
        return;
    const QStringList text = legendEntries();
    const QFontMetrics fm = p.fontMetrics();
    const int row = fm.height() + 6;
    const int sw = fm.height() - 2;
    // Row 1: the colour scale of the off-diagonal cells, 0 to the largest.
    int x = area.left();
    const int y = area.top();
    p.setPen(palette().text().color());
    p.drawText(QRect(x, y, fm.horizontalAdvance(text[0]) + 2, row), Qt::AlignVCenter, text[0]);
    x += fm.horizontalAdvance(text[0]) + 4;
    const int barWidth = std::clamp(area.width() / 3, 60, 180);
    QLinearGradient gradient(x, 0, x + barWidth, 0);
    gradient.setStops(ColorScale::loadStops());
    p.fillRect(QRect(x, y + 3, barWidth, row - 6), gradient);
    x += barWidth + 4;
    p.drawText(QRect(x, y, area.right() - x, row), Qt::AlignVCenter, text[1]);
    // Row 2: the marks.
    x = area.left();
    const int y2 = y + row;
    const auto label = [&](const QString &t) {
        p.setPen(palette().text().color());
        p.drawText(QRect(x, y2, fm.horizontalAdvance(t) + 2, row), Qt::AlignVCenter, t);
        x += fm.horizontalAdvance(t) + 14;
    };
    const QRect swatch(x, y2 + (row - sw) / 2, sw, sw);
    p.fillRect(swatch, ColorScale::idleColour());
    x += sw + 4;
    label(text[2]);
    const QRect dotCell(x, y2 + (row - sw) / 2, sw, sw);
    p.fillRect(dotCell, ColorScale::loadColour(0.5));
    p.setPen(Qt::NoPen);
    p.setBrush(QColor(40, 40, 40));
    const int d = std::max(2, sw / 4);
    p.drawEllipse(QRect(dotCell.right() - 2 * d, dotCell.top() + d, d, d));
    p.setBrush(Qt::NoBrush);
    x += sw + 4;
    label(text[3]);
    p.setPen(QPen(ColorScale::dimColour(Dim::Ep), 2));
    p.drawRect(QRect(x, y2 + (row - sw) / 2, sw / 2 + 2, sw).adjusted(1, 1, -1, -1));
    x += sw / 2 + 6;
    label(text[4]);
}

QRect EpMatrixView::cellRect(int i, int j) const
{
    const QRect g = gridRect();
    const int n = m_summary.ep;
    if (g.isEmpty() || i < 0 || j < 0 || i >= n || j >= n)
        return {};
    const int cell = g.width() / n;
    return { g.left() + j * cell, g.top() + i * cell, cell, cell };
}

int EpMatrixView::cellAt(const QPoint &pos) const
{
    const QRect g = gridRect();
    if (g.isEmpty() || !g.contains(pos))
        return -1;
    const int n = m_summary.ep;
    const int cell = g.width() / n;
    const int i = (pos.y() - g.top()) / cell;
    const int j = (pos.x() - g.left()) / cell;
    return i < n && j < n ? i * n + j : -1;
}

double EpMatrixView::maxOffDiagonal() const
{
    const int n = m_summary.ep;
    double most = 0.0;
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j)
            if (i != j)
                most = std::max(most, m_summary.matrix[static_cast<std::size_t>(i * n + j)]);
    return most;
}

QColor EpMatrixView::cellColour(int i, int j) const
{
    const int n = m_summary.ep;
    if (!m_summary.present || i < 0 || j < 0 || i >= n || j >= n
        || m_summary.matrix.size() != static_cast<std::size_t>(n) * n)
        return {};
    if (i == j) // stays on the rank: no network
        return ColorScale::idleColour();
    const double most = maxOffDiagonal();
    const double v = m_summary.matrix[static_cast<std::size_t>(i * n + j)];
    return most > 0.0 ? ColorScale::loadColour(v / most) : ColorScale::idleColour();
}

QString EpMatrixView::memberLabel(int member) const
{
    const EpSummary &s = m_summary;
    const int rank = member < static_cast<int>(s.groupRanks.size())
        ? s.groupRanks[static_cast<std::size_t>(member)]
        : member;
    const int local = s.ep > 0 ? s.experts / s.ep : 0;
    const int first = member * local;
    return local > 1 ? QStringLiteral("r%1 e%2-%3").arg(rank).arg(first).arg(first + local - 1)
                     : QStringLiteral("r%1 e%2").arg(rank).arg(first);
}

QString EpMatrixView::cellToolTip(int i, int j) const
{
    const int n = m_summary.ep;
    if (!m_summary.present || i < 0 || j < 0 || i >= n || j >= n
        || m_summary.matrix.size() != static_cast<std::size_t>(n) * n)
        return {};
    const double v = m_summary.matrix[static_cast<std::size_t>(i * n + j)];
    const QString from = memberLabel(i);
    const QString to = memberLabel(j);
    if (i == j)
        return tr("%1 keeps %2 per MoE layer for its own experts (no network)")
            .arg(from, bytesText(v));
    const bool spine = m_summary.crossesSpine.size() == static_cast<std::size_t>(n) * n
        && m_summary.crossesSpine[static_cast<std::size_t>(i * n + j)];
    return tr("%1 -> %2: %3 per MoE layer (dispatch; combine returns it)%4")
        .arg(from, to, bytesText(v), spine ? tr(", crosses a spine") : QString());
}

bool EpMatrixView::event(QEvent *e)
{
    if (e->type() == QEvent::ToolTip) {
        auto *help = static_cast<QHelpEvent *>(e);
        const int cell = cellAt(help->pos());
        if (cell < 0) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        const int n = m_summary.ep;
        QToolTip::showText(
            help->globalPos(), cellToolTip(cell / n, cell % n), this, cellRect(cell / n, cell % n));
        return true;
    }
    return QWidget::event(e);
}

void EpMatrixView::paintEvent(QPaintEvent *)
{
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    p.setPen(palette().text().color());
    p.drawText(QRect(kMargin, kMargin, width() - 2 * kMargin, kSummaryHeight),
        Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, summaryText());
    const QRect g = gridRect();
    if (g.isEmpty())
        return;
    const int n = m_summary.ep;
    const int cell = g.width() / n;

    for (int i = 0; i < n; ++i)
        for (int j = 0; j < n; ++j) {
            const QRect r = cellRect(i, j);
            p.fillRect(r, cellColour(i, j));
            const bool spine = m_summary.crossesSpine.size() == static_cast<std::size_t>(n) * n
                && m_summary.crossesSpine[static_cast<std::size_t>(i * n + j)];
            if (spine && cell >= 8) { // a dark dot: this pair meets through a spine
                const int d = std::max(2, cell / 6);
                p.setPen(Qt::NoPen);
                p.setBrush(QColor(40, 40, 40));
                p.drawEllipse(QRect(r.right() - 2 * d, r.top() + d, d, d));
                p.setBrush(Qt::NoBrush);
            }
        }
    // Grid lines when the cells are big enough to read.
    if (cell >= 6) {
        p.setPen(QPen(palette().base().color(), 1));
        for (int k = 1; k < n; ++k) {
            p.drawLine(g.left() + k * cell, g.top(), g.left() + k * cell, g.bottom());
            p.drawLine(g.left(), g.top() + k * cell, g.right(), g.top() + k * cell);
        }
    }
    // The hottest destination: its whole column outlined.
    if (m_summary.skew > 1.0 + 1e-9) {
        const QRect column
            = cellRect(0, m_summary.hottestMember).united(cellRect(n - 1, m_summary.hottestMember));
        p.setPen(QPen(ColorScale::dimColour(Dim::Ep), 2));
        p.drawRect(column.adjusted(1, 1, -1, -1));
    }

    // Axis labels: every k-th member so that labels do not overlap.
    QFont small = font();
    small.setPointSizeF(std::max(6.0, small.pointSizeF() * 0.8));
    p.setFont(small);
    p.setPen(palette().text().color());
    const int rowStep = std::max(1, static_cast<int>(std::ceil(14.0 / cell)));
    // Column labels take two lines (rank over experts), about 30 px wide.
    const int columnStep = std::max(1, static_cast<int>(std::ceil(30.0 / cell)));
    for (int i = 0; i < n; i += rowStep)
        p.drawText(QRect(kMargin, g.top() + i * cell, kRowLabelWidth - 4, cell),
            Qt::AlignRight | Qt::AlignVCenter, memberLabel(i));
    for (int j = 0; j < n; j += columnStep)
        p.drawText(QRect(g.left() + j * cell, g.top() - kColumnLabelHeight, std::max(cell, 30),
                       kColumnLabelHeight),
            Qt::AlignHCenter | Qt::AlignBottom,
            memberLabel(j).replace(QLatin1Char(' '), QLatin1Char('\n')));
    p.drawText(QRect(kMargin, g.top() - kColumnLabelHeight, kRowLabelWidth - 4, kColumnLabelHeight),
        Qt::AlignRight | Qt::AlignBottom, tr("from \\ to"));
    p.setFont(font());
    paintLegend(p);
}

} // namespace railyard
