#pragma once

#include <QFrame>
#include <QString>

class QComboBox;
class QLabel;
class QSlider;
class QToolButton;

namespace railyard {

/**
 * The bar under the fabric that plays a watched collective: its title, the step's label and
 * what it moves, back / play-pause / step buttons, a slider over the steps, the speed, frame
 * export and close. It holds no state of its own beyond what it shows: the controller sets the
 * step and the playing state and reacts to the signals.
 */
class CollectivePlayer : public QFrame
{
    Q_OBJECT

public:
    explicit CollectivePlayer(QWidget *parent = nullptr);

    void setTitle(const QString &title);
    /// Step `step` (0-based) of `count`, its label and a line on what it moves.
    void setStep(int step, int count, const QString &label, const QString &detail);
    void setPlaying(bool playing);
    /// Steps per second of the speed box.
    double speed() const;

    QToolButton *playButton() const { return m_play; }
    QToolButton *backButton() const { return m_back; }
    QToolButton *stepButton() const { return m_forward; }
    QToolButton *exportButton() const { return m_export; }
    QToolButton *closeButton() const { return m_close; }
    QSlider *slider() const { return m_slider; }
    QComboBox *speedBox() const { return m_speed; }
    QString stepText() const;
    QString detailText() const;

Q_SIGNALS:
    void playToggled();
    void stepBy(int delta);
    void seek(int step);
    void speedChanged(double stepsPerSecond);
    void exportRequested();
    void closeRequested();

private:
    QLabel *m_title;
    QLabel *m_step;
    QLabel *m_detail;
    QToolButton *m_back;
    QToolButton *m_play;
    QToolButton *m_forward;
    QSlider *m_slider;
    QComboBox *m_speed;
    QToolButton *m_export;
    QToolButton *m_close;
    bool m_setting = false;
};

} // namespace railyard
