#pragma once

#include <QString>

#include <vector>

namespace railyard {

class ScenarioDocument;

/**
 * The texts of the fabric view's tooltips and status messages: links (both directions: bytes
 * per iteration, utilisation, busy time, the dimension contributing most), slots with their
 * rank, servers and switches. Every number is read from the document's report and formatted
 * with the engine's own formatBytes/formatSeconds, so the GUI and the CLI print the same.
 */
class FabricInfo
{
public:
    /// Rich-text tooltip of a cable (link id >> 1), both directions.
    static QString cableToolTip(const ScenarioDocument &doc, int cable);
    /// One line: the worse direction of a cable.
    static QString cableStatus(const ScenarioDocument &doc, int cable);
    /// Tooltip for a server-internal link (NVLink port or PCIe path), both directions.
    static QString internalLinkToolTip(const ScenarioDocument &doc, int link);
    /// An aggregated line: its cables, the worst few of them first.
    static QString bundleToolTip(const ScenarioDocument &doc, const std::vector<int> &cables);
    static QString bundleStatus(const ScenarioDocument &doc, const std::vector<int> &cables);
    static QString slotToolTip(const ScenarioDocument &doc, int slot);
    static QString slotStatus(const ScenarioDocument &doc, int slot);
    static QString serverToolTip(const ScenarioDocument &doc, int server);
    static QString switchToolTip(const ScenarioDocument &doc, int vertex);
    /// "rank 12 (d=1, p=0, t=4)".
    static QString rankLabel(const ScenarioDocument &doc, int rank);
    /// "node003/gpu5".
    static QString slotName(const ScenarioDocument &doc, int slot);
    /// "iteration 812 ms -> 845 ms (+4.1 %)" for a before/after pair.
    static QString iterationDelta(double before, double after);
};

} // namespace railyard
