/** The scenario file's refusals: every malformed input gets its own message naming the field,
 *  nesting and size limits, and load errors that name the path. */
#include "base/jsonfields.h"
#include "base/sizelimits.h"
#include "workload/presets.h"
#include "base/scenarioerror.h"
#include "scenario/scenariofile.h"
#include "minimalscenario.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QTemporaryDir>
#include <QTest>

#include <nlohmann/json.hpp>

#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <optional>
#include <set>

using namespace railyard;
using nlohmann::json;
using railyard::scenariotest::kMinimal;

namespace {

/** One malformed input: raw text or an RFC 7396 merge patch onto kMinimal. */
struct BadCase
{
    const char *tag;
    bool raw;              ///< `input` is the whole text (else a merge patch)
    std::string input;
    std::string field;     ///< expected ScenarioError::field()
    const char *message;   ///< expected substring of what()
};

std::string nested(int levels)
{
    std::string text = R"({"format_version": 1, "x": )";
    for (int i = 0; i < levels - 1; ++i)
        text += R"({"a": )";
    text += "1";
    for (int i = 0; i < levels; ++i)
        text += "}";
    return text;
}

/// `segment` `times` times, joined by `separator`.
std::string repeated(const std::string &segment, int times, const std::string &separator = "")
{
    std::string out;
    for (int i = 0; i < times; ++i)
        out += (i ? separator : "") + segment;
    return out;
}

std::vector<BadCase> badCases()
{
    return {
        // Not a scenario at all.
        {"truncated", true, R"({"format_version": 1,)", "",
         "not valid JSON: parse error at line 1, column 22"},
        {"garbage", true, "fabric = 16", "",
         "not valid JSON: parse error at line 1, column 3: syntax error while parsing value - "
         "invalid literal; last read: 'fab'"},
        {"empty", true, "", "", "not valid JSON: parse error at line 1, column 1: syntax error while parsing value - unexpected end of input"},
        {"second line", true, "{\n  \"format_version\": 1 2}", "",
         "not valid JSON: parse error at line 2, column 23: syntax error while parsing object - "
         "unexpected number literal; expected '}'"},
        {"number overflow", true, R"({"format_version": 1e400})", "",
         "not valid JSON: number overflow parsing '1e400'"},
        {"top level array", true, "[1, 2]", "",
         "expected a JSON object at the top level, got array"},
        {"top level number", true, "42", "", "expected a JSON object at the top level, got number"},
        {"too deep", true, nested(33), "x." + repeated("a", 31, "."),
         "JSON nests deeper than 32 levels"},
        {"deep arrays", true, std::string(100000, '['), repeated("[]", 32),
         "JSON nests deeper than 32 levels"},
        {"duplicate key", true,
         R"({"format_version": 1, "fabric": {"servers": 16, "servers": 8}})", "fabric.servers",
         "duplicate field"},

        // format_version
        {"version missing", false, R"({"format_version": null})", "format_version",
         "missing required field"},
        {"version newer", false, R"({"format_version": 2, "future_key": 1})", "format_version",
         "the file is format version 2, newer than this Railyard reads (up to version 1)"},
        {"version zero", false, R"({"format_version": 0})", "format_version",
         "must be at least 1, got 0"},
        {"version string", false, R"({"format_version": "1"})", "format_version",
         "expected an integer, got string"},

        // Unknown keys and missing sections.
        {"unknown top key", false, R"({"fabirc": {}})", "fabirc",
         "unknown field (did you mean 'fabric'?)"},
        {"unknown far key", false, R"({"zzzzzzzz": 1})", "zzzzzzzz", "unknown field"},
        {"fabric typo", false, R"({"fabric": {"nic_gbsp": 400}})", "fabric.nic_gbsp",
         "unknown field (did you mean 'nic_gbps'?)"},
        {"fabric missing", false, R"({"fabric": null})", "fabric", "missing required field"},
        {"fabric array", false, R"({"fabric": [1]})", "fabric", "expected an object, got array"},
        {"parallel missing", false, R"({"parallel": null})", "parallel", "missing required field"},
        {"parallel not object", false, R"({"parallel": 8})", "parallel",
         "expected an object, got number"},
        {"servers missing", false, R"({"fabric": {"servers": null}})", "fabric.servers",
         "missing required field"},
        {"gpus missing", false, R"({"fabric": {"gpus_per_server": null}})",
         "fabric.gpus_per_server", "missing required field"},
        {"tp missing", false, R"({"parallel": {"tp": null}})", "parallel.tp",
         "missing required field"},
        {"pp missing", false, R"({"parallel": {"pp": null}})", "parallel.pp",
         "missing required field"},
        {"dp missing", false, R"({"parallel": {"dp": null}})", "parallel.dp",
         "missing required field"},

        // Types.
        {"tp string", false, R"({"parallel": {"tp": "8"}})", "parallel.tp",
         "expected an integer, got string"},
        {"tp fraction", false, R"({"parallel": {"tp": 2.5}})", "parallel.tp",
         "expected an integer, got 2.5"},
        {"tp boolean", false, R"({"parallel": {"tp": true}})", "parallel.tp",
         "expected an integer, got boolean"},
        {"tp array", false, R"({"parallel": {"tp": [8]}})", "parallel.tp",
         "expected an integer, got array"},
        {"name number", false, R"({"name": 5})", "name", "expected a string, got number"},
        {"kind number", false, R"({"fabric": {"kind": 3}})", "fabric.kind",
         "expected a string, got number"},
        {"nic_gbps string", false, R"({"fabric": {"nic_gbps": "400"}})", "fabric.nic_gbps",
         "expected a number, got string"},
        {"pxn string", false, R"({"fabric": {"pxn": "yes"}})", "fabric.pxn",
         "expected true or false, got string"},
        {"gpu_to_nic string", false, R"({"fabric": {"gpu_to_nic": "0,1"}})", "fabric.gpu_to_nic",
         "expected an array, got string"},
        {"gpu_to_nic element", false, R"({"fabric": {"gpu_to_nic": [0, 1, 2, "3", 4, 5, 6, 7]}})",
         "fabric.gpu_to_nic[3]", "expected an integer, got string"},
        {"model number", false, R"({"model": 42})", "model",
         "expected an object or a preset name, got number"},
        {"device array", false, R"({"device": []})", "device",
         "expected an object or a preset name, got array"},

        // Ranges.
        {"pp zero", false, R"({"parallel": {"pp": 0}})", "parallel.pp",
         "must be at least 1, got 0"},
        {"dp negative", false, R"({"parallel": {"dp": -4}})", "parallel.dp",
         "must not be negative, got -4"},
        {"tp over limit", false, R"({"parallel": {"tp": 2000000}})", "parallel.tp",
         "2000000 exceeds the limit of 1048576"},
        {"servers over limit", false, R"({"fabric": {"servers": 200000, "gpus_per_server": 1}})",
         "fabric.servers", "200000 exceeds the limit of 131072"},
        {"servers huge float", false, R"({"fabric": {"servers": 1e20}})", "fabric.servers",
         "1e+20 exceeds the limit of 131072"},
        {"servers huge integer", false, R"({"fabric": {"servers": 18446744073709551615}})",
         "fabric.servers", "18446744073709551615 exceeds the limit of 131072"},
        {"gpus over limit", false, R"({"fabric": {"servers": 1, "gpus_per_server": 2048}})",
         "fabric.gpus_per_server", "2048 exceeds the limit of 1024"},
        {"gpus zero", false, R"({"fabric": {"gpus_per_server": 0}})", "fabric.gpus_per_server",
         "must be at least 1, got 0"},
        {"billion gpus", false, R"({"fabric": {"servers": 1000000, "gpus_per_server": 1000}})",
         "fabric", "1000000000 GPU slots exceed the limit of 1048576"},
        {"ten million spines", false, R"({"fabric": {"spines": 10000000}})", "fabric.spines",
         "10000000 exceeds the limit of 131072"},
        {"too many switches", false, R"({"fabric": {"spines": 100000, "super_spines": 100000}})",
         "fabric", "spines + super_spines = 200000 switches exceed the limit of 131072"},
        {"radix one", false, R"({"fabric": {"switch_radix": 1}})", "fabric.switch_radix",
         "must be at least 2, got 1"},
        {"nic_gbps zero", false, R"({"fabric": {"nic_gbps": 0}})", "fabric.nic_gbps",
         "must be at least 0.001, got 0"},
        // Below 1 Mbit/s (base/physicalranges.h): 1e-308 gave iteration_time_s inf (#40).
        {"nic_gbps tiny", false, R"({"fabric": {"nic_gbps": 1e-308}})", "fabric.nic_gbps",
         "must be at least 0.001, got 1e-308"},
        {"pcie_gbps tiny", false, R"({"fabric": {"pcie_gbps": 1e-308}})", "fabric.pcie_gbps",
         "must be at least 0.001, got 1e-308"},
        {"scaleup_gbps tiny", false, R"({"fabric": {"scaleup_gbps": 1e-9}})",
         "fabric.scaleup_gbps", "must be at least 0.001, got 1e-09"},
        {"plane_port_gbps tiny", false, R"({"fabric": {"plane_port_gbps": 1e-9}})",
         "fabric.plane_port_gbps", "must be 0 (nic_gbps / planes) or at least 0.001 Gbit/s"},
        {"cable gbps tiny", false,
         R"({"fabric": {"cabling": [["n0", "mlx5_0", "leaf", "p1", 1e-308]]}})",
         "fabric.cabling[0][4]", "must be at least 0.001, got 1e-308"},
        {"hbm_gbps tiny", false, R"({"device": {"hbm_gbps": 1e-300}})", "device.hbm_gbps",
         "must be at least 1, got 1e-300"},
        {"tflops tiny", false, R"({"device": {"peak_tflops_bf16": 1e-300}})",
         "device.peak_tflops_bf16", "must be at least 0.001, got 1e-300"},
        {"fp8 tflops tiny", false, R"({"device": {"peak_tflops_fp8": 1e-300}})",
         "device.peak_tflops_fp8", "must be 0 (no fp8) or at least 0.001"},
        {"efficiency tiny", false, R"({"device": {"max_efficiency": 1e-300}})",
         "device.max_efficiency", "must be 0 (the calibrated default) or at least 0.01"},
        {"nic_gbps negative", false, R"({"fabric": {"nic_gbps": -400}})", "fabric.nic_gbps",
         "must not be negative, got -400"},
        {"latency huge", false, R"({"fabric": {"nic_latency_us": 1e7}})", "fabric.nic_latency_us",
         "10000000 exceeds the limit of 1000000"},
        {"oversubscription zero", false, R"({"fabric": {"leaf_oversubscription": 0}})",
         "fabric.leaf_oversubscription", "must be greater than 0, got 0"},
        {"gpu_to_nic nic missing", false,
         R"({"fabric": {"gpu_to_nic": [0, 1, 2, 3, 4, 5, 6, 9]}})", "fabric.gpu_to_nic[7]",
         "NIC 9 does not exist (the server has 8 NICs)"},
        {"gpu_to_nic negative", false,
         R"({"fabric": {"gpu_to_nic": [0, 1, 2, 3, 4, 5, 6, -1]}})", "fabric.gpu_to_nic[7]",
         "must not be negative, got -1"},
        {"empty order", false, R"({"parallel": {"order": ""}})", "parallel.order",
         "must not be empty"},
        {"long name", false, "{\"name\": \"" + std::string(300, 'n') + "\"}", "name",
         "text of 300 bytes exceeds the limit of 256"},
        {"layers zero", false, R"({"model": {"layers": 0}})", "model.layers",
         "must be at least 1, got 0"},
        {"layers over limit", false, R"({"model": {"layers": 100000}})", "model.layers",
         "100000 exceeds the limit of 16384"},
        {"model typo", false, R"({"model": {"hiden": 1}})", "model.hiden",
         "unknown field (did you mean 'hidden'?)"},
        {"micro batch zero", false, R"({"training": {"micro_batch": 0}})", "training.micro_batch",
         "must be at least 1, got 0"},
        {"efficiency over one", false, R"({"device": {"max_efficiency": 1.5}})",
         "device.max_efficiency", "1.5 exceeds the limit of 1"},
        {"hbm zero", false, R"({"device": {"hbm_gb": 0}})", "device.hbm_gb",
         "must be greater than 0, got 0"},
        {"sms zero", false, R"({"device": {"streaming_multiprocessors": 0}})",
         "device.streaming_multiprocessors", "must be at least 1, got 0"},
        {"flash attention string", false, R"({"training": {"flash_attention": "on"}})",
         "training.flash_attention", "expected true or false, got string"},
        {"mapping version zero", false, R"({"mapping": {"version": 0}})", "mapping.version",
         "must be at least 1, got 0"},

        // Enumerations list what they accept.
        {"kind unknown", false, R"({"fabric": {"kind": "fat-tree"}})", "fabric.kind",
         "unknown value 'fat-tree' (accepted: rail-optimised, tor, rail-only)"},
        {"fp8 param gather string", false, R"({"training": {"fp8_param_gather": "yes"}})",
         "training.fp8_param_gather", "expected true or false, got string"},
        {"dp sharding unknown", false, R"({"training": {"dp_sharding": "zero4"}})",
         "training.dp_sharding",
         "unknown value 'zero4' (accepted: optim, optim_grads, optim_grads_params)"},
        {"memory allowance unknown part", false,
         R"({"training": {"memory_allowance": {"cuda_gb": 1}}})",
         "training.memory_allowance.cuda_gb", "unknown field"},
        {"memory allowance fragmentation", false,
         R"({"training": {"memory_allowance": {"fragmentation": 1.5}}})",
         "training.memory_allowance.fragmentation", "1.5"},
        {"max efficiency fp8 above one", false, R"({"device": {"max_efficiency_fp8": 2}})",
         "device.max_efficiency_fp8", "2"},
        {"precision unknown", false, R"({"training": {"precision": "bf32"}})",
         "training.precision", "unknown value 'bf32' (accepted: bf16, fp16, fp8)"},
        {"recompute unknown", false, R"({"training": {"recompute": "some"}})",
         "training.recompute", "unknown value 'some' (accepted: none, selective, full)"},
        {"schedule unknown", false, R"({"training": {"schedule": "zb"}})", "training.schedule",
         "unknown value 'zb' (accepted: gpipe, 1f1b, interleaved, zb-h1, dualpipe)"},
        {"placement unknown", false, R"({"mapping": {"placement": "random"}})",
         "mapping.placement", "unknown value 'random' (accepted: packed, rail-aligned, scattered)"},
        {"model preset unknown", false, R"({"model": {"preset": "gpt5"}})", "model.preset",
         "unknown preset 'gpt5' (accepted: "},
        {"model name unknown", false, R"({"model": "gpt5"})", "model",
         "unknown preset 'gpt5' (accepted: "},
        {"device preset unknown", false, R"({"device": {"preset": "tpu"}})", "device.preset",
         "unknown preset 'tpu' (accepted: "},

        // Sizes that disagree.
        {"world over slots", false, R"({"parallel": {"tp": 8, "pp": 4, "dp": 8}})", "parallel",
         "tp*pp*dp*cp = 256 ranks but the fabric has 128 GPU slots"},
        {"world with cp", false, R"({"parallel": {"cp": 4}})", "parallel",
         "tp*pp*dp*cp = 512 ranks but the fabric has 128 GPU slots"},
        {"world overflows", false,
         R"({"parallel": {"tp": 1048576, "pp": 1048576, "dp": 1048576, "cp": 1048576}})",
         "parallel", "tp*pp*dp*cp = more than 9223372036854775807 ranks"},
        {"gpu_to_nic length", false, R"({"fabric": {"gpu_to_nic": [0, 1, 2, 3]}})",
         "fabric.gpu_to_nic", "has 4 entries but gpus_per_server is 8"},
        {"server_names length", false, R"({"fabric": {"server_names": ["a", "b"]}})",
         "fabric.server_names", "has 2 entries but servers is 16"},
        {"server_names duplicate", false,
         R"({"fabric": {"servers": 2, "server_names": ["a", "a"]}, "parallel": {"pp": 2, "dp": 1}})",
         "fabric.server_names[1]", "duplicate server name 'a'"},
        {"server_names empty", false,
         R"({"fabric": {"servers": 2, "server_names": ["a", ""]}, "parallel": {"pp": 2, "dp": 1}})",
         "fabric.server_names[1]", "must not be empty"},
        {"slots length", false, R"({"mapping": {"slots": [0, 1, 2]}})", "mapping.slots",
         "has 3 entries but the layout has 128 ranks (tp*pp*dp*cp)"},
        {"slot missing", false,
         R"({"parallel": {"tp": 2, "pp": 1, "dp": 1}, "mapping": {"slots": [0, 128]}})",
         "mapping.slots[1]", "slot 128 does not exist (the fabric has 128 GPU slots)"},
        {"slot taken", false,
         R"({"parallel": {"tp": 2, "pp": 1, "dp": 1}, "mapping": {"slots": [5, 5]}})",
         "mapping.slots[1]", "slot 5 is already taken by rank 0"},
        {"slot negative", false,
         R"({"parallel": {"tp": 2, "pp": 1, "dp": 1}, "mapping": {"slots": [0, -1]}})",
         "mapping.slots[1]", "must not be negative, got -1"},
        {"too many micro-batches", false, R"({"training": {"global_batch": 1000000000}})",
         "training.global_batch",
         "1000000000 samples make 250000000 micro-batches per replica (micro_batch 1, dp 4), "
         "more than the limit of 65536"},
    };
}

std::string inputText(const BadCase &c)
{
    if (c.raw)
        return c.input;
    json doc = json::parse(kMinimal);
    doc.merge_patch(json::parse(c.input));
    return doc.dump();
}

/// The error parseScenario throws for `text`, or a failure when it throws none.
std::optional<ScenarioError> errorOf(const std::string &text)
{
    try {
        parseScenario(text);
    } catch (const ScenarioError &e) {
        return e;
    }
    return std::nullopt;
}

} // namespace

class TestScenarioFileRefusals : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void malformed_data();
    void malformed();
    void everyProblemHasItsOwnMessage();
    void nestingAtTheLimitParses();
    void textTooLarge();
    void fileTooLarge();
    void loadErrorsNameThePath();
};

void TestScenarioFileRefusals::malformed_data()
{
    QTest::addColumn<std::string>("text");
    QTest::addColumn<std::string>("field");
    QTest::addColumn<std::string>("message");
    for (const BadCase &c : badCases())
        QTest::newRow(c.tag) << inputText(c) << std::string(c.field) << std::string(c.message);
}

void TestScenarioFileRefusals::malformed()
{
    QFETCH(std::string, text);
    QFETCH(std::string, field);
    QFETCH(std::string, message);
    const std::optional<ScenarioError> error = errorOf(text);
    QVERIFY2(error.has_value(), "the input was accepted");
    QCOMPARE(error->field(), field);
    const std::string what = error->what();
    QVERIFY2(what.find(message) != std::string::npos, what.c_str());
    // One line, field first.
    QVERIFY(what.find('\n') == std::string::npos);
    if (!field.empty())
        QVERIFY2(what.starts_with(field + ": "), what.c_str());
}

void TestScenarioFileRefusals::everyProblemHasItsOwnMessage()
{
    std::set<std::string> messages;
    const std::vector<BadCase> cases = badCases();
    for (const BadCase &c : cases) {
        const std::optional<ScenarioError> error = errorOf(inputText(c));
        QVERIFY2(error.has_value(), c.tag);
        QVERIFY2(messages.insert(error->what()).second, error->what());
    }
    QCOMPARE(messages.size(), cases.size());
}

void TestScenarioFileRefusals::nestingAtTheLimitParses()
{
    // 32 levels are fine for the parser (the unknown key is then reported), 33 are not.
    const std::optional<ScenarioError> atLimit = errorOf(nested(limits::kMaxJsonDepth));
    QVERIFY(atLimit.has_value());
    QCOMPARE(atLimit->field(), std::string("x"));
    QCOMPARE(atLimit->reason(), std::string("unknown field"));
    const json deep = parseJsonGuarded(nested(limits::kMaxJsonDepth), limits::kMaxJsonDepth);
    QCOMPARE(deep.at("format_version").get<int>(), 1);
    const std::optional<ScenarioError> over = errorOf(nested(limits::kMaxJsonDepth + 1));
    QVERIFY(over.has_value());
    QCOMPARE(over->reason(), std::string("JSON nests deeper than 32 levels"));
}

void TestScenarioFileRefusals::textTooLarge()
{
    // Whitespace is valid JSON padding: only the size check can refuse this text.
    std::string text = kMinimal;
    text.append(static_cast<std::size_t>(limits::kMaxFileBytes) + 1 - text.size(), ' ');
    const std::optional<ScenarioError> error = errorOf(text);
    QVERIFY(error.has_value());
    QCOMPARE(error->what(), std::string("scenario text is 67108865 bytes, more than the limit of "
                                        "67108864 bytes (64 MiB)"));
    text.resize(text.size() - 1); // exactly at the limit: parses
    QCOMPARE(parseScenario(text).degrees.tp, 8);
}

void TestScenarioFileRefusals::fileTooLarge()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const QString path = dir.filePath(QStringLiteral("huge.json"));
    QFile f(path);
    QVERIFY(f.open(QIODevice::WriteOnly));
    QVERIFY(f.resize(std::int64_t{5} << 30)); // sparse: no disk space used
    f.close();
    try {
        loadScenario(path.toStdString());
        QFAIL("a 5 GiB file was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(e.field(), path.toStdString());
        QCOMPARE(e.reason(), std::string("file is 5368709120 bytes, more than the limit of "
                                         "67108864 bytes (64 MiB)"));
    }
}

void TestScenarioFileRefusals::loadErrorsNameThePath()
{
    QTemporaryDir dir;
    QVERIFY(dir.isValid());
    const std::string missing = dir.filePath(QStringLiteral("missing.json")).toStdString();
    try {
        loadScenario(missing);
        QFAIL("a missing file was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(std::string(e.what()), missing + ": cannot open: No such file or directory");
    }
    try {
        loadScenario(dir.path().toStdString());
        QFAIL("a directory was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(std::string(e.what()),
                 dir.path().toStdString() + ": is a directory, not a scenario file");
    }
}

QTEST_GUILESS_MAIN(TestScenarioFileRefusals)
#include "tst_scenariofilerefusals.moc"
