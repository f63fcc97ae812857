// The readable side of the failure remap: coordinates and degrees as text and the side-by-side
// table of `railyard-cli remap` and the remap dialog (failureremap.cpp computes what they show).
#include "studies/remaptext.h"

#include "io/reportjson.h"

#include <cstdio>

namespace railyard {

namespace {

std::string num(double v, const char *format)
{
    char text[64];
    std::snprintf(text, sizeof text, format, v);
    return text;
}

std::string percentOneDecimal(double v)
{
    return num(100.0 * v, "%.1f %%");
}

/// " (+3.1 %)" relative change against the healthy value.
std::string change(double now, double before)
{
    if (before == 0.0)
        return "";
    return num(100.0 * (now / before - 1.0), " (%+.1f %%)");
}

} // namespace

std::string rankCoordText(const RankCoord &c, const ParallelDegrees &degrees)
{
    std::string text
        = "(d " + std::to_string(c.d) + ", p " + std::to_string(c.p) + ", t " + std::to_string(c.t);
    if (degrees.cp > 1)
        text += ", c " + std::to_string(c.c);
    if (degrees.ep > 1)
        text += ", e " + std::to_string(c.e);
    return text + ")";
}

std::vector<std::vector<std::string>> remapComparisonRows(const std::vector<RemapResult> &results)
{
    std::vector<std::vector<std::string>> rows;
    if (results.empty())
        return rows;
    const RemapSummary &h = results.front().healthy;
    const auto row = [&](const std::string &label, auto healthyText, auto resultText) {
        std::vector<std::string> cells { label, healthyText(h) };
        for (const RemapResult &r : results)
            cells.push_back(r.possible ? resultText(r) : "-");
        rows.push_back(std::move(cells));
    };
    std::vector<std::string> header { "", "healthy" };
    for (const RemapResult &r : results)
        header.emplace_back(remapStrategyName(r.strategy));
    rows.push_back(header);

    const auto same
        = [](auto text) { return [text](const RemapResult &r) { return text(r.result); }; };
    const auto ranks = [](const RemapSummary &s) { return std::to_string(s.ranks); };
    row("ranks", ranks, same(ranks));
    const auto degrees = [](const RemapSummary &s) { return degreeText(s.degrees); };
    row("degrees", degrees, same(degrees));
    const auto batch = [](const RemapSummary &s) {
        return std::to_string(s.globalBatch) + " (" + std::to_string(s.microbatches)
            + " mb/replica)";
    };
    row("global batch", batch, same(batch));
    row(
        "iteration time", [](const RemapSummary &s) { return formatSeconds(s.iterationTime); },
        [&](const RemapResult &r) {
            return formatSeconds(r.result.iterationTime)
                + change(r.result.iterationTime, h.iterationTime);
        });
    row(
        "samples/s", [](const RemapSummary &s) { return num(s.samplesPerSecond, "%.2f"); },
        [&](const RemapResult &r) {
            return num(r.result.samplesPerSecond, "%.2f")
                + change(r.result.samplesPerSecond, h.samplesPerSecond);
        });
    const auto tokens = [](const RemapSummary &s) { return num(s.tokensPerSecond, "%.0f"); };
    row("tokens/s", tokens, same(tokens));
    const auto bubble = [](const RemapSummary &s) { return percentOneDecimal(s.bubble); };
    row("bubble", bubble, same(bubble));
    const auto mfu = [](const RemapSummary &s) { return percentOneDecimal(s.mfu); };
    row("MFU", mfu, same(mfu));
    const auto memory = [](const RemapSummary &s) {
        return formatBytes(s.memoryUsed) + " of " + formatBytes(s.deviceMemory)
            + (s.memoryDevice.empty() ? "" : " (" + s.memoryDevice + ")")
            + (s.memoryFits ? " (fits)" : " (DOES NOT FIT)");
    };
    row("memory max/rank", memory, same(memory));
    row(
        "memory growth", [](const RemapSummary &) { return std::string("1.00x"); },
        [](const RemapResult &r) { return num(r.memoryGrowth, "%.2fx"); });
    const auto tpAcross
        = [](const RemapSummary &s) { return std::to_string(s.tpGroupsAcrossServers); };
    row("TP groups across servers", tpAcross, same(tpAcross));
    const auto dpAcross
        = [](const RemapSummary &s) { return std::to_string(s.dpGroupsAcrossRails); };
    row("DP groups across rails", dpAcross, same(dpAcross));
    row(
        "stage imbalance (compute)",
        [](const RemapSummary &s) { return num(s.stageImbalance, "%.3f"); },
        [](const RemapResult &r) {
            return num(r.computeImbalance, "%.3f") + " (layers " + num(r.layerImbalance, "%.2f")
                + ")";
        });
    const auto spine = [](const RemapSummary &s) { return num(100.0 * s.spineShare, "%.2f %%"); };
    row("spine share", spine, same(spine));
    const auto p99 = [](const RemapSummary &s) { return num(s.linkP99, "%.3f"); };
    row("link utilisation p99", p99, same(p99));
    row(
        "ranks moved/renumbered/dropped", [](const RemapSummary &) { return std::string(""); },
        [](const RemapResult &r) {
            return std::to_string(r.ranksMoved) + " / " + std::to_string(r.ranksRenumbered) + " / "
                + std::to_string(r.ranksDropped);
        });
    std::vector<std::string> status { "status", "ok" };
    for (const RemapResult &r : results)
        status.push_back(!r.possible  ? std::string("impossible")
                : r.result.memoryFits ? "ok"
                                      : "shards do not fit in memory");
    rows.push_back(status);
    return rows;
}

std::string degreeText(const ParallelDegrees &d)
{
    std::string text = "tp " + std::to_string(d.tp) + " x pp " + std::to_string(d.pp) + " x dp "
        + std::to_string(d.dp);
    if (d.cp > 1)
        text += " x cp " + std::to_string(d.cp);
    if (d.ep > 1)
        text += " (ep " + std::to_string(d.ep) + ")";
    return text;
}

} // namespace railyard
