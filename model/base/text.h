#pragma once

#include <string>
#include <string_view>

namespace railyard {

/// `s` without leading and trailing white space (std::isspace: blanks, tabs, CR, LF).
std::string trimmed(std::string_view s);

/// Well-formed UTF-8 (RFC 3629: no overlong forms, surrogates or code points above U+10FFFF)
/// without control characters (C0, DEL, C1): what a device or port name in a file may hold.
/// With `multiLine`, tab, line feed and carriage return are allowed too (a description).
bool isPrintableUtf8(std::string_view s, bool multiLine = false);

/// Throws ScenarioError(path, ...) unless `text` is printable UTF-8 (isPrintableUtf8), naming
/// the first offending byte and its offset: names a file gives must not carry a newline, an
/// escape sequence or a byte no UTF-8 reader accepts into exports, reports and terminals.
void requirePrintableUtf8(const std::string &path, std::string_view text, bool multiLine = false);

/// `text` with every byte a terminal or a line-based format would act on made visible: C0
/// controls, DEL and bytes that are not well-formed UTF-8 as \xHH, C1 controls (U+0080..U+009F)
/// and the Unicode line and paragraph separators (U+2028, U+2029) as \uHHHH, a backslash
/// unchanged. With `keepLineBreaks`, line feed and tab stay (a multi-line text report).
/// The one rule for text that leaves for a terminal: error messages, warnings, text reports.
std::string escapeControls(std::string_view text, bool keepLineBreaks = false);

} // namespace railyard
