#include "savechangesprompt.h"

#include <QApplication>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QStyle>
#include <QVBoxLayout>

namespace railyard {

SaveChangesPrompt::SaveChangesPrompt(const QString &documentName, const QString &action, QWidget *parent)
    : QDialog(parent)
{
    setObjectName(QStringLiteral("saveChangesPrompt"));
    setWindowTitle(QApplication::applicationName());
    setModal(true);

    auto *icon = new QLabel(this);
    const int size = style()->pixelMetric(QStyle::PM_MessageBoxIconSize, nullptr, this);
    icon->setPixmap(style()->standardIcon(QStyle::SP_MessageBoxWarning, nullptr, this).pixmap(size, size));
    icon->setAlignment(Qt::AlignTop);

    m_question = new QLabel(tr("Save changes to \"%1\" before %2?").arg(documentName, action), this);
    m_question->setObjectName(QStringLiteral("saveChangesQuestion"));
    QFont bold = m_question->font();
    bold.setBold(true);
    m_question->setFont(bold);
    m_question->setWordWrap(true);
    auto *detail = new QLabel(tr("If you don't save, the changes are lost."), this);
    detail->setWordWrap(true);

    // QPushButton mnemonics need Alt (QDialog has no QMessageBox-style plain-letter shortcuts).
    m_save = new QPushButton(tr("&Save"), this);
    m_save->setObjectName(QStringLiteral("promptSave"));
    m_save->setToolTip(tr("Write the changes to the file (or ask for a name), then go on"));
    m_discard = new QPushButton(tr("&Don't Save"), this);
    m_discard->setObjectName(QStringLiteral("promptDiscard"));
    m_discard->setToolTip(tr("Go on and lose the changes"));
    m_cancel = new QPushButton(tr("Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("promptCancel"));
    m_cancel->setToolTip(tr("Keep the document open as it is (Enter or Esc)"));
    for (QPushButton *b : {m_save, m_discard})
        b->setAutoDefault(false); // Enter never presses them, even with focus
    m_cancel->setDefault(true);
    connect(m_save, &QPushButton::clicked, this, [this] { finish(Save); });
    connect(m_discard, &QPushButton::clicked, this, [this] { finish(Discard); });
    connect(m_cancel, &QPushButton::clicked, this, [this] { finish(Cancel); });

    auto *buttons = new QDialogButtonBox(this);
    buttons->addButton(m_save, QDialogButtonBox::AcceptRole);
    buttons->addButton(m_discard, QDialogButtonBox::DestructiveRole);
    buttons->addButton(m_cancel, QDialogButtonBox::RejectRole);

    auto *text = new QVBoxLayout;
    text->addWidget(m_question);
    text->addWidget(detail);
    auto *top = new QHBoxLayout;
    top->addWidget(icon);
    top->addLayout(text, 1);
    auto *layout = new QVBoxLayout(this);
    layout->addLayout(top);
    layout->addWidget(buttons);
    // The question holds the focus, not a button: Space presses a focused button, and a user
    // still typing a path would press it. Tab reaches the buttons; Enter presses Cancel.
    m_question->setFocusPolicy(Qt::StrongFocus);
    m_question->setFocus();
}

QString SaveChangesPrompt::question() const
{
    return m_question->text();
}

void SaveChangesPrompt::finish(Answer answer)
{
    m_answer = answer;
    done(answer);
}

} // namespace railyard
