// The stale temporary sweeper (model/base/stalefiles.cpp): it removes what killed writes of one
// target left (its "<target>.tmp-XXXXXX" files and "<target>.railyard-staging-XXXXXXXX"
// directories) once they are older than the stated age, and nothing else: not a live writer's
// fresh temporary, not another target's, not a name that only looks alike, not a symbolic
// link, not a staging directory holding something other than files.
#include "base/stalefiles.h"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/stat.h>
#include <unistd.h>
#include <utime.h>

#include <ctime>

namespace {

void touchFile(const QString &path, long long ageSeconds)
{
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("partial");
    f.close();
    const std::time_t then = std::time(nullptr) - static_cast<std::time_t>(ageSeconds);
    const utimbuf times { then, then };
    QCOMPARE(::utime(QFile::encodeName(path).constData(), &times), 0);
}

void ageDirectory(const QString &path, long long ageSeconds)
{
    const std::time_t then = std::time(nullptr) - static_cast<std::time_t>(ageSeconds);
    const utimbuf times { then, then };
    QCOMPARE(::utime(QFile::encodeName(path).constData(), &times), 0);
}

} // namespace

class TestStaleFiles : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void removesOnlyOurStaleTemporaries();
    void stagingDirectories();
};

void TestStaleFiles::removesOnlyOurStaleTemporaries()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("plan.sh"));
    const long long old = railyard::kStaleAge.count() + 60;
    touchFile(target, 0);
    touchFile(target + QStringLiteral(".tmp-aB3xY9"), old); // killed write: removed
    touchFile(target + QStringLiteral(".tmp-Q1w2E3"), old); // another killed write: removed
    touchFile(target + QStringLiteral(".tmp-fresh1"), 5); // a live writer's: kept
    touchFile(target + QStringLiteral(".tmp-abc12"), old); // 5 characters: not ours
    touchFile(target + QStringLiteral(".tmp-abc1234"), old); // 7 characters: not ours
    touchFile(target + QStringLiteral(".tmp-ab_123"), old); // '_' is not in our alphabet
    touchFile(dir.filePath(QStringLiteral("other.sh.tmp-aB3xY9")), old); // another target's
    touchFile(dir.filePath(QStringLiteral("xplan.sh.tmp-aB3xY9")), old);
    QVERIFY(QFile::link(dir.filePath(QStringLiteral("other.sh.tmp-aB3xY9")),
        target + QStringLiteral(".tmp-link00"))); // a symbolic link: never followed or removed
    QDir().mkdir(target + QStringLiteral(".tmp-dir000")); // a directory of that name: kept
    ageDirectory(target + QStringLiteral(".tmp-dir000"), old);

    QCOMPARE(railyard::sweepStaleFiles(target.toStdString()), 2);
    QStringList left
        = QDir(dir.path()).entryList(QDir::AllEntries | QDir::NoDotAndDotDot | QDir::System);
    left.sort();
    QCOMPARE(left,
        QStringList({ QStringLiteral("other.sh.tmp-aB3xY9"), QStringLiteral("plan.sh"),
            QStringLiteral("plan.sh.tmp-ab_123"), QStringLiteral("plan.sh.tmp-abc12"),
            QStringLiteral("plan.sh.tmp-abc1234"), QStringLiteral("plan.sh.tmp-dir000"),
            QStringLiteral("plan.sh.tmp-fresh1"), QStringLiteral("plan.sh.tmp-link00"),
            QStringLiteral("xplan.sh.tmp-aB3xY9") }));
    // A relative target sweeps the working directory's entries.
    const QString cwd = QDir::currentPath();
    QVERIFY(QDir::setCurrent(dir.path()));
    touchFile(QStringLiteral("plan.sh.tmp-zzzzzz"), old);
    const int removed = railyard::sweepStaleFiles("plan.sh");
    QDir::setCurrent(cwd);
    QCOMPARE(removed, 1);
    // With a shorter age the live one goes too (the age is the only thing that protects it).
    QCOMPARE(railyard::sweepStaleFiles(target.toStdString(), std::chrono::seconds(0)), 1);
    QVERIFY(!QFile::exists(target + QStringLiteral(".tmp-fresh1")));
}

void TestStaleFiles::stagingDirectories()
{
    QTemporaryDir dir;
    const QString target = dir.filePath(QStringLiteral("astra"));
    const long long old = railyard::kStaleAge.count() + 60;
    QDir().mkpath(target);
    // A killed export of a new directory (beside it) and of an existing one (inside it).
    for (const QString &staging : { target + QStringLiteral(".railyard-staging-0a1b2c3d"),
             target + QStringLiteral("/.railyard-staging-deadbeef") }) {
        QDir().mkdir(staging);
        touchFile(staging + QStringLiteral("/system.json"), old);
        touchFile(staging + QStringLiteral("/topology.txt.tmp-aB3xY9"), old);
        ageDirectory(staging, old);
    }
    // Kept: a fresh staging (a live export), one holding a directory, one with a fresh file,
    // one whose name is not ours (upper-case hex, 7 digits).
    const QString live = target + QStringLiteral(".railyard-staging-11111111");
    QDir().mkdir(live);
    touchFile(live + QStringLiteral("/system.json"), 1);
    const QString nested = target + QStringLiteral(".railyard-staging-22222222");
    QDir().mkpath(nested + QStringLiteral("/sub"));
    ageDirectory(nested + QStringLiteral("/sub"), old);
    ageDirectory(nested, old);
    const QString freshFile = target + QStringLiteral(".railyard-staging-33333333");
    QDir().mkdir(freshFile);
    touchFile(freshFile + QStringLiteral("/a"), 1);
    ageDirectory(freshFile, old);
    for (const QString &name : { QStringLiteral(".railyard-staging-ABCDEF12"),
             QStringLiteral(".railyard-staging-1234567") }) {
        QDir().mkdir(target + name);
        ageDirectory(target + name, old);
    }

    QCOMPARE(railyard::sweepStaleFiles(target.toStdString()), 2);
    QVERIFY(!QFileInfo::exists(target + QStringLiteral(".railyard-staging-0a1b2c3d")));
    QVERIFY(!QFileInfo::exists(target + QStringLiteral("/.railyard-staging-deadbeef")));
    for (const QString &kept :
        { live, nested, freshFile, target + QStringLiteral(".railyard-staging-ABCDEF12"),
            target + QStringLiteral(".railyard-staging-1234567") })
        QVERIFY2(QFileInfo::exists(kept), qPrintable(kept));
}

QTEST_GUILESS_MAIN(TestStaleFiles)
#include "tst_stalefiles.moc"
