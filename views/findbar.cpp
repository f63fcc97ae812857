#include "findbar.h"

#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabricview.h"

#include <QCompleter>
#include <QEvent>
#include <QHBoxLayout>
#include <QKeyEvent>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStringListModel>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>

namespace railyard {

namespace {

/// Completion rows shown at once: enough to pick from, short enough for a 720-line screen.
constexpr int kCompletionRows = 12;

} // namespace

FindBar::FindBar(ScenarioDocument *document, FabricView *view)
    : QFrame(view)
    , m_document(document)
    , m_view(view)
{
    setObjectName(QStringLiteral("findBar"));
    setFrameShape(QFrame::StyledPanel);
    setAutoFillBackground(true);
    m_edit = new QLineEdit(this);
    m_edit->setObjectName(QStringLiteral("findEdit"));
    m_edit->setClearButtonEnabled(true);
    m_edit->setPlaceholderText(tr("rank, (d,p,t), server, switch or link"));
    m_edit->setToolTip(tr("A rank (12), coordinates ((1,0,3) as d,p,t, or d=1 p=0 t=3), a "
                          "server, a switch or a link by name; Enter goes there"));
    m_names = new QStringListModel(this);
    m_completer = new QCompleter(m_names, this);
    m_completer->setCaseSensitivity(Qt::CaseInsensitive);
    // A sorted model: the completer finds a prefix by binary search, not a scan of 100,000s of
    // link names per keystroke (QCompleter::setModelSorting()).
    m_completer->setModelSorting(QCompleter::CaseInsensitivelySortedModel);
    m_completer->setMaxVisibleItems(kCompletionRows);
    m_edit->setCompleter(m_completer);
    m_bottleneck = new QPushButton(tr("Go to &bottleneck"), this);
    m_bottleneck->setObjectName(QStringLiteral("findBottleneck"));
    m_bottleneck->setToolTip(tr("Select and centre the link the report names as the bottleneck"));
    m_close = new QToolButton(this);
    m_close->setText(QStringLiteral("✕"));
    m_close->setAutoRaise(true);
    m_close->setToolTip(tr("Close (Esc)"));
    m_message = new QLabel(this);
    m_message->setObjectName(QStringLiteral("findMessage"));
    m_message->setWordWrap(true);
    m_message->hide();

    auto *row = new QHBoxLayout;
    row->setContentsMargins(0, 0, 0, 0);
    row->addWidget(new QLabel(tr("Find:"), this));
    row->addWidget(m_edit, 1);
    row->addWidget(m_bottleneck);
    row->addWidget(m_close);
    auto *column = new QVBoxLayout(this);
    column->setContentsMargins(6, 4, 4, 4);
    column->setSpacing(2);
    column->addLayout(row);
    column->addWidget(m_message);

    connect(m_edit, &QLineEdit::returnPressed, this, [this] { find(m_edit->text()); });
    connect(m_completer, qOverload<const QString &>(&QCompleter::activated), this,
        [this](const QString &text) { find(text); });
    connect(m_bottleneck, &QPushButton::clicked, this, &FindBar::goToBottleneck);
    connect(m_close, &QToolButton::clicked, this, &QWidget::hide);
    view->installEventFilter(this);
    hide();
}

const FabricFindIndex &FindBar::index()
{
    const Fabric &fabric = m_document->engine().fabric();
    if (m_indexedFabric != &fabric || m_indexedLinks != fabric.linkCount() || m_index.isEmpty()) {
        m_index.build(fabric);
        m_indexedFabric = &fabric;
        m_indexedLinks = fabric.linkCount();
        m_names->setStringList(m_index.names());
        ++m_builds;
    }
    return m_index;
}

void FindBar::open()
{
    index();
    place();
    show();
    raise();
    m_edit->setFocus(Qt::ShortcutFocusReason);
    m_edit->selectAll();
}

bool FindBar::find(const QString &text)
{
    const FabricFindIndex::Target t = index().resolve(text, m_document->engine().layout());
    bool ok = false;
    QString found;
    switch (t.kind) {
    case FabricFindIndex::Target::Kind::None:
        say(t.error, true);
        return false;
    case FabricFindIndex::Target::Kind::Rank: {
        ok = m_view->focusRank(t.id);
        const RankCoord c = m_document->engine().layout().coord(t.id);
        found = tr("rank %1 (d,p,t) = (%2,%3,%4)").arg(t.id).arg(c.d).arg(c.p).arg(c.t);
        break;
    }
    case FabricFindIndex::Target::Kind::Server:
        ok = m_view->focusServer(t.id);
        found = QString::fromStdString(m_document->engine().fabric().serverName(t.id));
        break;
    case FabricFindIndex::Target::Kind::Switch:
        ok = m_view->focusSwitch(t.id);
        found = QString::fromStdString(m_document->engine().fabric().node(t.id).name);
        break;
    case FabricFindIndex::Target::Kind::Link:
        found = QString::fromStdString(m_document->engine().fabric().linkName(t.id));
        ok = m_view->focusLink(t.id, tr("found: %1").arg(found));
        break;
    }
    say(ok ? tr("Found %1").arg(found) : tr("%1 is not drawn in this view").arg(found), !ok);
    return ok;
}

bool FindBar::goToBottleneck()
{
    const CostReport &r = m_document->report();
    const Fabric &f = m_document->engine().fabric();
    // Links coloured by given values (the KV load) go to the hottest of those, as the legend
    // and the summary bar name it; else the report's bottleneck.
    const FabricItem *root = m_view->rootItem();
    const int link = root->hasLinkOverlay() ? root->overlayPeakLink() : r.bottleneckLink;
    if (link < 0 || link >= f.linkCount()) {
        say(tr("No link carries traffic: there is no bottleneck"), true);
        return false;
    }
    const QString name = QString::fromStdString(f.linkName(link));
    const QString busy = QString::number(root->shownUtilisation(link) * 100.0, 'f', 0);
    const bool ok = m_view->focusLink(link, tr("bottleneck: %1 (%2 % busy)").arg(name, busy));
    say(tr("Bottleneck %1, %2 % busy").arg(name, busy), !ok);
    return ok;
}

void FindBar::say(const QString &message, bool failed)
{
    m_message->setText(message);
    m_message->setStyleSheet(failed ? QStringLiteral("color: #c92a2a;") : QString());
    m_message->setVisible(!message.isEmpty() && isVisible());
    adjustSize();
    place();
    Q_EMIT statusMessage(message);
}

void FindBar::place()
{
    // The view's top-right corner, inside its scroll bars; never wider than the view.
    const int room = std::max(200, m_view->viewport()->width() - 20);
    const int width = std::min(room, std::max(420, sizeHint().width()));
    setFixedWidth(width);
    adjustSize();
    move(m_view->viewport()->geometry().right() - width - 8,
        m_view->viewport()->geometry().top() + 8);
}

bool FindBar::eventFilter(QObject *watched, QEvent *event)
{
    if (watched == m_view && event->type() == QEvent::Resize && isVisible())
        place();
    return QFrame::eventFilter(watched, event);
}

void FindBar::keyPressEvent(QKeyEvent *event)
{
    if (event->key() == Qt::Key_Escape) {
        hide();
        m_view->setFocus();
        return;
    }
    QFrame::keyPressEvent(event);
}

} // namespace railyard
