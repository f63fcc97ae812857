/**
 * All-or-nothing writing of a directory export: stage every file first, then rename. POSIX
 * rename(2) of a directory onto a path that does not exist, or of a file within one file
 * system, is atomic, so a reader sees either the old directory or every new file.
 */
#include "export/exportdirectory.h"

#include "base/fileio.h"
#include "base/scenarioerror.h"
#include "base/stalefiles.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <random>

namespace railyard {

namespace {

/// The staging directory and what was written into it; removed again unless committed.
class Staging
{
public:
    explicit Staging(std::string dir)
        : m_dir(std::move(dir))
    {
    }
    Staging(const Staging &) = delete;
    Staging &operator=(const Staging &) = delete;
    ~Staging()
    {
        if (m_committed)
            return;
        for (const std::string &name : m_files)
            ::unlink((m_dir + "/" + name).c_str());
        ::rmdir(m_dir.c_str());
    }
    const std::string &dir() const { return m_dir; }
    void wrote(const std::string &name) { m_files.push_back(name); }
    void commit() { m_committed = true; }

private:
    std::string m_dir;
    std::vector<std::string> m_files;
    bool m_committed = false;
};

std::string parentOf(const std::string &path)
{
    const std::size_t slash = path.find_last_of('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

/// A new directory `prefix` + 8 random hex digits, made by mkdir(2) (which fails on an existing
/// name, as O_EXCL does) with mode 0777 so the umask applies, as for the directory asked for.
std::string makeStagingDirectory(const std::string &path, const std::string &prefix)
{
    std::random_device random;
    for (int attempt = 0; attempt < 100; ++attempt) {
        char suffix[9];
        std::snprintf(suffix, sizeof suffix, "%08x", static_cast<unsigned>(random()));
        const std::string dir = prefix + suffix;
        if (::mkdir(dir.c_str(), 0777) == 0)
            return dir;
        if (errno != EEXIST)
            break;
    }
    throw ScenarioError(
        path, "cannot create a directory in '" + parentOf(prefix) + "': " + errnoText(errno));
}

/// Backups of replaced files inside the staging directory: a name no export file has.
constexpr const char *kBackupPrefix = ".old-";

/**
 * Renames every staged file over its target in `target`, all or nothing: each file the target
 * already has is first kept as a hard link in the staging directory, so when a rename fails (a
 * directory of that name, a file the user may not replace) the files already replaced get their
 * old content back, the new ones are removed, and the error names the file. On success the
 * backups are removed.
 */
void replaceAll(const std::string &path, const std::string &target, Staging &staging,
    const std::vector<ExportFile> &files)
{
    struct Done
    {
        std::string name;
        bool hadOld = false;
    };
    std::vector<Done> done;
    const auto backupOf = [&staging](const std::string &name) {
        return staging.dir() + "/" + kBackupPrefix + name;
    };
    const auto rollBack = [&] {
        for (auto it = done.rbegin(); it != done.rend(); ++it) {
            const std::string at = target + "/" + it->name;
            if (it->hadOld)
                ::rename(backupOf(it->name).c_str(), at.c_str());
            else
                ::unlink(at.c_str());
        }
    };
    for (const ExportFile &f : files) {
        const std::string at = target + "/" + f.name;
        struct stat old
        {
        };
        const bool hadOld = ::lstat(at.c_str(), &old) == 0 && !S_ISDIR(old.st_mode);
        if (hadOld && ::link(at.c_str(), backupOf(f.name).c_str()) != 0) {
            const int error = errno;
            rollBack();
            throw ScenarioError(path + "/" + f.name,
                "cannot keep the old file while replacing it: " + errnoText(error)
                    + "; nothing was changed");
        }
        if (hadOld)
            staging.wrote(kBackupPrefix + f.name);
        if (::rename((staging.dir() + "/" + f.name).c_str(), at.c_str()) != 0) {
            const int error = errno;
            if (hadOld)
                ::unlink(backupOf(f.name).c_str());
            rollBack();
            throw ScenarioError(path + "/" + f.name,
                "cannot replace: " + errnoText(error) + "; nothing was changed");
        }
        done.push_back({ f.name, hadOld });
    }
    for (const Done &d : done)
        if (d.hadOld)
            ::unlink(backupOf(d.name).c_str());
}

} // namespace

void writeExportDirectory(const std::string &path, const std::vector<ExportFile> &files)
{
    std::string target = path;
    while (target.size() > 1 && target.back() == '/')
        target.pop_back();
    if (target.empty())
        throw ScenarioError("", "cannot write a directory with an empty name");
    for (const ExportFile &f : files)
        if (f.name.empty() || f.name.find('/') != std::string::npos || f.name == "."
            || f.name == ".." || f.name.rfind(kBackupPrefix, 0) == 0)
            throw ScenarioError(path, "'" + f.name + "' is not a plain file name");
    sweepStaleFiles(target); // what killed exports of this directory left

    struct stat st
    {
    };
    const bool exists = ::stat(target.c_str(), &st) == 0;
    if (exists && !S_ISDIR(st.st_mode))
        throw ScenarioError(path, "exists and is not a directory");

    // A new directory is staged beside it and renamed into place as a whole; an existing one
    // gets a staging directory inside (the same file system even when the target is a mount
    // point, so each rename is atomic).
    Staging staging(makeStagingDirectory(
        path, exists ? target + "/.railyard-staging-" : target + ".railyard-staging-"));
    for (const ExportFile &f : files) {
        writeFileAtomically(staging.dir() + "/" + f.name, f.text);
        staging.wrote(f.name);
    }
    if (!exists) {
        if (::rename(staging.dir().c_str(), target.c_str()) != 0)
            throw ScenarioError(path, "cannot create: " + errnoText(errno));
        staging.commit();
        return;
    }
    replaceAll(path, target, staging, files);
    staging.commit();
    ::rmdir(staging.dir().c_str());
}

std::string exportFilesListing(const std::vector<ExportFile> &files)
{
    std::string out;
    for (const ExportFile &f : files) {
        if (!out.empty())
            out += "\n";
        out += "==> " + f.name + " <==\n" + f.text;
        if (!f.text.empty() && f.text.back() != '\n')
            out += "\n";
    }
    return out;
}

} // namespace railyard
