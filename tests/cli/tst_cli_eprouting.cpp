// railyard-cli evaluate with expert routing: the JSON "ep" section against hand-computed
// numbers, the --routing override, and bad routing refused with nothing written.
#include "clirun.h"

#include <QFile>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <cmath>

namespace {

QString sample(const char *name)
{
    return QStringLiteral(RAILYARD_SOURCE_DIR "/samples/") + QLatin1String(name);
}

nlohmann::json evaluateJson(const char *file, const QStringList &extra = {})
{
    QStringList args { QStringLiteral("evaluate"), sample(file), QStringLiteral("--json") };
    args += extra;
    const CliRun r = runRailyardCli(args);
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return nlohmann::json::parse(r.out.toStdString());
}

bool near(double a, double b, double rel = 1e-12)
{
    return std::abs(a - b) <= rel * std::max(std::abs(a), std::abs(b));
}

/// Mixtral in the samples: seq 4096, micro-batch 1, tp 1 (no SP shard), top-2, h 4096, bf16.
constexpr double kS = 4096.0 * 2 * 4096 * 2; // the all-to-all buffer per rank, bytes

/// Hand Zipf over 8 experts: 1/k^s normalised (top-2 caps at 1/2, not reached for s <= 1.2).
std::vector<double> zipfShares(double s)
{
    std::vector<double> w;
    double sum = 0.0;
    for (int k = 1; k <= 8; ++k) {
        w.push_back(1.0 / std::pow(k, s));
        sum += w.back();
    }
    for (double &v : w)
        v /= sum;
    return w;
}

} // namespace

class TestCliEpRouting : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void uniformSectionIsFlat();
    void zipfOverrideSkewsTheMatrix();
    void hotnessFileOverride();
    void sampleSpansRailLeaves();
    void denseModelHasNoEpSection();
    void textReportHasTheEpLines();
    void badRoutingFailsCleanly_data();
    void badRoutingFailsCleanly();
};

void TestCliEpRouting::uniformSectionIsFlat()
{
    const nlohmann::json j = evaluateJson("mixtral-ep8.json");
    const nlohmann::json &ep = j["ep"];
    QCOMPARE(ep["routing"]["kind"].get<std::string>(), std::string("uniform"));
    QCOMPARE(ep["ep"].get<int>(), 8);
    QCOMPARE(ep["send_bytes_per_rank"].get<double>(), kS);
    // Issue #5: 8 ranks x 4096 tokens x top-2 x 4096 x 2 bytes x (ep - 1)/ep.
    QCOMPARE(ep["dispatch_bytes_per_layer"].get<double>(), 8 * 4096.0 * 2 * 4096 * 2 * 7 / 8);
    QCOMPARE(ep["skew_max_mean"].get<double>(), 1.0);
    QCOMPARE(ep["matrix"].size(), std::size_t(8));
    for (const auto &row : ep["matrix"])
        for (const auto &cell : row)
            QCOMPARE(cell.get<double>(), kS / 8);
    // Packed with order tp-cp-ep-dp-pp: every EP group is one server, NVLink only.
    QCOMPARE(ep["spine_bytes"].get<double>(), 0.0);
    QCOMPARE(ep["locality"]["ep_groups_one_server"].get<int>(), 8);
    QCOMPARE(ep["locality"]["placement"].get<std::string>(), std::string("ep-in-server"));
}

void TestCliEpRouting::zipfOverrideSkewsTheMatrix()
{
    const nlohmann::json uniform = evaluateJson("mixtral-ep8.json");
    const nlohmann::json j = evaluateJson("mixtral-ep8.json", { "--routing", "zipf:1.2" });
    const nlohmann::json &ep = j["ep"];
    const std::vector<double> h = zipfShares(1.2); // one expert per member: H_j = share_j
    QCOMPARE(ep["routing"]["kind"].get<std::string>(), std::string("zipf"));
    QCOMPARE(ep["routing"]["zipf_exponent"].get<double>(), 1.2);
    for (int j2 = 0; j2 < 8; ++j2) {
        QVERIFY(near(ep["member_shares"][j2].get<double>(), h[j2]));
        QVERIFY(near(ep["matrix"][3][j2].get<double>(), kS * h[j2]));
    }
    QVERIFY(near(ep["skew_max_mean"].get<double>(), 8 * h[0]));
    QCOMPARE(ep["hottest"]["rank"].get<int>(), 0);
    QCOMPARE(ep["hottest"]["expert"].get<int>(), 0);
    // The total does not change with skew; the EP exposure does.
    QCOMPARE(ep["dispatch_bytes_per_layer"].get<double>(), 7 * kS);
    QVERIFY(j["dimensions"]["ep"]["exposed_time_s"].get<double>()
        > uniform["dimensions"]["ep"]["exposed_time_s"].get<double>());
    QVERIFY(j["iteration_time_s"].get<double>() > uniform["iteration_time_s"].get<double>());
}

void TestCliEpRouting::hotnessFileOverride()
{
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("hot.csv"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("1,1,1,1,1,1,1,3\n");
    f.close();
    const nlohmann::json j = evaluateJson("mixtral-ep8.json", { "--routing", "hotness:" + path });
    const nlohmann::json &ep = j["ep"];
    QCOMPARE(ep["routing"]["kind"].get<std::string>(), std::string("explicit"));
    QCOMPARE(ep["member_shares"][7].get<double>(), 0.3);
    QCOMPARE(ep["hottest"]["member"].get<int>(), 7);
    QCOMPARE(ep["hottest"]["rank"].get<int>(), 7);
    QVERIFY(near(ep["skew_max_mean"].get<double>(), 2.4));
}

void TestCliEpRouting::sampleSpansRailLeaves()
{
    const nlohmann::json j = evaluateJson("mixtral-ep8-zipf.json");
    const nlohmann::json &ep = j["ep"];
    QCOMPARE(ep["routing"]["kind"].get<std::string>(), std::string("zipf"));
    // Order tp-cp-dp-ep-pp: EP group 0 = ranks 0, 2, ..., 14 (GPUs 0, 2, 4, 6 of two servers).
    QVERIFY(ep["group_ranks"] == nlohmann::json({ 0, 2, 4, 6, 8, 10, 12, 14 }));
    // A member's peers: 3 on its server (NVLink), 1 on the same rail of the other server (leaf),
    // 3 on other rails of the other server (spine). The spine bytes of one layer are then
    // S sum_j 3 H_j = 3 S per group, and 64 ranks / ep 8 = 8 groups.
    QCOMPARE(ep["groups"].get<int>(), 8);
    QVERIFY(near(ep["spine_dispatch_bytes_per_layer"].get<double>(), 3 * kS));
    QVERIFY(near(ep["spine_dispatch_bytes_per_layer_job"].get<double>(), 8 * 3 * kS));
    // Per iteration: 32 / pp 4 = 8 MoE layers per stage x 4 all-to-alls (dispatch, combine,
    // forward, backward) x 8 micro-batches, each crossing byte on a leaf -> spine and a
    // spine -> leaf link.
    QVERIFY(near(ep["tiers"]["spine"].get<double>(), 2 * 8 * 3 * kS * 8 * 4 * 8, 1e-9));
    QCOMPARE(ep["locality"]["placement"].get<std::string>(), std::string("ep-spans-leaves"));
    QVERIFY(near(ep["skew_max_mean"].get<double>(), 8 * zipfShares(0.6)[0]));
}

void TestCliEpRouting::denseModelHasNoEpSection()
{
    const nlohmann::json j = evaluateJson("seed-128.json");
    QVERIFY(!j.contains("ep"));
}

void TestCliEpRouting::textReportHasTheEpLines()
{
    const CliRun r
        = runRailyardCli({ QStringLiteral("evaluate"), sample("mixtral-ep8-zipf.json") });
    QCOMPARE(r.exitCode, 0);
    QVERIFY(r.out.contains("Expert routing zipf (s = 0.6), ep 8, 8 experts, top-2"));
    QVERIFY(r.out.contains("hottest: rank 0, experts 0..0"));
    QVERIFY(r.out.contains("ep-spans-leaves"));
}

void TestCliEpRouting::badRoutingFailsCleanly_data()
{
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("routing");
    QTest::addColumn<QString>("expected");
    QTest::newRow("not a number") << "mixtral-ep8.json"
                                  << "zipf:abc"
                                  << "--routing: expected zipf:S";
    QTest::newRow("exponent out of range")
        << "mixtral-ep8.json"
        << "zipf:42"
        << "--routing: the Zipf exponent must lie in 0..10, got 42";
    QTest::newRow("unknown model") << "mixtral-ep8.json"
                                   << "pareto:2"
                                   << "--routing: expected uniform";
    QTest::newRow("missing file") << "mixtral-ep8.json"
                                  << "hotness:/nonexistent/h.csv"
                                  << "cannot open hotness file";
    QTest::newRow("dense model") << "seed-128.json"
                                 << "zipf:1"
                                 << "--routing: the model is dense";
}

void TestCliEpRouting::badRoutingFailsCleanly()
{
    QFETCH(QString, file);
    QFETCH(QString, routing);
    QFETCH(QString, expected);
    QTemporaryDir dir;
    const QString out = dir.filePath(QStringLiteral("report.json"));
    const CliRun r = runRailyardCli(
        { QStringLiteral("evaluate"), sample(qPrintable(file)), QStringLiteral("--json"),
            QStringLiteral("--routing"), routing, QStringLiteral("-o"), out });
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    QCOMPARE(r.err.count('\n'), 1);
    QVERIFY2(r.err.contains(expected.toUtf8()), r.err.constData());
    QVERIFY(!QFile::exists(out));
}

QTEST_GUILESS_MAIN(TestCliEpRouting)
#include "tst_cli_eprouting.moc"
