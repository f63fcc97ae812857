#include "frameexport.h"

#include <QBuffer>
#include <QFile>
#include <QtEndian>

#include <array>

namespace railyard::frameexport {

namespace {

/// The PNG specification's CRC table (polynomial 0xedb88320, reflected).
const std::array<quint32, 256> &crcTable()
{
    static const std::array<quint32, 256> table = [] {
        std::array<quint32, 256> t {};
        for (quint32 n = 0; n < 256; ++n) {
            quint32 c = n;
            for (int k = 0; k < 8; ++k)
                c = (c & 1u) ? 0xedb88320u ^ (c >> 1) : c >> 1;
            t[n] = c;
        }
        return t;
    }();
    return table;
}

QByteArray be32(quint32 v)
{
    QByteArray out(4, '\0');
    qToBigEndian(v, out.data());
    return out;
}

QByteArray be16(quint16 v)
{
    QByteArray out(2, '\0');
    qToBigEndian(v, out.data());
    return out;
}

QByteArray chunk(const char *type, const QByteArray &data)
{
    const QByteArray typed = QByteArray(type, 4) + data;
    return be32(static_cast<quint32>(data.size())) + typed + be32(crc32(typed));
}

struct Chunk
{
    QByteArray type;
    QByteArray data;
};

/// The chunks of one PNG file; empty when it is no PNG.
QList<Chunk> chunksOf(const QByteArray &png)
{
    QList<Chunk> out;
    static const QByteArray signature("\x89PNG\r\n\x1a\n", 8);
    if (!png.startsWith(signature))
        return out;
    qsizetype at = signature.size();
    while (at + 12 <= png.size()) {
        const quint32 length = qFromBigEndian<quint32>(png.constData() + at);
        if (at + 12 + static_cast<qsizetype>(length) > png.size())
            return {};
        out.push_back({ png.mid(at + 4, 4), png.mid(at + 8, length) });
        at += 12 + static_cast<qsizetype>(length);
    }
    return out;
}

} // namespace

quint32 crc32(const QByteArray &data)
{
    quint32 c = 0xffffffffu;
    for (const char ch : data)
        c = crcTable()[(c ^ static_cast<quint8>(ch)) & 0xffu] ^ (c >> 8);
    return c ^ 0xffffffffu;
}

bool writeApng(const QString &path, const QList<QImage> &frames, int delayMs, QString *error)
{
    const auto fail = [error](const QString &message) {
        if (error)
            *error = message;
        return false;
    };
    if (frames.isEmpty())
        return fail(QStringLiteral("no frames to write"));
    const QSize size = frames.first().size();
    QByteArray out("\x89PNG\r\n\x1a\n", 8);
    quint32 sequence = 0;
    for (qsizetype i = 0; i < frames.size(); ++i) {
        if (frames[i].size() != size)
            return fail(QStringLiteral("frame %1 is %2x%3, the first %4x%5")
                            .arg(i + 1)
                            .arg(frames[i].width())
                            .arg(frames[i].height())
                            .arg(size.width())
                            .arg(size.height()));
        // One pixel format for every frame, so that the first frame's IHDR describes them all.
        QByteArray png;
        QBuffer buffer(&png);
        buffer.open(QIODevice::WriteOnly);
        if (!frames[i].convertToFormat(QImage::Format_ARGB32).save(&buffer, "PNG"))
            return fail(QStringLiteral("frame %1 could not be encoded as PNG").arg(i + 1));
        const QList<Chunk> chunks = chunksOf(png);
        if (chunks.isEmpty() || chunks.first().type != "IHDR")
            return fail(QStringLiteral("frame %1: Qt wrote no PNG").arg(i + 1));
        if (i == 0) {
            out += chunk("IHDR", chunks.first().data);
            // acTL: the number of frames, 0 plays = loop forever.
            out += chunk("acTL", be32(static_cast<quint32>(frames.size())) + be32(0));
        }
        // fcTL: sequence, size, offset 0,0, delay delayMs/1000 s, dispose none, blend source.
        out += chunk("fcTL",
            be32(sequence++) + be32(static_cast<quint32>(size.width()))
                + be32(static_cast<quint32>(size.height())) + be32(0) + be32(0)
                + be16(static_cast<quint16>(delayMs)) + be16(1000) + QByteArray(1, '\0')
                + QByteArray(1, '\0'));
        for (const Chunk &c : chunks) {
            if (c.type != "IDAT")
                continue;
            if (i == 0)
                out += chunk("IDAT", c.data);
            else
                out += chunk("fdAT", be32(sequence++) + c.data);
        }
    }
    out += chunk("IEND", QByteArray());
    QFile file(path);
    if (!file.open(QIODevice::WriteOnly) || file.write(out) != out.size())
        return fail(QStringLiteral("%1: %2").arg(path, file.errorString()));
    return true;
}

} // namespace railyard::frameexport
