#pragma once

#include <string>

namespace railyard {

/// strerror-style text for an errno value.
std::string errnoText(int error);

/// Reads everything left in an open descriptor, refusing more than `limit` bytes: it stops one
/// byte past the limit, so a pipe or a growing file is refused as well as a large file. Throws
/// ScenarioError(path, "cannot read: ..." or "file is more than the limit of <limit>
/// bytes<suffix>"). `expectedSize` (fstat's size of a regular file) only reserves the string.
std::string readAllLimited(int fd, const std::string &path, long long limit,
    const std::string &limitSuffix = std::string(), long long expectedSize = 0);

/**
 * Opens `path` for reading and refuses anything that is not a regular file, without blocking:
 * the open uses O_NONBLOCK (opening a FIFO with no writer would otherwise wait for one forever,
 * open(2)), fstat() then names what the path is ("is a FIFO (named pipe), not <what>", "is a
 * directory, not <what>", a character or block device, a socket), and O_NONBLOCK is cleared
 * again for the reads. Returns the open descriptor (O_CLOEXEC), which the caller closes.
 * Throws ScenarioError(path, "cannot open: <system's reason>") as well.
 */
int openRegularFile(const std::string &path, const std::string &what);

/// Reads a whole regular file of at most `limit` bytes through openRegularFile (FIFOs,
/// directories, devices and sockets are refused at once). Throws ScenarioError(path, ...):
/// cannot open or read (with the system's reason), not a regular file, or a file above the
/// limit ("file is N bytes, more than the limit of ..."). Every loader reads through this.
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
