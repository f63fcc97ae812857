// FabricView, part 2: the fabric as a PNG or SVG file.
#include "fabricview.h"

#include "annotationlayer.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "legenditem.h"
#include "rankdragtool.h"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>

#include <algorithm>
#include <cmath>

namespace railyard {

bool FabricView::exportImage(const QString &path)
{
    const bool svg
        = QFileInfo(path).suffix().compare(QStringLiteral("svg"), Qt::CaseInsensitive) == 0;
    QRectF source = m_root->boundingRect();
    // PNG: up to 2x for a small fabric, at most 4096 px on the long side for a large one
    // (a 16,384-GPU fabric then exports its overview in a few seconds).
    const double scale
        = svg ? 1.0 : std::min(2.0, 4096.0 / std::max(source.width(), source.height()));
    // The notes and arrows, their cards drawn at device size from their positions.
    if (!m_annotations->boundingRect().isEmpty())
        source |= m_annotations->boundingRect();
    for (const AnnotationNoteItem *note : m_annotations->notes())
        source |= QRectF(note->pos(), note->boundingRect().size() / scale);
    // Room above the fabric for the legend (drawn at device size).
    source.adjust(-20, -(m_legend->boundingRect().height() + 30.0) / scale, 20, 20);
    const QSize size(static_cast<int>(std::ceil(source.width() * scale)),
        static_cast<int>(std::ceil(source.height() * scale)));
    const bool wasOverview = m_root->isOverview();
    const int slots = m_root->fabric().slotCount();
    // Below ~1/3 scale chips are unreadable in a file: export the overview (fast, small).
    m_root->setOverview(svg ? slots > 4096 : scale < 0.34);
    const QPointF legendPos = m_legend->pos();
    m_legend->setPos(source.topLeft() + QPointF(10.0, 10.0) / scale);
    if (QGraphicsItem *ghost = m_tool->ghost())
        ghost->hide();
    m_root->setCaching(false);

    bool ok = false;
    if (svg) {
        QSvgGenerator generator;
        generator.setFileName(path);
        generator.setSize(size);
        generator.setViewBox(QRect(QPoint(0, 0), size));
        generator.setTitle(QStringLiteral("Railyard fabric"));
        generator.setDescription(QString::fromStdString(m_document->scenario().name));
        QPainter painter;
        if (painter.begin(&generator)) {
            painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
            m_scene->render(&painter, QRectF(QPointF(0, 0), size), source);
            ok = painter.end();
        }
        ok = ok && QFileInfo(path).size() > 0;
    } else {
        QImage image(size, QImage::Format_RGB32); // opaque: no alpha to encode
        if (!image.isNull()) {
            image.fill(Qt::white);
            QPainter painter(&image);
            painter.setRenderHints(QPainter::Antialiasing | QPainter::TextAntialiasing);
            m_scene->render(&painter, QRectF(QPointF(0, 0), size), source);
            painter.end();
            ok = image.save(path);
        }
    }
    if (QGraphicsItem *ghost = m_tool->ghost())
        ghost->show();
    m_legend->setPos(legendPos);
    m_root->setCaching(true);
    m_root->setOverview(wasOverview);
    say(ok ? QStringLiteral("Exported %1").arg(path)
           : QStringLiteral("Could not export %1").arg(path));
    return ok;
}

} // namespace railyard
