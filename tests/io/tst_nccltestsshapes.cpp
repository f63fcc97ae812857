// nccl-tests output as people publish it (model/io/nccltestslog.cpp, io/launcherlabels.cpp):
// logs in those shapes written here in nccl-tests' format (tests/data/nccl-tests/SOURCES.md)
// read to their exact rows, launcher labels and timestamps, wrapped and '#'-less headers, and
// several tables in one file read as runs of their own.
#include "base/scenarioerror.h"
#include "io/nccltestslog.h"
#include "ncclteststext.h"

#include <QTest>

#include <cmath>

using namespace railyard;
using railyard::testing::errorOf;
using railyard::testing::kHeader;

namespace {

std::string sample(const std::string &name)
{
    return std::string(RAILYARD_SOURCE_DIR) + "/tests/data/nccl-tests/" + name;
}

} // namespace

class TestNcclTestsShapes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void shapesFound_data();
    void shapesFound();
    void wrappedAndTrimmedHeaders();
    void labelsOnlyWhereConsistent();
    void severalTablesAsRuns();
};

void TestNcclTestsShapes::shapesFound_data()
{
    // Logs in the shapes people publish them, written here in nccl-tests' format
    // (tests/data/nccl-tests/SOURCES.md): every row read, checked by its count, first and last
    // rows and the sums of a column over all rows (taken from the files with awk-like reading).
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("table"); // 0-based table of the file
    QTest::addColumn<QString>("binary");
    QTest::addColumn<int>("ranks");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("firstLine");
    QTest::addColumn<qlonglong>("firstBytes");
    QTest::addColumn<int>("lastLine");
    QTest::addColumn<qlonglong>("lastBytes");
    QTest::addColumn<double>("lastTime");
    QTest::addColumn<double>("sumTime"); // out-of-place time, us
    QTest::addColumn<double>("sumBusbwIn"); // in-place busbw, GB/s
    QTest::newRow("srun -l, 2 nodes")
        << "srun-l-h100-2node-all_reduce.txt" << 0 << "all_reduce_perf" << 16 << 14 << 25
        << 1048576ll << 40 << 8589934592ll << 44537.1 << 89608.76 << 3704.03;
    QTest::newRow("open mpi tagged")
        << "openmpi-tagged-a100-1node-all_gather.txt" << 0 << "all_gather_perf" << 8 << 9 << 17
        << 8388608ll << 26 << 2147483648ll << 8266.4 << 16675.68 << 1792.64;
    QTest::newRow("no '#'") << "no-hash-header-h100-1node-reduce_scatter.txt" << 0
                            << "reduce_scatter_perf" << 8 << 8 << 18 << 33554432ll << 25
                            << 4294967296ll << 10149.6 << 20340.14 << 2779.50;
    QTest::newRow("console") << "console-h100-1node-all_reduce.txt" << 0 << "all_reduce_perf" << 8
                             << 8 << 51 << 67108864ll << 60 << 8589934592ll << 31478.5 << 62891.40
                             << 3679.61;
    QTest::newRow("two tables, 1st")
        << "two-tables-a100-1node.txt" << 0 << "all_reduce_perf" << 8 << 4 << 17 << 1073741824ll
        << 20 << 8589934592ll << 65105.3 << 122136.10 << 913.27;
    QTest::newRow("two tables, 2nd")
        << "two-tables-a100-1node.txt" << 1 << "all_gather_perf" << 8 << 4 << 42 << 1073741824ll
        << 45 << 8589934592ll << 31873.3 << 59815.50 << 931.91;
    QTest::newRow("sendrecv 8") << "sendrecv-h100-1node-8gpu.txt" << 0 << "sendrecv_perf" << 8 << 13
                                << 17 << 1048576ll << 29 << 4294967296ll << 11909.4 << 23947.94
                                << 3656.51;
    QTest::newRow("alltoall 16") << "alltoall-h100-2node-16gpu.txt" << 0 << "alltoall_perf" << 16
                                 << 26 << 25 << 0ll << 50 << 268435456ll << 4398.9 << 10058.94
                                 << 384.17;
}

void TestNcclTestsShapes::shapesFound()
{
    QFETCH(QString, file);
    QFETCH(int, table);
    QFETCH(QString, binary);
    QFETCH(int, ranks);
    QFETCH(int, rows);
    QFETCH(int, firstLine);
    QFETCH(qlonglong, firstBytes);
    QFETCH(int, lastLine);
    QFETCH(qlonglong, lastBytes);
    QFETCH(double, lastTime);
    QFETCH(double, sumTime);
    QFETCH(double, sumBusbwIn);
    const std::vector<NcclTestsLog> logs = readNcclTestsLogs(sample(file.toStdString()));
    QVERIFY(static_cast<int>(logs.size()) > table);
    const NcclTestsLog &log = logs[static_cast<std::size_t>(table)];
    QCOMPARE(QString::fromStdString(log.binary), binary);
    QCOMPARE(log.ranks, ranks);
    QCOMPARE(static_cast<int>(log.hosts.size()), ranks);
    QCOMPARE(static_cast<int>(log.rows.size()), rows);
    QCOMPARE(log.rows.front().line, firstLine);
    QCOMPARE(log.rows.front().bytes, firstBytes);
    QCOMPARE(log.rows.back().line, lastLine);
    QCOMPARE(log.rows.back().bytes, lastBytes);
    QCOMPARE(log.rows.back().outOfPlace.timeUs, lastTime);
    double time = 0.0, busbw = 0.0;
    for (const NcclTestsRow &r : log.rows) {
        time += r.outOfPlace.timeUs;
        busbw += r.inPlace.busbw;
    }
    QVERIFY2(std::abs(time - sumTime) < 1e-6, qPrintable(QString::number(time, 'f', 4)));
    QVERIFY2(std::abs(busbw - sumBusbwIn) < 1e-6, qPrintable(QString::number(busbw, 'f', 4)));
    QVERIFY(log.averageBusBw > 0.0);
    QVERIFY(log.op.has_value());
    // A file of one table keeps its file as its name; two are named by their binaries.
    const std::string path = sample(file.toStdString());
    QCOMPARE(log.name, logs.size() == 1 ? path : path + "#" + binary.toStdString());
    if (logs.size() == 1)
        QCOMPARE(readNcclTestsLog(path).rows.size(), log.rows.size());
}

void TestNcclTestsShapes::wrappedAndTrimmedHeaders()
{
    const std::string row
        = "     1048576        262144     float     sum      -1    20.00   52.43   "
          "91.75      0    21.00   49.93   87.38      0\n";
    // The console wrapped the header after the out-of-place block; no "# Using devices" block.
    const NcclTestsLog wrapped = parseNcclTestsLog(
        "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
        "     time   algbw   busbw #wrong\n"
            + row,
        "wrapped.log");
    QCOMPARE(wrapped.rows.size(), std::size_t(1));
    QCOMPARE(wrapped.rows[0].line, 3);
    QCOMPARE(wrapped.rows[0].inPlace.timeUs, 21.0);
    QCOMPARE(wrapped.ranks, 0);
    // Wrapped inside a block, with its '#' on both lines and a blank line between.
    const NcclTestsLog split = parseNcclTestsLog(
        "#  size count type redop root time algbw\n\n#  busbw #wrong time algbw busbw #wrong\n"
            + row,
        "split.log");
    QCOMPARE(split.rows[0].outOfPlace.busbw, 91.75);
    // "#size" with its '#' against the word.
    QCOMPARE(
        parseNcclTestsLog("#size count type redop root time algbw busbw #wrong time algbw busbw "
                          "#wrong\n"
                + row,
            "tight.log")
            .rows.size(),
        std::size_t(1));
    // A wrapped header still refuses a block cut short, naming the header's first line.
    const QString e = errorOf("# size count type redop root time algbw\n# busbw time algbw busbw "
                              "#wrong\n"
        + row);
    QVERIFY2(e.startsWith("bad.log:1: the result table header has 'time'"), qPrintable(e));
}

void TestNcclTestsShapes::labelsOnlyWhereConsistent()
{
    const std::string table = std::string(kHeader)
        + "     1048576        262144     float     sum      -1    20.00   52.43   91.75      0    "
          "21.00   49.93   87.38      0\n";
    const auto labelled = [&table](const std::string &label) {
        std::string out;
        std::size_t pos = 0;
        while (pos < table.size()) {
            const std::size_t end = table.find('\n', pos);
            out += label + table.substr(pos, end + 1 - pos);
            pos = end + 1;
        }
        return out;
    };
    for (const std::string label : { "0: ", " 0: ", "12: ", "[1,0]<stdout>:", "[1,0]<stderr>: ",
             "[prterun-node1-20417@1,0]<stdout>: ", "[0] ", "2026-12-06T04:51:07.123456789Z ",
             "[2026-12-06 04:51:07,123] ", "2026-12-06T04:51:07+00:00 0: " }) {
        const NcclTestsLog log = parseNcclTestsLog(labelled(label), "labelled.log");
        QVERIFY2(log.rows.size() == 1, label.c_str());
        QCOMPARE(log.rows[0].line, 4);
        QCOMPARE(log.rows[0].outOfPlace.timeUs, 20.0);
    }
    // A label on one line of an unlabelled table is no launcher's: that row is garbage.
    const std::string row2
        = "     2097152        524288     float     sum      -1    30.00   69.91  "
          " 122.34      0    31.00   67.65  118.39      0\n";
    QCOMPARE(
        parseNcclTestsLog("3: chatter\n" + table + row2, "plain.log").rows.size(), std::size_t(2));
    const QString e = errorOf(table + "12: " + row2);
    QVERIFY2(e.startsWith("bad.log:5: size '12:' is not a whole number of bytes"), qPrintable(e));
}

void TestNcclTestsShapes::severalTablesAsRuns()
{
    // The one-run reader refuses a second table naming its first row; the file's two tables of
    // one binary are named by their place.
    const std::string row
        = "     1048576        262144     float     sum      -1    20.00   52.43   "
          "91.75      0    21.00   49.93   87.38      0\n";
    const std::string two = "mpirun -np 8 ./all_reduce_perf -b 1M -e 1M\n" + std::string(kHeader)
        + row + "# Avg bus bandwidth    : 89.5\nmpirun -np 8 ./all_reduce_perf -b 1M -e 1M\n"
        + kHeader + row;
    const QString e = errorOf(two);
    QVERIFY2(e.startsWith("bad.log:11: a second result table"), qPrintable(e));
    const std::vector<NcclTestsLog> logs = parseNcclTestsLogs(two, "two.log");
    QCOMPARE(logs.size(), std::size_t(2));
    QCOMPARE(logs[0].name, std::string("two.log#1"));
    QCOMPARE(logs[1].name, std::string("two.log#2"));
    QCOMPARE(logs[1].table, 2);
    QCOMPARE(logs[0].averageBusBw, 89.5);
    QCOMPARE(logs[1].averageBusBw, -1.0);
    QCOMPARE(logs[1].args.back(), std::string("1M"));
    // Refusals still name the line in a later table.
    const QString bad = errorOf(two
        + "     2097152        524288     float     sum      -1    20.00  "
          " 52.43   91.75      3    21.00   49.93   87.38      0\n");
    QVERIFY2(bad.startsWith("bad.log:12: out-of-place #wrong is 3"), qPrintable(bad));
}

QTEST_GUILESS_MAIN(TestNcclTestsShapes)
#include "tst_nccltestsshapes.moc"
