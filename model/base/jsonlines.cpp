#include "base/jsonlines.h"

#include <string>
#include <utility>
#include <vector>

namespace railyard {

namespace {

/// One open object or array on the way from the root to the scanner's position.
struct JsonFrame
{
    bool object = true;
    std::string key; ///< an object's current member
    int index = -1; ///< an array's current element
};

std::string framePath(const std::vector<JsonFrame> &frames)
{
    std::string path;
    for (const JsonFrame &f : frames) {
        if (f.object)
            path += (path.empty() ? "" : ".") + f.key;
        else
            path += "[" + std::to_string(f.index) + "]";
    }
    return path;
}

/// `prefix` names `path` or one of its ancestors.
bool isAncestorPath(std::string_view prefix, std::string_view path)
{
    return !prefix.empty() && path.substr(0, prefix.size()) == prefix
        && (path.size() == prefix.size() || path[prefix.size()] == '.'
            || path[prefix.size()] == '[');
}

} // namespace

int jsonPathLine(std::string_view text, std::string_view path)
{
    std::vector<JsonFrame> frames;
    int line = 1;
    int best = 0;
    bool expectKey = false; // inside an object, before a member's name
    // The member or element now starting: exact match ends the scan, an ancestor is remembered.
    const auto starts = [&]() {
        const std::string here = framePath(frames);
        if (here == path)
            return true;
        if (isAncestorPath(here, path))
            best = line;
        return false;
    };
    // The line of the first character after position `i` that is not white space.
    const auto nextLine = [&](std::size_t i) {
        int at = line;
        for (++i; i < text.size()
             && (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r');
             ++i)
            at += text[i] == '\n';
        return std::pair { at, i < text.size() ? text[i] : '\0' };
    };
    // An array element starts after position `i`: is it the one asked for?
    const auto element = [&](std::size_t i) {
        const auto [at, next] = nextLine(i);
        if (next == ']')
            return 0;
        const int saved = line;
        line = at;
        const bool found = starts();
        line = saved;
        return found ? at : 0;
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\n') {
            ++line;
            continue;
        }
        if (c == '"') {
            std::string s;
            for (++i; i < text.size() && text[i] != '"'; ++i) {
                if (text[i] == '\\' && i + 1 < text.size())
                    ++i; // an escaped character; keys with escapes rarely name a field
                s += text[i];
            }
            if (expectKey && !frames.empty() && frames.back().object) {
                frames.back().key = s;
                expectKey = false;
                if (starts())
                    return line;
            }
            continue;
        }
        if (c == '{' || c == '[') {
            frames.push_back({ c == '{', {}, c == '[' ? 0 : -1 });
            expectKey = c == '{';
            if (c == '[')
                if (const int at = element(i))
                    return at;
        } else if (c == '}' || c == ']') {
            if (!frames.empty())
                frames.pop_back();
            expectKey = false;
        } else if (c == ',' && !frames.empty()) {
            if (frames.back().object) {
                expectKey = true;
            } else {
                ++frames.back().index;
                if (const int at = element(i))
                    return at;
            }
        }
    }
    return best;
}

} // namespace railyard
