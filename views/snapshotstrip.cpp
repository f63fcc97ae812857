#include "snapshotstrip.h"

#include "document/scenariodocument.h"

#include <QAction>
#include <QDateTime>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QToolButton>
#include <QUndoStack>

namespace railyard {

SnapshotStrip::SnapshotStrip(ScenarioDocument *document, QWidget *parent)
    : QToolBar(tr("Snapshots"), parent)
    , m_document(document)
{
    setObjectName(QStringLiteral("snapshotStrip"));
    setToolButtonStyle(Qt::ToolButtonTextOnly);
    m_title = new QLabel(tr("Snapshots:"), this);
    m_title->setToolTip(tr("Named versions of the mapping, kept in the scenario file. Click one to "
                           "bring it back (one undo step); right-click to rename, delete or compare it."));
    addWidget(m_title);
    m_previous = addAction(tr("◀"));
    m_previous->setObjectName(QStringLiteral("actionPreviousSnapshot"));
    m_previous->setToolTip(tr("Bring back the previous snapshot (Ctrl+Page Up; Page Up in presentation mode)"));
    m_previous->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageUp));
    connect(m_previous, &QAction::triggered, this, [this] { step(-1); });
    m_next = addAction(tr("▶"));
    m_next->setObjectName(QStringLiteral("actionNextSnapshot"));
    m_next->setToolTip(tr("Bring back the next snapshot (Ctrl+Page Down; Page Down in presentation mode)"));
    m_next->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_PageDown));
    connect(m_next, &QAction::triggered, this, [this] { step(+1); });
    m_buttonsEnd = addSeparator();

    m_name = new QLineEdit(this);
    m_name->setObjectName(QStringLiteral("snapshotName"));
    m_name->setPlaceholderText(tr("name, e.g. rail-aligned"));
    m_name->setToolTip(tr("The name of the next snapshot (empty: v1, v2, …)"));
    m_name->setMaximumWidth(180);
    m_name->setClearButtonEnabled(true);
    addWidget(m_name);
    m_take = new QToolButton(this);
    m_take->setObjectName(QStringLiteral("takeSnapshot"));
    m_take->setText(tr("Take Snapshot"));
    m_take->setToolTip(tr("Keep the mapping as it is now as a named version in the file (one undo step)"));
    addWidget(m_take);
    connect(m_take, &QToolButton::clicked, this, &SnapshotStrip::takeSnapshot);
    connect(m_name, &QLineEdit::returnPressed, this, &SnapshotStrip::takeSnapshot);

    connect(m_document, &ScenarioDocument::snapshotsChanged, this, &SnapshotStrip::rebuild);
    connect(m_document, &ScenarioDocument::scenarioChanged, this, [this] {
        if (m_document->undoStack()->count() == 0)
            m_last = -1; // a new file
        rebuild();
    });
    connect(m_document, &ScenarioDocument::mappingChanged, this, &SnapshotStrip::sync);
    rebuild();
}

void SnapshotStrip::rebuild()
{
    for (QAction *a : m_buttonActions) {
        removeAction(a);
        delete a;
    }
    m_buttonActions.clear();
    m_buttons.clear();
    const std::vector<Snapshot> &snapshots = m_document->scenario().snapshots;
    for (std::size_t i = 0; i < snapshots.size(); ++i) {
        auto *button = new QToolButton(this);
        const QString name = QString::fromStdString(snapshots[i].name);
        button->setObjectName(QStringLiteral("snapshot-%1").arg(i));
        button->setText(name);
        button->setCheckable(true);
        button->setAutoRaise(true);
        button->setToolTip(tr("Snapshot \"%1\": tp %2 × pp %3 × dp %4, %5 ranks. Click to bring it back; "
                              "right-click to rename, delete or compare.")
                               .arg(name)
                               .arg(snapshots[i].degrees.tp)
                               .arg(snapshots[i].degrees.pp)
                               .arg(snapshots[i].degrees.dp)
                               .arg(snapshots[i].slots.size()));
        button->setContextMenuPolicy(Qt::CustomContextMenu);
        const int index = static_cast<int>(i);
        connect(button, &QToolButton::clicked, this, [this, index] { restore(index); });
        connect(button, &QWidget::customContextMenuRequested, this, [this, index, button](const QPoint &pos) {
            snapshotMenu(index)->popup(button->mapToGlobal(pos));
        });
        m_buttonActions.push_back(insertWidget(m_buttonsEnd, button));
        m_buttons.push_back(button);
    }
    if (m_last >= static_cast<int>(snapshots.size()))
        m_last = -1;
    sync();
}

int SnapshotStrip::position() const
{
    const int shown = m_document->currentSnapshot();
    return shown >= 0 ? shown : m_last;
}

void SnapshotStrip::sync()
{
    const int shown = m_document->currentSnapshot();
    for (std::size_t i = 0; i < m_buttons.size(); ++i)
        m_buttons[i]->setChecked(static_cast<int>(i) == shown);
    const int count = static_cast<int>(m_buttons.size());
    const int at = position();
    m_previous->setEnabled(count > 0 && (at < 0 || at > 0));
    m_next->setEnabled(count > 0 && at < count - 1);
}

void SnapshotStrip::restore(int index)
{
    const QString message = m_document->restoreSnapshot(index);
    const QString name = QString::fromStdString(m_document->scenario().snapshots[static_cast<std::size_t>(index)].name);
    if (message.isEmpty()) {
        m_last = index;
        Q_EMIT statusMessage(tr("Snapshot \"%1\" is shown (Ctrl+Z goes back)").arg(name));
    } else {
        Q_EMIT statusMessage(tr("Snapshot \"%1\" cannot be restored: %2").arg(name, message));
    }
    sync();
}

bool SnapshotStrip::step(int direction)
{
    const int count = static_cast<int>(m_document->scenario().snapshots.size());
    if (count == 0)
        return false;
    const int at = position();
    const int next = at < 0 ? (direction > 0 ? 0 : count - 1) : at + direction;
    if (next < 0 || next >= count)
        return false;
    restore(next);
    return true;
}

bool SnapshotStrip::takeSnapshot()
{
    QString name = m_name->text().trimmed();
    if (name.isEmpty()) {
        int n = static_cast<int>(m_document->scenario().snapshots.size()) + 1;
        const auto taken = [this](const QString &candidate) {
            for (const Snapshot &s : m_document->scenario().snapshots)
                if (QString::fromStdString(s.name) == candidate)
                    return true;
            return false;
        };
        while (taken(QStringLiteral("v%1").arg(n)))
            ++n;
        name = QStringLiteral("v%1").arg(n);
    }
    const QString now = QDateTime::currentDateTime().toString(Qt::ISODate);
    if (!m_document->takeSnapshot(name, now)) {
        Q_EMIT statusMessage(tr("There is already a snapshot called \"%1\"").arg(name));
        return false;
    }
    m_name->clear();
    m_last = static_cast<int>(m_document->scenario().snapshots.size()) - 1;
    sync();
    Q_EMIT statusMessage(tr("Took snapshot \"%1\": it is saved with the scenario").arg(name));
    return true;
}

QMenu *SnapshotStrip::snapshotMenu(int index)
{
    auto *menu = new QMenu(this);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    const std::vector<Snapshot> &snapshots = m_document->scenario().snapshots;
    if (index < 0 || index >= static_cast<int>(snapshots.size()))
        return menu;
    const QString name = QString::fromStdString(snapshots[static_cast<std::size_t>(index)].name);
    QAction *restoreAction = menu->addAction(tr("Bring Back \"%1\"").arg(name), this, [this, index] { restore(index); });
    restoreAction->setObjectName(QStringLiteral("actionRestoreSnapshot"));
    QAction *rename = menu->addAction(tr("Rename…"), this, [this, index, name] {
        bool ok = false;
        const QString next = QInputDialog::getText(this, tr("Rename Snapshot"), tr("Name:"), QLineEdit::Normal, name, &ok);
        if (ok && !m_document->renameSnapshot(index, next))
            Q_EMIT statusMessage(tr("\"%1\" is empty or already taken").arg(next));
    });
    rename->setObjectName(QStringLiteral("actionRenameSnapshot"));
    QAction *remove = menu->addAction(tr("Delete"), this, [this, index] { m_document->removeSnapshot(index); });
    remove->setObjectName(QStringLiteral("actionDeleteSnapshot"));
    menu->addSeparator();
    QAction *withShown = menu->addAction(tr("Compare with the Mapping Shown"), this,
                                         [this, index] { Q_EMIT compareRequested(index, -1); });
    withShown->setObjectName(QStringLiteral("actionCompareSnapshotWithShown"));
    QMenu *with = menu->addMenu(tr("Compare with Snapshot"));
    with->setObjectName(QStringLiteral("menuCompareSnapshot"));
    for (std::size_t j = 0; j < snapshots.size(); ++j) {
        if (static_cast<int>(j) == index)
            continue;
        const int other = static_cast<int>(j);
        QAction *a = with->addAction(QString::fromStdString(snapshots[j].name), this,
                                     [this, index, other] { Q_EMIT compareRequested(index, other); });
        a->setObjectName(QStringLiteral("actionCompareSnapshot-%1").arg(j));
    }
    with->setEnabled(snapshots.size() > 1);
    return menu;
}

} // namespace railyard
