#pragma once

#include <string>
#include <string_view>

namespace railyard {

/** SHA-256 (FIPS 180-4) computed piece by piece, so a file of any size is hashed in a buffer. */
class Sha256
{
public:
    Sha256();
    void update(std::string_view bytes);
    /// The digest as 64 lower-case hex digits; the object is spent afterwards.
    std::string hex();

private:
    void block(const unsigned char *p);
    unsigned int m_h[8];
    unsigned char m_buffer[64];
    std::size_t m_used = 0;
    unsigned long long m_length = 0; ///< bytes hashed
};

/// The SHA-256 of a file's bytes, read 1 MiB at a time; throws ScenarioError(path, ...) when
/// it cannot be read.
std::string sha256OfFile(const std::string &path);

} // namespace railyard
