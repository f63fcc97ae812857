#include "suggest.h"

#include <algorithm>
#include <cstddef>

namespace railyard::cli {

int editDistance(const std::string &a, const std::string &b)
{
    // d[i][j]: distance between the first i characters of a and the first j of b.
    const std::size_t n = a.size(), m = b.size();
    std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
    for (std::size_t i = 0; i <= n; ++i)
        d[i][0] = static_cast<int>(i);
    for (std::size_t j = 0; j <= m; ++j)
        d[0][j] = static_cast<int>(j);
    for (std::size_t i = 1; i <= n; ++i) {
        for (std::size_t j = 1; j <= m; ++j) {
            const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
            d[i][j] = std::min({ d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost });
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
                d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
        }
    }
    return d[n][m];
}

namespace {

/// "--format" -> "format": dashes are the same for every option, so they must not count.
std::string withoutDashes(const std::string &name)
{
    const std::size_t first = name.find_first_not_of('-');
    return first == std::string::npos ? std::string() : name.substr(first);
}

} // namespace

std::string closestMatch(const std::string &typed, const std::vector<std::string> &candidates)
{
    const std::string word = withoutDashes(typed);
    // A unique prefix ("--sw" for "--swap") is what completion would have given.
    std::vector<std::string> prefixed;
    for (const std::string &c : candidates) {
        const std::string name = withoutDashes(c);
        if (word.size() >= 2 && name.size() > word.size()
            && name.compare(0, word.size(), word) == 0)
            prefixed.push_back(c);
    }
    if (prefixed.size() == 1)
        return prefixed.front();

    std::string best;
    int bestDistance = 0;
    for (const std::string &c : candidates) {
        const std::string name = withoutDashes(c);
        const int d = editDistance(word, name);
        // One- and two-letter names ("-o", "tp") are a typo away from too much to guess.
        const int allowed = name.size() < 3 ? 0 : std::min(3, static_cast<int>(name.size()) / 3);
        if (d <= allowed && (best.empty() || d < bestDistance)) {
            best = c;
            bestDistance = d;
        }
    }
    return best;
}

} // namespace railyard::cli
