#pragma once

#include <string>

namespace railyard {

/// strerror-style text for an errno value.
std::string errnoText(int error);

/**
 * Writes text to `path` atomically: a temporary file with a random name in the same directory
 * (O_EXCL), fsync, rename over the target, fsync of the directory. A failure throws
 * ScenarioError naming the path and removes the temporary file, so the old content (or no file)
 * remains. Replacing a file keeps its permissions. Shared by scenario saves and every exporter.
 */
void writeFileAtomically(const std::string &path, const std::string &text);

} // namespace railyard
