#pragma once

#include <string>

namespace railyard {

/// strerror-style text for an errno value.
std::string errnoText(int error);

/// Reads everything left in an open descriptor, refusing more than `limit` bytes: it stops one
/// byte past the limit, so a pipe or a growing file is refused as well as a large file. Throws
/// ScenarioError(path, "cannot read: ..." or "file is more than the limit of <limit> bytes<suffix>").
std::string readAllLimited(int fd, const std::string &path, long long limit,
                           const std::string &limitSuffix = std::string());

/// Reads a whole regular file (or pipe) of at most `limit` bytes. Throws ScenarioError(path,
/// ...): cannot open or read (with the system's reason), a directory ("is a directory, not
/// <what>"), or a file above the limit ("file is N bytes, more than the limit of ...").
std::string readFileLimited(const std::string &path, long long limit, const std::string &what,
                            const std::string &limitSuffix = std::string());

/**
 * Writes text to `path` atomically: a temporary file with a random name in the same directory
 * (O_EXCL), fsync, rename over the target, fsync of the directory. A failure throws
 * ScenarioError naming the path and removes the temporary file, so the old content (or no file)
 * remains. Replacing a file keeps its permissions. Shared by scenario saves and every exporter.
 */
void writeFileAtomically(const std::string &path, const std::string &text);

} // namespace railyard
