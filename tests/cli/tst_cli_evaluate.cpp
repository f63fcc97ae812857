// railyard-cli evaluate / collective, run as a user would: the real binary on the samples.
#include <QFile>
#include "clirun.h"

#include <QDir>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

namespace {

using Run = CliRun;

Run runCli(const QStringList &args)
{
    return runRailyardCli(args);
}

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

nlohmann::json evaluateJson(const QStringList &extra)
{
    QStringList args{QStringLiteral("evaluate"), sample("seed-128.json"), QStringLiteral("--json")};
    args += extra;
    const Run r = runCli(args);
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return nlohmann::json::parse(r.out.toStdString());
}

double spineDp(const nlohmann::json &j)
{
    return j["tiers"]["spine"]["dp"].get<double>() + j["tiers"]["superspine"]["dp"].get<double>();
}

} // namespace

class TestCliEvaluate : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void jsonHasTheStableFields();
    void swapMovesDpOntoTheSpineAndBack();
    void everySampleEvaluates_data();
    void everySampleEvaluates();
    void superPodSwitchCounts_data();
    void superPodSwitchCounts();
    void collectiveMatchesTheRingFormula();
    void malformedFileFailsCleanly_data();
    void malformedFileFailsCleanly();
};

void TestCliEvaluate::jsonHasTheStableFields()
{
    const nlohmann::json j = evaluateJson({});
    QCOMPARE(j["ranks"].get<int>(), 128);
    QVERIFY(j["iteration_time_s"].get<double>() > 0.0);
    const double bubble = j["bubble_fraction"].get<double>();
    QVERIFY(bubble > 0.0 && bubble < 1.0);
    for (const char *d : {"tp", "pp", "dp", "ep", "cp"}) {
        QVERIFY(j["dimensions"][d].contains("bytes_sent"));
        QVERIFY(j["dimensions"][d].contains("link_bytes"));
        QVERIFY(j["dimensions"][d].contains("exposed_time_s"));
    }
    for (const char *t : {"scale_up", "leaf", "spine", "superspine"})
        for (const char *d : {"tp", "pp", "dp", "ep", "cp"})
            QVERIFY(j["tiers"][t][d].is_number());
    QVERIFY(j["spine_bytes_share"].is_number());
    for (const char *k : {"count", "p50", "p95", "p99", "max"})
        QVERIFY(j["links"][k].is_number());
    QVERIFY(j["links"]["p50"].get<double>() <= j["links"]["p95"].get<double>());
    QVERIFY(j["links"]["p95"].get<double>() <= j["links"]["p99"].get<double>());
    QVERIFY(j["links"]["p99"].get<double>() <= j["links"]["max"].get<double>());
    QVERIFY(j["bottleneck"]["link"].is_number_integer());
    QVERIFY(j["bottleneck"]["dimension"].is_string());
    QVERIFY(j["memory"]["max_bytes_per_rank"].get<double>() > 0.0);
    QVERIFY(j["memory"]["fits"].is_boolean());
    // 16 servers in one 32-server SU: 8 rail leaves x 16 uplinks / 64 ports = 2 spines.
    QCOMPARE(j["switches"]["leaf"].get<int>(), 8);
    QCOMPARE(j["switches"]["spine"].get<int>(), 2);
    QCOMPARE(j["switches"]["superspine"].get<int>(), 0);
    // The seed's point: every DP group stays on its rail.
    QCOMPARE(spineDp(j), 0.0);
}

void TestCliEvaluate::swapMovesDpOntoTheSpineAndBack()
{
    const nlohmann::json before = evaluateJson({});
    // rank 0 = (d0,p0,t0) on node000/gpu0, rank 9 = (d1,p0,t1) on node001/gpu1.
    const nlohmann::json swapped = evaluateJson({QStringLiteral("--swap"), QStringLiteral("0:9")});
    QVERIFY(spineDp(swapped) > 0.0);
    QVERIFY(swapped["spine_bytes_share"].get<double>() > 0.0);
    const nlohmann::json back = evaluateJson(
        {QStringLiteral("--swap"), QStringLiteral("0:9"), QStringLiteral("--swap"), QStringLiteral("0:9")});
    QCOMPARE(spineDp(back), 0.0);
    QCOMPARE(back["iteration_time_s"].get<double>(), before["iteration_time_s"].get<double>());
    QCOMPARE(back["links"]["max"].get<double>(), before["links"]["max"].get<double>());
}

void TestCliEvaluate::everySampleEvaluates_data()
{
    QTest::addColumn<QString>("file");
    const QStringList files = QDir(QStringLiteral(RAILYARD_SOURCE_DIR "/samples"))
                                  .entryList({QStringLiteral("*.json")}, QDir::Files);
    QVERIFY(files.size() >= 5);
    for (const QString &f : files)
        QTest::newRow(qPrintable(f)) << f;
}

void TestCliEvaluate::everySampleEvaluates()
{
    QFETCH(QString, file);
    const Run r = runCli({QStringLiteral("evaluate"), sample(qPrintable(file)), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    if (j.contains("jobs")) { // a shared fabric (docs/shared-fabric.md): every job's figures
        QVERIFY(!j["jobs"].empty());
        for (const nlohmann::json &job : j["jobs"]) {
            QVERIFY(job["iteration_time_s"].get<double>() > 0.0);
            QVERIFY(job["ranks"].get<int>() > 0);
        }
        return;
    }
    QVERIFY(j["iteration_time_s"].get<double>() > 0.0);
    QVERIFY(j["ranks"].get<int>() > 0);
}

void TestCliEvaluate::superPodSwitchCounts_data()
{
    QTest::addColumn<int>("servers");
    QTest::addColumn<int>("leaves");
    QTest::addColumn<int>("spines");
    // NVIDIA DGX H100 SuperPOD reference architecture, compute fabric (64-port switches,
    // 32 DGX per SU, non-blocking).
    QTest::newRow("1 SU") << 32 << 8 << 4;
    QTest::newRow("2 SU") << 64 << 16 << 8;
    QTest::newRow("4 SU") << 128 << 32 << 16;
}

void TestCliEvaluate::superPodSwitchCounts()
{
    QFETCH(int, servers);
    QFETCH(int, leaves);
    QFETCH(int, spines);
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("pod.json"));
    const Run g = runCli({QStringLiteral("generate"), QStringLiteral("--fabric"), QStringLiteral("rail-optimised"),
                          QStringLiteral("--servers"), QString::number(servers), QStringLiteral("--gpus-per-server"),
                          QStringLiteral("8"), QStringLiteral("--switch-radix"), QStringLiteral("64"),
                          QStringLiteral("--servers-per-su"), QStringLiteral("32"), QStringLiteral("--tp"),
                          QStringLiteral("8"), QStringLiteral("--pp"), QStringLiteral("1"), QStringLiteral("--model"),
                          QStringLiteral("llama3-8b"), QStringLiteral("--global-batch"), QString::number(servers * 8),
                          QStringLiteral("-o"), file});
    QVERIFY2(g.exitCode == 0, g.err.constData());
    const Run e = runCli({QStringLiteral("evaluate"), file, QStringLiteral("--json")});
    QVERIFY2(e.exitCode == 0, e.err.constData());
    const nlohmann::json j = nlohmann::json::parse(e.out.toStdString());
    QCOMPARE(j["switches"]["leaf"].get<int>(), leaves);
    QCOMPARE(j["switches"]["spine"].get<int>(), spines);
}

void TestCliEvaluate::collectiveMatchesTheRingFormula()
{
    // One server's 8 GPUs, --algo ring, 1 GiB: Simple wins, T = base + 2(p-1)(a + x) + 2(p-1)/p
    // S/(B eff) with a = 2 x 0.6 us (GPU->NVSwitch->GPU), B = 3600 Gbit/s (the seed sample's),
    // NCCL's ring base 8.4 us and Simple's 2.8 us per NVLink step above LL (src/graph/tuning.cc),
    // and the 370 of 450 GB/s Simple achieves on NVLink (nccl-tests issue #212).
    const double S = 1 << 30;
    const Run r = runCli({QStringLiteral("collective"), sample("seed-128.json"), QStringLiteral("--op"),
                          QStringLiteral("all-reduce"), QStringLiteral("--ranks"),
                          QStringLiteral("0,1,2,3,4,5,6,7"), QStringLiteral("--bytes"),
                          QString::number(S, 'f', 0), QStringLiteral("--algo"),
                          QStringLiteral("ring"), QStringLiteral("--json")});
    QVERIFY2(r.exitCode == 0, r.err.constData());
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString());
    const double alpha = 8.4e-6 + 2 * 7 * (1.2e-6 + 2.8e-6);
    const double bw = 3600e9 / 8.0 * 370.0 / 450.0;
    const double expected = alpha + 2.0 * 7 / 8 * S / bw;
    QVERIFY(std::abs(j["time_s"].get<double>() - expected) <= 1e-12 * expected);
    QCOMPARE(j["algorithm"].get<std::string>(), std::string("ring"));
    QCOMPARE(j["protocol"].get<std::string>(), std::string("Simple"));
    QCOMPARE(j["bus_factor"].get<double>(), 2.0 * 7 / 8);
    QVERIFY(std::abs(j["busbw_bytes_per_s"].get<double>() - S / expected * 2.0 * 7 / 8) <= 1e-3);
}

void TestCliEvaluate::malformedFileFailsCleanly_data()
{
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not json") << QByteArray("{\"format_version\": 1,") << QStringLiteral("JSON");
    QTest::newRow("wrong type") << QByteArray(R"({"format_version":1,"fabric":{"servers":"16","gpus_per_server":8},"parallel":{"tp":8,"pp":1,"dp":1}})")
                                << QStringLiteral("fabric.servers");
    QTest::newRow("inconsistent degrees") << QByteArray(R"({"format_version":1,"fabric":{"servers":2,"gpus_per_server":8},"parallel":{"tp":8,"pp":4,"dp":4}})")
                                          << QStringLiteral("parallel");
    QTest::newRow("10^9 GPUs") << QByteArray(R"({"format_version":1,"fabric":{"servers":1000000000,"gpus_per_server":1},"parallel":{"tp":1,"pp":1,"dp":1}})")
                               << QStringLiteral("fabric");
}

void TestCliEvaluate::malformedFileFailsCleanly()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString in = dir.filePath(QStringLiteral("bad.json"));
    const QString out = dir.filePath(QStringLiteral("report.json"));
    QFile f(in);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(text);
    f.close();
    const Run r = runCli({QStringLiteral("evaluate"), in, QStringLiteral("--json"), QStringLiteral("-o"), out});
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

QTEST_GUILESS_MAIN(TestCliEvaluate)
#include "tst_cli_evaluate.moc"
