#pragma once

#include "cost/epsummary.h"

#include <QColor>
#include <QRect>
#include <QString>
#include <QStringList>
#include <QWidget>

class QPainter;

namespace railyard {

/**
 * The expert-parallel dispatch matrix of one EP group as a heat map: row = sending member,
 * column = receiving member, colour = bytes per MoE layer on the shared load scale. Axes name
 * each member's global rank and its experts; the hottest destination's column is outlined,
 * cells whose route crosses a spine carry a dot, the diagonal (tokens that stay on the rank) is
 * grey. A text line above gives the routing, the skew and the EP spine bytes; a key below
 * explains the colour scale and every mark; hovering a cell shows its bytes. Displays an EpSummary (cost/epsummary.h) and never computes costs.
 */
class EpMatrixView : public QWidget
{
    Q_OBJECT

public:
    explicit EpMatrixView(QWidget *parent = nullptr);

    /// Shows `summary` (a summary with present == false shows a "no experts" note).
    void setSummary(const EpSummary &summary);
    const EpSummary &summary() const { return m_summary; }

    /// The summary line above the matrix.
    QString summaryText() const;
    /// Where cell (row i, column j) is drawn; empty when there is no matrix.
    QRect cellRect(int i, int j) const;
    /// The cell under `pos` as row * ep + column, or -1.
    int cellAt(const QPoint &pos) const;
    /// Fill colour of cell (i, j).
    QColor cellColour(int i, int j) const;
    /// Hover text of cell (i, j).
    QString cellToolTip(int i, int j) const;

    /// The key under the matrix: the colour scale's ends ("0", "<max> per MoE layer") and each
    /// mark (the grey diagonal, the spine dot, the outlined hottest column), in drawing order.
    QStringList legendEntries() const;
    /// Where the key is drawn; empty when there is no matrix.
    QRect legendRect() const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    bool event(QEvent *event) override;
    void paintEvent(QPaintEvent *event) override;

private:
    /// The matrix area (without axis labels) for the current size.
    QRect gridRect() const;
    double maxOffDiagonal() const;
    QString memberLabel(int member) const;
    int legendHeight() const;
    void paintLegend(QPainter &p) const;

    EpSummary m_summary;
};

} // namespace railyard
