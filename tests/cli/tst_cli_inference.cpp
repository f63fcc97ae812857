// railyard-cli evaluate on the inference samples (issue #5), run as a user would: the real
// binary, its JSON numbers checked against hand computation.
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

nlohmann::json evaluateJson(const char *file)
{
    const CliRun r
        = runRailyardCli({ QStringLiteral("evaluate"), sample(file), QStringLiteral("--json") });
    if (r.exitCode != 0)
        qWarning("%s", r.err.constData());
    return nlohmann::json::parse(r.out.toStdString());
}

bool near(double a, double b)
{
    return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b));
}

constexpr double kNic = 400e9 / 8.0; // bytes/s of a 400G NIC port
/// Llama-3-70B KV per token: 2 (K,V) x 80 layers x 8 KV heads x 128 head dim x 2 bytes.
constexpr double kLlama70bKvPerToken = 2.0 * 80 * 8 * 128 * 2;
constexpr double kLlama8bKvPerToken = 2.0 * 32 * 8 * 128 * 2;

} // namespace

class TestCliInference : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void disaggregatedNumbers();
    void minimalNumbers();
    void textReport();
    void overloadedPoolIsOfferedNotBusy();
    void trainingScenarioHasNoInferenceSection();
    void badInferenceSectionFails_data();
    void badInferenceSectionFails();
};

void TestCliInference::disaggregatedNumbers()
{
    const nlohmann::json all = evaluateJson("inference-disaggregated.json");
    QVERIFY(all["iteration_time_s"].get<double>() > 0.0); // the training part still evaluates
    const nlohmann::json &j = all["inference"];
    QCOMPARE(j["classification"].get<std::string>(), std::string("Distributed Inference"));
    QCOMPARE(j["minimal"].get<bool>(), false);
    QCOMPARE(j["reasons"].size(), std::size_t { 1 });
    QCOMPARE(j["reasons"][0].get<std::string>(),
        std::string("KV transfer prefill -> decode crosses hosts (pool 'prefill' on node000, "
                    "node001 -> pool 'decode' on node002, node003)"));
    // 2048 prompt tokens x 327,680 B = 671,088,640 B moved per request.
    const double bytes = 2048 * kLlama70bKvPerToken;
    QCOMPARE(j["kv_bytes_per_token"].get<double>(), kLlama70bKvPerToken);
    QCOMPARE(j["kv_bytes_per_request"].get<double>(), bytes);
    QCOMPARE(j["kv_bytes_per_request_final"].get<double>(), (2048 + 256) * kLlama70bKvPerToken);
    // TP8 -> TP8, shard t -> shard t on the same rail: 8 parallel flows of bytes / 8 through one
    // leaf each; time = bytes / 8 / 50 GB/s + (0.5 + 1 + 1 + 0.5) us = 1.6807 ms.
    const nlohmann::json &kv = j["kv_transfer"];
    QCOMPARE(kv["flows"].get<int>(), 8);
    QVERIFY(near(kv["time_s"].get<double>(), bytes / 8 / kNic + 3e-6));
    QVERIFY(near(kv["latency_s"].get<double>(), 3e-6));
    QCOMPARE(kv["tiers"]["same_leaf"].get<double>(), bytes);
    QCOMPARE(kv["tiers"]["via_spine"].get<double>(), 0.0);
    QCOMPARE(kv["paths"][0]["src"].get<std::string>(), std::string("node000/gpu0"));
    QCOMPARE(kv["paths"][0]["dst"].get<std::string>(), std::string("node002/gpu0"));
    // Latency definitions.
    const double ttft = j["ttft_s"].get<double>();
    QVERIFY(near(ttft, j["prefill_time_s"].get<double>() + kv["time_s"].get<double>()));
    QVERIFY(near(j["end_to_end_s"].get<double>(), ttft + 255 * j["tpot_s"].get<double>()));
    QVERIFY(near(j["critical_path_share"].get<double>(),
        kv["time_s"].get<double>() / j["end_to_end_s"].get<double>()));
    // Pools.
    QCOMPARE(j["pools"].size(), std::size_t { 2 });
    QCOMPARE(j["pools"][0]["gpus"].get<int>(), 16);
    QCOMPARE(j["pools"][0]["replicas"].get<int>(), 2);
    QCOMPARE(j["pools"][1]["role"].get<std::string>(), std::string("decode"));
    // Hottest KV link: a prefill NIC uplink. Each of the 2 prefill replicas gets 10 / 2 requests/s
    // and sends 1/8 of each over every NIC: 5 x bytes / 8 per second, over 50 GB/s.
    const nlohmann::json &hot = j["hottest_link"];
    QVERIFY(hot["tier"].get<std::string>() == "leaf");
    QVERIFY(near(hot["bytes_per_s"].get<double>(), 5.0 * bytes / 8));
    QVERIFY(near(hot["utilisation"].get<double>(), 5.0 * bytes / 8 / kNic));
    QVERIFY(j["kv_links"].size() > 1);
}

void TestCliInference::minimalNumbers()
{
    const nlohmann::json j = evaluateJson("inference-minimal.json")["inference"];
    QCOMPARE(j["classification"].get<std::string>(), std::string("Minimal Inference"));
    QVERIFY(j["reasons"].empty());
    QCOMPARE(j["kv_bytes_per_request"].get<double>(), 2048 * kLlama8bKvPerToken);
    QCOMPARE(j["kv_transfer"]["time_s"].get<double>(), 0.0);
    QCOMPARE(j["critical_path_share"].get<double>(), 0.0);
    QVERIFY(j["hottest_link"].is_null());
    QCOMPARE(j["pools"][0]["replicas"].get<int>(), 4);
    QVERIFY(near(j["ttft_s"].get<double>(), j["prefill_time_s"].get<double>()));
}

void TestCliInference::textReport()
{
    const CliRun r
        = runRailyardCli({ QStringLiteral("evaluate"), sample("inference-disaggregated.json") });
    QCOMPARE(r.exitCode, 0);
    const QString out = QString::fromUtf8(r.out);
    QVERIFY(out.contains(QStringLiteral("Inference      Distributed Inference")));
    QVERIFY(out.contains(QStringLiteral("KV transfer    1.681 ms per request")));
    QVERIFY(out.contains(QStringLiteral("671 MB per request after the prefill")));
    QVERIFY(out.contains(QStringLiteral("Critical path  KV transfer is")));
    QVERIFY(out.contains(QStringLiteral("KV hottest     node000/nic0 -> leaf-su0-rail0")));
}

void TestCliInference::overloadedPoolIsOfferedNotBusy()
{
    // The disaggregated sample at forty times its request rate: the prefill pool is offered
    // 40 x its work (rho = lambda x service time, per replica), yet nothing reports more than
    // 100 % busy; the offer stands beside it in the JSON and the text.
    QFile in(sample("inference-disaggregated.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    nlohmann::json scenario = nlohmann::json::parse(in.readAll().toStdString());
    scenario["inference"]["request_rate"] = 400.0;
    QTemporaryDir dir;
    const QString file = dir.filePath(QStringLiteral("overloaded.json"));
    QFile out(file);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QByteArray::fromStdString(scenario.dump(2)));
    out.close();

    const CliRun r = runRailyardCli({ QStringLiteral("evaluate"), file, QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 0);
    const nlohmann::json j = nlohmann::json::parse(r.out.toStdString())["inference"];
    const nlohmann::json &prefill = j["pools"][0];
    const double offered = prefill["offered_load"].get<double>();
    QVERIFY(near(
        offered, 400.0 / prefill["replicas"].get<int>() * prefill["step_time_s"].get<double>()));
    QVERIFY(offered > 1.0);
    QCOMPARE(prefill["utilisation"].get<double>(), 1.0);
    for (const nlohmann::json &l : j["kv_links"])
        QVERIFY(l["utilisation"].get<double>() == std::min(1.0, l["offered_load"].get<double>()));

    const CliRun text = runRailyardCli({ QStringLiteral("evaluate"), file });
    QCOMPARE(text.exitCode, 0);
    const QString busy
        = QStringLiteral("busy 100.00 % (offered %1 %)").arg(100.0 * offered, 0, 'f', 2);
    QVERIFY2(QString::fromUtf8(text.out).contains(busy), qPrintable(busy));
}

void TestCliInference::trainingScenarioHasNoInferenceSection()
{
    const nlohmann::json j = evaluateJson("seed-128.json");
    QVERIFY(!j.contains("inference"));
    const CliRun r = runRailyardCli({ QStringLiteral("evaluate"), sample("seed-128.json") });
    QVERIFY(!r.out.contains("Inference"));
}

void TestCliInference::badInferenceSectionFails_data()
{
    QTest::addColumn<QString>("patch");
    QTest::addColumn<QString>("message");
    QTest::newRow("negative rate") << R"({"request_rate": -1})"
                                   << "inference.request_rate:";
    QTest::newRow("decode only")
        << R"({"pools": [{"name": "decode", "role": "decode", "tp": 8, "servers": [2]}]})"
        << "inference.pools: a decode pool needs a prefill pool";
    QTest::newRow("shared server")
        << R"({"pools": [{"name": "prefill", "role": "prefill", "tp": 8, "servers": [0]},
                         {"name": "decode", "role": "decode", "tp": 8, "servers": [1, 0]}]})"
        << "inference.pools[1].servers[1]: server 0 is already used by pool 'prefill'";
    QTest::newRow("server outside the fabric")
        << R"({"pools": [{"name": "prefill", "role": "prefill", "tp": 8, "servers": [0]},
                         {"name": "decode", "role": "decode", "tp": 8, "servers": [4]}]})"
        << "inference.pools[1].servers[0]: server 4 does not exist";
}

void TestCliInference::badInferenceSectionFails()
{
    QFETCH(QString, patch);
    QFETCH(QString, message);
    QFile in(sample("inference-disaggregated.json"));
    QVERIFY(in.open(QIODevice::ReadOnly));
    nlohmann::json j = nlohmann::json::parse(in.readAll().toStdString());
    j["inference"].merge_patch(nlohmann::json::parse(patch.toStdString()));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("bad.json"));
    QFile out(path);
    QVERIFY(out.open(QIODevice::WriteOnly));
    out.write(QByteArray::fromStdString(j.dump(2)));
    out.close();
    const CliRun r = runRailyardCli({ QStringLiteral("evaluate"), path, QStringLiteral("--json") });
    QCOMPARE(r.exitCode, 1);
    QVERIFY(r.out.isEmpty());
    const QString err = QString::fromUtf8(r.err).trimmed();
    QVERIFY2(err.contains(message), qPrintable(err));
    QVERIFY(!err.contains(QLatin1Char('\n')));
}

QTEST_GUILESS_MAIN(TestCliInference)
#include "tst_cli_inference.moc"
