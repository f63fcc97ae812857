#pragma once

#include <stdexcept>
#include <string>

namespace railyard {

/**
 * Anything wrong with a scenario: a malformed file, an impossible size, inconsistent degrees.
 * `field()` names the JSON path or parameter at fault (e.g. "parallel.tp"), empty when the
 * problem is not tied to one field. what() is the full one-line message, field first.
 */
class ScenarioError : public std::runtime_error
{
public:
    ScenarioError(std::string field, const std::string &reason)
        : std::runtime_error(field.empty() ? reason : field + ": " + reason)
        , m_field(std::move(field))
        , m_reason(reason)
    {}

    const std::string &field() const { return m_field; }
    const std::string &reason() const { return m_reason; }

private:
    std::string m_field;
    std::string m_reason;
};

} // namespace railyard
