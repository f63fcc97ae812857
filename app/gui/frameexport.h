#pragma once

#include <QImage>
#include <QList>
#include <QString>

namespace railyard {

/**
 * Animated PNG (APNG) by hand: Qt's image writers on Debian 12 have no GIF or APNG writer, but
 * every frame Qt writes as a PNG is an APNG frame already. The file is the first frame's PNG
 * with an acTL chunk (frame count, loop forever) and an fcTL chunk (size, delay) before each
 * frame's image data: IDAT for the first frame, fdAT (a sequence number, then the IDAT bytes)
 * for the others (the APNG specification, wiki.mozilla.org/APNG_Specification). A viewer without
 * APNG shows the first frame.
 */
namespace frameexport {

/// Writes `frames` (all the same size) to `path` as an APNG showing each for `delayMs`
/// milliseconds; false with `error` set when a frame cannot be encoded or the file written.
bool writeApng(const QString &path, const QList<QImage> &frames, int delayMs, QString *error);

/// The CRC-32 PNG chunks carry (ISO 3309, the PNG specification's sample code), over `data`.
quint32 crc32(const QByteArray &data);

} // namespace frameexport

} // namespace railyard
