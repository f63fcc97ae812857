/**
 * Replays every input the fuzzers ever crashed on (tests/fuzz/regressions/) and every seed
 * (tests/fuzz/corpus/, samples/) through the fuzz targets' own harness
 * (tests/fuzz/fuzzharness.h): each must load, or be refused with a ScenarioError, and never
 * crash, throw anything else or break an invariant. Under the sanitizer build (CMakePresets.json
 * "asan") this also runs them with ASan and UBSan. Regression files are named after their target:
 * scenario-*.json for fuzz_scenario, mapping-*.bin for fuzz_mapping, nccltests-* for
 * fuzz_nccltests, cabling-* for fuzz_cabling.
 */
#include "fuzzcabling.h"
#include "fuzzharness.h"
#include "fuzznccltests.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <exception>
#include <optional>
#include <string>

using namespace railyard;

namespace {

const QString kFuzzDir = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/fuzz");

enum class Target { Scenario, Mapping, Topology, NcclTests, Cabling };

/// Adds one row per file of `dir`; `target` decides the harness, or the name prefix does.
int addRows(const QString &dir, std::optional<Target> target)
{
    const QFileInfoList files = QDir(dir).entryInfoList(QDir::Files, QDir::Name);
    for (const QFileInfo &file : files) {
        Target t = Target::Scenario;
        if (target) {
            t = *target;
        } else if (file.fileName().startsWith(QLatin1String("mapping-"))) {
            t = Target::Mapping;
        } else if (file.fileName().startsWith(QLatin1String("topology-"))) {
            t = Target::Topology;
        } else if (file.fileName().startsWith(QLatin1String("nccltests-"))) {
            t = Target::NcclTests;
        } else if (file.fileName().startsWith(QLatin1String("cabling-"))) {
            t = Target::Cabling;
        } else if (!file.fileName().startsWith(QLatin1String("scenario-"))) {
            qWarning("%s: name it scenario-*, mapping-*, topology-*, nccltests-* or cabling-* after its fuzz target",
                qPrintable(file.filePath()));
            continue;
        }
        const QString name
            = QDir(QStringLiteral(RAILYARD_SOURCE_DIR)).relativeFilePath(file.filePath());
        QTest::newRow(qPrintable(name)) << file.filePath() << static_cast<int>(t);
    }
    return static_cast<int>(files.size());
}

const char *outcomeName(fuzz::Outcome o)
{
    switch (o) {
    case fuzz::Outcome::Rejected:
        return "rejected";
    case fuzz::Outcome::Loaded:
        return "loaded";
    case fuzz::Outcome::Evaluated:
        return "evaluated";
    }
    return "?";
}

} // namespace

class TestFuzzRegressions : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void replay_data();
    void replay();
};

void TestFuzzRegressions::replay_data()
{
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("target");
    const int regressions = addRows(kFuzzDir + QStringLiteral("/regressions"), std::nullopt);
    QVERIFY2(regressions > 0, "tests/fuzz/regressions/ holds no input");
    QVERIFY(addRows(kFuzzDir + QStringLiteral("/corpus/scenario"), Target::Scenario) > 0);
    // The samples are seeds of fuzz_scenario too (README, "Fuzzing").
    QVERIFY(addRows(QStringLiteral(RAILYARD_SOURCE_DIR "/samples"), Target::Scenario) > 0);
    QVERIFY(addRows(kFuzzDir + QStringLiteral("/corpus/mapping"), Target::Mapping) > 0);
    QVERIFY(addRows(kFuzzDir + QStringLiteral("/corpus/topology"), Target::Topology) > 0);
    QVERIFY(addRows(kFuzzDir + QStringLiteral("/corpus/nccltests"), Target::NcclTests) > 0);
    QVERIFY(addRows(kFuzzDir + QStringLiteral("/corpus/cabling"), Target::Cabling) > 0);
    // The sample inventory is a seed of fuzz_cabling.
    QTest::newRow("samples/cabling-2su.csv as an inventory")
        << QStringLiteral(RAILYARD_SOURCE_DIR "/samples/cabling-2su.csv") << static_cast<int>(Target::Cabling);
}

void TestFuzzRegressions::replay()
{
    QFETCH(QString, path);
    QFETCH(int, target);
    QFile file(path);
    QVERIFY2(file.open(QIODevice::ReadOnly), qPrintable(file.errorString()));
    const QByteArray bytes = file.readAll();
    const std::string_view input(bytes.constData(), static_cast<std::size_t>(bytes.size()));
    try {
        const Target t = static_cast<Target>(target);
        const fuzz::Outcome outcome = t == Target::Mapping ? fuzz::fuzzMapping(input)
            : t == Target::Topology                         ? fuzz::fuzzTopology(input)
            : t == Target::NcclTests                        ? fuzz::fuzzNcclTestsLog(input)
            : t == Target::Cabling                          ? fuzz::fuzzCabling(input)
                                                            : fuzz::fuzzScenario(input);
        qDebug("%s", outcomeName(outcome));
    } catch (const fuzz::HarnessFailure &e) {
        QFAIL(qPrintable(QStringLiteral("broken invariant: ") + QString::fromStdString(e.what())));
    } catch (const std::exception &e) {
        QFAIL(qPrintable(QStringLiteral("escaped exception (not a ScenarioError): ")
            + QString::fromStdString(e.what())));
    }
}

QTEST_GUILESS_MAIN(TestFuzzRegressions)
#include "tst_fuzzregressions.moc"
