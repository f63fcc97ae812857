#include "base/fileio.h"

#include "base/scenarioerror.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <random>
#include <string_view>
#include <system_error>

namespace railyard {

std::string errnoText(int error)
{
    return std::error_code(error, std::generic_category()).message();
}

std::string readAllLimited(int fd, const std::string &path, long long limit,
    const std::string &limitSuffix, long long expectedSize)
{
    std::string text;
    // One allocation for a file of known size (a 61 MB run record would otherwise grow the
    // string by doubling, holding twice its size at the last copy); +1 for the EOF read.
    if (expectedSize > 0 && expectedSize <= limit)
        text.reserve(static_cast<std::size_t>(expectedSize) + 1);
    char buffer[1 << 16];
    for (;;) {
        const ssize_t n = ::read(fd, buffer, sizeof buffer);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw ScenarioError(path, "cannot read: " + errnoText(errno));
        if (n == 0)
            return text;
        text.append(buffer, static_cast<std::size_t>(n));
        if (static_cast<long long>(text.size()) > limit)
            throw ScenarioError(path, "file is more than the limit of " + std::to_string(limit)
                                          + " bytes" + limitSuffix);
    }
}

namespace {

/// Closes a descriptor when it goes out of scope.
struct FdCloser
{
    explicit FdCloser(int descriptor)
        : fd(descriptor)
    {}
    FdCloser(const FdCloser &) = delete;
    FdCloser &operator=(const FdCloser &) = delete;
    ~FdCloser()
    {
        if (fd >= 0)
            ::close(fd);
    }
    int fd;
};

} // namespace

namespace {

/// What a non-regular file is, for "is a FIFO (named pipe), not a scenario file".
std::string kindOf(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "a special file";
}

} // namespace

int openRegularFile(const std::string &path, const std::string &what)
{
    // O_NONBLOCK: open(2) of a FIFO without a writer blocks until one appears; with the flag it
    // returns at once and the fstat below refuses it. (Opening a socket fails with ENXIO.)
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno == ENXIO) {
            struct stat st
            {
            };
            if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode))
                throw ScenarioError(path, "is " + kindOf(st.st_mode) + ", not " + what);
        }
        throw ScenarioError(path, "cannot open: " + errnoText(errno));
    }
    FdCloser closer(fd);
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        throw ScenarioError(path, "cannot read: " + errnoText(errno));
    if (!S_ISREG(st.st_mode)) {
        throw ScenarioError(path, "is " + kindOf(st.st_mode) + ", not " + what);
    }
    // Regular files never block, but a read must not see EAGAIN either: back to blocking.
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags < 0 || ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK) != 0)
        throw ScenarioError(path, "cannot read: " + errnoText(errno));
    closer.fd = -1; // handed to the caller
    return fd;
}

std::string readFileLimited(const std::string &path, long long limit, const std::string &what,
    const std::string &limitSuffix)
{
    const FdCloser closer(openRegularFile(path, what));
    struct stat st
    {
    };
    if (::fstat(closer.fd, &st) != 0)
        throw ScenarioError(path, "cannot read: " + errnoText(errno));
    if (st.st_size > limit)
        throw ScenarioError(path, "file is " + std::to_string(st.st_size)
                                      + " bytes, more than the limit of " + std::to_string(limit)
                                      + " bytes" + limitSuffix);
    return readAllLimited(closer.fd, path, limit, limitSuffix, st.st_size);
}

namespace {

/// Removes a temporary file (and closes its descriptor) unless the write was committed.
class TempFile
{
public:
    TempFile(std::string path, int fd)
        : m_path(std::move(path))
        , m_fd(fd)
    {}
    TempFile(const TempFile &) = delete;
    TempFile &operator=(const TempFile &) = delete;
    ~TempFile()
    {
        closeFd();
        if (!m_committed)
            ::unlink(m_path.c_str());
    }
    int fd() const { return m_fd; }
    const std::string &path() const { return m_path; }
    /// close() and its error, for the caller to report.
    int closeFd()
    {
        const int rc = m_fd >= 0 ? ::close(m_fd) : 0;
        m_fd = -1;
        return rc;
    }
    void commit() { m_committed = true; }

private:
    std::string m_path;
    int m_fd = -1;
    bool m_committed = false;
};

std::string randomSuffix()
{
    static constexpr std::string_view alphabet =
        "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    thread_local std::mt19937_64 engine{std::random_device{}()};
    std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
    std::string out(6, ' ');
    for (char &c : out)
        c = alphabet[pick(engine)];
    return out;
}

std::string directoryOf(const std::string &path)
{
    const std::size_t slash = path.rfind('/');
    if (slash == std::string::npos)
        return ".";
    return slash == 0 ? "/" : path.substr(0, slash);
}

} // namespace

void writeFileAtomically(const std::string &path, const std::string &text)
{
    if (path.empty())
        throw ScenarioError("", "cannot write a file with an empty name");

    // O_EXCL on a random name, as mkstemp does, but with mode 0666 so the umask applies.
    int fd = -1;
    std::string tempPath;
    for (int attempt = 0; attempt < 100; ++attempt) {
        tempPath = path + ".tmp-" + randomSuffix();
        fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
        if (fd >= 0 || errno != EEXIST)
            break;
    }
    if (fd < 0)
        throw ScenarioError(path, "cannot create a temporary file in '" + directoryOf(path)
                                      + "': " + errnoText(errno));
    TempFile temp(tempPath, fd);

    // Replacing a file keeps its permissions.
    struct stat old {};
    if (::stat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode))
        ::fchmod(fd, old.st_mode & 07777);

    std::size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            throw ScenarioError(path, "cannot write '" + tempPath + "': " + errnoText(errno));
        written += static_cast<std::size_t>(n);
    }
    if (::fsync(fd) != 0)
        throw ScenarioError(path, "cannot sync '" + tempPath + "': " + errnoText(errno));
    if (temp.closeFd() != 0)
        throw ScenarioError(path, "cannot close '" + tempPath + "': " + errnoText(errno));
    if (::rename(tempPath.c_str(), path.c_str()) != 0)
        throw ScenarioError(path, "cannot replace: " + errnoText(errno));
    temp.commit();

    // Make the rename itself durable; a failure here cannot undo the save, so it is ignored.
    const int dir = ::open(directoryOf(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dir >= 0) {
        ::fsync(dir);
        ::close(dir);
    }
}

} // namespace railyard
