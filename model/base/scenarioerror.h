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
    /// The same error placed in its file: `location` is "FILE:LINE" (or "FILE"), put first.
    ScenarioError(const ScenarioError &error, const std::string &location)
        : std::runtime_error(location + ": " + error.what())
        , m_field(error.m_field)
        , m_reason(error.m_reason)
        , m_location(location)
    {}

    const std::string &field() const { return m_field; }
    const std::string &reason() const { return m_reason; }
    /// "FILE:LINE" of the field at fault when the error was raised reading a file, else empty.
    const std::string &location() const { return m_location; }

private:
    std::string m_field;
    std::string m_reason;
    std::string m_location;
};

} // namespace railyard
