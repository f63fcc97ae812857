#pragma once

#include <string>
#include <string_view>

namespace railyard {

/// `s` without leading and trailing white space (std::isspace: blanks, tabs, CR, LF).
std::string trimmed(std::string_view s);

} // namespace railyard
