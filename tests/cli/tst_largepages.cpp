/**
 * The programs' operator new (app/common/largepages.cpp), linked into this suite as into
 * railyard and railyard-cli: a large block and the main heap's growth are backed by transparent
 * huge pages where the kernel gives them on request, the standard's contract for operator new
 * holds, and railyard-cli prints the same with the advice on and off while taking far fewer
 * page faults.
 */
#include "base/writeahead.h"
#include "clirun.h"
#include "largepages.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

namespace {

/** The kernel's transparent huge page mode: "always", "madvise" or "never" ("" without THP). */
QByteArray hugePageMode()
{
    QFile f(QStringLiteral("/sys/kernel/mm/transparent_hugepage/enabled"));
    if (!f.open(QIODevice::ReadOnly))
        return {};
    const QByteArray text = f.readAll();
    const qsizetype open = text.indexOf('[');
    const qsizetype close = text.indexOf(']', open);
    return open < 0 || close < 0 ? QByteArray() : text.mid(open + 1, close - open - 1);
}

/**
 * The kilobytes of huge pages (smaps' AnonHugePages) in the mapping of /proc/self/smaps that
 * holds `address`, or the one named `name` ("[heap]") when address is 0; -1 when none does.
 */
qint64 anonHugeKb(std::uintptr_t address, const QByteArray &name = {})
{
    QFile f(QStringLiteral("/proc/self/smaps"));
    if (!f.open(QIODevice::ReadOnly))
        return -1;
    bool inside = false;
    for (const QByteArray &line : f.readAll().split('\n')) {
        const qsizetype dash = line.indexOf('-');
        const qsizetype space = line.indexOf(' ');
        if (dash > 0 && space > dash && !line.left(space).endsWith(':')) { // a mapping's header
            bool ok1 = false;
            bool ok2 = false;
            const auto first = static_cast<std::uintptr_t>(line.left(dash).toULongLong(&ok1, 16));
            const auto last = static_cast<std::uintptr_t>(
                line.mid(dash + 1, space - dash - 1).toULongLong(&ok2, 16));
            inside = ok1 && ok2
                && (address != 0 ? address >= first && address < last
                                 : line.trimmed().endsWith(name));
            continue;
        }
        if (inside && line.startsWith("AnonHugePages:"))
            return line.mid(14).trimmed().split(' ').value(0).toLongLong();
    }
    return -1;
}

/**
 * Whether the advice shows: the program's operator new gives it (hugePagesAdvised()) and the
 * kernel backs only advised memory with huge pages.
 */
bool onlyAdvisedMemoryGetsHugePages()
{
    return railyard::hugePagesAdvised() && hugePageMode() == "madvise";
}

int handlerCalls = 0;

void handlerGivingUpOnSecondCall()
{
    if (++handlerCalls == 2)
        std::set_new_handler(nullptr);
}

/**
 * How many of the whole pages inside [first, last) are resident (mincore(2)), and of how many;
 * -1 resident when mincore() fails.
 */
std::pair<qsizetype, qsizetype> residentPages(std::uintptr_t first, std::uintptr_t last)
{
    const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
    first = (first + page - 1) & ~(page - 1);
    last &= ~(page - 1);
    if (last <= first)
        return { 0, 0 };
    std::vector<unsigned char> resident((last - first) / page);
    if (::mincore(reinterpret_cast<void *>(first), last - first, resident.data()) != 0)
        return { -1, static_cast<qsizetype>(resident.size()) };
    const auto in = std::count_if(
        resident.begin(), resident.end(), [](unsigned char r) { return (r & 1) != 0; });
    return { in, static_cast<qsizetype>(resident.size()) };
}

/// residentPages(), again every 10 ms until every page is resident or ten seconds have passed
/// (the second thread faults them in).
std::pair<qsizetype, qsizetype> residentWithinTenSeconds(std::uintptr_t first, std::uintptr_t last)
{
    std::pair<qsizetype, qsizetype> seen = residentPages(first, last);
    for (int tries = 1; tries < 1000 && seen.first != seen.second; ++tries) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        seen = residentPages(first, last);
    }
    return seen;
}

/** Page faults (ru_minflt) of the children this process waited for, so far. */
long childPageFaults()
{
    rusage usage {};
    getrusage(RUSAGE_CHILDREN, &usage);
    return usage.ru_minflt;
}

} // namespace

class TestLargePages : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void largeBlockGetsHugePages();
    void heapGrowthGetsHugePages();
    void heapPaddingIsFaultedInBeside();
    void announcedBlockIsFaultedInBeside();
    void failureCallsTheNewHandlerThenThrows();
    void cliPrintsTheSameWithFewerFaults();
};

void TestLargePages::largeBlockGetsHugePages()
{
    if (!onlyAdvisedMemoryGetsHugePages())
        QSKIP("needs the replacement operator new and transparent huge pages in mode 'madvise'");
    constexpr std::size_t size = 16u << 20; // eight 2 MiB pages; at least seven whole ones inside
    const std::unique_ptr<char[]> block(new char[size]);
    std::memset(block.get(), 1, size);
    const qint64 kb = anonHugeKb(reinterpret_cast<std::uintptr_t>(block.get()) + size / 2);
    QVERIFY2(
        kb > 0, qPrintable(QStringLiteral("AnonHugePages of the block's mapping: %1 kB").arg(kb)));
}

void TestLargePages::heapGrowthGetsHugePages()
{
    if (!onlyAdvisedMemoryGetsHugePages())
        QSKIP("needs the replacement operator new and transparent huge pages in mode 'madvise'");
    // Small blocks, served from the main heap (this is the main thread), grow it by 64 MiB.
    constexpr int count = 1 << 20;
    std::vector<std::unique_ptr<std::array<char, 48>>> blocks;
    blocks.reserve(count);
    for (int i = 0; i < count; ++i) {
        blocks.push_back(std::make_unique<std::array<char, 48>>());
        blocks.back()->fill(static_cast<char>(i));
    }
    const qint64 kb = anonHugeKb(0, "[heap]");
    QVERIFY2(kb >= 16 * 1024, qPrintable(QStringLiteral("AnonHugePages of [heap]: %1 kB").arg(kb)));
}

void TestLargePages::heapPaddingIsFaultedInBeside()
{
    if (!onlyAdvisedMemoryGetsHugePages())
        QSKIP("needs the replacement operator new and transparent huge pages in mode 'madvise'");
    railyard::prefaultHeapGrowth(0); // from the next growth on
    // Small blocks until the heap grows, twice over; nothing here touches past the last block.
    std::vector<std::unique_ptr<std::array<char, 48>>> blocks;
    blocks.reserve(1 << 22);
    const auto top = [] { return reinterpret_cast<std::uintptr_t>(::sbrk(0)); };
    const std::uintptr_t start = top();
    int growths = 0;
    for (std::uintptr_t seen = start; growths < 2 && blocks.size() < (1u << 22);) {
        blocks.push_back(std::make_unique<std::array<char, 48>>());
        blocks.back()->fill(1);
        if (top() != seen) {
            seen = top();
            ++growths;
        }
    }
    QCOMPARE(growths, 2);
    // The padding past the last block: every page of it resident without this thread touching
    // it (mincore(2)), within ten seconds.
    const auto last = reinterpret_cast<std::uintptr_t>(blocks.back().get()) + 48;
    const std::uintptr_t first = (last + (2u << 20) - 1) & ~std::uintptr_t { (2u << 20) - 1 };
    const std::uintptr_t end = top() & ~std::uintptr_t { (2u << 20) - 1 };
    if (end <= first)
        QSKIP("the last block ended within the heap's last huge page");
    const auto [in, pages] = residentWithinTenSeconds(first, end);
    QVERIFY(in >= 0); // mincore() answered
    QVERIFY2(in == pages,
        qPrintable(QStringLiteral("%1 of %2 pages of the padding not resident")
                       .arg(pages - in)
                       .arg(pages)));
}

/// A block the engine says it is about to write whole (aboutToWrite(), base/writeahead.h) is
/// faulted in on the second thread once prefaultHeapGrowth() was called: every page resident
/// without this thread touching it (mincore(2)), what it had written kept. A block under eight
/// huge pages is left alone.
void TestLargePages::announcedBlockIsFaultedInBeside()
{
    if (!onlyAdvisedMemoryGetsHugePages())
        QSKIP("needs the replacement operator new and transparent huge pages in mode 'madvise'");
    railyard::prefaultHeapGrowth(std::numeric_limits<std::size_t>::max()); // blocks only
    const auto span = [](const char *data, std::size_t size) {
        const auto first = reinterpret_cast<std::uintptr_t>(data);
        return std::pair<std::uintptr_t, std::uintptr_t>(first, first + size);
    };
    // Fresh, untouched blocks, mapped here: malloc() may serve even 64 MiB from memory an
    // earlier test touched and freed.
    constexpr std::size_t small = 4u << 20, large = 64u << 20;
    const auto map = [](std::size_t size) {
        void *p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        return std::unique_ptr<char, std::function<void(char *)>>(
            p == MAP_FAILED ? nullptr : static_cast<char *>(p),
            [size](char *q) { ::munmap(q, size); });
    };
    const auto little = map(small);
    const auto block = map(large);
    QVERIFY(little && block);
    // Advised as operator new advises a large block (the handler only faults in).
    QCOMPARE(::madvise(block.get(), large, MADV_HUGEPAGE), 0);
    QCOMPARE(std::apply(residentPages, span(block.get(), large)).first, 0);
    std::memset(block.get(), 7, 1000); // written before the hint: kept
    railyard::aboutToWrite(little.get(), small);
    railyard::aboutToWrite(block.get(), large);
    const auto seen = std::apply(residentWithinTenSeconds, span(block.get(), large));
    QVERIFY2(seen.first == seen.second && seen.second > 0,
        qPrintable(QStringLiteral("%1 of %2 pages of the block resident")
                       .arg(seen.first)
                       .arg(seen.second)));
    QVERIFY(std::all_of(block.get(), block.get() + 1000, [](char c) { return c == 7; }));
    QCOMPARE(std::apply(residentPages, span(little.get(), small)).first, 0);
}

void TestLargePages::failureCallsTheNewHandlerThenThrows()
{
#if defined(__SANITIZE_ADDRESS__)
    QSKIP("the sanitizer's operator new is in use (it aborts on an impossible size)");
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
    QSKIP("the sanitizer's operator new is in use (it aborts on an impossible size)");
#endif
#endif
    // No allocator serves half the address space: the handler runs, then bad_alloc.
    volatile std::size_t impossible = std::numeric_limits<std::size_t>::max() / 2;
    handlerCalls = 0;
    std::set_new_handler(handlerGivingUpOnSecondCall);
    bool threw = false;
    try {
        ::operator delete(::operator new(impossible));
    } catch (const std::bad_alloc &) {
        threw = true;
    }
    std::set_new_handler(nullptr);
    QVERIFY(threw);
    QCOMPARE(handlerCalls, 2);
}

void TestLargePages::cliPrintsTheSameWithFewerFaults()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString scenario = dir.filePath(QStringLiteral("16k.json"));
    // 16,384 GPUs: about 50 MB for `evaluate`.
    const CliRun generated = runRailyardCli({ "generate", "--fabric", "rail-optimised", "--servers",
        "2048", "--gpus-per-server", "8", "--switch-radix", "64", "--tp", "8", "--pp", "8",
        "--model", "gpt3-175b", "--global-batch", "2048", "-o", scenario });
    QCOMPARE(generated.exitCode, 0);

    QProcessEnvironment off = QProcessEnvironment::systemEnvironment();
    off.insert(QStringLiteral("RAILYARD_HUGE_PAGES"), QStringLiteral("0"));
    QProcessEnvironment on = QProcessEnvironment::systemEnvironment();
    on.remove(QStringLiteral("RAILYARD_HUGE_PAGES"));

    long before = childPageFaults();
    const CliRun plain = runRailyardCli({ "evaluate", scenario }, off, 60000);
    const long plainFaults = childPageFaults() - before;
    before = childPageFaults();
    const CliRun advised = runRailyardCli({ "evaluate", scenario }, on, 60000);
    const long advisedFaults = childPageFaults() - before;
    QCOMPARE(plain.exitCode, 0);
    QCOMPARE(advised.exitCode, 0);
    QCOMPARE(advised.out, plain.out);
    QVERIFY(plainFaults > 0);
    if (!onlyAdvisedMemoryGetsHugePages())
        QSKIP("the output matched; the page faults compare only in mode 'madvise'");
    // Measured: 10,272 page faults with the advice off, 1,379 with it.
    QVERIFY2(advisedFaults * 3 < plainFaults,
        qPrintable(
            QStringLiteral("page faults: %1 advised, %2 not").arg(advisedFaults).arg(plainFaults)));
}

QTEST_GUILESS_MAIN(TestLargePages)
#include "tst_largepages.moc"
