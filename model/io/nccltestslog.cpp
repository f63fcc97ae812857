#include "io/nccltestslog.h"

#include "base/fileio.h"
#include "base/jsonfields.h"
#include "base/scenarioerror.h"
#include "base/text.h"
#include "cost/collectiveestimate.h"
#include "io/launcherlabels.h"
#include "io/nccltestsdetail.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fcntl.h>
#include <unistd.h>
#include <utility>

namespace railyard {

namespace {

constexpr long long kMaxLogBytes = 16ll << 20;

} // namespace

namespace nccltestsdetail {

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
    for (const std::string_view key :
        { std::string_view("NCCL_ALGO="), std::string_view("NCCL_ALGO set by environment to ") }) {
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

} // namespace nccltestsdetail

namespace {

using namespace nccltestsdetail;

/** Where the columns of the result table are, read from its header line. */
struct Columns
{
    int count = 0; ///< columns of a data row (a -S timestamp may add words after them)
    int block[2] = { -1, -1 }; ///< first column (time) of the out-of-place and in-place blocks
    bool cpuTime = false;
    bool timestamp = false;
};

/// The words of a line without its leading '#' ("#  size" and "#size" alike).
std::vector<std::string_view> unhashed(std::vector<std::string_view> w)
{
    if (!w.empty() && w[0] == "#")
        w.erase(w.begin());
    else if (!w.empty() && w[0].size() > 1 && w[0].front() == '#')
        w[0].remove_prefix(1);
    return w;
}

/// A column name of the result table's timing blocks: what a header's wrapped second line
/// holds ("time algbw busbw #wrong", -I 1's i_* columns, -S's timestamp).
bool timingColumn(std::string_view w)
{
    return w == "time" || w == "cputime" || w == "algbw" || w == "busbw" || w == "#wrong"
        || w == "timestamp" || w.rfind("i_", 0) == 0;
}

/// The columns of a result table header (words without the leading '#'), or nullopt for
/// another line. A header whose time block is not "time algbw busbw #wrong" is refused
/// (`file`:`line`): the rows are read by these positions, so a block cut short would read past
/// the end of a row.
std::optional<Columns> headerColumns(
    const std::vector<std::string_view> &w, const std::string &file, int line)
{
    // "size count type redop root time algbw busbw #wrong [i_min i_max i_p99 i_cv%] ..."
    if (w.size() < 5 || w[0] != "size" || w[1] != "count")
        return std::nullopt;
    Columns c;
    int blocks = 0;
    std::vector<std::string_view> names; // the counted columns, as a row has them
    for (const std::string_view name : w) {
        if (name == "timestamp") {
            c.timestamp = true;
            continue;
        }
        if ((name == "time" || name == "cputime") && blocks < 2) {
            c.block[blocks++] = c.count;
            c.cpuTime = name == "cputime";
        }
        names.push_back(name);
        ++c.count;
    }
    if (blocks == 0)
        return std::nullopt;
    for (int b = 0; b < blocks; ++b) {
        const auto at = static_cast<std::size_t>(c.block[b]);
        if (at + 3 >= names.size() || names[at + 1] != "algbw" || names[at + 2] != "busbw"
            || names[at + 3] != "#wrong")
            throw lineError(file, line,
                "the result table header has '" + std::string(names[at])
                    + "' without 'algbw busbw #wrong' after it (nccl-tests prints each block as "
                      "time algbw busbw #wrong)");
    }
    return c;
}

NcclTestsTiming readBlock(const std::vector<std::string_view> &w, int at, const NcclTestsLog &log,
    int line, const char *which, long long bytes)
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
    // A 0-byte row (sizes below ranks x type size round down to 0 in all-to-all, all-gather and
    // reduce-scatter: nccl-tests' *GetCollByteCount) moves nothing and may time at 0.00 us.
    if (!(t.timeUs > 0.0) && bytes > 0)
        throw lineError(log.file, line, std::string(which) + " time must be above 0 us");
    t.present = true;
    return t;
}

} // namespace

void nccltestsdetail::checkRow(NcclTestsLog &log, const NcclTestsRow &r)
{
    if (!log.rows.empty()) {
        const NcclTestsRow &first = log.rows.front();
        if (r.type != first.type || r.redop != first.redop || r.root != first.root)
            throw lineError(log.file, r.line,
                "mixed ops: type/redop/root " + r.type + "/" + r.redop + "/"
                    + std::to_string(r.root) + " differ from the first row's " + first.type + "/"
                    + first.redop + "/" + std::to_string(first.root));
        // Several 0-byte rows are one sweep: nccl-tests rounds sizes below ranks x type size
        // down to 0 bytes (alltoall_perf from -b 8 on 16 GPUs prints 0, 0, 0, 64, ...).
        const bool zeros = r.bytes == 0 && log.rows.back().bytes == 0;
        if (r.bytes <= log.rows.back().bytes && !zeros)
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

namespace {

/// The nccl-tests binary a command line runs ("mpirun ... ./build/all_reduce_perf -b 8"), ""
/// for another line. The build's own lines ("Linking ... > ../build/all_reduce_perf", "nvcc -o
/// ../build/all_reduce_perf") name binaries they make, not one they run.
std::string commandBinary(std::string_view line, const std::vector<std::string_view> &w)
{
    const std::string b = binaryIn(line);
    if (b.empty() || w[0] == "Linking" || w[0] == "Compiling")
        return {};
    for (std::size_t i = 1; i < w.size(); ++i)
        if (w[i].find(b) != std::string_view::npos && w[i - 1] == "-o")
            return {};
    return b;
}

/// Copies what `from` knows and `to` does not (the lines before a table into the table).
void takeMeta(NcclTestsLog &to, NcclTestsLog &&from)
{
    if (!from.binary.empty()) {
        to.binary = std::move(from.binary);
        to.op = from.op;
        to.args = std::move(from.args);
    }
    if (from.ranks > 0) {
        to.ranks = from.ranks;
        to.hosts = std::move(from.hosts);
        to.device = std::move(from.device);
    }
    if (!from.ncclVersion.empty())
        to.ncclVersion = std::move(from.ncclVersion);
    if (!from.ncclAlgo.empty())
        to.ncclAlgo = std::move(from.ncclAlgo);
}

/**
 * The tables of a text log. Lines are read without launcher labels (io/launcherlabels.h). What
 * comes before a table (its command line, "# nThread", "# Using devices" and the rank list,
 * NCCL's banner) belongs to it; its footers ("# Out of bounds values", "# Avg bus bandwidth",
 * "# Collective test concluded") follow its rows. Other console text is skipped.
 */
class TextTables
{
public:
    TextTables(std::string_view text, const std::string &file)
        : m_lines(unlabelledLines(text))
    {
        m_table.file = file;
        m_next.file = file;
    }

    std::vector<NcclTestsLog> read()
    {
        for (std::size_t i = 0; i < m_lines.size(); ++i)
            readLine(i);
        if (!m_table.rows.empty())
            m_done.push_back(std::move(m_table));
        return std::move(m_done);
    }

private:
    const std::string &file() const { return m_table.file; }

    /// Where what a line says about a run goes: the open table, or the next one.
    NcclTestsLog &meta() { return m_open ? m_table : m_next; }

    void readLine(std::size_t &i)
    {
        const std::string_view line = m_lines[i];
        const int lineNo = static_cast<int>(i) + 1;
        const std::vector<std::string_view> w = words(line);
        if (w.empty())
            return;
        if (const std::string algo = ncclAlgoIn(line); !algo.empty())
            meta().ncclAlgo = algo;
        // NCCL's banner ("host:1:1 [0] NCCL INFO NCCL version 2.26.2+cuda12.8").
        if (const std::size_t at = line.find("NCCL version "); at != std::string_view::npos
            && at + 13 < line.size() && std::isdigit(static_cast<unsigned char>(line[at + 13]))
            && meta().ncclVersion.empty()) {
            const std::string_view v = line.substr(at + 13);
            meta().ncclVersion = std::string(v.substr(0, v.find_first_of("+ \r")));
        }
        std::vector<std::string_view> h = unhashed(w);
        if (h.empty())
            return;
        if (h[0] == "size") {
            // A header wrapped by the console: its next non-empty line holds only timing
            // columns ("time algbw busbw #wrong"); join them.
            std::size_t next = i + 1;
            while (next < m_lines.size() && words(m_lines[next]).empty())
                ++next;
            if (next < m_lines.size()) {
                const std::vector<std::string_view> more = unhashed(words(m_lines[next]));
                if (!more.empty() && std::all_of(more.begin(), more.end(), timingColumn)) {
                    h.insert(h.end(), more.begin(), more.end());
                    i = next;
                }
            }
            if (auto c = headerColumns(h, file(), lineNo)) {
                startTable(*c);
                return;
            }
        }
        const bool hashed = w[0].front() == '#';
        const std::string body = trimmed(line.substr(hashed ? line.find('#') + 1 : 0));
        if (h[0] == "Rank" && h.size() >= 6 && h[1] != "size") {
            // "#  Rank  3 Group  0 Pid 6902 on HOST device  3 [0000:0c:00] NAME"
            // An excerpt may list only some ranks: the world is the highest rank + 1.
            long long rank = 0;
            if (!toInteger(h[1], rank))
                return;
            m_open = false;
            if (rank >= 0 && rank < (1 << 20))
                m_next.ranks = std::max(m_next.ranks, static_cast<int>(rank) + 1);
            for (std::size_t k = 0; k + 1 < h.size(); ++k)
                if (h[k] == "on") {
                    m_next.hosts.emplace_back(h[k + 1]);
                    break;
                }
            const std::size_t bracket = body.find(']');
            if (m_next.device.empty() && bracket != std::string::npos)
                m_next.device = trimmed(std::string_view(body).substr(bracket + 1));
            return;
        }
        if (h[0] == "nThread" || (h[0] == "Using" && h.size() == 2 && h[1] == "devices")) {
            m_open = false;
            return;
        }
        if (body.rfind("Avg bus bandwidth", 0) == 0) {
            const std::size_t colon = body.find(':');
            const std::vector<std::string_view> v
                = words(std::string_view(body).substr(colon == std::string::npos ? 0 : colon + 1));
            double bw = 0.0;
            if (colon == std::string::npos || v.empty() || !toDouble(v[0], bw) || bw < 0.0)
                throw lineError(file(), lineNo, "unreadable '# Avg bus bandwidth' footer");
            m_table.averageBusBw = bw;
            m_table.averageLine = lineNo;
            return;
        }
        if (body.rfind("Out of bounds values", 0) == 0 && body.find("FAILED") != std::string::npos)
            throw lineError(file(), lineNo,
                "nccl-tests reports out-of-bounds values (FAILED): the run is not a valid "
                "measurement");
        if (body.rfind("Collective test concluded:", 0) == 0) {
            setBinary(m_table, binaryIn(body), lineNo);
            return;
        }
        if (hashed)
            return;
        if (!m_open || !readRow(w, lineNo)) {
            // A command line quoted with the output ("> mpirun ... all_reduce_perf -b 8", a
            // shell prompt): it starts the next table's run; the last one before it counts.
            if (const std::string b = commandBinary(line, w); !b.empty()) {
                m_open = false;
                m_next.binary = b;
                m_next.op = ncclTestsCollective(b);
                m_next.args.assign(w.begin(), w.end());
            }
        }
    }

    void startTable(const Columns &c)
    {
        if (!m_table.rows.empty()) {
            m_done.push_back(std::move(m_table));
            m_table = NcclTestsLog {};
            m_table.file = m_next.file;
        }
        takeMeta(m_table, std::move(m_next));
        m_next = NcclTestsLog {};
        m_next.file = m_table.file;
        m_table.cpuTime = c.cpuTime;
        m_cols = c;
        m_open = true;
    }

    /// Reads a result row; false for a line that is none (NCCL INFO / WARN lines and other
    /// chatter between rows are skipped; a line whose count column is an integer is a row, and
    /// its size must be one too).
    bool readRow(const std::vector<std::string_view> &w, int lineNo)
    {
        long long bytes = 0;
        if (!toInteger(w[0], bytes)) {
            long long count = 0;
            const bool numeric = std::isdigit(static_cast<unsigned char>(w[0].front()))
                || w[0].front() == '-' || w[0].front() == '+' || w[0].front() == '.';
            if (numeric && w.size() > 1 && toInteger(w[1], count))
                throw lineError(file(), lineNo,
                    "size '" + std::string(w[0].substr(0, 40))
                        + "' is not a whole number of bytes");
            return false;
        }
        if (++m_rows > kMaxLogRows)
            throw lineError(file(), lineNo,
                "more than " + std::to_string(kMaxLogRows)
                    + " result rows (a real sweep has at most a few hundred sizes)");
        if (static_cast<int>(w.size()) < m_cols.count)
            throw lineError(file(), lineNo,
                "truncated row: " + std::to_string(w.size()) + " columns where the header has "
                    + std::to_string(m_cols.count));
        if (static_cast<int>(w.size()) > m_cols.count && !m_cols.timestamp)
            throw lineError(file(), lineNo,
                "row has " + std::to_string(w.size()) + " columns where the header has "
                    + std::to_string(m_cols.count));
        NcclTestsRow r;
        r.line = lineNo;
        r.bytes = bytes;
        long long root = 0;
        if (!toInteger(w[1], r.count) || !toInteger(w[4], root))
            throw lineError(file(), lineNo, "count and root must be integers");
        r.type = std::string(w[2]);
        r.redop = std::string(w[3]);
        r.root = static_cast<int>(root);
        r.outOfPlace = readBlock(w, m_cols.block[0], m_table, lineNo, "out-of-place", bytes);
        r.inPlace = readBlock(w, m_cols.block[1], m_table, lineNo, "in-place", bytes);
        checkRow(m_table, r);
        return true;
    }

    std::vector<std::string_view> m_lines;
    std::vector<NcclTestsLog> m_done;
    NcclTestsLog m_table; ///< the table being read (or the first one to come)
    NcclTestsLog m_next; ///< what the lines since the open table closed say of the next one
    Columns m_cols;
    bool m_open = false; ///< a header was read and no line since started another run
    std::size_t m_rows = 0; ///< rows of every table in the file (the cap is per file)
};

} // namespace

std::vector<NcclTestsLog> parseNcclTestsLogs(std::string_view text, const std::string &file)
{
    std::size_t first = 0;
    while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first])))
        ++first;
    std::vector<NcclTestsLog> out;
    if (first < text.size() && text[first] == '{') {
        NcclTestsLog log;
        log.file = file;
        parseNcclTestsJson(text, log);
        if (!log.rows.empty())
            out.push_back(std::move(log));
    } else {
        out = TextTables(text, file).read();
    }
    if (out.empty())
        throw ScenarioError(file,
            "no nccl-tests result rows (expected the 'size count type redop root time algbw "
            "busbw #wrong' table or a -J JSON file with results[])");
    // Several tables: each is a run of its own, named by its binary (or its place in the file).
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i].table = out.size() > 1 ? static_cast<int>(i) + 1 : 0;
        const bool named = !out[i].binary.empty()
            && std::count_if(out.begin(), out.end(),
                   [&](const NcclTestsLog &l) { return l.binary == out[i].binary; })
                == 1;
        out[i].name = out.size() == 1 ? file
            : named                   ? file + "#" + out[i].binary
                                      : file + "#" + std::to_string(i + 1);
    }
    return out;
}

NcclTestsLog parseNcclTestsLog(std::string_view text, const std::string &file)
{
    std::vector<NcclTestsLog> logs = parseNcclTestsLogs(text, file);
    if (logs.size() > 1)
        throw lineError(file, logs[1].rows.front().line,
            "a second result table: this reader takes one run per file (calibrate reads each "
            "table of a file as its own run)");
    return std::move(logs.front());
}

std::vector<NcclTestsLog> readNcclTestsLogs(const std::string &path)
{
    // Refuses a FIFO, directory or device at once (base/fileio.h).
    const std::string text = readFileLimited(path, kMaxLogBytes, "an nccl-tests log", " (16 MiB)");
    return parseNcclTestsLogs(text, path);
}

NcclTestsLog readNcclTestsLog(const std::string &path)
{
    const std::string text = readFileLimited(path, kMaxLogBytes, "an nccl-tests log", " (16 MiB)");
    return parseNcclTestsLog(text, path);
}

} // namespace railyard
