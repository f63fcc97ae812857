/**
 * Replays every input the fuzzers ever crashed on (tests/fuzz/regressions/) and every seed
 * (tests/fuzz/corpus/, samples/) through the fuzz targets' own harness
 * (tests/fuzz/fuzzharness.h): each must load, or be refused with a ScenarioError, and never
 * crash, throw anything else or break an invariant. Under the sanitizer build (CMakePresets.json
 * "asan") this also runs them with ASan and UBSan. Regression files are named after their target,
 * "<target>-<what>.<ext>": scenario-*.json for fuzz_scenario, mapping-*.bin for fuzz_mapping,
 * nccltests-* for fuzz_nccltests, cabling-* for fuzz_cabling, and preflight-*, hosts-*,
 * hotness-*, searchpart-*, serverpattern-*, lesson-*, autosave-*, cli-*, nccllog-*,
 * traininglog-*, computecal-*, slurmtopo-*, nvsmi-* and catalogue-* for the targets of the same
 * names (kTargets). A replay asserts only "no crash, refused cleanly or accepted with the
 * invariants", never a message, so a reader's wording may change.
 */
#include "fuzzcabling.h"
#include "fuzzcatalogue.h"
#include "fuzzcli.h"
#include "fuzzcomputecal.h"
#include "fuzzharness.h"
#include "fuzznccllog.h"
#include "fuzznccltests.h"
#include "fuzzqt.h"
#include "fuzzreaders.h"
#include "fuzzscheduler.h"
#include "fuzztraininglog.h"

#include <QDir>
#include <QFile>
#include <QTest>

#include <cstring>
#include <exception>
#include <iterator>
#include <optional>
#include <string>

using namespace railyard;

namespace {

const QString kFuzzDir = QStringLiteral(RAILYARD_SOURCE_DIR "/tests/fuzz");

/** One fuzz target: its name (corpus folder, regression prefix) and what it does with an input. */
struct Target
{
    const char *name;
    fuzz::Outcome (*run)(std::string_view);
};

const Target kTargets[] = {
    { "scenario", fuzz::fuzzScenario },
    { "mapping", fuzz::fuzzMapping },
    { "topology", fuzz::fuzzTopology },
    { "nccltests", fuzz::fuzzNcclTestsLog },
    { "cabling", fuzz::fuzzCabling },
    { "preflight", fuzz::fuzzPreflight },
    { "hosts", fuzz::fuzzHosts },
    { "hotness", fuzz::fuzzHotness },
    { "searchpart", fuzz::fuzzSearchPart },
    { "serverpattern", fuzz::fuzzServerPattern },
    { "lesson", fuzz::fuzzLesson },
    { "autosave", fuzz::fuzzAutosave },
    { "cli", fuzz::fuzzCli },
    { "nccllog", fuzz::fuzzNcclLog },
    { "traininglog", fuzz::fuzzTrainingLog },
    { "computecal", fuzz::fuzzComputeCalibration },
    { "slurmtopo", fuzz::fuzzSlurmTopology },
    { "nvsmi", fuzz::fuzzNvidiaSmi },
    { "catalogue", fuzz::fuzzCatalogue },
};

int targetIndex(const char *name)
{
    for (int i = 0; i < static_cast<int>(std::size(kTargets)); ++i)
        if (std::strcmp(kTargets[i].name, name) == 0)
            return i;
    return -1;
}

/// Adds one row per file of `dir`; `target` (an index of kTargets) decides the harness, or the
/// name's prefix before the first '-' does.
int addRows(const QString &dir, std::optional<int> target)
{
    const QFileInfoList files = QDir(dir).entryInfoList(QDir::Files, QDir::Name);
    for (const QFileInfo &file : files) {
        int t = -1;
        if (target)
            t = *target;
        else
            t = targetIndex(qPrintable(file.fileName().section(QLatin1Char('-'), 0, 0)));
        if (t < 0) {
            qWarning("%s: name it <target>-*, <target> one of the fuzz targets (kTargets)",
                qPrintable(file.filePath()));
            continue;
        }
        const QString name
            = QDir(QStringLiteral(RAILYARD_SOURCE_DIR)).relativeFilePath(file.filePath());
        QTest::newRow(qPrintable(name)) << file.filePath() << t;
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
    for (int t = 0; t < static_cast<int>(std::size(kTargets)); ++t)
        QVERIFY2(
            addRows(kFuzzDir + QStringLiteral("/corpus/") + QLatin1String(kTargets[t].name), t) > 0,
            kTargets[t].name);
    // The samples are seeds of fuzz_scenario too (README, "Fuzzing").
    QVERIFY(addRows(QStringLiteral(RAILYARD_SOURCE_DIR "/samples"), targetIndex("scenario")) > 0);
    // The sample inventory is a seed of fuzz_cabling.
    QTest::newRow("samples/cabling-2su.csv as an inventory")
        << QStringLiteral(RAILYARD_SOURCE_DIR "/samples/cabling-2su.csv") << targetIndex("cabling");
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
        const fuzz::Outcome outcome = kTargets[target].run(input);
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
