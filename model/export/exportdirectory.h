#pragma once

#include <string>
#include <vector>

namespace railyard {

/** One file of an export that writes a directory (the ASTRA-sim inputs). */
struct ExportFile
{
    std::string name; ///< a plain file name, no directory part
    std::string text;
};

/**
 * Writes `files` into the directory `path`, all or nothing: they are first written (each
 * fsync'ed) into a fresh staging directory, which then becomes `path` by one rename when `path`
 * does not exist yet, or whose files are renamed into `path` when it is an existing directory
 * (files of other names there are left alone). When one of those renames fails (a directory
 * named like one of the files, a file that may not be replaced), the files already replaced get
 * their old content back (each was kept as a hard link first) and the new ones are removed, so
 * `path` is left exactly as it was. A failure before the renames removes the staging directory.
 * Stale staging directories of killed earlier exports of `path` are swept first
 * (base/stalefiles.h). Throws ScenarioError naming the path: its parent missing or unwritable,
 * `path` an existing non-directory, a file name with a '/' in it, the file that could not be
 * replaced.
 */
void writeExportDirectory(const std::string &path, const std::vector<ExportFile> &files);

/// The files as one text for a preview or stdout: each after a "==> name <==" line, as
/// head(1) prints several files.
std::string exportFilesListing(const std::vector<ExportFile> &files);

} // namespace railyard
