#include "export/quoting.h"

#include "base/text.h"

namespace railyard::exportdetail {

std::string shellQuote(std::string_view text)
{
    std::string out = "'";
    for (char ch : text) {
        if (ch == '\'')
            out += "'\\''";
        else
            out += ch;
    }
    return out + "'";
}

std::string oneLine(std::string_view text)
{
    return escapeControls(text, false);
}

std::string xmlComment(std::string_view text, std::size_t maxBytes)
{
    std::string out = oneLine(text);
    if (out.size() > maxBytes)
        out.resize(maxBytes);
    // Cut inside a UTF-8 sequence: drop its partial bytes (continuation bytes and their lead).
    if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0x80) != 0) {
        while (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xc0) == 0x80)
            out.pop_back();
        if (!out.empty() && (static_cast<unsigned char>(out.back()) & 0xc0) == 0xc0)
            out.pop_back();
    }
    for (std::size_t at = out.find("--"); at != std::string::npos; at = out.find("--", at))
        out.replace(at, 2, "- ");
    if (!out.empty() && out.back() == '-')
        out += ' ';
    return out;
}

std::string jsonString(std::string_view text)
{
    return jsonDump(nlohmann::json(std::string(text)));
}

std::string jsonDump(const nlohmann::ordered_json &value, int indent)
{
    return value.dump(indent, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string jsonDump(const nlohmann::json &value, int indent)
{
    return value.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string csvField(std::string_view text)
{
    const bool quote = text.find_first_of(",\"\r\n") != std::string_view::npos
        || (!text.empty() && (text.front() == ' ' || text.back() == ' '));
    if (!quote)
        return std::string(text);
    std::string out = "\"";
    for (char ch : text) {
        if (ch == '"')
            out += '"';
        out += ch;
    }
    return out + "\"";
}

} // namespace railyard::exportdetail
