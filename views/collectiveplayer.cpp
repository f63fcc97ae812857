#include "collectiveplayer.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSlider>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

namespace railyard {

namespace {

QToolButton *button(
    QWidget *parent, QStyle::StandardPixmap icon, const QString &tip, const QString &objectName)
{
    auto *b = new QToolButton(parent);
    b->setIcon(parent->style()->standardIcon(icon));
    b->setToolTip(tip);
    b->setObjectName(objectName);
    b->setAutoRaise(true);
    return b;
}

} // namespace

CollectivePlayer::CollectivePlayer(QWidget *parent)
    : QFrame(parent)
{
    setObjectName(QStringLiteral("collectivePlayer"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_title = new QLabel(this);
    m_title->setObjectName(QStringLiteral("collectiveTitle"));
    QFont bold = m_title->font();
    bold.setBold(true);
    m_title->setFont(bold);
    m_title->setWordWrap(true);
    m_step = new QLabel(this);
    m_step->setObjectName(QStringLiteral("collectiveStep"));
    m_step->setWordWrap(true);
    m_detail = new QLabel(this);
    m_detail->setObjectName(QStringLiteral("collectiveDetail"));
    m_detail->setWordWrap(true);

    m_back = button(
        this, QStyle::SP_MediaSkipBackward, tr("Previous step"), QStringLiteral("collectiveBack"));
    m_play
        = button(this, QStyle::SP_MediaPlay, tr("Play or pause"), QStringLiteral("collectivePlay"));
    m_forward = button(
        this, QStyle::SP_MediaSkipForward, tr("Next step"), QStringLiteral("collectiveForward"));
    m_slider = new QSlider(Qt::Horizontal, this);
    m_slider->setObjectName(QStringLiteral("collectiveSlider"));
    m_slider->setMinimumWidth(120);
    m_speed = new QComboBox(this);
    m_speed->setObjectName(QStringLiteral("collectiveSpeed"));
    // Steps per second: half a step to four, the range a room can follow (a ring of 16,384
    // members has 32,766 steps; the slider jumps).
    for (const double s : { 0.5, 1.0, 2.0, 4.0 })
        m_speed->addItem(tr("%1 steps/s").arg(s), s);
    m_speed->setCurrentIndex(1);
    m_speed->setToolTip(tr("Playing speed"));
    m_export = button(this, QStyle::SP_DialogSaveButton,
        tr("Export the steps as numbered PNG frames and an animated PNG, for slides"),
        QStringLiteral("collectiveExport"));
    m_close = button(this, QStyle::SP_TitleBarCloseButton, tr("Stop watching"),
        QStringLiteral("collectiveClose"));

    auto *controls = new QHBoxLayout;
    controls->setContentsMargins(0, 0, 0, 0);
    controls->addWidget(m_back);
    controls->addWidget(m_play);
    controls->addWidget(m_forward);
    controls->addWidget(m_slider, 1);
    controls->addWidget(m_speed);
    controls->addWidget(m_export);
    controls->addWidget(m_close);
    auto *layout = new QVBoxLayout(this);
    layout->setContentsMargins(8, 4, 8, 4);
    layout->setSpacing(2);
    layout->addWidget(m_title);
    layout->addWidget(m_step);
    layout->addWidget(m_detail);
    layout->addLayout(controls);

    connect(m_play, &QToolButton::clicked, this, &CollectivePlayer::playToggled);
    connect(m_back, &QToolButton::clicked, this, [this] { Q_EMIT stepBy(-1); });
    connect(m_forward, &QToolButton::clicked, this, [this] { Q_EMIT stepBy(1); });
    connect(m_slider, &QSlider::valueChanged, this, [this](int v) {
        if (!m_setting)
            Q_EMIT seek(v);
    });
    connect(
        m_speed, &QComboBox::currentIndexChanged, this, [this] { Q_EMIT speedChanged(speed()); });
    connect(m_export, &QToolButton::clicked, this, &CollectivePlayer::exportRequested);
    connect(m_close, &QToolButton::clicked, this, &CollectivePlayer::closeRequested);
}

void CollectivePlayer::setTitle(const QString &title)
{
    m_title->setText(title);
}

void CollectivePlayer::setStep(int step, int count, const QString &label, const QString &detail)
{
    m_setting = true;
    m_slider->setRange(0, std::max(0, count - 1));
    m_slider->setValue(step);
    m_setting = false;
    m_step->setText(label);
    m_detail->setText(detail);
    m_back->setEnabled(step > 0);
    m_forward->setEnabled(step + 1 < count);
}

void CollectivePlayer::setPlaying(bool playing)
{
    m_play->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
    m_play->setChecked(playing);
}

double CollectivePlayer::speed() const
{
    return m_speed->currentData().toDouble();
}

QString CollectivePlayer::stepText() const
{
    return m_step->text();
}

QString CollectivePlayer::detailText() const
{
    return m_detail->text();
}

} // namespace railyard
