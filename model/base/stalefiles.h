#pragma once

#include <chrono>
#include <string>

namespace railyard {

/// How long a temporary file or staging directory of ours must have been left unchanged before
/// a sweep removes it. A live writer creates, fills, syncs and renames its temporary within one
/// call: even the largest output (a 64 MiB run record, sizelimits.h) takes seconds, so an hour
/// is far beyond any live write and leaves room for clocks of network file systems that differ
/// by minutes.
inline constexpr std::chrono::seconds kStaleAge { 3600 };

/**
 * Removes what killed writes of `path` left behind, never anything else:
 *  - files "<path>.tmp-XXXXXX" (6 letters or digits: writeFileAtomically's temporary names,
 *    base/fileio.cpp),
 *  - directories "<path>.railyard-staging-XXXXXXXX" and "<path>/.railyard-staging-XXXXXXXX"
 *    (8 hex digits: writeExportDirectory's staging, export/exportdirectory.cpp) holding only
 *    regular files,
 * each only when it and everything in it was last modified at least `age` ago (lstat: a symbolic
 * link is never followed, nor removed). Returns how many it removed. A sweep never fails a
 * write: an entry it cannot read or remove is left as it is.
 */
int sweepStaleFiles(const std::string &path, std::chrono::seconds age = kStaleAge);

} // namespace railyard
