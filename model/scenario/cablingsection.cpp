#include "scenario/cablingsection.h"

#include "base/jsonfields.h"
#include "base/physicalranges.h"
#include "base/scenarioerror.h"
#include "base/sizelimits.h"
#include "base/text.h"

#include <string>

namespace railyard {

nlohmann::json cablingToJson(const std::vector<Cable> &cabling)
{
    nlohmann::json out = nlohmann::json::array();
    for (const Cable &c : cabling) {
        nlohmann::json row = { c.aDevice, c.aPort, c.bDevice, c.bPort, c.gbps };
        if (c.latencyUs >= 0.0)
            row.push_back(c.latencyUs);
        out.push_back(std::move(row));
    }
    return out;
}

std::vector<Cable> readCabling(const nlohmann::json &value)
{
    const std::string path = "fabric.cabling";
    if (!value.is_array())
        throw ScenarioError(path, "expected an array of cables, got " + jsonTypeName(value));
    if (value.size() > static_cast<std::size_t>(limits::kMaxLinks / 2))
        throw ScenarioError(path,
            std::to_string(value.size()) + " cables exceed the limit of "
                + std::to_string(limits::kMaxLinks / 2));
    std::vector<Cable> out;
    out.reserve(value.size());
    for (std::size_t i = 0; i < value.size(); ++i) {
        const std::string at = jsonElementPath(path, i);
        const nlohmann::json &row = value[i];
        if (!row.is_array() || row.size() < 5 || row.size() > 6)
            throw ScenarioError(at,
                "expected [a_device, a_port, b_device, b_port, gbps"
                "(, latency_us)], got "
                    + jsonQuote(row));
        const auto text = [&](std::size_t k) {
            const nlohmann::json &v = row[k];
            if (!v.is_string() || v.get_ref<const std::string &>().empty()
                || v.get_ref<const std::string &>().size() > limits::kMaxNameBytes
                || !isPrintableUtf8(v.get_ref<const std::string &>()))
                throw ScenarioError(jsonElementPath(at, k),
                    "expected a device or port name (1 to " + std::to_string(limits::kMaxNameBytes)
                        + " printable characters), got " + jsonQuote(v));
            return v.get<std::string>();
        };
        Cable c;
        c.aDevice = text(0);
        c.aPort = text(1);
        c.bDevice = text(2);
        c.bPort = text(3);
        c.gbps = jsonNumber(
            row[4], jsonElementPath(at, 4), ranges::kMinLinkGbps, ranges::kMaxLinkGbps);
        if (row.size() == 6)
            c.latencyUs = jsonNumber(row[5], jsonElementPath(at, 5), 0.0, ranges::kMaxLatencyUs);
        out.push_back(std::move(c));
    }
    return out;
}

} // namespace railyard
