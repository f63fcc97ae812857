#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

/**
 * The one quoting or escaping rule of each output language the exporters write. Every name and
 * piece of user text (scenario, fabric, server, host, link, model and device names, paths,
 * descriptions) goes through the rule of the place it lands in, never pasted raw: a name with a
 * quote, `$(...)`, a backtick or a newline stays the literal text it was.
 *
 *  - shell word:      shellQuote  (POSIX single quotes)
 *  - one-line text:   oneLine     (shell and YAML comments, Slurm #SBATCH-free comment lines,
 *                                  plain-text files such as replay.txt and ns-3 configs)
 *  - XML comment:     xmlComment
 *  - JSON (and the YAML 1.2 that is JSON, the PyTorchJob manifest): jsonString, jsonDump
 *  - CSV field:       csvField    (RFC 4180)
 *
 * Not part of the public API.
 */
namespace railyard::exportdetail {

/// `text` as one POSIX shell word: single-quoted, each ' written '\'' (POSIX.1-2017 XCU 2.2.2:
/// nothing inside single quotes is special), so $(...), backticks, quotes, ';', '&', '|', '<',
/// '>' and even newlines stay literal.
std::string shellQuote(std::string_view text);

/// `text` for one line of a comment or a plain-text line: control characters (a newline would
/// end a shell or YAML comment and start a command), DEL, C1 controls (U+0085 is a YAML 1.1
/// line break), U+2028/U+2029 and bytes that are not UTF-8 written visibly as \xHH or \uHHHH
/// (escapeControls in base/text.h), so the text can never leave its line.
std::string oneLine(std::string_view text);

/// `text` inside an XML comment (XML 1.0 section 2.5: no "--", and it may not end in '-'),
/// on one line (oneLine), at most `maxBytes` bytes.
std::string xmlComment(std::string_view text, std::size_t maxBytes = 200);

/// `text` as a JSON string literal, quotes included (RFC 8259: '"', '\' and control
/// characters escaped); bytes that are not UTF-8 become U+FFFD instead of an exception.
std::string jsonString(std::string_view text);
/// `value` as JSON text (nlohmann's dump with `indent`, -1 for one line), with the same
/// replacement of bytes that are not UTF-8: the one way every exporter serialises JSON.
std::string jsonDump(const nlohmann::ordered_json &value, int indent = -1);
std::string jsonDump(const nlohmann::json &value, int indent = -1);

/// One RFC 4180 field: quoted when it holds a comma, a double quote, CR or LF (or starts or
/// ends with a blank, which spreadsheet readers would strip), each '"' doubled inside.
std::string csvField(std::string_view text);

} // namespace railyard::exportdetail
