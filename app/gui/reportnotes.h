#pragma once

#include <QString>

#include <utility>
#include <vector>

namespace railyard {

struct AnnotationAnchor;
class ScenarioDocument;

/**
 * The whiteboard in words, for the PDF report and the help text: each note and arrow with
 * what it is pinned to ("note on node003", "arrow rank 5 (d0 p0 t5) → node001/nic5 ->
 * leaf-su0-rail5"), each snapshot with its layout and how many ranks sit elsewhere now.
 */
class ReportNotes
{
public:
    struct Section
    {
        QString title;
        std::vector<std::pair<QString, QString>> rows; ///< (caption, text)
    };

    /// The sections with something in them (none for a document without notes or snapshots).
    static std::vector<Section> sections(const ScenarioDocument &doc);
    /// "node003", "rank 5 (d0 p0 t5)", "node001/nic5 -> leaf-su0-rail5"; "(not on this fabric)"
    /// appended when the anchor names nothing of the fabric on screen.
    static QString anchorName(const ScenarioDocument &doc, const AnnotationAnchor &anchor);
};

} // namespace railyard
