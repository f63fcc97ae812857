// The typed JSON readers every file loader uses (model/base/jsonfields.cpp): each reader's type
// and range errors, with the field path and the exact one-line message, the guarded parser's
// depth and duplicate-key refusals, the path and quoting helpers, and the line a field path
// starts on (model/base/jsonlines.cpp) for "FILE:LINE: field: reason" messages.
#include "base/jsonfields.h"
#include "base/jsonlines.h"
#include "base/scenarioerror.h"

#include <QTest>

#include <ctime>

#include <algorithm>
#include <functional>
#include <string>
#include <utility>
#include <vector>

using namespace railyard;
using nlohmann::json;

namespace {

enum class Kind { A, B };
std::string_view kindName(Kind k)
{
    return k == Kind::A ? "rail-optimised" : "tor";
}

/// Runs one reader of the object {"<key>": <value>} at path "fabric"; returns the error, or "".
std::string readError(const std::function<void(const JsonFields &)> &read, const json &object)
{
    try {
        const JsonFields f(
            object, "fabric", { "servers", "gbps", "latency", "pxn", "name", "kind", "list" });
        f.rejectUnknown();
        read(f);
    } catch (const ScenarioError &e) {
        return e.what();
    }
    return {};
}

using Reader = std::function<void(const JsonFields &)>;

Reader byName(const QString &reader)
{
    if (reader == "integer")
        return [](const JsonFields &f) { f.integer("servers", 1, 1, 100); };
    if (reader == "required")
        return [](const JsonFields &f) { f.requiredInteger("servers", 1, 100); };
    if (reader == "exclusive")
        return [](const JsonFields &f) { f.number("gbps", 400, 0.0, 1e6, LowerBound::Exclusive); };
    if (reader == "inclusive")
        return [](const JsonFields &f) { f.number("latency", 1, 1.0, 10.0); };
    if (reader == "boolean")
        return [](const JsonFields &f) { f.boolean("pxn", false); };
    if (reader == "string")
        return [](const JsonFields &f) { f.string("name", "", 8, false); };
    if (reader == "choice")
        return [](const JsonFields &f) {
            f.choice("kind", Kind::A, { Kind::A, Kind::B }, kindName);
        };
    if (reader == "array")
        return [](const JsonFields &f) { f.array("list", 3); };
    return {};
}

} // namespace

class TestJsonFields : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void readerErrors_data();
    void readerErrors();
    void valuesThatPass();
    void fieldAndReasonApart();
    void notAnObject();
    void guardedParser_data();
    void guardedParser();
    void guardedParserBuildsTheDom();
    void guardedParserIsLinear();
    void streamingHandsOverEachElement();
    void streamingKeepsTheGuards();
    void paths();
    void quoting();
    void pathLine_data();
    void pathLine();
};

void TestJsonFields::readerErrors_data()
{
    QTest::addColumn<QString>("reader");
    QTest::addColumn<QString>("object");
    QTest::addColumn<QString>("message");

    // Integers: type, fraction, sign, bounds (inclusive 1..100 here), huge values as such.
    QTest::newRow("integer: string") << "integer"
                                     << R"({"servers": "16"})"
                                     << "fabric.servers: expected an integer, got string";
    QTest::newRow("integer: null") << "integer"
                                   << R"({"servers": null})"
                                   << "fabric.servers: expected an integer, got null";
    QTest::newRow("integer: fraction") << "integer"
                                       << R"({"servers": 16.5})"
                                       << "fabric.servers: expected an integer, got 16.5";
    QTest::newRow("integer: negative") << "integer"
                                       << R"({"servers": -3})"
                                       << "fabric.servers: must not be negative, got -3";
    QTest::newRow("integer: below min") << "integer"
                                        << R"({"servers": 0})"
                                        << "fabric.servers: must be at least 1, got 0";
    QTest::newRow("integer: above max") << "integer"
                                        << R"({"servers": 101})"
                                        << "fabric.servers: 101 exceeds the limit of 100";
    QTest::newRow("integer: huge float") << "integer"
                                         << R"({"servers": 1e30})"
                                         << "fabric.servers: 1e+30 exceeds the limit of 100";
    QTest::newRow("integer: huge unsigned")
        << "integer"
        << R"({"servers": 18446744073709551615})"
        << "fabric.servers: 18446744073709551615 exceeds the limit of 100";
    QTest::newRow("required: missing") << "required"
                                       << R"({})"
                                       << "fabric.servers: missing required field";

    // Numbers: a bandwidth must be > 0, a latency here in [1, 10].
    QTest::newRow("number: boolean") << "exclusive"
                                     << R"({"gbps": true})"
                                     << "fabric.gbps: expected a number, got boolean";
    QTest::newRow("number: zero, exclusive") << "exclusive"
                                             << R"({"gbps": 0})"
                                             << "fabric.gbps: must be greater than 0, got 0";
    QTest::newRow("number: negative") << "exclusive"
                                      << R"({"gbps": -1.5})"
                                      << "fabric.gbps: must not be negative, got -1.5";
    QTest::newRow("number: above max") << "exclusive"
                                       << R"({"gbps": 2e6})"
                                       << "fabric.gbps: 2000000 exceeds the limit of 1000000";
    QTest::newRow("number: below min") << "inclusive"
                                       << R"({"latency": 0.5})"
                                       << "fabric.latency: must be at least 1, got 0.5";

    QTest::newRow("boolean: number") << "boolean"
                                     << R"({"pxn": 1})"
                                     << "fabric.pxn: expected true or false, got number";
    QTest::newRow("boolean: string") << "boolean"
                                     << R"({"pxn": "true"})"
                                     << "fabric.pxn: expected true or false, got string";

    QTest::newRow("string: number") << "string"
                                    << R"({"name": 7})"
                                    << "fabric.name: expected a string, got number";
    QTest::newRow("string: too long") << "string"
                                      << R"({"name": "abcdefghijk"})"
                                      << "fabric.name: text of 11 bytes exceeds the limit of 8";
    QTest::newRow("string: empty") << "string"
                                   << R"({"name": ""})"
                                   << "fabric.name: must not be empty";

    QTest::newRow("choice: unknown")
        << "choice"
        << R"({"kind": "mesh"})"
        << "fabric.kind: unknown value 'mesh' (accepted: rail-optimised, tor)";
    QTest::newRow("choice: number") << "choice"
                                    << R"({"kind": 3})"
                                    << "fabric.kind: expected a string, got number";

    QTest::newRow("array: object") << "array"
                                   << R"({"list": {}})"
                                   << "fabric.list: expected an array, got object";
    QTest::newRow("array: too long") << "array"
                                     << R"({"list": [1, 2, 3, 4]})"
                                     << "fabric.list: 4 entries exceed the limit of 3";

    // Unknown keys: a close match is suggested (one or two edits), a far one is not.
    QTest::newRow("unknown: misspelt") << "integer"
                                       << R"({"sevrers": 16})"
                                       << "fabric.sevrers: unknown field (did you mean 'servers'?)";
    QTest::newRow("unknown: far") << "integer"
                                  << R"({"colour": 16})"
                                  << "fabric.colour: unknown field";
    QTest::newRow("unknown: control character") << "integer"
                                                << "{\"a\\u0001b\": 1}"
                                                << "fabric.a\\u0001b: unknown field";
}

void TestJsonFields::readerErrors()
{
    QFETCH(QString, reader);
    QFETCH(QString, object);
    QFETCH(QString, message);
    const std::string error = readError(byName(reader), json::parse(object.toStdString()));
    QCOMPARE(QString::fromStdString(error), message);
}

void TestJsonFields::valuesThatPass()
{
    const json j = json::parse(
        R"({"servers": 16.0, "gbps": 400, "pxn": true, "name": "dgx", "kind": "tor", "list": [1]})");
    const JsonFields f(j, "fabric", { "servers", "gbps", "pxn", "name", "kind", "list" });
    f.rejectUnknown();
    QCOMPARE(
        f.integer("servers", 1, 1, 100), 16); // 16.0: some writers emit every number as a float
    QCOMPARE(f.number("gbps", 1.0, 0.0, 1e6, LowerBound::Exclusive), 400.0);
    QCOMPARE(f.boolean("pxn", false), true);
    QCOMPARE(f.string("name", "", 8), std::string("dgx"));
    QVERIFY(f.choice("kind", Kind::A, { Kind::A, Kind::B }, kindName) == Kind::B);
    QCOMPARE(f.array("list", 3)->size(), std::size_t(1));
    // Absent optional fields give the caller's fallback.
    QCOMPARE(f.integer("latency", 7, 1, 100), 7);
    QCOMPARE(f.fieldPath("servers"), std::string("fabric.servers"));
    QVERIFY(f.has("name"));
    QVERIFY(!f.has("latency"));
    QVERIFY(f.array("latency", 3) == nullptr);
}

void TestJsonFields::fieldAndReasonApart()
{
    // The GUI shows the reason next to the field it names: both parts are kept.
    const json j = json::parse(R"({"servers": 0})");
    try {
        JsonFields(j, "fabric", { "servers" }).integer("servers", 1, 1, 100);
        QFAIL("no error");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), std::string("fabric.servers"));
        QCOMPARE(e.reason(), std::string("must be at least 1, got 0"));
    }
}

void TestJsonFields::notAnObject()
{
    try {
        const JsonFields f(json::parse("[1]"), "fabric", { "servers" });
        QFAIL("no error");
    } catch (const ScenarioError &e) {
        QCOMPARE(std::string(e.what()), std::string("fabric: expected an object, got array"));
    }
}

void TestJsonFields::guardedParser_data()
{
    QTest::addColumn<QString>("text");
    QTest::addColumn<int>("depth");
    QTest::addColumn<QString>("message");
    // The fourth container level is refused at the path that leads to it.
    QTest::newRow("arrays too deep")
        << "[[[[1]]]]" << 3 << "[][][]: JSON nests deeper than 3 levels";
    QTest::newRow("objects too deep")
        << R"({"a": {"b": {"c": {}}}})" << 3 << "a.b.c: JSON nests deeper than 3 levels";
    QTest::newRow("three levels pass") << "[[[1]]]" << 3 << "";
    QTest::newRow("duplicate key") << R"({"a": {"b": 1, "b": 2}})" << 8 << "a.b: duplicate field";
    QTest::newRow("same key in two objects") << R"({"a": {"b": 1}, "c": {"b": 2}})" << 8 << "";
    // nlohmann's own message with its line and column: the '}' is the 7th character.
    QTest::newRow("syntax error")
        << R"({"a": })" << 8
        << "not valid JSON: parse error at line 1, column 7: syntax error while parsing value";
}

void TestJsonFields::guardedParser()
{
    QFETCH(QString, text);
    QFETCH(int, depth);
    QFETCH(QString, message);
    std::string error;
    try {
        parseJsonGuarded(text.toStdString(), depth);
    } catch (const ScenarioError &e) {
        error = e.what();
    }
    if (message.isEmpty())
        QCOMPARE(QString::fromStdString(error), QString());
    else
        QVERIFY2(QString::fromStdString(error).startsWith(message), error.c_str());
}

void TestJsonFields::guardedParserBuildsTheDom()
{
    // The SAX builder gives the DOM nlohmann's own parser gives, value for value.
    const std::string text = R"({"a": [1, -2, 3.5, "x", true, null, {"b": []}, [[]]],
                                 "c": {"d": 18446744073709551615, "e": {}}})";
    QCOMPARE(parseJsonGuarded(text, 8), json::parse(text));
    QCOMPARE(parseJsonGuarded("7", 8), json(7));
    QCOMPARE(parseJsonGuarded("[]", 8), json::array());
}

void TestJsonFields::guardedParserIsLinear()
{
    // {"a":[{},{},...]}: nlohmann's callback parser scanned the array after every object, so
    // 16x the objects took 256x the time (400,000 took 35 s). Ratio of the best of three runs
    // (process CPU time, so other processes on the machine do not count) at 20,000 and
    // 320,000 objects: 16 when linear, 256 when quadratic; 64 leaves room for cache effects.
    const auto text = [](int n) {
        std::string t = "{\"a\":[";
        for (int i = 0; i < n; ++i)
            t += i ? ",{}" : "{}";
        return t + "]}";
    };
    const auto cpuNs = [] {
        timespec ts {};
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
        return static_cast<double>(ts.tv_sec) * 1e9 + static_cast<double>(ts.tv_nsec);
    };
    const auto best = [&cpuNs](const std::string &input) {
        double fastest = -1.0;
        for (int run = 0; run < 3; ++run) {
            const double start = cpuNs();
            const json j = parseJsonGuarded(input, 8);
            const double ns = cpuNs() - start;
            if (j.at("a").empty())
                return -1.0;
            fastest = fastest < 0.0 ? ns : std::min(fastest, ns);
        }
        return fastest;
    };
    const double small = best(text(20'000));
    const double large = best(text(320'000));
    QVERIFY(small > 0.0 && large > 0.0);
    const double ratio = large / small;
    qInfo("20k objects %.2f ms, 320k %.2f ms: ratio %.1f", small / 1e6, large / 1e6, ratio);
    QVERIFY2(ratio < 64.0,
        qPrintable(QStringLiteral("20k objects %1 ms, 320k %2 ms: ratio %3")
                       .arg(small / 1e6)
                       .arg(large / 1e6)
                       .arg(ratio)));
}

void TestJsonFields::streamingHandsOverEachElement()
{
    std::vector<std::pair<std::size_t, json>> seen;
    const json top = parseJsonGuardedStreaming(
        R"({"before": 1, "rows": [{"x": 1}, 2, [3], {"y": {"z": 4}}], "after": {"rows": [5]}})", 8,
        "rows",
        [&seen](std::size_t i, json &&element) { seen.emplace_back(i, std::move(element)); });
    // The top-level array is streamed and left empty; "rows" deeper down is not streamed.
    QCOMPARE(top, json::parse(R"({"before": 1, "rows": [], "after": {"rows": [5]}})"));
    QCOMPARE(seen.size(), std::size_t(4));
    for (std::size_t i = 0; i < seen.size(); ++i)
        QCOMPARE(seen[i].first, i);
    QCOMPARE(seen[0].second, json::parse(R"({"x": 1})"));
    QCOMPARE(seen[1].second, json(2));
    QCOMPARE(seen[2].second, json::parse("[3]"));
    QCOMPARE(seen[3].second, json::parse(R"({"y": {"z": 4}})"));
}

void TestJsonFields::streamingKeepsTheGuards()
{
    const auto error = [](const std::string &text) {
        try {
            parseJsonGuardedStreaming(text, 3, "rows", [](std::size_t, json &&) {});
        } catch (const ScenarioError &e) {
            return std::string(e.what());
        }
        return std::string();
    };
    QCOMPARE(error(R"({"rows": [{"a": 1, "a": 2}]})"), std::string("rows[].a: duplicate field"));
    QCOMPARE(error(R"({"rows": [{"a": [1]}]})"),
        std::string("rows[].a: JSON nests deeper than 3 levels"));
    QCOMPARE(error(R"({"rows": [], "rows": []})"), std::string("rows: duplicate field"));
    QVERIFY(error(R"({"rows": [{}, )").rfind("not valid JSON: parse error at line 1", 0) == 0);
    // The sink's own refusal stops the parse.
    try {
        parseJsonGuardedStreaming(R"({"rows": [1, 2, 3]})", 3, "rows", [](std::size_t i, json &&) {
            if (i == 1)
                throw ScenarioError("rows[1]", "refused");
        });
        QFAIL("the sink's error was lost");
    } catch (const ScenarioError &e) {
        QCOMPARE(std::string(e.what()), std::string("rows[1]: refused"));
    }
}

void TestJsonFields::paths()
{
    QCOMPARE(jsonFieldPath("", "servers"), std::string("servers"));
    QCOMPARE(jsonFieldPath("fabric", "servers"), std::string("fabric.servers"));
    QCOMPARE(jsonElementPath("fabric.gpu_to_nic", 3), std::string("fabric.gpu_to_nic[3]"));
    QCOMPARE(jsonTypeName(json::array()), std::string("array"));
    QCOMPARE(jsonTypeName(json(1.5)), std::string("number"));
    QCOMPARE(jsonTypeName(json("x")), std::string("string"));
}

void TestJsonFields::quoting()
{
    // Strings in single quotes, control characters escaped so a message stays one line, long
    // values cut after maxChars with "..."; numbers as JSON writes them.
    QCOMPARE(jsonQuote(json("a\nb")), std::string("'a\\nb'"));
    QCOMPARE(jsonQuote(json(std::string(50, 'x')), 10), "'" + std::string(10, 'x') + "...'");
    QCOMPARE(jsonQuote(json(42)), std::string("42"));
    QCOMPARE(jsonQuote(json::parse("[1,2]")), std::string("[1,2]"));
}

void TestJsonFields::pathLine_data()
{
    // Lines counted by hand in this document.
    const QByteArray doc = "{\n" // 1
                           "  \"format_version\": 1,\n" // 2
                           "  \"fabric\": {\n" // 3
                           "    \"kind\": \"rail-optimised\",\n" // 4
                           "    \"servers\": -3,\n" // 5
                           "    \"names\": [\"a\", \"b\",\n" // 6
                           "      \"c\"]\n" // 7
                           "  },\n" // 8
                           "  \"jobs\": [\n" // 9
                           "    { \"name\": \"a\" },\n" // 10
                           "    {\n" // 11
                           "      \"name\": \"b\\\"q\",\n" // 12
                           "      \"mapping\": { \"servers\": 2 }\n" // 13
                           "    }\n" // 14
                           "  ],\n" // 15
                           "  \"x\": { \"kind\": 1 }\n" // 16
                           "}\n";
    QTest::addColumn<QByteArray>("text");
    QTest::addColumn<QString>("path");
    QTest::addColumn<int>("line");
    QTest::newRow("top-level") << doc << "format_version" << 2;
    QTest::newRow("nested") << doc << "fabric.servers" << 5;
    QTest::newRow("same key elsewhere") << doc << "x.kind" << 16;
    QTest::newRow("array element on its line") << doc << "fabric.names[2]" << 7;
    QTest::newRow("first element") << doc << "fabric.names[0]" << 6;
    QTest::newRow("object in an array") << doc << "jobs[1].name" << 12;
    QTest::newRow("after an escaped quote") << doc << "jobs[1].mapping.servers" << 13;
    QTest::newRow("missing field: its parent") << doc << "fabric.gpus_per_server" << 3;
    QTest::newRow("missing element: the array") << doc << "jobs[5]" << 9;
    QTest::newRow("not there at all") << doc << "parallel.tp" << 0;
    QTest::newRow("a key inside a string is no key")
        << QByteArray("{\"a\": \"\\\"b\\\": 1\",\n\"b\": 2}") << "b" << 2;
}

void TestJsonFields::pathLine()
{
    QFETCH(QByteArray, text);
    QFETCH(QString, path);
    QFETCH(int, line);
    QCOMPARE(
        jsonPathLine(std::string_view(text.constData(), text.size()), path.toStdString()), line);
}

QTEST_GUILESS_MAIN(TestJsonFields)
#include "tst_jsonfields.moc"
