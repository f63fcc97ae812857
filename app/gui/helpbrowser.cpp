#include "helpbrowser.h"

#include <QAbstractTextDocumentLayout>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QHBoxLayout>
#include <QImage>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTimer>
#include <QToolButton>
#include <QUrl>
#include <QVBoxLayout>

namespace railyard {

namespace {

/// The manual (the docs/ pages), compiled in with the pictures it links to
/// (app/gui/CMakeLists.txt): the repository's layout under ":/", so the pages' relative links
/// resolve as on disk.
const QString kRoot = QStringLiteral(":/docs/");
const QString kContents = QStringLiteral("README.md");

struct DockSection
{
    const char *dock;
    const char *section;
};
// The dock objectNames of MainWindow, StudyController, LessonController, CalibrationController,
// BomController, CountersController, NcclLogController, MeasuredController and JobsController,
// and the manual's section on each.
constexpr DockSection kDockSections[] = {
    { "ranksDock", "explorer.md#ranks-left" },
    { "inspectorDock", "explorer.md#inspector-right" },
    { "chartsDock", "explorer.md#charts-bottom-a-tab-beside-the-pipeline" },
    { "timelineDock", "explorer.md#pipeline-bottom" },
    { "compareDock", "studies.md#compare-two-placements-ab" },
    { "expertsDock", "studies.md#expert-parallelism-with-skewed-routing" },
    { "inferenceDock", "studies.md#inference-prefill-and-decode-pools" },
    { "lessonsDock", "teaching.md#lessons" },
    { "summaryDock", "explorer.md#summary-bar-top" },
    { "calibrationDock", "calibration.md#in-the-explorer" },
    { "ncclViewDock", "nccl-log.md#in-the-explorer" },
    { "bomDock", "bom-and-cost.md#in-the-explorer" },
    { "countersDock", "counters.md#in-the-explorer" },
    { "measuredDock", "calibrate-from-your-job.md#in-the-explorer" },
    { "jobsDock", "shared-fabric.md#in-the-gui" },
};

/// Pictures wider than this are scaled down to it: the screenshots are 1280-1920 px wide and
/// the help window about 760 (a picture at its own size would need sideways scrolling).
constexpr int kMaxImageWidth = 700;

/** A QTextBrowser whose pictures fit its width. */
class DocBrowser : public QTextBrowser
{
public:
    using QTextBrowser::QTextBrowser;

    QVariant loadResource(int type, const QUrl &name) override
    {
        QVariant resource = QTextBrowser::loadResource(type, name);
        if (type != QTextDocument::ImageResource)
            return resource;
        QImage image;
        if (resource.canConvert<QByteArray>())
            image.loadFromData(resource.toByteArray());
        if (image.isNull() || image.width() <= kMaxImageWidth)
            return resource;
        return image.scaledToWidth(kMaxImageWidth, Qt::SmoothTransformation);
    }
};

} // namespace

HelpBrowser::HelpBrowser(QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("helpBrowser"));
    setWindowTitle(tr("Railyard Help"));
    m_browser = new DocBrowser(this);
    m_browser->setObjectName(QStringLiteral("helpText"));
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
    home->setToolTip(tr("The manual's list of pages"));
    connect(m_back, &QToolButton::clicked, m_browser, &QTextBrowser::backward);
    connect(m_forward, &QToolButton::clicked, m_browser, &QTextBrowser::forward);
    connect(home, &QToolButton::clicked, this, [this] { showPage(kContents); });
    connect(m_browser, &QTextBrowser::backwardAvailable, m_back, &QToolButton::setEnabled);
    connect(m_browser, &QTextBrowser::forwardAvailable, m_forward, &QToolButton::setEnabled);
    // A link to another page's section ("studies.md#failure-remap"), followed by the browser
    // itself: Markdown headings carry no anchors for QTextBrowser to find, so the section is
    // found by its heading.
    connect(m_browser, &QTextBrowser::sourceChanged, this, [this](const QUrl &url) {
        m_section.clear();
        if (url.hasFragment())
            scrollToSection(url.fragment());
    });
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
    showPage(kContents);
}

QStringList HelpBrowser::pages()
{
    return QDir(kRoot).entryList({ QStringLiteral("*.md") }, QDir::Files, QDir::Name);
}

QString HelpBrowser::anchorOf(const QString &heading)
{
    QString anchor;
    for (const QChar c : heading.trimmed().toLower()) {
        if (c.isLetterOrNumber() || c == QLatin1Char('-') || c == QLatin1Char('_'))
            anchor += c;
        else if (c == QLatin1Char(' '))
            anchor += QLatin1Char('-');
    }
    return anchor;
}

QStringList HelpBrowser::sectionsOf(const QString &page)
{
    QFile f(kRoot + page);
    if (!f.open(QIODevice::ReadOnly))
        return {};
    QTextDocument doc;
    doc.setMarkdown(QString::fromUtf8(f.readAll()));
    QStringList anchors;
    for (QTextBlock b = doc.begin(); b.isValid(); b = b.next())
        if (b.blockFormat().headingLevel() > 0)
            anchors << anchorOf(b.text());
    return anchors;
}

void HelpBrowser::showPage(const QString &page)
{
    const QString file = page.section(QLatin1Char('#'), 0, 0);
    const QString section = page.section(QLatin1Char('#'), 1);
    QUrl url(QStringLiteral("qrc:/docs/") + (QFile::exists(kRoot + file) ? file : kContents));
    if (!section.isEmpty())
        url.setFragment(section);
    if (url.adjusted(QUrl::RemoveFragment) == m_browser->source().adjusted(QUrl::RemoveFragment)) {
        // The same page: no reload, so no sourceChanged; only the section moves.
        m_section.clear();
        if (section.isEmpty())
            m_browser->verticalScrollBar()->setValue(0);
        else
            scrollToSection(section);
        return;
    }
    m_browser->setSource(url, QTextDocument::MarkdownResource);
}

bool HelpBrowser::scrollToSection(const QString &anchor)
{
    QTextDocument *doc = m_browser->document();
    for (QTextBlock b = doc->begin(); b.isValid(); b = b.next()) {
        if (b.blockFormat().headingLevel() == 0 || anchorOf(b.text()) != anchor)
            continue;
        m_section = anchor;
        m_browser->setTextCursor(QTextCursor(b));
        // The heading at the top of the view; again once the dialog is laid out and shown,
        // when the scroll range may first cover it.
        const auto scroll = [this, b] {
            const QRectF r = m_browser->document()->documentLayout()->blockBoundingRect(b);
            m_browser->verticalScrollBar()->setValue(qRound(r.top()));
        };
        scroll();
        QTimer::singleShot(0, this, scroll);
        return true;
    }
    return false;
}

QString HelpBrowser::currentPage() const
{
    return m_browser->source().fileName();
}

QString HelpBrowser::pageFor(const QWidget *widget)
{
    for (const QWidget *w = widget; w; w = w->parentWidget()) {
        if (w->objectName() == QLatin1String("fabricView"))
            return QStringLiteral("explorer.md#fabric-view-centre");
        if (w->objectName() == QLatin1String("snapshotStrip"))
            return QStringLiteral("whiteboard-session.md#whiteboard-mode");
        if (qobject_cast<const QDockWidget *>(w))
            for (const DockSection &d : kDockSections)
                if (w->objectName() == QLatin1String(d.dock))
                    return QString::fromLatin1(d.section);
    }
    return kContents;
}

} // namespace railyard
