#pragma once

#include <string>
#include <string_view>

namespace railyard {

/// `s` without leading and trailing white space (std::isspace: blanks, tabs, CR, LF).
std::string trimmed(std::string_view s);

/// Well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points above U+10FFFF)
/// without control characters: what a device or port name in a file may hold.
bool isPrintableUtf8(std::string_view s);

} // namespace railyard
