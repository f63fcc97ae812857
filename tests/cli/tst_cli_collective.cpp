// railyard-cli collective, run as a user would: --ranks ranges and group names, --bytes with
// units, --algo, the JSON fields the README documents, and every bad option refused with one
// line and a non-zero exit.
#include "clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

/// `collective` on the seed sample (tp 8 x pp 4 x dp 4, 16 servers x 8 GPUs).
CliRun collective(const QString &ranks, const QString &bytes, QStringList extra = {})
{
    QStringList args { QStringLiteral("collective"), sample("seed-128.json"),
        QStringLiteral("--op"), QStringLiteral("all-reduce"), QStringLiteral("--ranks"), ranks,
        QStringLiteral("--bytes"), bytes };
    args += extra;
    return runRailyardCli(args);
}

nlohmann::json json(const CliRun &r)
{
    return nlohmann::json::parse(r.out.toStdString());
}

std::vector<int> ranksOf(const QString &selection)
{
    const CliRun r = collective(selection, QStringLiteral("1M"), { QStringLiteral("--json") });
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return r.exitCode == 0 ? json(r)["ranks"].get<std::vector<int>>() : std::vector<int> {};
}

} // namespace

class TestCliCollective : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void ranksGrammar_data();
    void ranksGrammar();
    void bytesUnits_data();
    void bytesUnits();
    void jsonDocumentsTheAlgorithm();
    void algoOptionSelects();
    void badOptionsFail_data();
    void badOptionsFail();
    void scenarioOptionChoosesTheAlgorithm();
    void stepsListTheAlgorithmsSteps();
};

void TestCliCollective::ranksGrammar_data()
{
    // Megatron-LM order tp-cp-ep-dp-pp: rank = t + 8 d + 32 p.
    QTest::addColumn<QString>("selection");
    QTest::addColumn<std::vector<int>>("ranks");
    QTest::newRow("list") << "0,32,64,96" << std::vector<int> { 0, 32, 64, 96 };
    QTest::newRow("range and list") << "0-3,16" << std::vector<int> { 0, 1, 2, 3, 16 };
    QTest::newRow("spaces") << " 5 - 7 , 9" << std::vector<int> { 5, 6, 7, 9 };
    QTest::newRow("tp:0") << "tp:0" << std::vector<int> { 0, 1, 2, 3, 4, 5, 6, 7 };
    QTest::newRow("tp:p=1,d=2") << "tp:p=1,d=2"
                                << std::vector<int> { 48, 49, 50, 51, 52, 53, 54, 55 };
    QTest::newRow("dp:p=0,t=3") << "dp:p=0,t=3" << std::vector<int> { 3, 11, 19, 27 };
    QTest::newRow("pp:d=1,t=2") << "pp:d=1,t=2" << std::vector<int> { 10, 42, 74, 106 };
    QTest::newRow("dp-cp:1") << "dp-cp:1" << std::vector<int> { 1, 9, 17, 25 };
}

void TestCliCollective::ranksGrammar()
{
    QFETCH(QString, selection);
    QFETCH(std::vector<int>, ranks);
    QCOMPARE(ranksOf(selection), ranks);
}

void TestCliCollective::bytesUnits_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<double>("bytes");
    QTest::newRow("plain") << "1e9" << 1e9;
    QTest::newRow("integer") << "4096" << 4096.0;
    QTest::newRow("K") << "64K" << 64e3;
    QTest::newRow("M") << "256M" << 256e6;
    QTest::newRow("G") << "1G" << 1e9;
    QTest::newRow("GB") << "2GB" << 2e9;
    QTest::newRow("T") << "1T" << 1e12;
    QTest::newRow("KiB") << "4KiB" << 4096.0;
    QTest::newRow("MiB") << "1.5MiB" << 1.5 * 1048576.0;
    QTest::newRow("GiB") << "1GiB" << 1073741824.0;
    QTest::newRow("TiB") << "1 TiB" << 1099511627776.0;
}

void TestCliCollective::bytesUnits()
{
    QFETCH(QString, text);
    QFETCH(double, bytes);
    const CliRun r = collective(QStringLiteral("0-7"), text, { QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(json(r)["bytes"].get<double>(), bytes);
}

void TestCliCollective::jsonDocumentsTheAlgorithm()
{
    // Every field the README lists for collective --json.
    const CliRun r
        = collective(QStringLiteral("all"), QStringLiteral("1GiB"), { QStringLiteral("--json") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = json(r);
    for (const char *key : { "op", "ranks", "bytes", "requested_algorithm", "algorithm", "protocol",
             "channels", "considered", "time_s", "alpha_s", "algbw_gbps", "busbw_gbps",
             "algbw_bytes_per_s", "busbw_bytes_per_s", "bus_factor", "bytes_sent_per_rank",
             "bottleneck_link", "bottleneck_name" })
        QVERIFY2(j.contains(key), key);
    QCOMPARE(j["requested_algorithm"].get<std::string>(), std::string("auto"));
    QCOMPARE(j["ranks"].size(), std::size_t { 128 });
    // Auto weighed NCCL's algorithms and took the fastest of them, with its best protocol.
    double fastest = 1e9;
    for (const nlohmann::json &c : j["considered"]) {
        for (const char *key :
            { "algorithm", "protocol", "time_s", "alpha_s", "channels", "protocol_times_s" })
            QVERIFY2(c.contains(key), key);
        fastest = std::min(fastest, c["time_s"].get<double>());
        QCOMPARE(c["protocol_times_s"][c["protocol"].get<std::string>()].get<double>(),
            c["time_s"].get<double>());
    }
    QCOMPARE(j["time_s"].get<double>(), fastest);
    QCOMPARE(j["algorithm"].get<std::string>(), std::string("nvls-tree"));
    QCOMPARE(j["channels"].get<int>(), 8);
}

void TestCliCollective::algoOptionSelects()
{
    // A 1 GiB all-reduce over all 128 GPUs: in member order one ring through one NIC per
    // server, 2(n-1)/n S over a 400G NIC at 47 GB/s (nccl-tests issue #290), against S/8 per
    // rail with NCCL's algorithms: at least 5x slower.
    const auto time = [](const QString &algo) {
        const CliRun r = collective(QStringLiteral("all"), QStringLiteral("1GiB"),
            { QStringLiteral("--algo"), algo, QStringLiteral("--json") });
        return r.exitCode == 0 ? json(r)["time_s"].get<double>() : -1.0;
    };
    const double memberOrder = time(QStringLiteral("member-order"));
    const double automatic = time(QStringLiteral("auto"));
    QVERIFY(automatic > 0.0);
    QVERIFY(memberOrder > 2.0 * 127.0 / 128.0 * 1073741824.0 / 47e9);
    QVERIFY(memberOrder > 5.0 * automatic);
    // Auto is the fastest of NCCL's algorithms (the hierarchical ring is not one of them).
    for (const char *a : { "ring", "tree", "nvls" })
        QVERIFY2(time(QString::fromLatin1(a)) >= automatic * (1.0 - 1e-12), a);
    QVERIFY(time(QStringLiteral("hierarchical")) > 0.0);
    // The text report names the algorithm and protocol.
    const CliRun text = collective(QStringLiteral("tp:0"), QStringLiteral("8GiB"));
    QVERIFY(text.out.contains("algorithm nvls, protocol Simple"));
}

void TestCliCollective::badOptionsFail_data()
{
    QTest::addColumn<QString>("ranks");
    QTest::addColumn<QString>("bytes");
    QTest::addColumn<QString>("algo");
    QTest::addColumn<QString>("message");
    QTest::newRow("one rank") << "5"
                              << "1G"
                              << ""
                              << "--ranks: a collective needs at least two ranks";
    QTest::newRow("duplicate") << "0,1,1"
                               << "1G"
                               << ""
                               << "--ranks: rank 1 is listed twice";
    QTest::newRow("out of range") << "0-128"
                                  << "1G"
                                  << ""
                                  << "--ranks: rank 128 is outside 0..127";
    QTest::newRow("backwards") << "7-3"
                               << "1G"
                               << ""
                               << "--ranks: the range '7-3' runs backwards";
    QTest::newRow("not a rank") << "0,x"
                                << "1G"
                                << ""
                                << "--ranks: 'x' is not a rank";
    QTest::newRow("unknown kind") << "xp:0"
                                  << "1G"
                                  << ""
                                  << "--ranks: unknown group kind 'xp'";
    QTest::newRow("group index") << "tp:16"
                                 << "1G"
                                 << ""
                                 << "--ranks: tp:16: there are 16 tp groups (0..15)";
    QTest::newRow("ambiguous") << "dp:p=0"
                               << "1G"
                               << ""
                               << "--ranks: dp:p=0 matches 8 dp groups";
    QTest::newRow("no group") << "tp:t=3"
                              << "1G"
                              << ""
                              << "--ranks: no tp group has t=3";
    QTest::newRow("bad coordinate") << "dp:q=1"
                                    << "1G"
                                    << ""
                                    << "--ranks: 'q=1' in dp:q=1 is not";
    QTest::newRow("bytes unit") << "0-7"
                                << "1GX"
                                << ""
                                << "--bytes: unknown unit in '1GX'";
    QTest::newRow("bytes text") << "0-7"
                                << "lots"
                                << ""
                                << "--bytes: 'lots' is not a size";
    QTest::newRow("bytes zero") << "0-7"
                                << "0K"
                                << ""
                                << "--bytes: the message size must be a positive";
    QTest::newRow("algo") << "0-7"
                          << "1G"
                          << "fastest"
                          << "--algo: unknown algorithm 'fastest'";
}

void TestCliCollective::badOptionsFail()
{
    QFETCH(QString, ranks);
    QFETCH(QString, bytes);
    QFETCH(QString, algo);
    QFETCH(QString, message);
    QStringList extra;
    if (!algo.isEmpty())
        extra << QStringLiteral("--algo") << algo;
    const CliRun r = collective(ranks, bytes, extra);
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.startsWith(("railyard-cli: " + message).toUtf8()), r.err.constData());
    QCOMPARE(r.err.count('\n'), 1);
}

void TestCliCollective::scenarioOptionChoosesTheAlgorithm()
{
    // The scenario's collectives.algorithm is collective's default; --algo overrides it; a bad
    // value is refused by the loader with the field's name.
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    std::ifstream in(qPrintable(sample("seed-128.json")));
    nlohmann::json seed = nlohmann::json::parse(in);
    const auto write = [&](const char *name, const char *algorithm) {
        nlohmann::json s = seed;
        s["collectives"] = { { "algorithm", algorithm } };
        const QString path = dir.filePath(QLatin1String(name));
        std::ofstream(qPrintable(path)) << s.dump();
        return path;
    };
    const auto run = [](const QString &file, QStringList extra) {
        QStringList args { QStringLiteral("collective"), file, QStringLiteral("--op"),
            QStringLiteral("all-reduce"), QStringLiteral("--ranks"), QStringLiteral("all"),
            QStringLiteral("--bytes"), QStringLiteral("1GiB"), QStringLiteral("--json") };
        return runRailyardCli(args + extra);
    };
    const QString memberOrder = write("member-order.json", "member-order");
    CliRun r = run(memberOrder, {});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(json(r)["requested_algorithm"].get<std::string>(), std::string("member-order"));
    QCOMPARE(json(r)["algorithm"].get<std::string>(), std::string("member-order"));
    QCOMPARE(json(r)["considered"].size(), std::size_t { 1 });
    r = run(memberOrder, { QStringLiteral("--algo"), QStringLiteral("tree") });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QCOMPARE(json(r)["algorithm"].get<std::string>(), std::string("tree"));

    r = run(write("bad.json", "rings"), {});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    QVERIFY2(r.err.contains("collectives.algorithm: unknown value 'rings'"), r.err.constData());
}

void TestCliCollective::stepsListTheAlgorithmsSteps()
{
    // Rank 0's DP group on the seed (GPU 0 of node000-node003, rail 0) with a ring of 1 GB:
    // 2 x 3 steps of S/4 = 250 MB on each ring hop's links, 2(4-1)/4 S = 1.5 GB on every link
    // in all (16 links: GPU -> NIC, NIC -> leaf and back, on four servers).
    const CliRun r = collective(QStringLiteral("dp:p=0,t=0"), QStringLiteral("1G"),
        { QStringLiteral("--algo"), QStringLiteral("ring"), QStringLiteral("--steps"),
            QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const nlohmann::json steps = json(r)["steps"];
    QCOMPARE(steps["algorithm"].get<std::string>(), std::string("ring"));
    QCOMPARE(steps["steps"].get<int>(), 6);
    QCOMPARE(steps["phases"].size(), std::size_t(2));
    QCOMPARE(steps["phases"][0]["name"].get<std::string>(), std::string("reduce-scatter"));
    QCOMPARE(steps["phases"][0]["count"].get<int>(), 3);
    QCOMPARE(steps["phases"][1]["first_step"].get<int>(), 4);
    for (const auto &phase : steps["phases"])
        for (const auto &link : phase["links"])
            QCOMPARE(link["bytes"].get<double>(), 2.5e8);
    QCOMPARE(steps["link_totals"].size(), std::size_t(16));
    for (const auto &link : steps["link_totals"])
        QVERIFY(std::abs(link["bytes"].get<double>() - 1.5e9) < 1.0);
    // The text lists the runs of steps and the busiest links' sums.
    const CliRun text = collective(
        QStringLiteral("dp:p=0,t=0"), QStringLiteral("1G"), { QStringLiteral("--steps") });
    QCOMPARE(text.exitCode, 0);
    QVERIFY2(text.out.contains("steps of all-reduce ring over 4 ranks: 6 steps, 1 channel"),
        text.out.constData());
    QVERIFY(text.out.contains("node000/nic0 -> leaf-su0-rail0"));
    // Without --steps the report has no step table.
    QVERIFY(
        !collective(QStringLiteral("dp:p=0,t=0"), QStringLiteral("1G")).out.contains("steps of"));
}

QTEST_GUILESS_MAIN(TestCliCollective)
#include "tst_cli_collective.moc"
