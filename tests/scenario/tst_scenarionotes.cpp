/**
 * The whiteboard sections of scenario files: notes, arrows and snapshots survive a save and a
 * load field for field, files without them stay byte-identical, and every malformed entry is
 * refused with its own message naming the field path.
 */
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "scenario/snapshot.h"

#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace railyard;
using nlohmann::json;

namespace {

const char *const kMinimal = R"({
  "format_version": 1,
  "fabric": {"servers": 16, "gpus_per_server": 8},
  "parallel": {"tp": 8, "pp": 4, "dp": 4}
})";

json minimal()
{
    return json::parse(kMinimal);
}

json packedSlots(int ranks)
{
    json slots = json::array();
    for (int r = 0; r < ranks; ++r)
        slots.push_back(r);
    return slots;
}

json snapshot(const std::string &name)
{
    return json{{"name", name},
                {"taken_at", "2025-06-03T14:32:00"},
                {"parallel", {{"tp", 8}, {"pp", 4}, {"dp", 4}}},
                {"global_batch", 64},
                {"mapping", {{"placement", "packed"}, {"slots", packedSlots(128)}, {"version", 2}}}};
}

} // namespace

class TestScenarioNotes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void roundTrip();
    void absentSectionsWriteNothing();
    void malformed_data();
    void malformed();
    void snapshotTakesAndRestoresTheMapping();
};

void TestScenarioNotes::roundTrip()
{
    Scenario s = parseScenario(kMinimal);
    Annotation note;
    note.text = "TP stays on NVLink: one server per group";
    note.anchor = {AnnotationAnchor::Kind::Server, 3};
    note.dx = -25.5;
    note.dy = 80.0;
    note.colour = "blue";
    Annotation arrow;
    arrow.kind = Annotation::Kind::Arrow;
    arrow.text = "this boundary climbs to the spine";
    arrow.anchor = {AnnotationAnchor::Kind::Rank, 17};
    arrow.target = {AnnotationAnchor::Kind::Link, 240};
    arrow.snapshot = "swap 0-9"; // shown only with that snapshot
    s.annotations = {note, arrow};
    s.slots = packedSlots(128).get<std::vector<int>>();
    Snapshot healthy = takeSnapshot(s, "healthy", "2025-06-03T14:32:00");
    std::swap(s.slots[0], s.slots[9]);
    s.failures = {FailedComponent{FailedComponent::Kind::Server, 3}};
    Snapshot swapped = takeSnapshot(s, "swap 0-9", "");
    s.snapshots = {healthy, swapped};

    QTemporaryDir dir;
    const std::string path = dir.filePath(QStringLiteral("notes.json")).toStdString();
    saveScenario(s, path);
    const Scenario back = loadScenario(path);
    QCOMPARE(back.annotations.size(), std::size_t{2});
    QVERIFY(back.annotations[0] == note);
    QVERIFY(back.annotations[1] == arrow);
    QCOMPARE(back.snapshots.size(), std::size_t{2});
    QVERIFY(back.snapshots[0] == healthy);
    QVERIFY(back.snapshots[1] == swapped);
    QCOMPARE(back.snapshots[1].slots[0], 9);
    QCOMPARE(back.snapshots[1].failures.size(), std::size_t{1});
    QVERIFY(back == s);
    // Written as documented.
    const json j = scenarioToJson(s);
    QCOMPARE(j["annotations"][0]["anchor"].get<std::string>(), std::string("server:3"));
    QCOMPARE(j["annotations"][1]["from"].get<std::string>(), std::string("rank:17"));
    QCOMPARE(j["annotations"][1]["to"].get<std::string>(), std::string("link:240"));
    QCOMPARE(j["annotations"][1]["snapshot"].get<std::string>(), std::string("swap 0-9"));
    QVERIFY(!j["annotations"][0].contains("snapshot")); // every mapping's: nothing written
    QCOMPARE(j["snapshots"][1]["failures"][0].get<std::string>(), std::string("server:3"));
}

void TestScenarioNotes::absentSectionsWriteNothing()
{
    const Scenario s = parseScenario(kMinimal);
    const std::string text = scenarioToText(s);
    QVERIFY(text.find("annotations") == std::string::npos);
    QVERIFY(text.find("snapshots") == std::string::npos);
}

void TestScenarioNotes::malformed_data()
{
    QTest::addColumn<QByteArray>("patch"); // the top-level keys to add, as JSON
    QTest::addColumn<QString>("field");
    QTest::addColumn<QString>("message");
    auto row = [](const char *tag, const json &patch, const char *field, const char *message) {
        QTest::newRow(tag) << QByteArray::fromStdString(patch.dump()) << QString::fromLatin1(field)
                           << QString::fromLatin1(message);
    };
    row("annotations not an array", {{"annotations", "note"}}, "annotations", "expected an array");
    row("unknown kind", {{"annotations", {{{"kind", "circle"}, {"text", "x"}, {"anchor", "server:1"}}}}},
        "annotations[0].kind", "circle");
    row("note without text", {{"annotations", {{{"kind", "note"}, {"anchor", "server:1"}}}}},
        "annotations[0].text", "needs some text");
    row("note without anchor", {{"annotations", {{{"kind", "note"}, {"text", "x"}}}}}, "annotations[0].anchor",
        "missing required field");
    row("bad anchor kind", {{"annotations", {{{"text", "x"}, {"anchor", "switch:2"}}}}}, "annotations[0].anchor",
        "expected \"server:N\"");
    row("bad anchor index", {{"annotations", {{{"text", "x"}, {"anchor", "rank:-3"}}}}}, "annotations[0].anchor",
        "whole number >= 0");
    row("snapshot not a string", {{"annotations", {{{"text", "x"}, {"anchor", "server:1"}, {"snapshot", 2}}}}},
        "annotations[0].snapshot", "expected a string");
    row("empty snapshot", {{"annotations", {{{"text", "x"}, {"anchor", "server:1"}, {"snapshot", ""}}}}},
        "annotations[0].snapshot", "");
    row("anchor not a string", {{"annotations", {{{"text", "x"}, {"anchor", 3}}}}}, "annotations[0].anchor",
        "expected a string");
    row("offset of three", {{"annotations", {{{"text", "x"}, {"anchor", "server:1"}, {"offset", {1, 2, 3}}}}}},
        "annotations[0].offset", "expected [dx, dy]");
    row("unknown colour", {{"annotations", {{{"text", "x"}, {"anchor", "server:1"}, {"colour", "mauve"}}}}},
        "annotations[0].colour", "not a note colour");
    row("note with from", {{"annotations", {{{"text", "x"}, {"anchor", "server:1"}, {"from", "rank:1"}}}}},
        "annotations[0].from", "only an arrow");
    row("arrow without to", {{"annotations", {{{"kind", "arrow"}, {"from", "rank:1"}}}}}, "annotations[0].to",
        "missing required field");
    row("arrow to itself", {{"annotations", {{{"kind", "arrow"}, {"from", "rank:1"}, {"to", "rank:1"}}}}},
        "annotations[0].to", "two different ends");
    row("arrow with offset",
        {{"annotations", {{{"kind", "arrow"}, {"from", "rank:1"}, {"to", "rank:2"}, {"offset", {1, 2}}}}}},
        "annotations[0].offset", "only a note");
    row("unknown annotation key", {{"annotations", {{{"text", "x"}, {"anchor", "server:1"}, {"colour_", "x"}}}}},
        "annotations[0].colour_", "unknown field");
    row("text too long", {{"annotations", {{{"text", std::string(3000, 'x')}, {"anchor", "server:1"}}}}},
        "annotations[0].text", "bytes");

    row("snapshots not an array", {{"snapshots", json::object()}}, "snapshots", "expected an array");
    json noName = snapshot("a");
    noName.erase("name");
    row("snapshot without name", {{"snapshots", {noName}}}, "snapshots[0].name", "missing required field");
    row("duplicate name", {{"snapshots", {snapshot("a"), snapshot("a")}}}, "snapshots[1].name",
        "already the name of snapshots[0]");
    json shortSlots = snapshot("a");
    shortSlots["mapping"]["slots"] = packedSlots(100);
    row("slots short", {{"snapshots", {shortSlots}}}, "snapshots[0].mapping.slots",
        "has 100 entries but the snapshot's layout has 128 ranks");
    json twice = snapshot("a");
    twice["mapping"]["slots"][7] = 3;
    row("slot twice", {{"snapshots", {twice}}}, "snapshots[0].mapping.slots[7]", "slot 3 is already taken by rank 3");
    json badTp = snapshot("a");
    badTp["parallel"]["tp"] = 0;
    row("bad degree", {{"snapshots", {badTp}}}, "snapshots[0].parallel.tp", "");
    json badFailure = snapshot("a");
    badFailure["failures"] = {"server:99"};
    row("failure outside the fabric", {{"snapshots", {badFailure}}}, "snapshots[0].failures[0]", "");
    json noBatch = snapshot("a");
    noBatch.erase("global_batch");
    row("no global batch", {{"snapshots", {noBatch}}}, "snapshots[0].global_batch", "missing required field");
    json extra = snapshot("a");
    extra["fabric"] = json::object();
    row("unknown snapshot key", {{"snapshots", {extra}}}, "snapshots[0].fabric", "unknown field");
}

void TestScenarioNotes::malformed()
{
    QFETCH(QByteArray, patch);
    QFETCH(QString, field);
    QFETCH(QString, message);
    json j = minimal();
    j.merge_patch(json::parse(patch.toStdString()));
    try {
        scenarioFromJson(j);
        QFAIL("accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), field);
        QVERIFY2(QString::fromUtf8(e.what()).contains(message), e.what());
    }
}

void TestScenarioNotes::snapshotTakesAndRestoresTheMapping()
{
    Scenario s = parseScenario(kMinimal);
    s.slots = packedSlots(128).get<std::vector<int>>();
    s.training.globalBatch = 64;
    const Snapshot before = takeSnapshot(s, "before", "");
    Scenario changed = s;
    changed.degrees.dp = 2;
    changed.degrees.pp = 8;
    changed.training.globalBatch = 32;
    std::swap(changed.slots[1], changed.slots[2]);
    changed.annotations.push_back(Annotation{});
    QVERIFY(!matchesSnapshot(changed, before));
    const Scenario restored = withSnapshot(changed, before);
    QVERIFY(matchesSnapshot(restored, before));
    QCOMPARE(restored.degrees.dp, 4);
    QCOMPARE(restored.degrees.pp, 4);
    QCOMPARE(restored.training.globalBatch, 64);
    QCOMPARE(restored.slots, s.slots);
    QCOMPARE(restored.annotations.size(), std::size_t{1}); // the whiteboard stays
}

QTEST_GUILESS_MAIN(TestScenarioNotes)
#include "tst_scenarionotes.moc"
