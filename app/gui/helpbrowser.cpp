#include "helpbrowser.h"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHBoxLayout>
#include <QTextBrowser>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace railyard {

namespace {

const QString kRoot = QStringLiteral(":/help/");

struct DockPage
{
    const char *dock;
    const char *page;
};
// The dock objectNames of MainWindow, StudyController and LessonController.
constexpr DockPage kDockPages[] = {
    {"ranksDock", "ranks.html"},         {"inspectorDock", "inspector.html"}, {"chartsDock", "charts.html"},
    {"timelineDock", "pipeline.html"},   {"compareDock", "compare.html"},     {"expertsDock", "experts.html"},
    {"inferenceDock", "inference.html"}, {"lessonsDock", "lessons.html"},     {"summaryDock", "summary.html"},
    {"calibrationDock", "calibration.html"},
};

} // namespace

HelpBrowser::HelpBrowser(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("helpBrowser"));
    setWindowTitle(tr("Railyard Help"));
    m_browser = new QTextBrowser(this);
    m_browser->setObjectName(QStringLiteral("helpText"));
    m_browser->setSearchPaths({kRoot});
    m_browser->setOpenExternalLinks(true);
    m_back = new QToolButton(this);
    m_back->setText(tr("◀ Back"));
    m_back->setToolTip(tr("The page before (Alt+Left)"));
    m_back->setShortcut(QKeySequence::Back);
    m_forward = new QToolButton(this);
    m_forward->setText(tr("Forward ▶"));
    m_forward->setToolTip(tr("The page after (Alt+Right)"));
    m_forward->setShortcut(QKeySequence::Forward);
    auto *home = new QToolButton(this);
    home->setText(tr("Contents"));
    home->setToolTip(tr("The list of help pages"));
    connect(m_back, &QToolButton::clicked, m_browser, &QTextBrowser::backward);
    connect(m_forward, &QToolButton::clicked, m_browser, &QTextBrowser::forward);
    connect(home, &QToolButton::clicked, this, [this] { showPage(QStringLiteral("index.html")); });
    connect(m_browser, &QTextBrowser::backwardAvailable, m_back, &QToolButton::setEnabled);
    connect(m_browser, &QTextBrowser::forwardAvailable, m_forward, &QToolButton::setEnabled);
    m_back->setEnabled(false);
    m_forward->setEnabled(false);

    auto *bar = new QHBoxLayout;
    bar->addWidget(m_back);
    bar->addWidget(m_forward);
    bar->addWidget(home);
    bar->addStretch(1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(bar);
    layout->addWidget(m_browser, 1);
    resize(760, 620);
    showPage(QStringLiteral("index.html"));
}

QStringList HelpBrowser::pages()
{
    return QDir(kRoot).entryList({QStringLiteral("*.html")}, QDir::Files, QDir::Name);
}

void HelpBrowser::showPage(const QString &page)
{
    const QString name = QFile::exists(kRoot + page) ? page : QStringLiteral("index.html");
    m_browser->setSource(QUrl(QStringLiteral("qrc:/help/") + name));
}

QString HelpBrowser::currentPage() const
{
    return m_browser->source().fileName();
}

QString HelpBrowser::pageFor(const QWidget *widget)
{
    for (const QWidget *w = widget; w; w = w->parentWidget()) {
        if (w->objectName() == QLatin1String("fabricView"))
            return QStringLiteral("fabric.html");
        if (w->objectName() == QLatin1String("snapshotStrip"))
            return QStringLiteral("whiteboard.html");
        if (qobject_cast<const QDockWidget *>(w))
            for (const DockPage &d : kDockPages)
                if (w->objectName() == QLatin1String(d.dock))
                    return QString::fromLatin1(d.page);
    }
    return QStringLiteral("index.html");
}

} // namespace railyard
