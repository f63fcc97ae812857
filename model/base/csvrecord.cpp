#include "base/csvrecord.h"

#include "base/scenarioerror.h"
#include "base/text.h"

namespace railyard {

std::vector<std::string> splitCsvRecord(std::string_view line, const std::string &where)
{
    std::vector<std::string> fields;
    std::string field;
    bool quoted = false, wasQuoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                field += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                field += c;
            }
        } else if (c == '"' && trimmed(field).empty()) {
            quoted = wasQuoted = true;
            field.clear();
        } else if (c == ',') {
            fields.push_back(wasQuoted ? field : trimmed(field));
            field.clear();
            wasQuoted = false;
        } else {
            field += c;
        }
    }
    if (quoted)
        throw ScenarioError(where, "a quoted field is not closed");
    fields.push_back(wasQuoted ? field : trimmed(field));
    return fields;
}

} // namespace railyard
