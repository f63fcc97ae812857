#include "welcomepanel.h"

#include <QCheckBox>
#include <QDialogButtonBox>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSettings>
#include <QVBoxLayout>

namespace railyard {

namespace {

/// The panel's width in characters of its font: three short paragraphs read in one glance,
/// and it fits a 1280x720 screen at QT_SCALE_FACTOR=2 (640 logical pixels wide).
constexpr int kWidthChars = 62;

} // namespace

WelcomePanel::WelcomePanel(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("welcomePanel"));
    setWindowTitle(tr("Welcome to Railyard"));
    setModal(false);

    m_intro = new QLabel(this);
    m_intro->setObjectName(QStringLiteral("welcomeIntro"));
    m_intro->setWordWrap(true);
    m_intro->setTextFormat(Qt::RichText);
    m_intro->setText(
        tr("<h3>How a training job's layout lands on the network</h3>"
           "<p>The middle of the window is the <b>fabric</b>: <b>servers</b> with their <b>GPU "
           "slots</b> (each chip is a rank, labelled with its (d,p,t) coordinates), the "
           "<b>NICs</b> on top of each server, cabled by <b>rail</b> to the <b>leaf</b> switches, "
           "and the <b>spine</b> switches above them. A link's <b>colour is its predicted "
           "load</b>: grey idle, through yellow to red when busy all iteration; the bottleneck "
           "glows. The bar at the top gives the iteration time, MFU, bubble and the bottleneck; "
           "the Pipeline panel shows the schedule.</p>"
           "<p><b>Three things to try:</b></p>"));

    const auto tryRow = [this](QGridLayout *grid, int row, const QString &button,
                            const QString &objectName, const QString &what) {
        auto *b = new QPushButton(button, this);
        b->setObjectName(objectName);
        b->setAutoDefault(false);
        auto *l = new QLabel(what, this);
        l->setWordWrap(true);
        grid->addWidget(b, row, 0, Qt::AlignTop);
        grid->addWidget(l, row, 1);
        return b;
    };
    auto *grid = new QGridLayout;
    grid->setColumnStretch(1, 1);
    m_drag = tryRow(grid, 0, tr("&Drag a rank"), QStringLiteral("welcomeDrag"),
        tr("Drag the highlighted chip onto a GPU slot of another server and watch the spine "
           "links turn hot: a tensor-parallel group has left its NVLink domain. Ctrl+Z undoes."));
    m_lessons = tryRow(grid, 1, tr("Open the &lessons"), QStringLiteral("welcomeLessons"),
        tr("Short exercises, each with a goal the engine checks: TP in the scale-up domain, "
           "DP on its rail, pipeline bubbles, experts on the spine."));
    m_compare = tryRow(grid, 2, tr("&Pin a baseline"), QStringLiteral("welcomeCompare"),
        tr("Keep this layout as baseline A, change something, and the Compare panel shows every "
           "figure before and after."));

    m_dontShow = new QCheckBox(tr("Don't show this at start"), this);
    m_dontShow->setObjectName(QStringLiteral("welcomeDontShow"));
    // Ticked unless the user asked to see it at every start.
    m_dontShow->setChecked(!QSettings().value(QLatin1String(kShowAtStartKey), false).toBool());
    m_dontShow->setToolTip(tr("Help ▸ Welcome shows it again"));
    auto *buttons = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto *layout = new QVBoxLayout(this);
    layout->addWidget(m_intro);
    layout->addLayout(grid);
    auto *bottom = new QHBoxLayout;
    bottom->addWidget(m_dontShow, 1);
    bottom->addWidget(buttons);
    layout->addLayout(bottom);
    setMinimumWidth(fontMetrics().averageCharWidth() * kWidthChars);

    // Each button does what it says, then the panel gets out of the way.
    connect(m_drag, &QPushButton::clicked, this, [this] {
        accept();
        Q_EMIT dragRequested();
    });
    connect(m_lessons, &QPushButton::clicked, this, [this] {
        accept();
        Q_EMIT lessonsRequested();
    });
    connect(m_compare, &QPushButton::clicked, this, [this] {
        accept();
        Q_EMIT compareRequested();
    });
}

bool WelcomePanel::showAtStart(const QSettings &settings)
{
    if (!settings.value(QLatin1String(kSeenKey), false).toBool())
        return true; // a fresh settings folder: the first start
    return settings.value(QLatin1String(kShowAtStartKey), false).toBool();
}

void WelcomePanel::showEvent(QShowEvent *event)
{
    QDialog::showEvent(event);
    // Seen once shown: quitting with the panel still open does not bring it back.
    QSettings().setValue(QLatin1String(kSeenKey), true);
}

void WelcomePanel::done(int result)
{
    QSettings settings;
    settings.setValue(QLatin1String(kSeenKey), true);
    settings.setValue(QLatin1String(kShowAtStartKey), !m_dontShow->isChecked());
    QDialog::done(result);
}

} // namespace railyard
