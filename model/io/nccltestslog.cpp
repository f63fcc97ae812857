#include "io/nccltestslog.h"

#include "base/fileio.h"
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/text.h"
#include "cost/collectiveestimate.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <utility>
#include <fcntl.h>
#include <unistd.h>

namespace railyard {

namespace {

constexpr long long kMaxLogBytes = 16ll << 20;

std::vector<std::string_view> words(std::string_view line)
{
    std::vector<std::string_view> out;
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r'))
            ++i;
        const std::size_t start = i;
        while (i < line.size() && line[i] != ' ' && line[i] != '\t' && line[i] != '\r')
            ++i;
        if (i > start)
            out.push_back(line.substr(start, i - start));
    }
    return out;
}

bool toInteger(std::string_view w, long long &out)
{
    const auto [end, ec] = std::from_chars(w.data(), w.data() + w.size(), out);
    return ec == std::errc() && end == w.data() + w.size();
}

bool toDouble(std::string_view w, double &out)
{
    // nccl-tests prints with printf("%.2f") and, for wide values, "%.1e"; strtod reads both.
    const std::string s(w);
    char *end = nullptr;
    errno = 0;
    out = std::strtod(s.c_str(), &end);
    return end == s.c_str() + s.size() && !s.empty() && errno != ERANGE && std::isfinite(out);
}

ScenarioError lineError(const std::string &file, int line, const std::string &reason)
{
    return ScenarioError(file + ":" + std::to_string(line), reason);
}

/// The `*_perf` binary a line names (a command line or "# Collective test concluded: X").
std::string binaryIn(std::string_view line)
{
    const std::size_t at = line.find("_perf");
    if (at == std::string_view::npos)
        return {};
    std::size_t start = at;
    while (start > 0) {
        const char c = line[start - 1];
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_'))
            break;
        --start;
    }
    return std::string(line.substr(start, at + 5 - start));
}

/// NCCL_ALGO's value if the line sets it.
std::string ncclAlgoIn(std::string_view line)
{
    for (const std::string_view key : { std::string_view("NCCL_ALGO="), std::string_view("NCCL_ALGO set by environment to ") }) {
        const std::size_t at = line.find(key);
        if (at == std::string_view::npos)
            continue;
        std::size_t end = at + key.size();
        while (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '"'
            && line[end] != '\'' && line[end] != '\r')
            ++end;
        return std::string(line.substr(at + key.size(), end - at - key.size()));
    }
    return {};
}

void setBinary(NcclTestsLog &log, const std::string &name, int line)
{
    if (name.empty())
        return;
    if (!log.binary.empty() && log.binary != name)
        throw lineError(log.file, line,
            "mixed ops: this log names " + name + " after " + log.binary
                + " (one log must hold one collective)");
    log.binary = name;
    log.op = ncclTestsCollective(name);
}

/** Where the columns of the result table are, read from its header line. */
struct Columns
{
    int count = 0; ///< columns of a data row (a -S timestamp may add words after them)
    int block[2] = { -1, -1 }; ///< first column (time) of the out-of-place and in-place blocks
    bool cpuTime = false;
    bool timestamp = false;
};

std::optional<Columns> headerColumns(const std::vector<std::string_view> &w)
{
    // "#  size count type redop root time algbw busbw #wrong [i_min i_max i_p99 i_cv%] ..."
    if (w.size() < 6 || w[0] != "#" || w[1] != "size" || w[2] != "count")
        return std::nullopt;
    Columns c;
    int blocks = 0;
    for (std::size_t i = 1; i < w.size(); ++i) {
        if (w[i] == "timestamp") {
            c.timestamp = true;
            continue;
        }
        if ((w[i] == "time" || w[i] == "cputime") && blocks < 2) {
            c.block[blocks++] = c.count;
            c.cpuTime = w[i] == "cputime";
        }
        ++c.count;
    }
    if (blocks == 0)
        return std::nullopt;
    return c;
}

NcclTestsTiming readBlock(const std::vector<std::string_view> &w, int at, const NcclTestsLog &log,
    int line, const char *which)
{
    NcclTestsTiming t;
    if (at < 0)
        return t;
    const auto number = [&](int i, const char *name) {
        double v = 0.0;
        if (!toDouble(w[static_cast<std::size_t>(i)], v) || v < 0.0)
            throw lineError(log.file, line,
                std::string(which) + " " + name + " '" + std::string(w[static_cast<std::size_t>(i)])
                    + "' is not a non-negative number");
        return v;
    };
    t.timeUs = number(at, "time");
    t.algbw = number(at + 1, "algbw");
    t.busbw = number(at + 2, "busbw");
    const std::string_view wrong = w[static_cast<std::size_t>(at + 3)];
    long long bad = 0;
    if (wrong != "N/A") { // -c 0 prints N/A: no check, nothing to refuse
        double d = 0.0;
        if (!toDouble(wrong, d) || d < 0.0)
            throw lineError(log.file, line,
                std::string(which) + " #wrong '" + std::string(wrong) + "' is not a count");
        bad = std::llround(d);
    }
    if (bad != 0)
        throw lineError(log.file, line,
            std::string(which) + " #wrong is " + std::to_string(bad)
                + ": nccl-tests found wrong results, so the run is not a valid measurement");
    if (!(t.timeUs > 0.0))
        throw lineError(log.file, line, std::string(which) + " time must be above 0 us");
    t.present = true;
    return t;
}

void checkRow(NcclTestsLog &log, const NcclTestsRow &r)
{
    if (!log.rows.empty()) {
        const NcclTestsRow &first = log.rows.front();
        if (r.type != first.type || r.redop != first.redop || r.root != first.root)
            throw lineError(log.file, r.line,
                "mixed ops: type/redop/root " + r.type + "/" + r.redop + "/"
                    + std::to_string(r.root) + " differ from the first row's " + first.type + "/"
                    + first.redop + "/" + std::to_string(first.root));
        if (r.bytes <= log.rows.back().bytes)
            throw lineError(log.file, r.line,
                "size " + std::to_string(r.bytes) + " does not grow from the row before ("
                    + std::to_string(log.rows.back().bytes) + "): two sweeps in one log?");
    }
    if (r.bytes < 0)
        throw lineError(log.file, r.line, "size must not be negative");
    if (!r.outOfPlace.present && !r.inPlace.present)
        throw lineError(log.file, r.line, "the row has no timing");
    log.rows.push_back(r);
}

void parseText(std::string_view text, NcclTestsLog &log)
{
    std::optional<Columns> cols;
    int lineNo = 0;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        // Open MPI's --tag-output prefixes every line with "[job,rank]<stdout>:".
        if (!line.empty() && line.front() == '[') {
            const std::size_t tag = line.find("]<stdout>:");
            if (tag != std::string_view::npos && tag < 24)
                line.remove_prefix(tag + 10);
        }
        ++lineNo;
        const std::vector<std::string_view> w = words(line);
        if (w.empty())
            continue;
        if (const std::string algo = ncclAlgoIn(line); !algo.empty())
            log.ncclAlgo = algo;
        // NCCL's banner ("host:1:1 [0] NCCL INFO NCCL version 2.26.2+cuda12.8").
        if (const std::size_t at = line.find("NCCL version "); at != std::string_view::npos
            && at + 13 < line.size() && std::isdigit(static_cast<unsigned char>(line[at + 13]))
            && log.ncclVersion.empty()) {
            const std::string_view v = line.substr(at + 13);
            log.ncclVersion = std::string(v.substr(0, v.find_first_of("+ \r")));
        }
        if (w[0] == "#" || w[0].front() == '#') {
            if (auto c = headerColumns(w)) {
                if (cols && !log.rows.empty())
                    throw lineError(log.file, lineNo,
                        "a second result table: one log must hold one run");
                cols = c;
                log.cpuTime = c->cpuTime;
                continue;
            }
            const std::string body = trimmed(line.substr(line.find('#') + 1));
            if (body.rfind("Rank ", 0) == 0 && w.size() >= 7 && w[2] != "size") {
                // "#  Rank  3 Group  0 Pid 6902 on HOST device  3 [0000:0c:00] NAME"
                // An excerpt may list only some ranks: the world is the highest rank + 1.
                long long rank = 0;
                if (toInteger(w[2], rank) && rank >= 0 && rank < (1 << 20))
                    log.ranks = std::max(log.ranks, static_cast<int>(rank) + 1);
                for (std::size_t i = 0; i + 1 < w.size(); ++i)
                    if (w[i] == "on") {
                        log.hosts.emplace_back(w[i + 1]);
                        break;
                    }
                const std::size_t bracket = body.find(']');
                if (log.device.empty() && bracket != std::string::npos)
                    log.device = trimmed(std::string_view(body).substr(bracket + 1));
                continue;
            }
            if (body.rfind("Avg bus bandwidth", 0) == 0) {
                const std::size_t colon = body.find(':');
                const std::vector<std::string_view> v
                    = words(std::string_view(body).substr(colon == std::string::npos ? 0 : colon + 1));
                double bw = 0.0;
                if (colon == std::string::npos || v.empty() || !toDouble(v[0], bw) || bw < 0.0)
                    throw lineError(log.file, lineNo, "unreadable '# Avg bus bandwidth' footer");
                log.averageBusBw = bw;
                log.averageLine = lineNo;
                continue;
            }
            if (body.rfind("Out of bounds values", 0) == 0 && body.find("FAILED") != std::string::npos)
                throw lineError(log.file, lineNo,
                    "nccl-tests reports out-of-bounds values (FAILED): the run is not a valid "
                    "measurement");
            if (body.rfind("Collective test concluded:", 0) == 0) {
                setBinary(log, binaryIn(body), lineNo);
                continue;
            }
            continue;
        }
        // A command line quoted with the output (e.g. "> mpirun ... all_reduce_perf -b 8").
        if (!cols) {
            const std::string b = binaryIn(line);
            if (!b.empty()) {
                setBinary(log, b, lineNo);
                for (const std::string_view a : w)
                    log.args.emplace_back(a);
            }
            continue;
        }
        long long bytes = 0;
        if (!toInteger(w[0], bytes))
            continue; // NCCL INFO / WARN lines and other chatter between rows
        if (static_cast<int>(w.size()) < cols->count)
            throw lineError(log.file, lineNo,
                "truncated row: " + std::to_string(w.size()) + " columns where the header has "
                    + std::to_string(cols->count));
        if (static_cast<int>(w.size()) > cols->count && !cols->timestamp)
            throw lineError(log.file, lineNo,
                "row has " + std::to_string(w.size()) + " columns where the header has "
                    + std::to_string(cols->count));
        NcclTestsRow r;
        r.line = lineNo;
        r.bytes = bytes;
        long long root = 0;
        if (!toInteger(w[1], r.count) || !toInteger(w[4], root))
            throw lineError(log.file, lineNo, "count and root must be integers");
        r.type = std::string(w[2]);
        r.redop = std::string(w[3]);
        r.root = static_cast<int>(root);
        r.outOfPlace = readBlock(w, cols->block[0], log, lineNo, "out-of-place");
        r.inPlace = readBlock(w, cols->block[1], log, lineNo, "in-place");
        checkRow(log, r);
    }
}

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

NcclTestsTiming jsonBlock(const nlohmann::json &row, const char *key, const std::string &at,
    NcclTestsLog &log)
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
        throw ScenarioError(log.file + ": " + path,
            "truncated result: time, alg_bw and bus_bw are all needed");
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

void parseJson(std::string_view text, NcclTestsLog &log)
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
        if (const nlohmann::json *devices = member(*config, "devices"); devices && devices->is_array()) {
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
    for (std::size_t i = 0; i < results->size(); ++i) {
        const nlohmann::json &row = (*results)[i];
        const std::string at = "results[" + std::to_string(i) + "]";
        if (!row.is_object())
            throw ScenarioError(log.file + ": " + at, "must be an object");
        NcclTestsRow r;
        r.line = static_cast<int>(i) + 1;
        const nlohmann::json *size = member(row, "size");
        if (!size || !size->is_number_integer())
            throw ScenarioError(log.file + ": " + at + ".size", "truncated result: no integer size");
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
        if (const nlohmann::json *ok = member(*oob, "okay"); ok && ok->is_boolean() && !ok->get<bool>())
            throw ScenarioError(log.file + ": out_of_bounds",
                "nccl-tests reports out-of-bounds values: the run is not a valid measurement");
    }
    if (const nlohmann::json *avg = member(doc, "average_bus_bandwidth")) {
        if (const nlohmann::json *bw = member(*avg, "bandwidth"); bw && bw->is_number())
            log.averageBusBw = bw->get<double>();
    }
}

} // namespace

namespace {

} // namespace

NcclTestsLog parseNcclTestsLog(std::string_view text, const std::string &file)
{
    NcclTestsLog log;
    log.file = file;
    std::size_t first = 0;
    while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])))
        ++first;
    if (first < text.size() && text[first] == '{')
        parseJson(text, log);
    else
        parseText(text, log);
    if (log.rows.empty())
        throw ScenarioError(file,
            "no nccl-tests result rows (expected the 'size count type redop root time algbw "
            "busbw #wrong' table or a -J JSON file with results[])");
    return log;
}

NcclTestsLog readNcclTestsLog(const std::string &path)
{
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        throw ScenarioError(path, "cannot open: " + errnoText(errno));
    std::string text;
    try {
        text = readAllLimited(fd, path, kMaxLogBytes);
    } catch (...) {
        ::close(fd);
        throw;
    }
    ::close(fd);
    return parseNcclTestsLog(text, path);
}

} // namespace railyard
