// FabricView, part 5: the stage (presentation mode's sizes) and the layout of the text over the
// fabric: the parts' names, the notes and the arrow labels placed so that none covers another.
#include "fabricview.h"

#include "annotationlayer.h"
#include "document/scenariodocument.h"
#include "fabricitem.h"
#include "fabriclayout.h"
#include "legenditem.h"
#include "serveritem.h"
#include "spotlightitem.h"
#include "stagelabelsitem.h"
#include "stagetext.h"
#include "switchitem.h"

#include <algorithm>
#include <cmath>

namespace railyard {

namespace {

/// The legend's type in a window, from which presentation mode scales it (LegendItem's row
/// text is 10 px; its stage key draws nothing smaller, LegendItem::smallestPixels()).
constexpr double kLegendRowPixels = 10.0;
/// Past this many servers in view the notes stop avoiding them (see partRects()).
constexpr int kMaxPartRects = 256;

} // namespace

void FabricView::setStage(double textPixels)
{
    const bool wasOn = m_stagePx > 0.0;
    m_stagePx = std::max(0.0, textPixels);
    const bool on = m_stagePx > 0.0;
    // The stage fits the whole fabric; leaving it gives the window back the fit it had.
    if (on && !wasOn)
        m_fitWholeBeforeStage = m_fitWhole;
    else if (!on && wasOn) {
        m_fitWhole = m_fitWholeBeforeStage;
        m_autoFit = true;
    }
    if (on && !m_stageLabels) {
        m_stageLabels = new StageLabelsItem(m_root);
        m_scene->addItem(m_stageLabels);
    }
    m_scene->setProperty(kStageSceneProperty, on);
    // The stage's roomier trays (FabricLayout::Spacing): the same fabric laid out again, the
    // spotlight kept (a rebuild clears it, as a new fabric's would name other parts).
    const bool spotlit = hasSpotlight();
    const std::vector<int> litSlots = spotlit ? m_spotlight->slots() : std::vector<int>();
    const std::vector<int> litLinks = spotlit ? m_spotlight->links() : std::vector<int>();
    const QColor litColour = spotlit ? m_spotlight->colour() : QColor();
    m_root->setSpacing(on ? FabricLayout::Spacing::Stage : FabricLayout::Spacing::Window);
    if (spotlit && !hasSpotlight())
        setSpotlight(litSlots, litLinks, litColour);
    if (m_stageLabels) {
        m_stageLabels->setVisible(on);
        if (!on)
            m_stageLabels->clear();
    }
    m_legend->setStage(on);
    m_legend->setScale(on ? legendStageScale() : 1.0);
    m_annotations->setTextPixels(on ? m_stagePx : 12.0);
    m_scene->update();
    if (on) {
        fitAll(); // the whole fabric, as large as the screen allows
    } else {
        positionLegend();
    }
}

void FabricView::setSpotlight(
    const std::vector<int> &slots, const std::vector<int> &links, const QColor &colour)
{
    if (!m_spotlight) {
        m_spotlight = new SpotlightItem(m_root);
        m_scene->addItem(m_spotlight);
        // A new fabric has other slots and links: the spotlight named the old one's.
        connect(m_root, &FabricItem::rebuilt, this, &FabricView::clearSpotlight);
    }
    m_spotlight->setGroup(slots, links, colour);
}

void FabricView::clearSpotlight()
{
    if (m_spotlight)
        m_spotlight->clear();
}

bool FabricView::hasSpotlight() const
{
    return m_spotlight && m_spotlight->isActive();
}

QList<FabricView::TextBox> FabricView::sceneTextBoxes() const
{
    QList<TextBox> out;
    const QTransform toView = viewportTransform();
    const QRectF frame(viewport()->rect());
    const double lod = zoom();
    if (m_stagePx > 0.0 || m_root->isOverview())
        return out; // the stage names the parts itself; the overview draws no names
    // A server's name and "NVSwitch" fill its bar (ServerItem::paint, above 40 % zoom).
    if (lod > 0.4) {
        const QRectF bar = m_root->layout().barRect();
        for (int i = 0; i < m_root->fabric().servers(); ++i) {
            const ServerItem *s = m_root->serverItem(i);
            if (!s || !s->isVisible())
                continue;
            const QRectF r = toView.mapRect(s->mapRectToScene(bar));
            if (frame.intersects(r))
                out.push_back({ QStringLiteral("server ") + s->name(), r, 9.0 * lod });
        }
    }
    // A switch's label fills its box once the box is 40 px wide (SwitchItem::paint).
    QList<int> vertices = m_root->switchItems().keys();
    std::sort(vertices.begin(), vertices.end());
    for (int v : std::as_const(vertices)) {
        const SwitchItem *s = m_root->switchItem(v);
        if (!s->isVisible() || lod * s->box().width() < 40.0 || lod < 0.25)
            continue;
        const QRectF r = toView.mapRect(s->mapRectToScene(s->box()));
        const bool twoLines = lod >= 0.7 && s->box().width() > 60.0;
        if (frame.intersects(r))
            out.push_back({ QStringLiteral("switch ") + s->label(), r,
                (lod < 0.7         ? 18.0
                        : twoLines ? 9.0
                                   : 11.0)
                    * lod });
    }
    return out;
}

double FabricView::legendStageScale() const
{
    // The room's size, but never wider than the view: in a large hall on a 1280-pixel screen
    // the key would not fit; it keeps the width it has (its words still above a small room's).
    const double room = m_stagePx / kLegendRowPixels;
    const double width
        = (viewport()->width() - 20.0) / std::max(1.0, m_legend->boundingRect().width());
    return std::max(0.5, std::min(room, width));
}

QList<QRectF> FabricView::partRects(const QTransform &toView, const QRectF &frame) const
{
    QList<QRectF> out;
    if (m_root->isOverview())
        return out;
    for (int i = 0; i < m_root->fabric().servers(); ++i) {
        const ServerItem *s = m_root->serverItem(i);
        if (!s || !s->isVisible())
            continue;
        const QRectF r = toView.mapRect(s->sceneBoundingRect());
        if (frame.intersects(r))
            out << r;
        if (out.size() > kMaxPartRects)
            return {}; // chips too small to matter, and a quadratic layout to spare
    }
    for (const SwitchItem *s : m_root->switchItems()) {
        const QRectF r = toView.mapRect(s->mapRectToScene(s->box()));
        if (frame.intersects(r))
            out << r;
    }
    return out;
}

void FabricView::updateStage()
{
    if (m_inStageUpdate)
        return; // placing a note moves no view, but be safe against re-entry
    m_inStageUpdate = true;
    const QTransform toView = viewportTransform();
    const QRectF frame(viewport()->rect());
    if (m_stagePx > 0.0 && m_legend->scale() != legendStageScale())
        m_legend->setScale(legendStageScale()); // the view's width changed
    QList<QRectF> obstacles;
    obstacles << QRectF(QPointF(10, 10), m_legend->boundingRect().size() * m_legend->scale());
    if (m_stagePx > 0.0) {
        // The switches' names, the notes around them, the servers' names where room is left.
        m_stageLabels->relayout(
            toView, frame, m_stagePx, obstacles, StageLabelsItem::Parts::Switches);
        QList<QRectF> notes = obstacles;
        for (const StageLabelsItem::Label &label : m_stageLabels->labels())
            notes << label.view;
        // The servers' names' places count as parts of the picture for the notes: a note
        // takes one only when no free place is left, and that name then gives way.
        m_annotations->layoutForView(toView, frame, notes, partRects(toView, frame),
            m_stageLabels->serverNamePlaces(toView, frame, m_stagePx, notes));
        for (const AnnotationNoteItem *note : m_annotations->notes())
            obstacles << QRectF(toView.map(note->scenePos()), note->card().size());
        for (const QRectF &r : m_annotations->arrowLabelRects())
            obstacles << toView.mapRect(r);
        m_stageLabels->relayout(
            toView, frame, m_stagePx, obstacles, StageLabelsItem::Parts::Servers);
    } else {
        if (!m_document->scenario().annotations.empty())
            for (const TextBox &box : sceneTextBoxes())
                obstacles << box.rect;
        m_annotations->layoutForView(toView, frame, obstacles, partRects(toView, frame));
    }
    m_inStageUpdate = false;
}

QList<FabricView::TextBox> FabricView::textBoxes() const
{
    QList<TextBox> out;
    const QRectF frame(viewport()->rect());
    const QTransform toView = viewportTransform();
    if (m_legend->isVisible())
        out.push_back({ QStringLiteral("legend"),
            QRectF(toView.map(m_legend->scenePos()),
                m_legend->boundingRect().size() * m_legend->scale()),
            m_legend->smallestPixels() * m_legend->scale() });
    out << sceneTextBoxes();
    if (m_stagePx > 0.0 && m_stageLabels) {
        for (const StageLabelsItem::Label &label : m_stageLabels->labels())
            out.push_back({ QStringLiteral("name ") + label.part, label.view,
                double(m_stageLabels->font().pixelSize()) });
    }
    for (const AnnotationNoteItem *note : m_annotations->notes()) {
        const QRectF r(toView.map(note->scenePos()), note->card().size());
        out.push_back({ QStringLiteral("note %1").arg(note->index()), r, note->textPixels() });
    }
    const QHash<int, QRectF> arrows = m_annotations->arrowLabelRects();
    for (auto it = arrows.cbegin(); it != arrows.cend(); ++it)
        out.push_back({ QStringLiteral("arrow %1").arg(it.key()), toView.mapRect(it.value()),
            m_annotations->textPixels() });
    // Only what is on screen.
    out.erase(std::remove_if(out.begin(), out.end(),
                  [&frame](const TextBox &b) { return !frame.intersects(b.rect); }),
        out.end());
    std::sort(
        out.begin(), out.end(), [](const TextBox &a, const TextBox &b) { return a.what < b.what; });
    return out;
}

} // namespace railyard
