#include "base/text.h"

#include "base/scenarioerror.h"

#include <cctype>
#include <cstdint>
#include <cstdio>

namespace railyard {

namespace {

/// The length of the well-formed UTF-8 sequence at s[i] (RFC 3629 table: no overlong forms,
/// surrogates or code points above U+10FFFF) and its code point; 0 when the bytes there are
/// not one.
std::size_t utf8Sequence(std::string_view s, std::size_t i, std::uint32_t &cp)
{
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
        cp = c;
        return 1;
    }
    const std::size_t length = c >= 0xf0 ? 4 : (c >= 0xe0 ? 3 : (c >= 0xc0 ? 2 : 0));
    if (length == 0 || c > 0xf4 || i + length > s.size())
        return 0;
    cp = c & (0x7fu >> length);
    for (std::size_t k = 1; k < length; ++k) {
        const auto b = static_cast<unsigned char>(s[i + k]);
        if ((b & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (b & 0x3f);
    }
    const std::uint32_t minimum = length == 2 ? 0x80 : (length == 3 ? 0x800 : 0x10000);
    if (cp < minimum || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return length;
}

bool isControl(std::uint32_t cp)
{
    return cp < 0x20 || (cp >= 0x7f && cp < 0xa0);
}

bool allowedLineBreak(std::uint32_t cp, bool multiLine)
{
    return multiLine && (cp == '\t' || cp == '\n' || cp == '\r');
}

/// The offset of the first byte that is no printable UTF-8, or npos.
std::size_t firstUnprintable(std::string_view s, bool multiLine)
{
    for (std::size_t i = 0; i < s.size();) {
        std::uint32_t cp = 0;
        const std::size_t length = utf8Sequence(s, i, cp);
        if (length == 0 || (isControl(cp) && !allowedLineBreak(cp, multiLine)))
            return i;
        i += length;
    }
    return std::string_view::npos;
}

} // namespace

std::string trimmed(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return std::string(s);
}

bool isPrintableUtf8(std::string_view s, bool multiLine)
{
    return firstUnprintable(s, multiLine) == std::string_view::npos;
}

void requirePrintableUtf8(const std::string &path, std::string_view text, bool multiLine)
{
    const std::size_t at = firstUnprintable(text, multiLine);
    if (at == std::string_view::npos)
        return;
    std::uint32_t cp = 0;
    const bool control = utf8Sequence(text, at, cp) != 0;
    char what[96];
    if (control)
        std::snprintf(what, sizeof what, "holds the control character U+%04X at byte %zu",
            static_cast<unsigned>(cp), at);
    else
        std::snprintf(what, sizeof what, "holds the byte 0x%02x at byte %zu, which is not UTF-8",
            static_cast<unsigned>(static_cast<unsigned char>(text[at])), at);
    throw ScenarioError(path,
        std::string(what)
            + (multiLine ? " (text may hold tabs and line breaks, no other control characters)"
                         : " (a name is one line of printable text)"));
}

std::string escapeControls(std::string_view text, bool keepLineBreaks)
{
    std::string out;
    out.reserve(text.size());
    char buf[16];
    for (std::size_t i = 0; i < text.size();) {
        std::uint32_t cp = 0;
        const std::size_t length = utf8Sequence(text, i, cp);
        if (length == 0) {
            std::snprintf(buf, sizeof buf, "\\x%02x",
                static_cast<unsigned>(static_cast<unsigned char>(text[i])));
            out += buf;
            ++i;
            continue;
        }
        if (keepLineBreaks && (cp == '\n' || cp == '\t')) {
            out += static_cast<char>(cp);
        } else if (cp < 0x20 || cp == 0x7f) {
            std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(cp));
            out += buf;
        } else if ((cp >= 0x80 && cp < 0xa0) || cp == 0x2028 || cp == 0x2029) {
            std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(cp));
            out += buf;
        } else {
            out.append(text.substr(i, length));
        }
        i += length;
    }
    return out;
}

} // namespace railyard
