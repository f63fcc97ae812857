#pragma once

#include <QGraphicsItem>
#include <QGraphicsScene>
#include <QVariant>

namespace railyard {

/// The scene property set while presentation mode draws the fabric's names itself
/// (StageLabelsItem, at the room's size, beside what they name).
inline constexpr const char *kStageSceneProperty = "railyardStageLabels";

/// True while the stage draws the names: the items' own small names (a server's, a switch's,
/// a frame's, a few pixels high at a whole-fabric zoom) step aside so no text lies under them.
inline bool stageDrawsLabels(const QGraphicsItem *item)
{
    const QGraphicsScene *scene = item->scene();
    return scene && scene->property(kStageSceneProperty).toBool();
}

} // namespace railyard
