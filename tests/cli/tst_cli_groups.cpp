/**
 * Runs the real `railyard-cli groups` and checks its JSON against hand-derived Megatron-LM groups
 * (parallel_state.py's documented 16-GPU example and others), its text listing, and that bad
 * input gives a non-zero exit, one line on stderr (a JSON object under --json) and nothing on
 * stdout.
 */
#include "clirun.h"

#include <QStringList>
#include <QTest>

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace {

using Run = CliRun;

Run runCli(const QStringList &args)
{
    return runRailyardCli(QStringList{QStringLiteral("groups")} + args);
}

/// [[0,1],[2,3]] -> "0 1|2 3", so QCOMPARE shows readable values.
template<class Json> QString formatGroups(const Json &groups)
{
    QStringList parts;
    for (const auto &g : groups) {
        QStringList members;
        for (const auto &r : g)
            members << QString::number(r.template get<int>());
        parts << members.join(QLatin1Char(' '));
    }
    return parts.join(QLatin1Char('|'));
}

} // namespace

class TestCliGroups : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void json_data();
    void json();
    void jsonShape();
    void text();
    void errors_data();
    void errors();
};

void TestCliGroups::json_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("world");
    QTest::addColumn<QString>("kind");
    QTest::addColumn<QString>("expected");

    // Megatron-LM's documented example: 16 GPUs, tp=2 pp=4 dp=2, order tp-dp-pp
    // (rank = t + 2d + 4p).
    const QStringList mex { "--tp", "2", "--pp", "4", "--dp", "2", "--order", "tp-dp-pp" };
    QTest::newRow("megatron tp") << mex << 16 << "tp"
                                 << "0 1|2 3|4 5|6 7|8 9|10 11|12 13|14 15";
    QTest::newRow("megatron dp") << mex << 16 << "dp"
                                 << "0 2|1 3|4 6|5 7|8 10|9 11|12 14|13 15";
    QTest::newRow("megatron pp") << mex << 16 << "pp"
                                 << "0 4 8 12|1 5 9 13|2 6 10 14|3 7 11 15";
    QTest::newRow("megatron tp-pp") << mex << 16 << "tp-pp"
                                    << "0 1 4 5 8 9 12 13|2 3 6 7 10 11 14 15";
    QTest::newRow("megatron cp") << mex << 16 << "cp"
                                 << "0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15";

    // Default order tp-cp-ep-dp-pp with cp: rank = t + 2c + 4d.
    const QStringList cp { "--tp", "2", "--dp", "2", "--cp", "2" };
    QTest::newRow("cp cp") << cp << 8 << "cp"
                           << "0 2|1 3|4 6|5 7";
    QTest::newRow("cp dp") << cp << 8 << "dp"
                           << "0 4|1 5|2 6|3 7";
    QTest::newRow("cp dp-cp") << cp << 8 << "dp-cp"
                              << "0 2 4 6|1 3 5 7";

    // Expert parallel: tp=2 dp=4 pp=2 ep=2. Expert generator rank = t + 2e + 4d' + 8p.
    const QStringList ep { "--tp", "2", "--pp", "2", "--dp", "4", "--ep", "2" };
    QTest::newRow("ep ep") << ep << 16 << "ep"
                           << "0 2|1 3|4 6|5 7|8 10|9 11|12 14|13 15";
    QTest::newRow("ep edp") << ep << 16 << "edp"
                            << "0 4|1 5|2 6|3 7|8 12|9 13|10 14|11 15";
    QTest::newRow("ep dp") << ep << 16 << "dp"
                           << "0 2 4 6|1 3 5 7|8 10 12 14|9 11 13 15";

    // Order tp-pp-dp: rank = t + 2p + 4d.
    const QStringList tpd { "--tp", "2", "--pp", "2", "--dp", "2", "--order", "tp-pp-dp" };
    QTest::newRow("tp-pp-dp dp") << tpd << 8 << "dp"
                                 << "0 4|1 5|2 6|3 7";
    QTest::newRow("tp-pp-dp pp") << tpd << 8 << "pp"
                                 << "0 2|1 3|4 6|5 7";

    // Defaults: every degree 1, one rank in every group.
    QTest::newRow("defaults") << QStringList {} << 1 << "dp-cp"
                              << "0";
}

void TestCliGroups::json()
{
    QFETCH(QStringList, args);
    QFETCH(int, world);
    QFETCH(QString, kind);
    QFETCH(QString, expected);

    const Run run = runCli(args + QStringList { "--json" });
    QCOMPARE(run.exitCode, 0);
    QCOMPARE(run.err, QByteArray());
    const nlohmann::json doc = nlohmann::json::parse(run.out.toStdString());
    QCOMPARE(doc.at("world_size").get<int>(), world);
    QCOMPARE(formatGroups(doc.at("groups").at(kind.toStdString())), expected);
}

void TestCliGroups::jsonShape()
{
    const Run run = runCli({ "--tp", "8", "--pp", "4", "--dp", "4", "--json" });
    QCOMPARE(run.exitCode, 0);
    // ordered_json keeps the keys in output order.
    const nlohmann::ordered_json doc = nlohmann::ordered_json::parse(run.out.toStdString());

    std::vector<std::string> keys;
    for (const auto &item : doc.items())
        keys.push_back(item.key());
    QCOMPARE(keys, (std::vector<std::string> { "format_version", "world_size", "groups" }));
    QCOMPARE(doc.at("format_version").get<int>(), 1);

    // Every kind is present and holds each of the 128 ranks exactly once.
    keys.clear();
    for (const auto &item : doc.at("groups").items()) {
        keys.push_back(item.key());
        std::vector<int> seen(128, 0);
        for (const auto &g : item.value())
            for (const auto &r : g)
                ++seen.at(r.get<std::size_t>());
        QCOMPARE(seen, std::vector<int>(128, 1));
    }
    QCOMPARE(
        keys, (std::vector<std::string> { "tp", "pp", "dp", "cp", "ep", "dp-cp", "tp-pp", "edp" }));

    // The seed's example: rank = t + 8d + 32p, so the DP group of (p=1, t=3) is {35, 43, 51, 59}
    // and it is group t + 8p = 11.
    const auto &dp = doc.at("groups").at("dp");
    QCOMPARE(formatGroups(decltype(doc)::array({ dp.at(11) })), QStringLiteral("35 43 51 59"));
}

void TestCliGroups::text()
{
    const Run run = runCli({ "--tp", "2", "--pp", "4", "--dp", "2", "--order", "tp-dp-pp" });
    QCOMPARE(run.exitCode, 0);
    const QStringList lines = QString::fromUtf8(run.out).split(QLatin1Char('\n'));
    QCOMPARE(lines.first(),
        QStringLiteral("world size 16: tp=2 pp=4 dp=2 cp=1 ep=1, order "
                       "tp-dp-pp (first dimension varies fastest)"));
    const int tp = static_cast<int>(lines.indexOf(QStringLiteral("tp: 8 groups of 2 ranks")));
    QVERIFY(tp > 0);
    QCOMPARE(lines.at(tp + 1), QStringLiteral("  0: 0 1"));
    QCOMPARE(lines.at(tp + 8), QStringLiteral("  7: 14 15"));
    const int pp = static_cast<int>(lines.indexOf(QStringLiteral("pp: 4 groups of 4 ranks")));
    QVERIFY(pp > tp);
    QCOMPARE(lines.at(pp + 2), QStringLiteral("  1: 1 5 9 13"));
    QVERIFY(lines.contains(QStringLiteral("dp-cp: 8 groups of 2 ranks")));
    QVERIFY(lines.contains(QStringLiteral("tp-pp: 2 groups of 8 ranks")));
    QVERIFY(lines.contains(QStringLiteral("cp: 16 groups of 1 rank")));
}

void TestCliGroups::errors_data()
{
    QTest::addColumn<QStringList>("args");
    QTest::addColumn<int>("exitCode");
    QTest::addColumn<QString>("message"); // the whole stderr line; empty = check prefix only

    QTest::newRow("tp 0") << QStringList { "--tp", "0" } << 1
                          << "railyard-cli: --tp: tp must be at least 1, got 0";
    QTest::newRow("tp text") << QStringList { "--tp", "abc" } << 1
                             << "railyard-cli: --tp: expected an integer, got 'abc'";
    QTest::newRow("ep divides") << QStringList { "--dp", "4", "--ep", "3" } << 1
                                << "railyard-cli: --ep: ep = 3 must divide dp*cp = 4";
    QTest::newRow("unknown dim") << QStringList { "--order", "tp-xx" } << 1
                                 << "railyard-cli: --order: unknown dimension 'xx' in 'tp-xx' "
                                    "(expected tp, pp, dp, cp or ep)";
    QTest::newRow("missing cp") << QStringList { "--cp", "2", "--order", "tp-dp-pp" } << 1
                                << "railyard-cli: --order: cp = 2 > 1 but 'cp' is not in the "
                                   "order 'tp-dp-pp'";
    QTest::newRow("world huge") << QStringList { "--tp", "1024", "--pp", "1024", "--dp", "2" } << 1
                                << "railyard-cli: degrees: world size tp*pp*dp*cp = 1024*1024*2*1 "
                                   "exceeds the limit of 1048576 GPUs";
    QTest::newRow("unknown option") << QStringList { "--bogus" } << 2 << QString();
    QTest::newRow("positional")
        << QStringList { "extra" } << 2
        << "railyard-cli groups: unexpected argument 'extra' (try 'railyard-cli groups --help')";
}

void TestCliGroups::errors()
{
    QFETCH(QStringList, args);
    QFETCH(int, exitCode);
    QFETCH(QString, message);

    const Run run = runCli(args);
    QCOMPARE(run.exitCode, exitCode);
    QCOMPARE(run.out, QByteArray());
    const QString err = QString::fromUtf8(run.err);
    QCOMPARE(err.count(QLatin1Char('\n')), 1);
    QVERIFY(err.startsWith(QStringLiteral("railyard-cli")));
    if (!message.isEmpty())
        QCOMPARE(err.trimmed(), message);

    // Under --json the same error is one JSON object on stderr with the same exit code:
    // {"error": {"message": M, "code": N}}, M the line above without "railyard-cli[ groups]: ".
    const Run json = runCli(args + QStringList { "--json" });
    QCOMPARE(json.exitCode, exitCode);
    QCOMPARE(json.out, QByteArray());
    QCOMPARE(json.err.count('\n'), 1);
    const nlohmann::json error = nlohmann::json::parse(json.err.toStdString());
    QCOMPARE(error.at("error").at("code").get<int>(), exitCode);
    const QString line = err.trimmed();
    const QString prefix = exitCode == 2 ? QStringLiteral("railyard-cli groups: ")
                                         : QStringLiteral("railyard-cli: ");
    QVERIFY2(line.startsWith(prefix), qPrintable(line));
    QCOMPARE(QString::fromStdString(error.at("error").at("message").get<std::string>()),
        line.mid(prefix.size()));
}

QTEST_GUILESS_MAIN(TestCliGroups)
#include "tst_cli_groups.moc"
