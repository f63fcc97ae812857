#pragma once

#include <QChar>
#include <QIcon>

namespace railyard {

enum class Placement;

/**
 * Small painted icons for Railyard's own actions (no image files to ship): the presets draw
 * a 4 x 4 grid of GPU slots coloured by tensor shard, the chip colourings a chip with its
 * letter, the view actions a magnifier. Each icon carries 1x and 2x pixmaps for high-DPI.
 */
QIcon placementIcon(Placement placement);
QIcon colourByIcon(QChar coordinate);
QIcon zoomIcon(int direction); ///< +1 zoom in, -1 zoom out, 0 fit
/// A theme icon when the platform has one, else the style's standard icon.
QIcon themedIcon(const char *themeName, int standardPixmap);

} // namespace railyard
