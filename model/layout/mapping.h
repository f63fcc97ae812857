#pragma once

#include "fabric/fabric.h"
#include "fabric/failedcomponent.h"
#include "layout/parallellayout.h"
#include "layout/placement.h"

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace railyard {

/** One finding of Mapping::validate(). Errors make the mapping unusable; warnings do not. */
struct MappingIssue
{
    enum Severity { Warning, Error } severity = Error;
    std::string message; ///< one line, names ranks/slots involved
};

/**
 * Rank -> GPU slot, one rank per slot (slots = servers * G, there may be spare slots).
 * The inverse slot -> rank (-1 = empty) is kept in step by every mutation.
 */
class Mapping
{
public:
    Mapping() = default;
    /// A mapping from an explicit slot list (rank r on slot slots[r]); not validated here.
    explicit Mapping(std::vector<int> slotOfRank, int slotCount);

    /// Packed: rank r -> slot r (server r/G, GPU r mod G), as a launcher places ranks.
    /// RailAligned: every TP group on one server (when tp <= G) with shard t on GPU t, and
    ///   DP/CP peers of one shard on the same GPU index, hence the same rail; falls back to
    ///   packed order for what does not divide evenly.
    /// Scattered: round-robin over servers (rank r -> server r mod S): splits every TP group,
    ///   the deliberately bad layout for teaching.
    static Mapping place(Placement placement, const ParallelLayout &layout, const Fabric &fabric);

    int rankCount() const { return static_cast<int>(m_slotOfRank.size()); }
    int slotCount() const { return static_cast<int>(m_rankOfSlot.size()); }
    int slotOf(int rank) const { return m_slotOfRank[rank]; }
    int rankAt(int slot) const { return m_rankOfSlot[slot]; } ///< -1 when the slot is empty
    const std::vector<int> &slots() const { return m_slotOfRank; }

    /// Exchange the slots of two ranks.
    void swapRanks(int a, int b);
    /// Move rank to slot; if the slot holds another rank, the two swap.
    void moveRank(int rank, int slot);
    /// Puts each listed rank on its slot at once: the listed ranks trade slots among themselves
    /// or take free ones (the caller has checked that no slot is held by a rank not listed,
    /// cost/rankmoves.h). Touches only the listed ranks and slots.
    void placeRanks(const std::vector<std::pair<int, int>> &rankToSlot);

    /// Size mismatch, slot out of range, duplicate slot, rank missing (errors); a TP group
    /// split across servers, a DP group leaving its rail (warnings). Each message one line.
    std::vector<MappingIssue> validate(const ParallelLayout &layout, const Fabric &fabric) const;

    bool operator==(const Mapping &) const = default;

private:
    std::vector<int> m_slotOfRank;
    std::vector<int> m_rankOfSlot;
};

/// Throws ScenarioError("mapping", "rank 24 (d 3, p 0, t 0) is on slot 24 (node003/gpu0), which
/// is unusable: server:3 (node003) failed") for the first rank on an unusable slot. Does
/// nothing (and costs nothing) when `failures` is empty.
void checkRanksOnUsableSlots(const Mapping &mapping, const ParallelLayout &layout,
    const Fabric &fabric, const std::vector<FailedComponent> &failures);

} // namespace railyard
