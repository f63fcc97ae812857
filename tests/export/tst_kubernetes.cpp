// The pytorchjob export (model/export/kubernetesexport.h): a Kubeflow PyTorchJob manifest,
// validated against the training-operator's published CRD schema (the parts it uses, stored in
// tests/export/data with their provenance), with one pod per node pinned to its host.
#include "cost/costengine.h"
#include "export/exporters.h"
#include "base/scenarioerror.h"
#include "fixtures.h"

#include <QFile>
#include <QString>
#include <QTest>

#include <nlohmann/json.hpp>

using namespace railyard;
using nlohmann::json;

namespace {

json crdSchema()
{
    QFile f(QStringLiteral(RAILYARD_SOURCE_DIR "/tests/export/data/pytorchjob_crd_v1.9.0_schema.json"));
    if (!f.open(QIODevice::ReadOnly))
        return json();
    return json::parse(f.readAll().toStdString()).at("schema");
}

/**
 * The OpenAPI v3 subset a Kubernetes structural schema uses: type, enum, required,
 * properties (a field the schema does not name is an error, as the API server's strict field
 * validation reports it), additionalProperties, items, anyOf and x-kubernetes-int-or-string.
 * Appends one line per problem to `errors`.
 */
void validate(const json &v, const json &s, const std::string &path, std::vector<std::string> &errors)
{
    if (s.is_null() || (s.is_object() && s.empty()))
        return;
    if (s.value("x-kubernetes-int-or-string", false)) {
        if (!v.is_number_integer() && !v.is_string())
            errors.push_back(path + ": expected an integer or a string");
        return;
    }
    if (s.contains("anyOf")) {
        bool any = false;
        for (const json &alt : s.at("anyOf")) {
            std::vector<std::string> e;
            validate(v, alt, path, e);
            any = any || e.empty();
        }
        if (!any)
            errors.push_back(path + ": matches none of anyOf");
    }
    const std::string type = s.value("type", std::string());
    const bool ok = type.empty() || (type == "object" && v.is_object())
        || (type == "array" && v.is_array()) || (type == "string" && v.is_string())
        || (type == "integer" && v.is_number_integer()) || (type == "boolean" && v.is_boolean())
        || (type == "number" && v.is_number());
    if (!ok) {
        errors.push_back(path + ": expected " + type + ", got " + v.type_name());
        return;
    }
    if (s.contains("enum") && std::find(s.at("enum").begin(), s.at("enum").end(), v) == s.at("enum").end())
        errors.push_back(path + ": " + v.dump() + " is not one of " + s.at("enum").dump());
    if (v.is_object()) {
        for (const json &r : s.value("required", json::array()))
            if (!v.contains(r.get<std::string>()))
                errors.push_back(path + ": missing required field " + r.get<std::string>());
        for (const auto &[key, value] : v.items()) {
            const std::string at = path + "." + key;
            if (s.contains("properties") && s.at("properties").contains(key))
                validate(value, s.at("properties").at(key), at, errors);
            else if (s.contains("additionalProperties") && s.at("additionalProperties").is_object())
                validate(value, s.at("additionalProperties"), at, errors);
            else if (s.contains("properties") && !s.value("x-kubernetes-preserve-unknown-fields", false))
                errors.push_back(at + ": unknown field");
        }
    }
    if (v.is_array() && s.contains("items"))
        for (std::size_t i = 0; i < v.size(); ++i)
            validate(v[i], s.at("items"), path + "[" + std::to_string(i) + "]", errors);
}

std::vector<std::string> problems(const json &manifest)
{
    std::vector<std::string> errors;
    validate(manifest, crdSchema(), "", errors);
    return errors;
}

} // namespace

class TestKubernetes : public QObject
{
    Q_OBJECT

private Q_SLOTS:
    void manifestMatchesTheCrd();
    void validatorCatchesBadManifests();
    void onePodPerNodeOnItsHost();
    void refusesWhatTorchrunCannotRun();
};

void TestKubernetes::manifestMatchesTheCrd()
{
    QVERIFY2(crdSchema().is_object(), "the CRD schema test data is missing");
    CostEngine engine(fixtures::seed128());
    engine.swapRanks(8, 10); // inside node001: still node-major
    const json m = json::parse(exportText(engine, ExportFormat::PyTorchJob));
    const auto errors = problems(m);
    QVERIFY2(errors.empty(), errors.empty() ? "" : errors.front().c_str());
    QCOMPARE(m.at("apiVersion").get<std::string>(), std::string("kubeflow.org/v1"));
    QCOMPARE(m.at("kind").get<std::string>(), std::string("PyTorchJob"));
    // The CRD documents restartPolicy as one of Always, OnFailure, Never and ExitCode.
    for (const auto &[type, spec] : m.at("spec").at("pytorchReplicaSpecs").items()) {
        const std::string policy = spec.at("restartPolicy");
        QVERIFY(policy == "Always" || policy == "OnFailure" || policy == "Never" || policy == "ExitCode");
        QVERIFY(type == "Master" || type == "Worker");
    }
}

void TestKubernetes::validatorCatchesBadManifests()
{
    const json good = json::parse(exportText(CostEngine(fixtures::seed128()), ExportFormat::PyTorchJob));
    QVERIFY(problems(good).empty());
    json unknown = good;
    unknown["spec"]["pytorchReplicaSpecs"]["Worker"]["replica"] = 3; // a typo of replicas
    QCOMPARE(problems(unknown).size(), std::size_t(1));
    json wrongType = good;
    wrongType["spec"]["nprocPerNode"] = 8; // the CRD wants a string
    QCOMPARE(problems(wrongType).size(), std::size_t(1));
    json unnamed = good;
    unnamed["spec"]["pytorchReplicaSpecs"]["Master"]["template"]["spec"]["containers"][0].erase("name");
    QCOMPARE(problems(unnamed).size(), std::size_t(1));
}

void TestKubernetes::onePodPerNodeOnItsHost()
{
    CostEngine engine(fixtures::seed128());
    engine.swapRanks(8, 10);
    ExportOptions o;
    o.image = "registry.example/train:1";
    o.program = "train.py --fixed";
    const json m = json::parse(exportText(engine, ExportFormat::PyTorchJob, o));
    const json &specs = m.at("spec").at("pytorchReplicaSpecs");
    QCOMPARE(specs.at("Master").at("replicas").get<int>() + specs.at("Worker").at("replicas").get<int>(), 16);
    QCOMPARE(m.at("spec").at("nprocPerNode").get<std::string>(), std::string("8"));
    const auto hostsOf = [](const json &spec) {
        return spec.at("template").at("spec").at("affinity").at("nodeAffinity")
            .at("requiredDuringSchedulingIgnoredDuringExecution").at("nodeSelectorTerms")[0]
            .at("matchExpressions")[0].at("values").get<std::vector<std::string>>();
    };
    QCOMPARE(hostsOf(specs.at("Master")), (std::vector<std::string> { "node000" }));
    QCOMPARE(hostsOf(specs.at("Worker")).size(), std::size_t(15));
    QCOMPARE(hostsOf(specs.at("Worker")).front(), std::string("node001"));
    for (const char *type : { "Master", "Worker" }) {
        const json &pod = specs.at(type).at("template").at("spec");
        QCOMPARE(pod.at("affinity").at("podAntiAffinity").at("requiredDuringSchedulingIgnoredDuringExecution")[0]
                     .at("topologyKey").get<std::string>(),
            std::string("kubernetes.io/hostname"));
        const json &c = pod.at("containers")[0];
        QCOMPARE(c.at("name").get<std::string>(), std::string("pytorch"));
        QCOMPARE(c.at("image").get<std::string>(), o.image);
        QCOMPARE(c.at("resources").at("limits").at("nvidia.com/gpu").get<int>(), 8);
        QCOMPARE(c.at("env")[0].at("valueFrom").at("fieldRef").at("fieldPath").get<std::string>(),
            std::string("spec.nodeName"));
        // The pod runs the torchrun export, which pins GPUs, NICs and the preflight per rank.
        QCOMPARE(c.at("command")[2].get<std::string>(), exportText(engine, ExportFormat::Torchrun, o));
        QVERIFY(c.at("command")[2].get<std::string>().find(
                    "'node001') NODE_RANK=1; CUDA_VISIBLE_DEVICES=2,1,0,3,4,5,6,7;")
            != std::string::npos);
    }
}

void TestKubernetes::refusesWhatTorchrunCannotRun()
{
    CostEngine engine(fixtures::seed128());
    engine.swapRanks(0, 9);
    try {
        exportText(engine, ExportFormat::PyTorchJob);
        QFAIL("a mapping that is not node-major was accepted");
    } catch (const ScenarioError &e) {
        QCOMPARE(QString::fromStdString(e.field()), QStringLiteral("mapping"));
    }
    ExportOptions o;
    o.image = "img $(touch pwned)";
    QVERIFY_THROWS_EXCEPTION(ScenarioError, exportText(CostEngine(fixtures::seed128()), ExportFormat::PyTorchJob, o));
}

QTEST_GUILESS_MAIN(TestKubernetes)
#include "tst_kubernetes.moc"
