#include "io/launcherlabels.h"

#include <array>
#include <cctype>
#include <cstddef>

namespace railyard {

namespace {

bool digit(char c)
{
    return std::isdigit(static_cast<unsigned char>(c)) != 0;
}

/// Characters of `s` from `at` that are digits (at most `most`).
std::size_t digits(std::string_view s, std::size_t at, std::size_t most)
{
    std::size_t n = 0;
    while (at + n < s.size() && n < most && digit(s[at + n]))
        ++n;
    return n;
}

std::size_t skipBlanks(std::string_view s, std::size_t at)
{
    while (at < s.size() && (s[at] == ' ' || s[at] == '\t'))
        ++at;
    return at;
}

/// The length of a leading timestamp and the blanks after it, 0 when the line has none.
std::size_t timestampLength(std::string_view s)
{
    std::size_t i = 0;
    const bool bracket = !s.empty() && s[0] == '[';
    if (bracket)
        ++i;
    // YYYY-MM-DD
    if (digits(s, i, 4) != 4 || i + 10 > s.size() || s[i + 4] != '-' || digits(s, i + 5, 2) != 2
        || s[i + 7] != '-' || digits(s, i + 8, 2) != 2)
        return 0;
    i += 10;
    // 'T' or one blank, then HH:MM:SS
    if (i >= s.size() || (s[i] != 'T' && s[i] != ' '))
        return 0;
    ++i;
    if (i + 8 > s.size() || digits(s, i, 2) != 2 || s[i + 2] != ':' || digits(s, i + 3, 2) != 2
        || s[i + 5] != ':' || digits(s, i + 6, 2) != 2)
        return 0;
    i += 8;
    if (i < s.size() && (s[i] == '.' || s[i] == ',')) // fraction: up to nanoseconds
        i += 1 + digits(s, i + 1, 9);
    if (i < s.size() && s[i] == 'Z')
        ++i;
    else if (i < s.size() && (s[i] == '+' || s[i] == '-') && digits(s, i + 1, 2) == 2) {
        i += 3;
        if (i < s.size() && s[i] == ':')
            ++i;
        i += digits(s, i, 2);
    }
    if (bracket) {
        if (i >= s.size() || s[i] != ']')
            return 0;
        ++i;
    }
    if (i < s.size() && s[i] != ' ' && s[i] != '\t')
        return 0;
    return skipBlanks(s, i);
}

enum Kind { Srun, OpenMpi, RankBracket, kKinds };

/// The length of a launcher label of `kind` at the start of `s` (with one blank after it), 0
/// when there is none.
std::size_t labelLength(std::string_view s, Kind kind)
{
    switch (kind) {
    case Srun: { // srun -l: the task number, right-aligned, then ": "
        std::size_t i = skipBlanks(s, 0);
        const std::size_t n = digits(s, i, 7);
        if (n == 0 || i + n >= s.size() || s[i + n] != ':')
            return 0;
        i += n + 1;
        if (i == s.size())
            return i;
        return s[i] == ' ' || s[i] == '\t' ? i + 1 : 0;
    }
    case OpenMpi: { // "[1,0]<stdout>:" (the job may be a name: "[prterun-h-12@1,0]")
        if (s.empty() || s[0] != '[')
            return 0;
        // 64: a job name and two numbers; a longer bracket is text, not a label.
        const std::size_t close = s.substr(0, 64).find(']');
        if (close == std::string_view::npos
            || s.substr(1, close - 1).find(' ') != std::string_view::npos)
            return 0;
        for (const std::string_view tag :
            { std::string_view("<stdout>:"), std::string_view("<stderr>:") })
            if (s.substr(close + 1, tag.size()) == tag) {
                const std::size_t i = close + 1 + tag.size();
                return i < s.size() && s[i] == ' ' ? i + 1 : i;
            }
        return 0;
    }
    case RankBracket: { // MPICH / Intel MPI: "[0] "
        const std::size_t n = digits(s, 1, 7);
        if (s.size() < n + 3 || s[0] != '[' || n == 0 || s[n + 1] != ']' || s[n + 2] != ' ')
            return 0;
        return n + 3;
    }
    case kKinds:
        break;
    }
    return 0;
}

/// A result-table header: "size count" first, with or without '#'.
bool headerLine(std::string_view s)
{
    std::size_t i = skipBlanks(s, 0);
    if (i < s.size() && s[i] == '#')
        i = skipBlanks(s, i + 1);
    if (s.substr(i, 4) != "size")
        return false;
    i = skipBlanks(s, i + 4);
    return s.substr(i, 5) == "count";
}

} // namespace

std::vector<std::string_view> unlabelledLines(std::string_view text)
{
    std::vector<std::string_view> lines;
    std::size_t pos = 0;
    while (pos <= text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos)
            end = text.size();
        std::string_view line = text.substr(pos, end - pos);
        if (!line.empty() && line.back() == '\r')
            line.remove_suffix(1);
        lines.push_back(line);
        pos = end + 1;
    }
    // Which kinds are consistently present: on a header line or on half the non-empty lines.
    std::size_t nonEmpty = 0, stamped = 0;
    std::array<std::size_t, kKinds> labelled {};
    bool stampOnHeader = false;
    std::array<bool, kKinds> onHeader {};
    for (const std::string_view line : lines) {
        if (line.find_first_not_of(" \t") == std::string_view::npos)
            continue;
        ++nonEmpty;
        const std::size_t t = timestampLength(line);
        stamped += t > 0;
        const std::string_view rest = line.substr(t);
        stampOnHeader = stampOnHeader || (t > 0 && headerLine(rest));
        for (int k = 0; k < kKinds; ++k)
            if (const std::size_t n = labelLength(rest, static_cast<Kind>(k))) {
                ++labelled[k];
                onHeader[k] = onHeader[k] || headerLine(rest.substr(n));
            }
    }
    const bool stamps = stampOnHeader || (stamped > 0 && 2 * stamped >= nonEmpty);
    std::array<bool, kKinds> strip {};
    for (int k = 0; k < kKinds; ++k)
        strip[k] = onHeader[k] || (labelled[k] > 0 && 2 * labelled[k] >= nonEmpty);
    for (std::string_view &line : lines) {
        if (stamps)
            line.remove_prefix(timestampLength(line));
        for (int k = 0; k < kKinds; ++k)
            if (strip[k])
                if (const std::size_t n = labelLength(line, static_cast<Kind>(k))) {
                    line.remove_prefix(n);
                    break;
                }
    }
    return lines;
}

} // namespace railyard
