#pragma once

#include "cost/costengine.h"
#include "studies/changeattribution.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace railyard {

/**
 * Side-by-side comparison of two evaluated placements, "A" (the baseline) and "B". It carries
 * the figures a network acceptance test compares before and after a placement change (spine
 * utilisation, p95/p99 link utilisation, job completion time, and per dimension the bytes and
 * exposed time), the links whose load changed most, and which ranks moved.
 */
struct ComparedFigure
{
    enum class Unit { Seconds, Fraction, Bytes, Count, PerSecond };
    enum class Better { Lower, Higher, Neither };

    std::string key; ///< stable JSON key, e.g. "iteration_time_s"
    std::string label; ///< "Iteration time"
    Unit unit = Unit::Seconds;
    Better better = Better::Lower;
    double a = 0.0;
    double b = 0.0;

    double delta() const { return b - a; }
    /// (b - a) / |a|; 0 when both are 0, +-infinity when only a is 0.
    double relative() const;
    /// Whether the change shows at the precision the figure is written with: fractions to
    /// 0.1 pp, counts to 1, the rest to 0.1 % of the larger side. A smaller difference is the
    /// order of floating-point sums or of a model's rounding, and is shown as "=".
    bool changed() const;
    /// +1 when B is better than A, -1 when worse, 0 when equal (unchanged()) or neither.
    int verdict() const;
};

/** One directed link whose load differs between A and B (same fabric topology only). */
struct LinkChange
{
    int link = -1;
    double bytesA = 0.0, bytesB = 0.0; ///< per iteration
    double utilisationA = 0.0, utilisationB = 0.0;
    double delta() const { return utilisationB - utilisationA; }
};

/** A rank, identified by its coordinates, whose slot differs (or that exists on one side only). */
struct RankMove
{
    RankCoord coord;
    int rankA = -1, rankB = -1; ///< global rank on each side; -1 = not in that layout
    int slotA = -1, slotB = -1;
};

struct Comparison
{
    std::string nameA, nameB;
    std::vector<ComparedFigure> figures;
    /// True when both fabrics have the same links (same ids, same endpoints), so per-link
    /// loads can be compared; bandwidths may differ.
    bool sameTopology = false;
    /// Links sorted by |utilisation change|, largest first; at most the requested count.
    std::vector<LinkChange> links;
    int changedLinkCount = 0; ///< every link whose bytes differ (not just the listed ones)
    /// Ranks whose slot differs, by coordinates (d,p,t,c,e); dropped and added ranks included.
    std::vector<RankMove> moved;
    int ranksCompared = 0; ///< ranks present in both layouts
    /// Per dimension the bytes per tier and exposed time on each side, and what dominates.
    ChangeAttribution attribution;

    const ComparedFigure *figure(const std::string &key) const;
};

/// Compares the current reports of two engines. `topLinks` bounds Comparison::links.
Comparison compareEngines(const CostEngine &a, const CostEngine &b, int topLinks = 20);

/// `railyard-cli compare --json`: {"a": name, "b": name, "figures": {key: {a, b, delta,
/// relative, better}}, "same_topology", "changed_links", "links": [...], "moved_ranks": [...]}.
/// Link names come from B's fabric.
nlohmann::json comparisonToJson(const Comparison &c, const Fabric &fabricB);
/// The human-readable table of `railyard-cli compare`.
std::string comparisonToText(const Comparison &c, const Fabric &fabricB, int maxRows = 10);

/// The figure value as the text report shows it ("12.3 ms", "45.6 %", "1.2 GB").
std::string formatFigure(ComparedFigure::Unit unit, double value);
/// The change from A to B: "+1.23 ms (+4.5 %)", "-2.1 pp" for fractions.
std::string formatFigureDelta(const ComparedFigure &f);

} // namespace railyard
