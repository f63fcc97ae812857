// railyard-cli's stragglers (docs/stragglers.md) as a user runs them: evaluate's --slow-gpu,
// --slow-host, --slow-nic and --slow-link equal to a file's "degradations" section, the blast
// radius in text and JSON, a healthy report unchanged, bad values refused naming the flag, and
// remap --spare swapping onto a hot spare.
#include "clirun.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <functional>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

nlohmann::json parsedOk(const CliRun &r)
{
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return r.exitCode == 0 ? nlohmann::json::parse(r.out.toStdString()) : nlohmann::json();
}

/// samples/seed-128.json with `edit` applied, written to `dir`.
QString seedWith(
    const QTemporaryDir &dir, const char *name, const std::function<void(nlohmann::json &)> &edit)
{
    nlohmann::json j = nlohmann::json::parse(readTestFile(sample("seed-128.json")).toStdString());
    edit(j);
    const QString path = dir.filePath(QLatin1String(name));
    writeTestFile(path, QByteArray::fromStdString(j.dump(2)));
    return path;
}

} // namespace

class TestCliStragglers : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void healthyReportIsUnchanged();
    void flagEqualsTheFileSection();
    void blastRadiusInText();
    void badValuesAreRefused_data();
    void badValuesAreRefused();
    void remapSwapsOntoAHotSpare();
    void remapSpareRefusals_data();
    void remapSpareRefusals();
};

void TestCliStragglers::healthyReportIsUnchanged()
{
    // A full-speed part runs every degraded code path: the report before the blast radius is
    // byte for byte the healthy one, and a healthy run prints no degradation block.
    const CliRun healthy = runRailyardCli({ "evaluate", sample("seed-128.json") });
    const CliRun neutral
        = runRailyardCli({ "evaluate", sample("seed-128.json"), "--slow-gpu", "5=1" });
    QCOMPARE(healthy.exitCode, 0);
    QCOMPARE(neutral.exitCode, 0);
    QVERIFY(!healthy.out.contains("Degraded parts"));
    const qsizetype block = neutral.out.indexOf("\nDegraded parts");
    QVERIFY(block > 0);
    QCOMPARE(neutral.out.left(block), healthy.out);
    QVERIFY(neutral.out.contains("alone +0 ns per iteration"));
    const nlohmann::json j
        = parsedOk(runRailyardCli({ "evaluate", sample("seed-128.json"), "--json" }));
    QVERIFY(!j.contains("degradations"));
    QVERIFY(!j.contains("healthy_iteration_time_s"));
}

void TestCliStragglers::flagEqualsTheFileSection()
{
    QTemporaryDir dir;
    const QString file = seedWith(dir, "slow.json", [](nlohmann::json &j) {
        j["degradations"] = {
            { "version", 1 },
            { "parts",
                { { { "id", "gpu:32" }, { "compute_speed", 0.8 } },
                    { { "id", "nic:10" }, { "bandwidth_gbps", 200 }, { "added_latency_us", 2 } } } }
        };
    });
    const nlohmann::json fromFile = parsedOk(runRailyardCli({ "evaluate", file, "--json" }));
    const nlohmann::json fromFlags = parsedOk(runRailyardCli({ "evaluate", sample("seed-128.json"),
        "--json", "--slow-nic", "10=200,+2us", "--slow-gpu", "gpu:32=0.8" }));
    QVERIFY(fromFile.contains("degradations"));
    QCOMPARE(fromFlags.at("iteration_time_s"), fromFile.at("iteration_time_s"));
    QCOMPARE(fromFlags.at("degradations"), fromFile.at("degradations"));
    const nlohmann::json &parts = fromFile.at("degradations");
    QCOMPARE(parts.size(), std::size_t { 2 });
    QCOMPARE(parts[1].at("id").get<std::string>(), std::string("nic:10"));
    QCOMPARE(parts[1].at("effect").get<std::string>(), std::string("200 Gb/s, +2 us"));
    QCOMPARE(parts[1].at("groups_waiting").size(), std::size_t { 2 }); // its DP ring, its pipeline
    QVERIFY(parts[1].at("delay_s").get<double>() > 0.0);
    QCOMPARE(parts[0].at("groups_waiting").size(), std::size_t { 3 }); // TP, DP, PP of rank 32
    QVERIFY(fromFile.at("healthy_iteration_time_s").get<double>()
        < fromFile.at("iteration_time_s").get<double>());
}

void TestCliStragglers::blastRadiusInText()
{
    const CliRun r = runRailyardCli(
        { "evaluate", sample("seed-128.json"), "--slow-link", "0=50%", "--slow-host", "4=0.9" });
    QVERIFY2(r.exitCode == 0, r.err.constData());
    QVERIFY2(
        r.out.contains("\nDegraded parts (docs/stragglers.md): iteration "), r.out.constData());
    QVERIFY2(r.out.contains("  server:4 (node004): compute 90 %; alone +"), r.out.constData());
    QVERIFY2(r.out.contains("  link:0 ("), r.out.constData());
    QVERIFY(r.out.contains("    groups waiting: "));
    QVERIFY(r.out.contains("    stages waiting: "));
}

void TestCliStragglers::badValuesAreRefused_data()
{
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<QString>("message");
    QTest::newRow("gpu outside") << QStringList { "--slow-gpu", "200=0.5" }
                                 << "--slow-gpu: gpu:200 does not exist (the fabric has 128 GPU "
                                    "slots, 0..127)";
    QTest::newRow("speed above 1")
        << QStringList { "--slow-gpu", "3=1.5" } << "--slow-gpu: speed factor 1.5 is out of range";
    QTest::newRow("speed 0") << QStringList { "--slow-host", "3=0" }
                             << "--slow-host: speed factor 0 is out of range";
    QTest::newRow("no value") << QStringList { "--slow-gpu", "3" }
                              << "--slow-gpu: expected INDEX=VALUE such as 17=0.8, got '3'";
    QTest::newRow("bad speed") << QStringList { "--slow-nic", "3=fast" }
                               << "--slow-nic: expected a speed in Gb/s, a percentage or "
                                  "+LATENCYus, got 'fast'";
    QTest::newRow("above nominal") << QStringList { "--slow-nic", "5=800" }
                                   << "degradations.parts[0].bandwidth_gbps: 800 Gb/s is above "
                                      "nic:5's nominal 400 Gb/s";
    QTest::newRow("percent above 100")
        << QStringList { "--slow-link", "3=150%" } << "--slow-link: bandwidth 150% is out of range";
    QTest::newRow("link outside") << QStringList { "--slow-link", "99999999=50%" }
                                  << "degradations.parts[0]: link:99999999 does not exist";
    QTest::newRow("wrong kind") << QStringList { "--slow-nic", "gpu:3=50%" }
                                << "--slow-nic: names a gpu, not a nic";
}

void TestCliStragglers::badValuesAreRefused()
{
    QFETCH(QStringList, flags);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString out = dir.filePath("report.txt");
    const CliRun r
        = runRailyardCli(QStringList { "evaluate", sample("seed-128.json"), "-o", out } + flags);
    QCOMPARE(r.exitCode, 1);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
    QVERIFY(!QFile::exists(out)); // nothing written
}

void TestCliStragglers::remapSwapsOntoAHotSpare()
{
    QTemporaryDir dir;
    const QString file
        = seedWith(dir, "spares.json", [](nlohmann::json &j) { j["fabric"]["servers"] = 18; });
    const QString out = dir.filePath("swapped.json");
    const CliRun r = runRailyardCli(
        { "remap", file, "--fail", "server:3", "--spare", "server:17", "--json", "-o", out });
    const nlohmann::json j = parsedOk(r);
    QCOMPARE(j.at("strategies").size(), std::size_t { 1 });
    const nlohmann::json &s = j.at("strategies")[0];
    QCOMPARE(s.at("strategy").get<std::string>(), std::string("spares"));
    QVERIFY(s.at("possible").get<bool>());
    const nlohmann::json written = nlohmann::json::parse(readTestFile(out).toStdString());
    const std::vector<int> slots = written.at("mapping").at("slots").get<std::vector<int>>();
    for (int t = 0; t < 8; ++t)
        QCOMPARE(slots[static_cast<std::size_t>(24 + t)], 17 * 8 + t); // same GPU index: rail
}

void TestCliStragglers::remapSpareRefusals_data()
{
    QTest::addColumn<QStringList>("flags");
    QTest::addColumn<int>("code");
    QTest::addColumn<QString>("message");
    QTest::newRow("a nic") << QStringList { "--spare", "nic:3" } << 1
                           << "--spare: a hot spare is a server (server:S) or a GPU slot (gpu:N), "
                              "not nic:3";
    QTest::newRow("another strategy") << QStringList { "--spare", "first", "--strategy",
        "drop-dp" } << 2 << "--spare applies to the spares strategy only, not --strategy drop-dp";
    QTest::newRow("another domain") << QStringList { "--spare", "server:17", "--fail", "gpu:17" }
                                    << 1 << "spares is impossible: hot spare server:17";
}

void TestCliStragglers::remapSpareRefusals()
{
    QFETCH(QStringList, flags);
    QFETCH(int, code);
    QFETCH(QString, message);
    QTemporaryDir dir;
    const QString file
        = seedWith(dir, "spares.json", [](nlohmann::json &j) { j["fabric"]["servers"] = 18; });
    QStringList args { "remap", file };
    if (!flags.contains("--fail"))
        args << "--fail"
             << "server:3";
    const CliRun r = runRailyardCli(args + flags);
    QCOMPARE(r.exitCode, code);
    QVERIFY2(QString::fromUtf8(r.err).contains(message), r.err.constData());
}

QTEST_GUILESS_MAIN(TestCliStragglers)
#include "tst_cli_stragglers.moc"
