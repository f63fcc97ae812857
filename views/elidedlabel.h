#pragma once

#include <QLabel>
#include <QString>

namespace railyard {

/**
 * A one-line plain-text label that shows as much of its text as its width allows, elided in
 * the middle, with the whole text in its tooltip. Its minimum width is small, so a long text
 * (a scenario summary, a link name) never sets the window's minimum size.
 */
class ElidedLabel : public QLabel
{
    Q_OBJECT

public:
    explicit ElidedLabel(QWidget *parent = nullptr);

    void setFullText(const QString &text);
    QString fullText() const { return m_full; }

    QSize minimumSizeHint() const override;
    QSize sizeHint() const override;

protected:
    void resizeEvent(QResizeEvent *event) override;

private:
    void elide();

    QString m_full;
};

} // namespace railyard
