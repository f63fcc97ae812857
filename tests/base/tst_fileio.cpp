// The shared reader every loader opens its input with (model/base/fileio.cpp): a FIFO, a
// directory, a device or a socket is refused at once, naming the path and what it is, instead
// of blocking (a FIFO without a writer used to hang 10 of the 11 loaders); a regular file is
// read whole, and its size limit holds.
#include "base/fileio.h"
#include "base/scenarioerror.h"

#include <QDir>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

using namespace railyard;

namespace {

/// The message readFileLimited refuses `path` with, and how long it took; "" when it read.
std::string refusal(const std::string &path, qint64 &elapsedMs)
{
    QElapsedTimer timer;
    timer.start();
    std::string error;
    try {
        readFileLimited(path, 1 << 20, "a scenario file");
    } catch (const ScenarioError &e) {
        error = e.what();
    }
    elapsedMs = timer.elapsed();
    return error;
}

} // namespace

class TestFileIo : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void refusesWhatIsNotARegularFile_data();
    void refusesWhatIsNotARegularFile();
    void readsARegularFile();
    void refusesAFileAboveTheLimit();
    void missingFile();

private:
    QTemporaryDir m_dir;
};

void TestFileIo::refusesWhatIsNotARegularFile_data()
{
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("says");
    QTest::newRow("fifo") << "fifo"
                          << "is a FIFO (named pipe), not a scenario file";
    QTest::newRow("directory") << "directory"
                               << "is a directory, not a scenario file";
    QTest::newRow("character device") << "device"
                                      << "is a character device, not a scenario file";
    QTest::newRow("socket") << "socket"
                            << "is a socket, not a scenario file";
}

void TestFileIo::refusesWhatIsNotARegularFile()
{
    QFETCH(QString, kind);
    QFETCH(QString, says);
    std::string path = (m_dir.path() + "/" + kind).toStdString();
    int socketFd = -1;
    if (kind == "fifo") {
        QCOMPARE(::mkfifo(path.c_str(), 0600), 0);
    } else if (kind == "directory") {
        QVERIFY(QDir().mkpath(QString::fromStdString(path)));
    } else if (kind == "device") {
        path = "/dev/null";
    } else {
        socketFd = ::socket(AF_UNIX, SOCK_STREAM, 0);
        QVERIFY(socketFd >= 0);
        sockaddr_un address {};
        address.sun_family = AF_UNIX;
        QVERIFY(path.size() < sizeof address.sun_path);
        std::memcpy(address.sun_path, path.c_str(), path.size() + 1);
        QCOMPARE(::bind(socketFd, reinterpret_cast<sockaddr *>(&address), sizeof address), 0);
    }
    qint64 ms = 0;
    const std::string error = refusal(path, ms);
    if (socketFd >= 0)
        ::close(socketFd);
    QCOMPARE(QString::fromStdString(error), QString::fromStdString(path) + ": " + says);
    // At once: the FIFO has no writer, so a blocking open would never return.
    QVERIFY2(ms < 5000, qPrintable(QString::number(ms)));
}

void TestFileIo::readsARegularFile()
{
    const std::string path = (m_dir.path() + "/plain.json").toStdString();
    std::ofstream(path) << "{\"name\": \"x\"}\n";
    QCOMPARE(readFileLimited(path, 100, "a scenario file"), std::string("{\"name\": \"x\"}\n"));
}

void TestFileIo::refusesAFileAboveTheLimit()
{
    const std::string path = (m_dir.path() + "/big.txt").toStdString();
    std::ofstream(path) << std::string(101, 'x');
    try {
        readFileLimited(path, 100, "a scenario file", " (100 B)");
        QFAIL("a file above the limit was read");
    } catch (const ScenarioError &e) {
        QCOMPARE(
            e.reason(), std::string("file is 101 bytes, more than the limit of 100 bytes (100 B)"));
        QCOMPARE(e.field(), path);
    }
}

void TestFileIo::missingFile()
{
    const std::string path = (m_dir.path() + "/absent.json").toStdString();
    try {
        readFileLimited(path, 100, "a scenario file");
        QFAIL("a missing file was read");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.reason(), std::string("cannot open: No such file or directory"));
    }
}

QTEST_GUILESS_MAIN(TestFileIo)
#include "tst_fileio.moc"
