#pragma once

#include "cost/costreport.h"

#include <array>
#include <string>

namespace railyard {

/** What one parallel dimension did between two reports A and B: bytes per tier, exposed time. */
struct DimAttribution
{
    Dim dim = Dim::Tp;
    std::array<double, kTierCount> bytesA {}, bytesB {}; ///< link bytes per iteration, per tier
    double exposedA = 0.0, exposedB = 0.0; ///< critical-path seconds per iteration

    double exposedDelta() const { return exposedB - exposedA; }
    double bytesDelta(Tier t) const { return bytesB[index(t)] - bytesA[index(t)]; }
    /// Sum over tiers of |bytes B - bytes A|: how much of its traffic changed place.
    double bytesMoved() const;
};

/**
 * Why the iteration changed between report A and report B, from the engine's own figures: per
 * dimension the bytes on each tier and the exposed time before and after, the rest of the
 * iteration (compute and pipeline bubble, what no dimension's exposed time accounts for), and
 * which of these dominates the change. A lesson's explanation and the Compare panel's "what
 * changed" line are written from this, never by hand.
 */
struct ChangeAttribution
{
    enum class Cause { None, Dimension, Schedule };

    std::array<DimAttribution, kDimCount> dims {};
    double iterationA = 0.0, iterationB = 0.0;
    /// Iteration time minus the sum of exposed times: compute and pipeline bubble.
    double scheduleA = 0.0, scheduleB = 0.0;
    double bubbleA = 0.0, bubbleB = 0.0;
    Cause dominant = Cause::None;
    Dim dominantDim = Dim::Tp; ///< when dominant == Dimension
    /// The dominant cause was found by time (some time changed by at least 0.1 % of the
    /// iteration); false: by the bytes that moved between tiers.
    bool byTime = false;

    const DimAttribution &dim(Dim d) const { return dims[static_cast<std::size_t>(index(d))]; }
    double scheduleDelta() const { return scheduleB - scheduleA; }
    /// "TP", "DP", ... for a dimension; "compute and pipeline bubble" for Schedule; "" for None.
    std::string dominantName() const;
};

/// Compares two reports of the same job (before and after an edit). The dominant cause is the
/// one whose time changed most, when some time changed by at least 0.1 % of A's iteration;
/// otherwise the dimension whose bytes moved most between tiers (a change hidden under
/// compute still moves traffic); None when nothing changed.
ChangeAttribution attributeChange(const CostReport &a, const CostReport &b);

/// A paragraph saying what the engine attributes the change to: the iteration time, the
/// dominant cause with its exposed time and the tiers its bytes moved between, then the other
/// dimensions that changed. Empty when nothing changed.
std::string describeChange(const ChangeAttribution &c);

/// "scale-up", "PCIe", "leaf", "spine", "super-spine".
std::string tierLabel(Tier t);

} // namespace railyard
