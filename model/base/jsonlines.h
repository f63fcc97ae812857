#pragma once

#include <string_view>

namespace railyard {

/**
 * The 1-based line of a JSON document on which the member or element named by `path` starts
 * ("fabric.servers", "mapping.placement[3]", "jobs[1].name": the field paths ScenarioError
 * names), so that a message about a field can say where it is. When the path is absent (a
 * missing required field), the line of its deepest present ancestor; 0 when not even the first
 * component is there. `text` must be well-formed JSON (checked by the parse that came first);
 * on anything else the answer is the best line found so far.
 */
int jsonPathLine(std::string_view text, std::string_view path);

} // namespace railyard
