// The -J JSON form of nccl-tests output (parseNcclTestsLogs in nccltestslog.cpp reads the text).
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/text.h"
#include "io/nccltestsdetail.h"

#include <nlohmann/json.hpp>

#include <cmath>

namespace railyard::nccltestsdetail {

namespace {

const nlohmann::json *member(const nlohmann::json &o, const char *key)
{
    if (!o.is_object())
        return nullptr;
    const auto &members = o.get_ref<const nlohmann::json::object_t &>();
    const auto it = members.find(key);
    return it == members.end() || it->second.is_null() ? nullptr : &it->second;
}

double jsonValue(const nlohmann::json &v, const std::string &field, const NcclTestsLog &log)
{
    // nccl-tests writes "nan" as a string for a NaN (src/util.cu jsonDouble).
    if (!v.is_number())
        throw ScenarioError(log.file + ": " + field, "must be a number, not " + jsonTypeName(v));
    const double d = v.get<double>();
    if (!std::isfinite(d) || d < 0.0)
        throw ScenarioError(log.file + ": " + field, "must be a finite non-negative number");
    return d;
}

NcclTestsTiming jsonBlock(
    const nlohmann::json &row, const char *key, const std::string &at, NcclTestsLog &log)
{
    NcclTestsTiming t;
    const nlohmann::json *b = member(row, key);
    if (!b)
        return t;
    const std::string path = at + "." + key;
    if (!b->is_object())
        throw ScenarioError(log.file + ": " + path, "must be an object");
    const nlohmann::json *time = member(*b, "time");
    if (!time) {
        time = member(*b, "cpu_time");
        log.cpuTime = time != nullptr;
    }
    const nlohmann::json *alg = member(*b, "alg_bw");
    const nlohmann::json *bus = member(*b, "bus_bw");
    if (!time || !alg || !bus)
        throw ScenarioError(
            log.file + ": " + path, "truncated result: time, alg_bw and bus_bw are all needed");
    t.timeUs = jsonValue(*time, path + ".time", log);
    t.algbw = jsonValue(*alg, path + ".alg_bw", log);
    t.busbw = jsonValue(*bus, path + ".bus_bw", log);
    if (const nlohmann::json *w = member(*b, "nwrong")) {
        const double bad = jsonValue(*w, path + ".nwrong", log);
        if (bad != 0.0)
            throw ScenarioError(log.file + ": " + path + ".nwrong",
                "is " + std::to_string(std::llround(bad))
                    + ": nccl-tests found wrong results, so the run is not a valid measurement");
    }
    if (!(t.timeUs > 0.0))
        throw ScenarioError(log.file + ": " + path + ".time", "must be above 0 us");
    t.present = true;
    return t;
}

std::string jsonText(const nlohmann::json *v)
{
    return v && v->is_string() ? v->get<std::string>() : std::string();
}

} // namespace

void parseNcclTestsJson(std::string_view text, NcclTestsLog &log)
{
    log.json = true;
    nlohmann::json doc;
    try {
        doc = parseJsonGuarded(std::string(text), 16);
    } catch (const ScenarioError &e) {
        throw ScenarioError(e.field().empty() ? log.file : log.file + ": " + e.field(), e.reason());
    } catch (const nlohmann::json::exception &e) {
        throw ScenarioError(log.file, std::string("not valid JSON: ") + e.what());
    }
    if (!doc.is_object())
        throw ScenarioError(log.file, "the nccl-tests JSON must be an object");
    if (const nlohmann::json *args = member(doc, "args"); args && args->is_array()) {
        for (const nlohmann::json &a : *args) {
            log.args.push_back(jsonText(&a));
            setBinary(log, binaryIn(log.args.back()), 1);
        }
    }
    if (const nlohmann::json *env = member(doc, "env"); env && env->is_array())
        for (const nlohmann::json &e : *env)
            if (const std::string algo = ncclAlgoIn(jsonText(&e)); !algo.empty())
                log.ncclAlgo = algo;
    if (const nlohmann::json *v = member(doc, "nccl_version"); v && v->is_number_integer())
        log.ncclVersion = std::to_string(v->get<long long>());
    log.startTime = jsonText(member(doc, "start_time"));
    if (const nlohmann::json *config = member(doc, "config")) {
        if (const nlohmann::json *devices = member(*config, "devices");
            devices && devices->is_array()) {
            log.ranks = static_cast<int>(devices->size());
            for (const nlohmann::json &d : *devices) {
                log.hosts.push_back(jsonText(member(d, "hostname")));
                if (log.device.empty())
                    log.device = jsonText(member(d, "device_info"));
            }
        }
    }
    const nlohmann::json *results = member(doc, "results");
    if (!results || !results->is_array())
        throw ScenarioError(log.file + ": results", "missing: the file has no results[] list");
    if (results->size() > kMaxLogRows)
        throw ScenarioError(log.file + ": results",
            std::to_string(results->size()) + " results, more than " + std::to_string(kMaxLogRows)
                + " (a real sweep has at most a few hundred sizes)");
    for (std::size_t i = 0; i < results->size(); ++i) {
        const nlohmann::json &row = (*results)[i];
        const std::string at = "results[" + std::to_string(i) + "]";
        if (!row.is_object())
            throw ScenarioError(log.file + ": " + at, "must be an object");
        NcclTestsRow r;
        r.line = static_cast<int>(i) + 1;
        const nlohmann::json *size = member(row, "size");
        if (!size || !size->is_number_integer())
            throw ScenarioError(
                log.file + ": " + at + ".size", "truncated result: no integer size");
        r.bytes = size->get<long long>();
        if (const nlohmann::json *count = member(row, "count"); count && count->is_number_integer())
            r.count = count->get<long long>();
        r.type = jsonText(member(row, "type"));
        r.redop = jsonText(member(row, "redop"));
        const std::string root = trimmed(jsonText(member(row, "root")));
        long long rootValue = -1;
        if (!root.empty() && !toInteger(root, rootValue))
            throw ScenarioError(log.file + ": " + at + ".root", "must be an integer");
        r.root = static_cast<int>(rootValue);
        r.outOfPlace = jsonBlock(row, "out_of_place", at, log);
        r.inPlace = jsonBlock(row, "in_place", at, log);
        try {
            checkRow(log, r);
        } catch (const ScenarioError &e) {
            throw ScenarioError(log.file + ": " + at, e.reason());
        }
    }
    if (const nlohmann::json *oob = member(doc, "out_of_bounds")) {
        if (const nlohmann::json *ok = member(*oob, "okay");
            ok && ok->is_boolean() && !ok->get<bool>())
            throw ScenarioError(log.file + ": out_of_bounds",
                "nccl-tests reports out-of-bounds values: the run is not a valid measurement");
    }
    if (const nlohmann::json *avg = member(doc, "average_bus_bandwidth")) {
        if (const nlohmann::json *bw = member(*avg, "bandwidth"); bw && bw->is_number())
            log.averageBusBw = bw->get<double>();
    }
}

} // namespace railyard::nccltestsdetail
