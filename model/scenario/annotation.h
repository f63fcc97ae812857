#pragma once

#include <string>
#include <string_view>

namespace railyard {

/**
 * What an annotation is pinned to: a server, a rank (the pin follows the rank when it moves)
 * or a directed link (by the engine's link id; either direction of a cable marks the cable).
 * Written "server:3", "rank:17", "link:240".
 */
struct AnnotationAnchor
{
    enum class Kind { Server, Rank, Link };
    Kind kind = Kind::Server;
    int index = 0;

    bool operator==(const AnnotationAnchor &) const = default;
};

/**
 * A whiteboard mark on the fabric, kept in the scenario file: a sticky note pinned to a
 * server, rank or link (drawn `offset` away from its pin, in fabric-layout units, with a line
 * back to it), or an arrow from one pin to another with an optional label.
 */
struct Annotation
{
    enum class Kind { Note, Arrow };
    Kind kind = Kind::Note;
    std::string text;        ///< the note, or the arrow's label (may be empty)
    AnnotationAnchor anchor; ///< a note's pin; an arrow's tail
    AnnotationAnchor target; ///< an arrow's head (notes: unused)
    double dx = 40.0;        ///< a note's offset from its pin (fabric-layout units)
    double dy = -60.0;
    std::string colour = "yellow"; ///< a note's paper: yellow, blue, green or pink
    /// The snapshot the mark is about (Snapshot::name): shown only while that snapshot is the
    /// mapping shown. Empty: shown with every mapping.
    std::string snapshot;

    bool operator==(const Annotation &) const = default;
};

/// "note" or "arrow".
std::string_view annotationKindName(Annotation::Kind kind);
/// "server:3", "rank:17", "link:240".
std::string anchorText(const AnnotationAnchor &anchor);
/// Parses anchorText()'s form; throws ScenarioError naming `field` when it is not one.
AnnotationAnchor parseAnchor(std::string_view text, const std::string &field);
/// The note colours a file may name, in menu order.
inline constexpr std::string_view kNoteColours[] = {"yellow", "blue", "green", "pink"};

} // namespace railyard
