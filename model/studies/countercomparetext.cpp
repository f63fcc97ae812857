// The counters comparison as text and JSON (railyard-cli counters).

#include "fabric/fabric.h"
#include "studies/countercompare.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>

namespace railyard {

namespace {

std::string cctFixed(double v, int decimals)
{
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

/// Utilisation rounded to 0.1 %, as the text prints it.
double cctRound(double u)
{
    return std::round(u * 1e4) / 1e4;
}

} // namespace

std::string counterComparisonText(const Fabric &fabric, const CounterComparison &c)
{
    std::string s = "Port counters: " + std::to_string(c.ports) + " ports over "
        + cctFixed(c.window, 1) + " s, " + std::to_string(c.links.size())
        + " directed links measured\n";
    s += "\nDivergences, largest first (measured vs predicted utilisation, agreement within "
        + cctFixed(kCounterAgreement * 100.0, 0) + " points):\n";
    if (c.divergences.empty())
        s += "  none: every measured link is within the agreement of its prediction\n";
    int rank = 0;
    for (const CounterDivergence &d : c.divergences)
        s += "  " + std::to_string(++rank) + ". [" + divergenceCauseName(d.cause) + "] " + d.text
            + "\n";
    s += "\nMeasured links (utilisation measured / predicted, Gbit/s measured):\n";
    for (const MeasuredLink &m : c.links) {
        s += "  " + fabric.linkName(m.link) + "  " + cctFixed(m.measured * 100.0, 1) + " % / "
            + cctFixed(m.predicted * 100.0, 1) + " %  " + cctFixed(m.rate * 8e-9, 2) + " Gbit/s  ("
            + m.ports + ")\n";
    }
    if (!c.unmapped.empty()) {
        s += "\nPorts that map to no link (" + std::to_string(c.unmapped.size()) + "):\n";
        for (const std::string &u : c.unmapped)
            s += "  " + u + "\n";
    }
    return s;
}

nlohmann::json counterComparisonJson(const Fabric &fabric, const CounterComparison &c)
{
    nlohmann::json j;
    j["window_s"] = c.window;
    j["ports"] = c.ports;
    j["agreement"] = kCounterAgreement;
    nlohmann::json links = nlohmann::json::array();
    for (const MeasuredLink &m : c.links) {
        links.push_back({ { "link", m.link }, { "name", fabric.linkName(m.link) },
            { "tier", std::string(tierName(fabric.linkTier(m.link))) },
            { "measured_bytes_per_s", m.rate }, { "measured_utilisation", cctRound(m.measured) },
            { "predicted_utilisation", cctRound(m.predicted) }, { "ports", m.ports } });
    }
    j["links"] = std::move(links);
    nlohmann::json div = nlohmann::json::array();
    int rank = 0;
    for (const CounterDivergence &d : c.divergences) {
        div.push_back({ { "rank", ++rank }, { "link", d.link }, { "name", fabric.linkName(d.link) },
            { "cause", divergenceCauseName(d.cause) },
            { "measured_utilisation", cctRound(d.measured) },
            { "predicted_utilisation", cctRound(d.predicted) }, { "score", cctRound(d.score) },
            { "text", d.text } });
    }
    j["divergences"] = std::move(div);
    j["unmapped_ports"] = c.unmapped;
    return j;
}

} // namespace railyard
