#include "base/stalefiles.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <ctime>
#include <string_view>
#include <vector>

namespace railyard {

namespace {

constexpr std::string_view kTempMark = ".tmp-";
constexpr std::size_t kTempSuffix = 6; // fileio.cpp randomSuffix(): 6 of [A-Za-z0-9]
constexpr std::string_view kStagingMark = ".railyard-staging-";
constexpr std::size_t kStagingSuffix = 8; // exportdirectory.cpp: "%08x"

bool suffixOf(std::string_view name, std::string_view prefix, std::size_t length, bool hex)
{
    if (name.size() != prefix.size() + length || name.substr(0, prefix.size()) != prefix)
        return false;
    for (const char ch : name.substr(prefix.size())) {
        const auto c = static_cast<unsigned char>(ch);
        if (hex ? !std::isxdigit(c) || std::isupper(c) : !std::isalnum(c))
            return false;
    }
    return true;
}

bool oldEnough(const struct stat &st, std::chrono::seconds age)
{
    const std::time_t now = std::time(nullptr);
    return now - st.st_mtime >= static_cast<std::time_t>(age.count());
}

/// Removes `dir` when it holds only regular files (none of them newer than `age`).
bool removeStaleDirectory(const std::string &dir, std::chrono::seconds age)
{
    struct stat st
    {
    };
    if (::lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode) || !oldEnough(st, age))
        return false;
    DIR *d = ::opendir(dir.c_str());
    if (!d)
        return false;
    std::vector<std::string> files;
    bool plain = true;
    while (const dirent *e = ::readdir(d)) {
        const std::string_view name = e->d_name;
        if (name == "." || name == "..")
            continue;
        struct stat f
        {
        };
        const std::string path = dir + "/" + std::string(name);
        if (::lstat(path.c_str(), &f) != 0 || !S_ISREG(f.st_mode) || !oldEnough(f, age)) {
            plain = false;
            break;
        }
        files.push_back(path);
    }
    ::closedir(d);
    if (!plain)
        return false;
    for (const std::string &f : files)
        ::unlink(f.c_str());
    return ::rmdir(dir.c_str()) == 0;
}

} // namespace

int sweepStaleFiles(const std::string &path, std::chrono::seconds age)
{
    std::string target = path;
    while (target.size() > 1 && target.back() == '/')
        target.pop_back();
    if (target.empty())
        return 0;
    const std::size_t slash = target.rfind('/');
    const std::string dir
        = slash == std::string::npos ? "." : (slash == 0 ? "/" : target.substr(0, slash));
    const std::string base = slash == std::string::npos ? target : target.substr(slash + 1);
    const std::string prefix = slash == std::string::npos ? "" : dir + "/";

    int removed = 0;
    DIR *d = ::opendir(dir.c_str());
    if (d) {
        std::vector<std::string> temps, stagings;
        while (const dirent *e = ::readdir(d)) {
            const std::string_view name = e->d_name;
            if (name.substr(0, base.size()) != base)
                continue;
            const std::string_view rest = name.substr(base.size());
            if (suffixOf(rest, kTempMark, kTempSuffix, false))
                temps.push_back(prefix + std::string(name));
            else if (suffixOf(rest, kStagingMark, kStagingSuffix, true))
                stagings.push_back(prefix + std::string(name));
        }
        ::closedir(d);
        for (const std::string &t : temps) {
            struct stat st
            {
            };
            if (::lstat(t.c_str(), &st) == 0 && S_ISREG(st.st_mode) && oldEnough(st, age)
                && ::unlink(t.c_str()) == 0)
                ++removed;
        }
        for (const std::string &s : stagings)
            removed += removeStaleDirectory(s, age) ? 1 : 0;
    }
    // Inside an existing directory target: the staging of an export into it.
    struct stat st
    {
    };
    if (::lstat(target.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
        DIR *inner = ::opendir(target.c_str());
        if (inner) {
            std::vector<std::string> stagings;
            while (const dirent *e = ::readdir(inner)) {
                const std::string_view name = e->d_name;
                if (suffixOf(name, kStagingMark, kStagingSuffix, true))
                    stagings.push_back(target + "/" + std::string(name));
            }
            ::closedir(inner);
            for (const std::string &s : stagings)
                removed += removeStaleDirectory(s, age) ? 1 : 0;
        }
    }
    return removed;
}

} // namespace railyard
