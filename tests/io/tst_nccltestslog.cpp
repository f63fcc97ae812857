// The nccl-tests log reader (model/io/nccltestslog.cpp) on real published output
// (tests/data/published/nccl-tests/*.txt, sources in tests/data/published/SOURCES.md), on the
// same DGX H100 table in the -J JSON layout of nccl-tests 2.19.6 (src/util.cu), on the table
// variants nccl-tests prints (-I 1 per-iteration columns, -C 1 cputime, -c 0 "N/A", Open MPI's
// --tag-output prefix) and on malformed logs, which must be refused with file and line.
#include "base/scenarioerror.h"
#include "io/nccltestslog.h"
#include "ncclteststext.h"

#include <QTest>

#include <cmath>

using namespace railyard;
using railyard::testing::errorOf;
using railyard::testing::kHeader;

namespace {

std::string published(const std::string &name)
{
    return std::string(RAILYARD_SOURCE_DIR) + "/tests/data/published/nccl-tests/" + name;
}

} // namespace

class TestNcclTestsLog : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void publishedLogs_data();
    void publishedLogs();
    void busFactorOfPublishedRows();
    void jsonMatchesText();
    void variants();
    void malformed_data();
    void malformed();
    void malformedJson_data();
    void malformedJson();
    void missingFile();
    void chatterIsNotARow();
    void rowCap_data();
    void rowCap();
};

void TestNcclTestsLog::publishedLogs_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<int>("rows");
    QTest::addColumn<int>("ranks");
    QTest::addColumn<qlonglong>("lastBytes");
    QTest::addColumn<double>("lastTimeUs");
    QTest::addColumn<double>("lastBusbw");
    QTest::addColumn<double>("average");
    QTest::addColumn<bool>("binaryKnown");
    // The figures are the files' own last rows and footers (read off the published text).
    QTest::newRow("dgx-h100 1 node") << "nvidia-dgxc-dgx-h100-1node-all_reduce.txt" << 32 << 8
                                     << 17179869184ll << 62648.0 << 479.90 << 159.151 << false;
    QTest::newRow("a3-mega 2 nodes") << "gcp-a3mega-h100-2node-all_reduce.txt" << 31 << 16
                                     << 8589934592ll << 47535.0 << 338.82 << 70.742 << true;
    QTest::newRow("gb200 1 rack") << "coreweave-gb200-nvl72-1rack-72gpu-all_reduce.txt" << 5 << 72
                                  << 8589934592ll << 20299.0 << 834.57 << 745.53 << false;
    QTest::newRow("gb200 2 racks") << "coreweave-gb200-nvl72-2rack-144gpu-all_reduce.txt" << 6
                                   << 144 << 17179869184ll << 42067.0 << 810.41 << 688.487 << false;
    QTest::newRow("gb200 20 racks")
        << "coreweave-gb200-nvl72-20rack-1440gpu-all_reduce.txt" << 6 << 1440 << 17179869184ll
        << 84625.0 << 405.74 << 297.808 << false;
}

void TestNcclTestsLog::publishedLogs()
{
    QFETCH(QString, file);
    QFETCH(int, rows);
    QFETCH(int, ranks);
    QFETCH(qlonglong, lastBytes);
    QFETCH(double, lastTimeUs);
    QFETCH(double, lastBusbw);
    QFETCH(double, average);
    QFETCH(bool, binaryKnown);
    const NcclTestsLog log = readNcclTestsLog(published(file.toStdString()));
    QCOMPARE(static_cast<int>(log.rows.size()), rows);
    QCOMPARE(log.ranks, ranks);
    QVERIFY(!log.json);
    for (const NcclTestsRow &r : log.rows) {
        QCOMPARE(QString::fromStdString(r.type), QStringLiteral("float"));
        QCOMPARE(QString::fromStdString(r.redop), QStringLiteral("sum"));
        QCOMPARE(r.root, -1);
        QVERIFY(r.outOfPlace.present && r.inPlace.present);
        // nccl-tests prints count = size / sizeof(float).
        QCOMPARE(r.count * 4, r.bytes);
    }
    const NcclTestsRow &last = log.rows.back();
    QCOMPARE(last.bytes, static_cast<long long>(lastBytes));
    QCOMPARE(last.outOfPlace.timeUs, lastTimeUs);
    QCOMPARE(last.outOfPlace.busbw, lastBusbw);
    QCOMPARE(log.averageBusBw, average);
    QCOMPARE(log.op.has_value(), binaryKnown);
    if (binaryKnown) {
        QCOMPARE(QString::fromStdString(log.binary), QStringLiteral("all_reduce_perf"));
        QVERIFY(*log.op == Collective::AllReduce);
    }
}

void TestNcclTestsLog::busFactorOfPublishedRows()
{
    // nccl-tests doc/PERFORMANCE.md: all-reduce busbw = algbw x 2(n-1)/n. The published rows
    // must satisfy it to print precision (both rounded to 0.005), which checks that the reader
    // takes the right columns of both blocks and the right rank count. (CoreWeave's 2- and 20-rack
    // excerpts are left out: their busbw / algbw is 1.9843 = 2(n-1)/n for n = 128, not for the
    // 144 / 1440 ranks their last "Rank" lines name, so the publisher's excerpt mixes runs.)
    for (const char *name :
        { "gcp-a3mega-h100-2node-all_reduce.txt", "nvidia-dgxc-dgx-h100-1node-all_reduce.txt",
            "coreweave-gb200-nvl72-1rack-72gpu-all_reduce.txt" }) {
        const NcclTestsLog log = readNcclTestsLog(published(name));
        const double f = ncclTestsBusFactor(Collective::AllReduce, log.ranks);
        int checked = 0;
        for (const NcclTestsRow &r : log.rows)
            for (const NcclTestsTiming *t : { &r.outOfPlace, &r.inPlace }) {
                if (t->algbw < 1.0)
                    continue; // 0.00 / 0.01 GB/s rows carry no digits to compare
                QVERIFY2(std::abs(t->busbw - t->algbw * f) <= 0.0051 * (f + 1.0),
                    qPrintable(QStringLiteral("%1 line %2").arg(name).arg(r.line)));
                // algbw = S / time (GB/s = 1e3 bytes/us), to the printed precision of time.
                QVERIFY(std::abs(t->algbw - r.bytes / t->timeUs / 1e3) <= 0.01 * t->algbw + 0.006);
                ++checked;
            }
        QVERIFY(checked >= 10);
    }
    QCOMPARE(ncclTestsBusFactor(Collective::AllGather, 8), 7.0 / 8.0);
    QCOMPARE(ncclTestsBusFactor(Collective::AllToAll, 16), 15.0 / 16.0);
    QCOMPARE(ncclTestsBusFactor(Collective::SendRecv, 2), 1.0);
}

void TestNcclTestsLog::jsonMatchesText()
{
    const NcclTestsLog text
        = readNcclTestsLog(published("nvidia-dgxc-dgx-h100-1node-all_reduce.txt"));
    const NcclTestsLog json = readNcclTestsLog(
        RAILYARD_SOURCE_DIR "/tests/data/nccl-tests/dgx-h100-1node-all_reduce.json");
    QVERIFY(json.json);
    QCOMPARE(json.rows.size(), text.rows.size());
    QCOMPARE(json.ranks, 8);
    QCOMPARE(QString::fromStdString(json.binary), QStringLiteral("all_reduce_perf"));
    QCOMPARE(QString::fromStdString(json.device), QStringLiteral("NVIDIA H100 80GB HBM3"));
    QCOMPARE(QString::fromStdString(json.hosts.front()), QStringLiteral("pool0-01806"));
    for (std::size_t i = 0; i < text.rows.size(); ++i) {
        QCOMPARE(json.rows[i].bytes, text.rows[i].bytes);
        QCOMPARE(json.rows[i].outOfPlace.timeUs, text.rows[i].outOfPlace.timeUs);
        QCOMPARE(json.rows[i].inPlace.busbw, text.rows[i].inPlace.busbw);
        QCOMPARE(json.rows[i].root, -1);
    }
    QCOMPARE(json.averageBusBw, text.averageBusBw);
}

void TestNcclTestsLog::variants()
{
    // -I 1: four i_* columns after each #wrong (src/util.cu writeResultHeader).
    const std::string perIter = std::string("# nThread 1 nGpus 1 minBytes 1024 maxBytes 2048\n")
        + "#  Rank  0 Group  0 Pid 1 on h0 device  0 [0000:04:00] NVIDIA H100 80GB HBM3\n"
          "#  Rank  1 Group  0 Pid 2 on h0 device  1 [0000:05:00] NVIDIA H100 80GB HBM3\n"
          "#         size         count      type   redop    root     time   algbw   busbw "
          "#wrong   i_min   i_max   i_p99   i_cv%     time   algbw   busbw #wrong   i_min   "
          "i_max   i_p99   i_cv%\n"
          "        1024           256     float     sum      -1    10.00    0.10    0.10      0"
          "    9.0    11.0    11.0    3.1    12.00    0.09    0.09      0    11.0    13.0    "
          "13.0    2.0\n"
          "        2048           512     float     sum      -1    20.00    0.10    0.10      0"
          "    19.0    21.0    21.0    1.1    22.00    0.09    0.09      0    21.0    23.0    "
          "23.0    2.0\n"
          "# Out of bounds values : 0 OK\n"
          "# Avg bus bandwidth    : 0.1\n"
          "#\n"
          "# Collective test concluded: all_reduce_perf\n";
    const NcclTestsLog a = parseNcclTestsLog(perIter, "iter.log");
    QCOMPARE(static_cast<int>(a.rows.size()), 2);
    QCOMPARE(a.rows[1].outOfPlace.timeUs, 20.0);
    QCOMPARE(a.rows[1].inPlace.timeUs, 22.0);
    QCOMPARE(a.rows[1].inPlace.busbw, 0.09);
    QCOMPARE(a.ranks, 2);
    QVERIFY(a.op && *a.op == Collective::AllReduce);

    // -C 1 prints "cputime"; -c 0 prints N/A for #wrong; --tag-output prefixes each line.
    const std::string cpu = "[1,0]<stdout>:#       size         count      type   redop    root  "
                            "cputime   algbw   busbw #wrong  cputime   algbw   busbw #wrong\n"
                            "[1,0]<stdout>:        4096          1024     float    none      -1  "
                            "  30.00    0.14    0.12    N/A    31.00    0.13    0.12    N/A\n"
                            "[1,0]<stdout>:# Collective test concluded: all_gather_perf\n";
    const NcclTestsLog c = parseNcclTestsLog(cpu, "cpu.log");
    QVERIFY(c.cpuTime);
    QCOMPARE(c.rows.front().outOfPlace.timeUs, 30.0);
    QVERIFY(c.op && *c.op == Collective::AllGather);
}

void TestNcclTestsLog::malformed_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    const QString h = QString::fromLatin1(kHeader);
    const QString row8 = QStringLiteral(
        "           8             2     float     sum      -1    13.67    0.00    0.00      0    "
        "13.03    0.00    0.00      0\n");
    QTest::newRow("truncated row")
        << h + row8 + "          16             4     float     sum      -1    13.00    0.00\n"
        << "bad.log:5: truncated row: 7 columns where the header has 13";
    QTest::newRow("wrong results") << h + row8.left(row8.size() - 2) + "3\n"
                                   << "bad.log:4: in-place #wrong is 3";
    QTest::newRow("wrong out of place") << h
            + "          16             4     float     sum      -1    13.00    0.00    0.00     "
              "12    13.07    0.00    0.00      0\n"
                                        << "bad.log:4: out-of-place #wrong is 12";
    QTest::newRow("mixed ops in the table") << h + row8
            + "          16             4     float    none      -1    13.00    0.00    0.00      "
              "0    13.07    0.00    0.00      0\n"
                                            << "bad.log:5: mixed ops";
    QTest::newRow("mixed binaries")
        << h + row8 + "# Collective test concluded: all_reduce_perf\n"
            + "# Collective test concluded: all_gather_perf\n"
        << "bad.log:6: mixed ops: this log names all_gather_perf after all_reduce_perf";
    QTest::newRow("two sweeps") << h + row8 + row8 << "bad.log:5: size 8 does not grow";
    QTest::newRow("out of bounds") << h + row8 + "# Out of bounds values : 4 FAILED\n"
                                   << "bad.log:5: nccl-tests reports out-of-bounds";
    QTest::newRow("no rows") << h << "bad.log: no nccl-tests result rows";
    QTest::newRow("not a number")
        << h
            + "           8             2     float     sum      -1    fast    0.00    0.00      0 "
              " "
              "  13.03    0.00    0.00      0\n"
        << "bad.log:4: out-of-place time 'fast' is not a non-negative number";
    // fuzz_nccltests: the second block is "time timestamp busbw #wrong", so the in-place
    // #wrong would be read one column past the end of a row (an out-of-bounds read).
    QTest::newRow("block cut short")
        << QStringLiteral("#  size count type redop root time algbw busbw #wrong time timestamp "
                          "busbw #wrong\n536870912 134217728 float sum -1 2156.8 248.92 493.94 0 "
                          "2093.7 508.83 0\n")
        << "bad.log:1: the result table header has 'time' without 'algbw busbw #wrong' after it";
    QTest::newRow("size not an integer") << h + row8
            + "         1e3             4     float     sum      -1    13.00    0.00    0.00      "
              "0    13.07    0.00    0.00      0\n"
                                         << "bad.log:5: size '1e3' is not a whole number of bytes";
    QTest::newRow("size out of range")
        << h + row8
            + "99999999999999999999             4     float     sum      -1    13.00    0.00    "
              "0.00      0    13.07    0.00    0.00      0\n"
        << "bad.log:5: size '99999999999999999999' is not a whole number of bytes";
    QTest::newRow("zero time") << h
            + "           8             2     float     sum      -1     0.00    0.00    0.00      "
              "0  "
              "  13.03    0.00    0.00      0\n"
                               << "bad.log:4: out-of-place time must be above 0 us";
}

void TestNcclTestsLog::malformed()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const QString e = errorOf(text.toStdString());
    QVERIFY2(e.startsWith(message), qPrintable(e));
}

void TestNcclTestsLog::malformedJson_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<QString>("message");
    const QString oop = QStringLiteral(
        R"("out_of_place": {"time": 10.5, "alg_bw": 0.1, "bus_bw": 0.17, "nwrong": 0.000000})");
    QTest::newRow("not json") << "{\"results\": ["
                              << "bad.json: not valid JSON";
    QTest::newRow("no results") << "{\"version\": 3}"
                                << "bad.json: results: missing";
    QTest::newRow("truncated result")
        << R"({"results": [{"size": 8, "count": 2, "type": "float", "redop": "sum", "root": "    -1",
            "out_of_place": {"time": 10.5, "alg_bw": 0.1}}]})"
        << "bad.json: results[0].out_of_place: truncated result";
    QTest::newRow("nwrong")
        << R"({"results": [{"size": 8, "type": "float", "redop": "sum", "root": "-1",
            "out_of_place": {"time": 10.5, "alg_bw": 0.1, "bus_bw": 0.17, "nwrong": 2.0}}]})"
        << "bad.json: results[0].out_of_place.nwrong: is 2";
    QTest::newRow("nan time")
        << R"({"results": [{"size": 8, "type": "float", "redop": "sum", "root": "-1",
            "out_of_place": {"time": "nan", "alg_bw": 0.1, "bus_bw": 0.17}}]})"
        << "bad.json: results[0].out_of_place.time: must be a number, not string";
    QTest::newRow("mixed ops")
        << R"({"results": [{"size": 8, "type": "float", "redop": "sum", "root": "-1", )" + oop
            + R"(}, {"size": 16, "type": "float", "redop": "max", "root": "-1", )" + oop + "}]}"
        << "bad.json: results[1]: mixed ops";
    QTest::newRow("out of bounds")
        << R"({"results": [{"size": 8, "type": "float", "redop": "sum", "root": "-1", )" + oop
            + R"(}], "out_of_bounds": {"count": 3, "okay": false}})"
        << "bad.json: out_of_bounds: nccl-tests reports out-of-bounds values";
}

void TestNcclTestsLog::malformedJson()
{
    QFETCH(QString, text);
    QFETCH(QString, message);
    const QString e = errorOf(text.toStdString(), "bad.json");
    QVERIFY2(e.startsWith(message), qPrintable(e));
}

void TestNcclTestsLog::missingFile()
{
    try {
        readNcclTestsLog("/nonexistent/x.log");
        QFAIL("a missing file was read");
    } catch (const ScenarioError &e) {
        QVERIFY(QString::fromStdString(e.what()).startsWith("/nonexistent/x.log: cannot open"));
    }
}

void TestNcclTestsLog::chatterIsNotARow()
{
    // NCCL INFO lines may start with a digit (an IP address as the host name): only a line
    // whose count column is an integer is a row whose size must be one.
    const std::string row8
        = "           8             2     float     sum      -1    13.67    0.00 "
          "   0.00      0    13.03    0.00    0.00      0\n";
    const NcclTestsLog log = parseNcclTestsLog(std::string(kHeader) + row8
            + "10.0.0.1:1234:1234 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/IPC\n"
            + "2x 3y\n",
        "ok.log");
    QCOMPARE(log.rows.size(), std::size_t(1));
}

void TestNcclTestsLog::rowCap_data()
{
    QTest::addColumn<bool>("json");
    QTest::newRow("text") << false;
    QTest::newRow("json") << true;
}

void TestNcclTestsLog::rowCap()
{
    // 4,096 rows (the cap) are read; one more is refused naming the line (text) or results[].
    QFETCH(bool, json);
    const auto log = [json](int rows) {
        std::string text = json ? "{\"results\": [" : std::string(kHeader);
        for (int i = 0; i < rows; ++i) {
            const std::string size = std::to_string(8 * (i + 1));
            text += json ? std::string(i ? ", " : "") + R"({"size": )" + size
                    + R"(, "type": "float", "redop": "sum", "root": "-1", "out_of_place": )"
                    + R"({"time": 10.5, "alg_bw": 0.1, "bus_bw": 0.17}})"
                         : size + " 2 float sum -1 13.67 0.00 0.00 0 13.03 0.00 0.00 0\n";
        }
        return text + (json ? "]}" : "");
    };
    QCOMPARE(parseNcclTestsLog(log(4096), "big.log").rows.size(), std::size_t(4096));
    const QString e = errorOf(log(4097), "big.log");
    QVERIFY2(e.startsWith(json ? "big.log: results: 4097 results, more than 4096"
                               : "big.log:4100: more than 4096 result rows"),
        qPrintable(e));
}

QTEST_GUILESS_MAIN(TestNcclTestsLog)
#include "tst_nccltestslog.moc"
