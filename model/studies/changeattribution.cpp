#include "studies/changeattribution.h"

#include "io/reportjson.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <vector>

namespace railyard {

namespace {

/// A time change below this share of A's iteration is not what an explanation is about: the
/// GUI shows iteration times to four significant digits, so 0.1 % is below what a student can
/// read off the summary bar.
constexpr double kSignificantTime = 1e-3;

std::string seconds(double s)
{
    return s == 0.0 ? std::string("0 s") : formatSeconds(s);
}

std::string bytes(double b)
{
    return b == 0.0 ? std::string("0 B") : formatBytes(b);
}

std::string percentOneDecimal(double f)
{
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f %%", f * 100.0);
    return buf;
}

std::string upper(std::string_view name)
{
    std::string s(name);
    for (char &ch : s)
        ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
    return s;
}

std::string signedSeconds(double d)
{
    return (d >= 0.0 ? "+" : "-") + seconds(std::abs(d));
}

/// "on the spine tier from 0 B to 1.03 TB and on the leaf tier from 0 B to 1.52 TB": the tiers
/// whose bytes changed by at least a tenth of the largest change, the farthest from the GPU
/// first (a byte on a spine costs more ports than one on NVLink), at most `most`.
std::string tierChanges(const DimAttribution &d, int most)
{
    double largest = 0.0;
    for (Tier t : kAllTiers)
        largest = std::max(largest, std::abs(d.bytesDelta(t)));
    std::string out;
    int listed = 0;
    for (auto it = kAllTiers.rbegin(); it != kAllTiers.rend() && listed < most; ++it) {
        const Tier t = *it;
        const double delta = std::abs(d.bytesDelta(t));
        if (delta == 0.0 || delta < 0.1 * largest)
            continue;
        out += listed == 0 ? "" : " and ";
        out += "on the " + tierLabel(t) + " tier from " + bytes(d.bytesA[index(t)]) + " to "
            + bytes(d.bytesB[index(t)]);
        ++listed;
    }
    return out;
}

} // namespace

double DimAttribution::bytesMoved() const
{
    double sum = 0.0;
    for (Tier t : kAllTiers)
        sum += std::abs(bytesDelta(t));
    return sum;
}

std::string ChangeAttribution::dominantName() const
{
    switch (dominant) {
    case Cause::Dimension:
        return upper(dimName(dominantDim));
    case Cause::Schedule:
        return "compute and pipeline bubble";
    case Cause::None:
        break;
    }
    return {};
}

std::string tierLabel(Tier t)
{
    switch (t) {
    case Tier::ScaleUp:
        return "scale-up";
    case Tier::Pcie:
        return "PCIe";
    case Tier::Leaf:
        return "leaf";
    case Tier::Spine:
        return "spine";
    case Tier::SuperSpine:
        return "super-spine";
    }
    return {};
}

ChangeAttribution attributeChange(const CostReport &a, const CostReport &b)
{
    ChangeAttribution c;
    c.iterationA = a.iterationTime;
    c.iterationB = b.iterationTime;
    c.bubbleA = a.bubbleFraction;
    c.bubbleB = b.bubbleFraction;
    c.scheduleA = a.iterationTime;
    c.scheduleB = b.iterationTime;
    for (Dim d : kAllDims) {
        const auto i = static_cast<std::size_t>(index(d));
        DimAttribution &x = c.dims[i];
        x.dim = d;
        for (Tier t : kAllTiers) {
            x.bytesA[index(t)] = a.tierBytes[static_cast<std::size_t>(index(t))][i];
            x.bytesB[index(t)] = b.tierBytes[static_cast<std::size_t>(index(t))][i];
        }
        x.exposedA = a.dimExposed[i];
        x.exposedB = b.dimExposed[i];
        c.scheduleA -= x.exposedA;
        c.scheduleB -= x.exposedB;
    }

    // The largest time change: a dimension's exposed time, or the rest of the iteration.
    double largest = std::abs(c.scheduleDelta());
    c.dominant = ChangeAttribution::Cause::Schedule;
    for (const DimAttribution &x : c.dims)
        if (std::abs(x.exposedDelta()) > largest) {
            largest = std::abs(x.exposedDelta());
            c.dominant = ChangeAttribution::Cause::Dimension;
            c.dominantDim = x.dim;
        }
    c.byTime = largest >= kSignificantTime * std::max(a.iterationTime, b.iterationTime);
    if (c.byTime)
        return c;

    // No time changed visibly: the dimension whose traffic moved most between tiers.
    double moved = 0.0;
    c.dominant = ChangeAttribution::Cause::None;
    for (const DimAttribution &x : c.dims)
        if (x.bytesMoved() > moved) {
            moved = x.bytesMoved();
            c.dominant = ChangeAttribution::Cause::Dimension;
            c.dominantDim = x.dim;
        }
    return c;
}

std::string describeChange(const ChangeAttribution &c)
{
    using Cause = ChangeAttribution::Cause;
    if (c.dominant == Cause::None)
        return {};
    std::string out;
    if (c.byTime) {
        out = "The iteration went from " + seconds(c.iterationA) + " to " + seconds(c.iterationB)
            + " (" + signedSeconds(c.iterationB - c.iterationA) + "). ";
    } else {
        out = "The iteration time stayed at " + seconds(c.iterationB)
            + " (no time changed by 0.1 % of it). ";
    }
    if (c.dominant == Cause::Schedule) {
        out += "The engine puts most of the change on compute and the pipeline bubble: they "
               "went from "
            + seconds(c.scheduleA) + " to " + seconds(c.scheduleB) + " (bubble "
            + percentOneDecimal(c.bubbleA) + " to " + percentOneDecimal(c.bubbleB) + ").";
    } else {
        const DimAttribution &d = c.dim(c.dominantDim);
        const std::string name = upper(dimName(d.dim));
        const std::string tiers = tierChanges(d, 2);
        const std::string exposed = d.exposedA == d.exposedB
            ? "its exposed time stayed at " + seconds(d.exposedB)
            : "its exposed time went from " + seconds(d.exposedA) + " to " + seconds(d.exposedB);
        if (c.byTime)
            out += "The engine puts most of the change on " + name + ": " + exposed
                + (tiers.empty() ? std::string(".") : ", and its bytes " + tiers + ".");
        else
            out += "What changed most is where " + name + "'s bytes go: " + tiers + "; " + exposed
                + ".";
    }

    // The other dimensions that changed, largest time change first.
    std::vector<const DimAttribution *> others;
    for (const DimAttribution &x : c.dims)
        if ((c.dominant != Cause::Dimension || x.dim != c.dominantDim)
            && (x.exposedDelta() != 0.0 || x.bytesMoved() > 0.0))
            others.push_back(&x);
    std::stable_sort(others.begin(), others.end(), [](const auto *x, const auto *y) {
        return std::abs(x->exposedDelta()) != std::abs(y->exposedDelta())
            ? std::abs(x->exposedDelta()) > std::abs(y->exposedDelta())
            : x->bytesMoved() > y->bytesMoved();
    });
    constexpr std::size_t kMostOthers = 2; // a paragraph, not a table: Compare A/B has the rest
    for (std::size_t i = 0; i < std::min(others.size(), kMostOthers); ++i) {
        const DimAttribution &x = *others[i];
        out += (i == 0 ? " Smaller: " : "; ") + upper(dimName(x.dim)) + " exposed "
            + seconds(x.exposedA) + " to " + seconds(x.exposedB);
        const std::string tiers = tierChanges(x, 1);
        if (!tiers.empty())
            out += ", bytes " + tiers;
    }
    if (!others.empty())
        out += ".";
    return out;
}

} // namespace railyard
