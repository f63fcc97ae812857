#pragma once

#include <QDialog>

class QCheckBox;
class QLabel;
class QPushButton;
class QSettings;

namespace railyard {

/**
 * The welcome panel: what the window shows (servers with GPU slots, NICs, rails, leaves and
 * spines, links coloured by predicted load) and three things to try, each a button that does
 * it (drag a rank and watch the spine; open the lessons; pin a baseline and compare). Shown
 * on the first start with a fresh settings folder, and from Help > Welcome. "Don't show this
 * at start" is ticked: unticked, it shows at every start until ticked again.
 */
class WelcomePanel : public QDialog
{
    Q_OBJECT

public:
    /// QSettings keys: whether it was shown, and whether to show it at every start.
    static constexpr const char *kSeenKey = "welcome/seen";
    static constexpr const char *kShowAtStartKey = "welcome/showAtStart";

    explicit WelcomePanel(QWidget *parent = nullptr);

    /// True on a first start (nothing recorded) or when the user asked to see it at start.
    static bool showAtStart(const QSettings &settings);

    QPushButton *dragButton() const { return m_drag; }
    QPushButton *lessonsButton() const { return m_lessons; }
    QPushButton *compareButton() const { return m_compare; }
    QCheckBox *dontShowAgainBox() const { return m_dontShow; }
    QLabel *introLabel() const { return m_intro; }

Q_SIGNALS:
    void dragRequested();
    void lessonsRequested();
    void compareRequested();

protected:
    void showEvent(QShowEvent *event) override; ///< records "seen" in the settings
    void done(int result) override; ///< records the check box in the settings

private:
    QLabel *m_intro = nullptr;
    QPushButton *m_drag = nullptr;
    QPushButton *m_lessons = nullptr;
    QPushButton *m_compare = nullptr;
    QCheckBox *m_dontShow = nullptr;
};

} // namespace railyard
