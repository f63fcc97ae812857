#include "base/text.h"

#include <cctype>
#include <cstdint>

namespace railyard {

std::string trimmed(std::string_view s)
{
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
        s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
        s.remove_suffix(1);
    return std::string(s);
}

bool isPrintableUtf8(std::string_view s)
{
    for (std::size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f)
                return false;
            ++i;
            continue;
        }
        // Lead byte: sequence length and the smallest code point it may encode (RFC 3629 table).
        const int length = c >= 0xf0 ? 4 : (c >= 0xe0 ? 3 : (c >= 0xc0 ? 2 : 0));
        if (length == 0 || c > 0xf4 || i + static_cast<std::size_t>(length) > s.size())
            return false;
        std::uint32_t cp = c & (0x7f >> length);
        for (int k = 1; k < length; ++k) {
            const auto b = static_cast<unsigned char>(s[i + static_cast<std::size_t>(k)]);
            if ((b & 0xc0) != 0x80)
                return false;
            cp = (cp << 6) | (b & 0x3f);
        }
        const std::uint32_t minimum = length == 2 ? 0x80 : (length == 3 ? 0x800 : 0x10000);
        if (cp < minimum || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff) || (cp >= 0x80 && cp < 0xa0))
            return false;
        i += static_cast<std::size_t>(length);
    }
    return true;
}

} // namespace railyard
