/**
 * Slurm hostlist expressions (slurmhostlist.h). The folding rule is Slurm's own
 * (src/common/hostlist.c, hostlist_ranged_string): names with a common prefix and numeric
 * suffixes of equal width form one bracket; a run of consecutive numbers is a range.
 */
#include "export/slurmhostlist.h"

#include <cctype>
#include <stdexcept>

namespace railyard::slurmhostlist {

namespace {

/// A name split into its prefix and trailing number ("node007" -> "node", 7, width 3).
struct HostlistParts
{
    std::string prefix;
    long long number = -1; ///< -1: no trailing digits
    std::size_t width = 0; ///< digits written
    bool zeroPadded = false; ///< written with a leading zero ("007")
};

HostlistParts splitName(const std::string &name)
{
    std::size_t i = name.size();
    while (i > 0 && std::isdigit(static_cast<unsigned char>(name[i - 1])))
        --i;
    HostlistParts p;
    p.prefix = name.substr(0, i);
    // At most 9 digits, as expand() reads a range's bounds (so a written list reads back; a
    // fuzzed 14-digit suffix did not); longer suffixes stay part of the prefix.
    if (i < name.size() && name.size() - i <= 9) {
        p.number = std::stoll(name.substr(i));
        p.width = name.size() - i;
        p.zeroPadded = name[i] == '0';
    } else {
        p.prefix = name;
    }
    return p;
}

std::string padded(long long n, std::size_t width)
{
    std::string s = std::to_string(n);
    if (s.size() < width)
        s.insert(0, width - s.size(), '0');
    return s;
}

} // namespace

std::string compress(const std::vector<std::string> &names)
{
    std::string out;
    std::size_t i = 0;
    while (i < names.size()) {
        const HostlistParts first = splitName(names[i]);
        if (first.number < 0) {
            out += (out.empty() ? "" : ",") + names[i];
            ++i;
            continue;
        }
        // The names after i with the same prefix and a compatible width, in order: an
        // unpadded number ("12") goes with any other unpadded one and with padded ones of its
        // own width ("099", "100"); a zero-padded one ("007") only with its own width.
        const auto padded0 = [](const HostlistParts &p) { return p.width > 1 && p.zeroPadded; };
        std::vector<long long> numbers { first.number };
        int padWidth = padded0(first) ? static_cast<int>(first.width) : -1;
        std::size_t minWidth = first.width, maxWidth = first.width;
        std::size_t j = i + 1;
        while (j < names.size()) {
            const HostlistParts p = splitName(names[j]);
            if (p.number < 0 || p.prefix != first.prefix)
                break;
            const bool fits = padded0(p) ? minWidth == p.width && maxWidth == p.width
                                         : padWidth < 0 || padWidth == static_cast<int>(p.width);
            if (!fits)
                break;
            if (padded0(p))
                padWidth = static_cast<int>(p.width);
            minWidth = std::min(minWidth, p.width);
            maxWidth = std::max(maxWidth, p.width);
            numbers.push_back(p.number);
            ++j;
        }
        const std::size_t width = padWidth < 0 ? 0 : static_cast<std::size_t>(padWidth);
        if (numbers.size() == 1) {
            out += (out.empty() ? "" : ",") + names[i];
            i = j;
            continue;
        }
        std::string ranges;
        std::size_t k = 0;
        while (k < numbers.size()) {
            std::size_t e = k;
            while (e + 1 < numbers.size() && numbers[e + 1] == numbers[e] + 1)
                ++e;
            ranges += (ranges.empty() ? "" : ",") + padded(numbers[k], width);
            if (e > k)
                ranges += "-" + padded(numbers[e], width);
            k = e + 1;
        }
        out += (out.empty() ? "" : ",") + first.prefix + "[" + ranges + "]";
        i = j;
    }
    return out;
}

std::vector<std::string> expand(const std::string &expression, std::size_t limit)
{
    std::vector<std::string> out;
    std::size_t i = 0;
    const auto push = [&](std::string name) {
        if (name.empty())
            throw std::invalid_argument("an empty name in '" + expression.substr(0, 80) + "'");
        if (out.size() >= limit)
            throw std::invalid_argument("lists more than " + std::to_string(limit) + " names");
        out.push_back(std::move(name));
    };
    while (i <= expression.size()) {
        std::string prefix;
        while (i < expression.size() && expression[i] != ',' && expression[i] != '[') {
            if (expression[i] == ']')
                throw std::invalid_argument("a ']' without its '['");
            prefix += expression[i++];
        }
        if (i < expression.size() && expression[i] == '[') {
            const std::size_t close = expression.find(']', i);
            if (close == std::string::npos)
                throw std::invalid_argument("a '[' without its ']'");
            const std::string inside = expression.substr(i + 1, close - i - 1);
            if (inside.find('[') != std::string::npos)
                throw std::invalid_argument("a bracket inside a bracket");
            std::string suffix;
            i = close + 1;
            while (i < expression.size() && expression[i] != ',') {
                if (expression[i] == '[' || expression[i] == ']')
                    throw std::invalid_argument(
                        "more than one bracket in one name (Slurm's 2-D lists are not read)");
                suffix += expression[i++];
            }
            std::size_t k = 0;
            do {
                std::size_t comma = inside.find(',', k);
                if (comma == std::string::npos)
                    comma = inside.size();
                const std::string item = inside.substr(k, comma - k);
                const std::size_t dash = item.find('-');
                const std::string lo = item.substr(0, dash);
                const std::string hi = dash == std::string::npos ? lo : item.substr(dash + 1);
                const auto digits = [](const std::string &s) {
                    if (s.empty() || s.size() > 9)
                        return false;
                    for (char c : s)
                        if (!std::isdigit(static_cast<unsigned char>(c)))
                            return false;
                    return true;
                };
                if (!digits(lo) || !digits(hi))
                    throw std::invalid_argument(
                        "'[" + inside.substr(0, 40) + "]' is not a list of numbers and ranges");
                const long long a = std::stoll(lo), b = std::stoll(hi);
                if (b < a)
                    throw std::invalid_argument("the range " + item + " runs backwards");
                if (static_cast<std::size_t>(b - a) >= limit)
                    throw std::invalid_argument(
                        "lists more than " + std::to_string(limit) + " names");
                for (long long n = a; n <= b; ++n)
                    push(prefix + padded(n, lo.size()) + suffix);
                k = comma + 1;
            } while (k <= inside.size());
        } else {
            push(prefix);
        }
        if (i >= expression.size())
            break;
        ++i; // the ',' between names
        if (i == expression.size())
            throw std::invalid_argument("ends with ','");
    }
    return out;
}

bool plainName(const std::string &name)
{
    if (name.empty() || name.size() > 64 || name.front() == '-' || name.front() == '.')
        return false;
    for (char ch : name) {
        const auto c = static_cast<unsigned char>(ch);
        if (!std::isalnum(c) && ch != '-' && ch != '_' && ch != '.')
            return false;
    }
    return true;
}

} // namespace railyard::slurmhostlist
