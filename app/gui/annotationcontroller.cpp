#include "annotationcontroller.h"

#include "documentfiles.h"
#include "document/scenariodocument.h"
#include "fabricview.h"
#include "mainwindow.h"
#include "userdialogs.h"

#include <QMenu>

namespace railyard {

namespace {

QString colourLabel(std::string_view colour)
{
    QString s = QString::fromUtf8(colour.data(), static_cast<qsizetype>(colour.size()));
    if (!s.isEmpty())
        s[0] = s[0].toUpper();
    return s;
}

} // namespace

AnnotationController::AnnotationController(MainWindow *window)
    : QObject(window)
    , m_window(window)
{
    FabricView *view = window->fabricView();
    connect(view, &FabricView::annotationContextMenuRequested, this,
            [this](int index, const QPoint &pos) { annotationMenu(index)->popup(pos); });
    connect(view, &FabricView::annotationEditRequested, this, &AnnotationController::editText);
    connect(view, &FabricView::linkContextMenuRequested, this, [this](int link, const QPoint &pos) {
        auto *menu = new QMenu(m_window);
        menu->setAttribute(Qt::WA_DeleteOnClose);
        extendMenu(menu, {AnnotationAnchor::Kind::Link, link}, tr("This Cable"));
        menu->popup(pos);
    });
    // A new file ends an arrow started in the old one.
    connect(window->document(), &ScenarioDocument::scenarioChanged, this,
            [this] { m_arrowTail.reset(); });
}

void AnnotationController::extendMenu(QMenu *menu, const AnnotationAnchor &anchor,
                                      const QString &where)
{
    if (!menu->isEmpty())
        menu->addSeparator();
    QAction *note = menu->addAction(tr("Add Note on %1…").arg(where), this,
                                    [this, anchor] { addNote(anchor); });
    note->setObjectName(QStringLiteral("actionAddNote"));
    if (m_arrowTail && !(*m_arrowTail == anchor)) {
        QAction *end = menu->addAction(tr("End Arrow at %1…").arg(where), this,
                                       [this, anchor] { endArrow(anchor); });
        end->setObjectName(QStringLiteral("actionEndArrow"));
    }
    QAction *start = menu->addAction(tr("Start Arrow at %1").arg(where), this,
                                     [this, anchor] { startArrow(anchor); });
    start->setObjectName(QStringLiteral("actionStartArrow"));
}

QMenu *AnnotationController::annotationMenu(int index)
{
    auto *menu = new QMenu(m_window);
    menu->setAttribute(Qt::WA_DeleteOnClose);
    ScenarioDocument *doc = m_window->document();
    const std::vector<Annotation> &all = doc->scenario().annotations;
    if (index < 0 || index >= static_cast<int>(all.size()))
        return menu;
    const Annotation a = all[static_cast<std::size_t>(index)];
    const bool isNote = a.kind == Annotation::Kind::Note;
    QAction *edit = menu->addAction(isNote ? tr("Edit Note…") : tr("Edit Arrow Label…"), this,
                                    [this, index] { editText(index); });
    edit->setObjectName(QStringLiteral("actionEditAnnotation"));
    if (isNote) {
        QMenu *colours = menu->addMenu(tr("Colour"));
        for (std::string_view c : kNoteColours) {
            QAction *act = colours->addAction(colourLabel(c), this, [doc, index, a, c] {
                Annotation recoloured = a;
                recoloured.colour = std::string(c);
                doc->editAnnotation(index, recoloured, tr("Recolour note"));
            });
            act->setCheckable(true);
            act->setChecked(a.colour == c);
            act->setObjectName(QStringLiteral("actionNoteColour_%1").arg(colourLabel(c)));
        }
    }
    QAction *remove = menu->addAction(isNote ? tr("Delete Note") : tr("Delete Arrow"), this,
                                      [doc, index] { doc->removeAnnotation(index); });
    remove->setObjectName(QStringLiteral("actionDeleteAnnotation"));
    return menu;
}

bool AnnotationController::addNote(const AnnotationAnchor &anchor)
{
    const QString text = m_window->files()->dialogs()->askText(
        m_window, tr("Add Note"), tr("Note pinned to %1:").arg(QString::fromStdString(anchorText(anchor))),
        QString());
    if (text.trimmed().isEmpty())
        return false;
    Annotation note;
    note.kind = Annotation::Kind::Note;
    note.anchor = anchor;
    note.text = text.trimmed().toStdString();
    m_window->document()->addAnnotation(note);
    m_window->showStatus(tr("Added a note (drag it to move it, right-click it to edit)"));
    return true;
}

void AnnotationController::startArrow(const AnnotationAnchor &anchor)
{
    m_arrowTail = anchor;
    m_window->showStatus(
        tr("Arrow from %1: right-click where it should point and choose End Arrow")
            .arg(QString::fromStdString(anchorText(anchor))));
}

bool AnnotationController::endArrow(const AnnotationAnchor &anchor)
{
    if (!m_arrowTail)
        return false;
    // An empty label is a plain arrow; the dialog's Cancel gives an empty string too, so an
    // arrow always lands once its end is chosen (Ctrl+Z takes it back).
    const QString label = m_window->files()->dialogs()->askText(
        m_window, tr("End Arrow"), tr("Label (optional):"), QString());
    Annotation arrow;
    arrow.kind = Annotation::Kind::Arrow;
    arrow.anchor = *m_arrowTail;
    arrow.target = anchor;
    arrow.text = label.trimmed().toStdString();
    m_arrowTail.reset();
    m_window->document()->addAnnotation(arrow);
    m_window->showStatus(tr("Added an arrow"));
    return true;
}

bool AnnotationController::editText(int index)
{
    ScenarioDocument *doc = m_window->document();
    const std::vector<Annotation> &all = doc->scenario().annotations;
    if (index < 0 || index >= static_cast<int>(all.size()))
        return false;
    Annotation a = all[static_cast<std::size_t>(index)];
    const bool isNote = a.kind == Annotation::Kind::Note;
    const QString text = m_window->files()->dialogs()->askText(
        m_window, isNote ? tr("Edit Note") : tr("Edit Arrow Label"),
        isNote ? tr("Note:") : tr("Label:"), QString::fromStdString(a.text));
    if (isNote && text.trimmed().isEmpty())
        return false; // cancelled (Delete Note removes one)
    if (text.trimmed().toStdString() == a.text)
        return false;
    a.text = text.trimmed().toStdString();
    doc->editAnnotation(index, a, isNote ? tr("Edit note") : tr("Edit arrow label"));
    return true;
}

} // namespace railyard
