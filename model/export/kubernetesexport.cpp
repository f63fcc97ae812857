/**
 * A Kubeflow PyTorchJob manifest (kubeflow.org/v1, the training-operator's CRD
 * manifests/base/crds/kubeflow.org_pytorchjobs.yaml, release v1.9.0) for a node-major mapping.
 * It is JSON, which is YAML 1.2 as well, so kubectl apply -f reads it as it is.
 *
 * One pod per node: the Master replica on the host of node 0, the Workers on the others
 * (a required node affinity on kubernetes.io/hostname, the well-known node label, and a
 * required pod anti-affinity so no two pods of the job share a node). Each pod asks for every
 * GPU of its node (nvidia.com/gpu, the NVIDIA device plugin's resource) and runs the torchrun
 * export's script with the node's name (the downward API's spec.nodeName) as RAILYARD_HOST:
 * the script picks the node rank, CUDA_VISIBLE_DEVICES in local-rank order and each rank's
 * NCCL_IB_HCA from it, and every rank runs the preflight. MASTER_ADDR and MASTER_PORT come
 * from the operator (the Master replica's service). The training-operator requires the
 * container to be named "pytorch".
 */
#include "export/kubernetesexport.h"

#include "base/scenarioerror.h"
#include "export/exportcommon.h"
#include "export/launcherexport.h"
#include "export/runrecord.h"

#include <nlohmann/json.hpp>

#include <cctype>

namespace railyard::exportdetail {

namespace {

using ojson = nlohmann::ordered_json;

/// A DNS-1123 label (lower-case letters, digits, '-', at most 63, alphanumeric at both ends):
/// what Kubernetes accepts as an object name.
std::string dnsLabel(const std::string &text)
{
    std::string out;
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c))
            out += static_cast<char>(std::tolower(c));
        else if (!out.empty() && out.back() != '-')
            out += '-';
        if (out.size() >= 63)
            break;
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out.empty() ? std::string("railyard-job") : out;
}

ojson podTemplate(const std::string &job, const std::vector<std::string> &hosts,
    const std::string &script, const ExportOptions &options, int gpus)
{
    ojson labels = { { "railyard/job", job } };
    ojson nodeAffinity = { { "requiredDuringSchedulingIgnoredDuringExecution",
        { { "nodeSelectorTerms",
            ojson::array({ { { "matchExpressions",
                ojson::array({ { { "key", "kubernetes.io/hostname" }, { "operator", "In" },
                    { "values", hosts } } }) } } }) } } } };
    ojson antiAffinity = { { "requiredDuringSchedulingIgnoredDuringExecution",
        ojson::array({ { { "labelSelector", { { "matchLabels", labels } } },
            { "topologyKey", "kubernetes.io/hostname" } } }) } };
    ojson env = ojson::array();
    env.push_back({ { "name", "RAILYARD_HOST" },
        { "valueFrom", { { "fieldRef", { { "fieldPath", "spec.nodeName" } } } } } });
    if (options.preflight)
        env.push_back({ { "name", "RAILYARD_RECORD" }, { "value", options.record } });
    ojson container = { { "name", "pytorch" }, { "image", options.image },
        { "command", ojson::array({ "sh", "-c", script, "railyard-node" }) }, { "env", env },
        { "resources", { { "limits", { { "nvidia.com/gpu", gpus } } } } } };
    return { { "metadata", { { "labels", labels } } },
        { "spec",
            { { "affinity", { { "nodeAffinity", nodeAffinity }, { "podAntiAffinity", antiAffinity } } },
                { "containers", ojson::array({ container }) } } } };
}

} // namespace

std::string exportPyTorchJob(const CostEngine &engine, const ExportOptions &options)
{
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const NodeMajor nm = nodeMajor(engine, hosts);
    if (!nm.expressible)
        throw ScenarioError("mapping",
            "a PyTorchJob runs torchrun, which needs a node-major mapping: "
                + (nm.problems.empty() ? std::string("it is not") : nm.problems.front()));
    if (options.image.empty() || options.image.size() > 512
        || options.image.find_first_of(" \t\r\n\"'$`\\") != std::string::npos)
        throw ScenarioError("--image", "is not a container image reference");
    refuseControlCharacters("--record", options.record);
    const std::string script = exportTorchrun(engine, options);
    const Scenario &s = engine.scenario();
    const std::string job = dnsLabel(s.name);
    std::vector<std::string> master { hosts[static_cast<std::size_t>(nm.nodeServer.front())] };
    std::vector<std::string> workers;
    for (std::size_t k = 1; k < nm.nodeServer.size(); ++k)
        workers.push_back(hosts[static_cast<std::size_t>(nm.nodeServer[k])]);
    const int gpus = engine.fabric().gpusPerServer();

    ojson replicas;
    replicas["Master"] = { { "replicas", 1 }, { "restartPolicy", "Never" },
        { "template", podTemplate(job, master, script, options, gpus) } };
    if (!workers.empty())
        replicas["Worker"] = { { "replicas", static_cast<int>(workers.size()) },
            { "restartPolicy", "Never" },
            { "template", podTemplate(job, workers, script, options, gpus) } };
    ojson manifest;
    manifest["apiVersion"] = "kubeflow.org/v1";
    manifest["kind"] = "PyTorchJob";
    manifest["metadata"] = { { "name", job },
        { "labels", { { "railyard/mapping-version", std::to_string(s.mappingVersion) } } },
        { "annotations",
            { { "railyard/scenario", oneLine(s.name) }, { "railyard/fabric-hash", fabricHash(engine.fabric().spec()) },
                { "railyard/layout", layoutText(engine) } } } };
    manifest["spec"] = { { "nprocPerNode", std::to_string(nm.nproc) },
        { "runPolicy", { { "cleanPodPolicy", "None" } } }, { "pytorchReplicaSpecs", replicas } };
    return jsonDump(manifest, 2) + "\n";
}

} // namespace railyard::exportdetail
