#pragma once

#include <stdexcept>
#include <string>

namespace railyard::cli {

/**
 * A bad command line (exit 2): an option that does not apply, a missing argument, a value
 * outside a command's choices. `what()` is the one-line message. With `hint`, the message is
 * printed as the parser's are, after the command's name and followed by a pointer to its
 * --help; without, after "railyard-cli: " alone.
 */
class UsageError : public std::runtime_error
{
public:
    explicit UsageError(const std::string &message, bool hint = true)
        : std::runtime_error(message)
        , m_hint(hint)
    {
    }

    bool hint() const { return m_hint; }

private:
    bool m_hint;
};

} // namespace railyard::cli
