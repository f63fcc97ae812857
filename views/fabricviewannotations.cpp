// FabricView, part 3: the notes and arrows over the fabric (AnnotationLayer draws them).
#include "fabricview.h"

#include "annotationlayer.h"
#include "document/scenariodocument.h"
#include "rankdragtool.h"

#include <QKeyEvent>

#include <cmath>

namespace railyard {

int FabricView::annotationAt(const QPoint &viewPos) const
{
    const QTransform &t = transform();
    const double scale = std::sqrt(std::abs(t.determinant()));
    return m_annotations->annotationAt(mapToScene(viewPos), scale);
}

bool FabricView::annotationKey(QKeyEvent *event)
{
    if (event->key() != Qt::Key_Delete && event->key() != Qt::Key_Backspace)
        return false;
    const int note = m_annotations->selectedNote();
    if (note < 0)
        return false;
    m_document->removeAnnotation(note);
    say(QStringLiteral("Removed the note (Ctrl+Z brings it back)"));
    event->accept();
    return true;
}

} // namespace railyard
