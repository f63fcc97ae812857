/**
 * Kueue Topology-Aware Scheduling (TAS) manifests for the chosen mapping. Sources
 * (kubernetes-sigs/kueue at commit ff69552e79ad21652c36caa97038382e55625cf7):
 *  - site/content/en/docs/concepts/topology_aware_scheduling.md: a Topology object lists the
 *    node labels of the levels, highest first; a ResourceFlavor names it in spec.topologyName
 *    (and then needs at least one spec.nodeLabels entry); a PodSet asks for one domain with
 *    kueue.x-k8s.io/podset-required-topology or prefers one with
 *    kueue.x-k8s.io/podset-preferred-topology, and splits into slices that each stay in one
 *    domain with kueue.x-k8s.io/podset-slice-required-topology and podset-slice-size.
 *  - config/components/crd/bases/kueue.x-k8s.io_topologies.yaml and _resourceflavors.yaml
 *    (v1beta2): levels 1..16 label names, kubernetes.io/hostname only as the lowest level.
 *  - pkg/controller/jobframework/tas_validation.go: at most one of required / preferred /
 *    unconstrained, a slice size only with a slice level and never above the pod count.
 *  - keps/2724-topology-aware-scheduling (story 4): pods are placed in pod-index order
 *    (batch.kubernetes.io/job-completion-index for a Job), so consecutive indexes share the
 *    lowest domain they fit in; pod index k here is node k of the mapping (its k-th host).
 * The stream is YAML: "---"-separated documents, each a JSON object (JSON is YAML 1.2), so
 * `kubectl apply -f` reads it; the node labels the Topology names are `kubectl label` lines
 * in the header, since nodes are not created by a manifest.
 */
#include "export/kueueexport.h"

#include "base/scenarioerror.h"
#include "cost/costengine.h"
#include "export/exportcommon.h"
#include "export/runrecord.h"
#include "export/schedulertopology.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>

namespace railyard::exportdetail {

namespace {

using kjson = nlohmann::ordered_json;

/// The label keys of the levels (a prefix of our own: the values are Railyard's group names).
constexpr const char *kZoneLabel = "topology.railyard.io/zone";
constexpr const char *kPodLabel = "topology.railyard.io/pod";
constexpr const char *kLeafLabel = "topology.railyard.io/leaf-group";
constexpr const char *kDomainLabel = "topology.railyard.io/nvlink-domain";
constexpr const char *kFabricLabel = "topology.railyard.io/fabric";
constexpr const char *kHostLabel = "kubernetes.io/hostname";

/// A Kubernetes label value: at most 63 characters, alphanumeric at both ends, '-', '_', '.'
/// inside (the apimachinery rule the CRD pattern above repeats).
std::string labelValue(const std::string &text)
{
    std::string out;
    for (char ch : text)
        out += std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.'
            ? ch
            : '-';
    if (out.size() > 63)
        out.resize(63);
    while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.back())))
        out.pop_back();
    while (!out.empty() && !std::isalnum(static_cast<unsigned char>(out.front())))
        out.erase(out.begin());
    return out.empty() ? std::string("railyard") : out;
}

/// A DNS-1123 label for object names (lower case, digits, '-').
std::string objectName(const std::string &text)
{
    std::string out;
    for (char ch : text) {
        const auto c = static_cast<unsigned char>(ch);
        if (std::isalnum(c))
            out += static_cast<char>(std::tolower(c));
        else if (!out.empty() && out.back() != '-')
            out += '-';
        if (out.size() >= 40) // leaves room for the "-topology" and pod-index suffixes (63 max)
            break;
    }
    while (!out.empty() && out.back() == '-')
        out.pop_back();
    return out.empty() ? std::string("railyard-job") : out;
}

struct KueueLevel
{
    std::string label;
    std::vector<int> domainOfServer; ///< index of the domain; -1 when the server has none
    std::vector<std::string> names; ///< per domain: the label value
};

} // namespace

std::string exportKueue(const CostEngine &engine, const ExportOptions &options)
{
    const std::vector<std::string> hosts = hostNames(engine, options, true);
    const SchedulerTopology t = schedulerTopology(engine, hosts);
    const Fabric &f = engine.fabric();
    if (options.image.empty() || options.image.size() > 512
        || options.image.find_first_of(" \t\r\n\"'$`\\") != std::string::npos)
        throw ScenarioError("--image", "is not a container image reference");
    const std::string job = objectName(engine.scenario().name);
    std::vector<std::string> notes = t.notes;

    // Levels, highest first: zones (four tiers), pods (when there are several), leaf groups, NVLink
    // domains (when they span servers and each lies inside one leaf group), the host.
    std::vector<KueueLevel> levels;
    const auto S = static_cast<std::size_t>(f.servers());
    if (t.zones.size() > 1) {
        KueueLevel zone { kZoneLabel, std::vector<int>(S, -1), {} };
        for (const SchedulerTopology::Group &z : t.zones)
            zone.names.push_back(labelValue(z.name));
        for (std::size_t g = 0; g < t.leafGroups.size(); ++g)
            if (const int pod = t.leafGroups[g].parent; pod >= 0)
                for (int s : t.leafGroups[g].servers)
                    zone.domainOfServer[static_cast<std::size_t>(s)]
                        = t.pods[static_cast<std::size_t>(pod)].parent;
        levels.push_back(std::move(zone));
    }
    if (t.pods.size() > 1) {
        KueueLevel pod { kPodLabel, std::vector<int>(S, -1), {} };
        for (const SchedulerTopology::Group &p : t.pods)
            pod.names.push_back(labelValue(p.name));
        for (std::size_t g = 0; g < t.leafGroups.size(); ++g)
            for (int s : t.leafGroups[g].servers)
                pod.domainOfServer[static_cast<std::size_t>(s)] = t.leafGroups[g].parent;
        levels.push_back(std::move(pod));
    }
    if (!t.leafGroups.empty()) {
        KueueLevel leaf { kLeafLabel, t.leafGroupOfServer, {} };
        for (const SchedulerTopology::Group &g : t.leafGroups)
            leaf.names.push_back(labelValue(g.name));
        levels.push_back(std::move(leaf));
    }
    if (f.scaleUpDomainServers() > 1) {
        bool nested = true;
        for (const SchedulerTopology::Group &b : t.blocks)
            for (int s : b.servers)
                nested = nested
                    && t.leafGroupOfServer[static_cast<std::size_t>(s)]
                        == t.leafGroupOfServer[static_cast<std::size_t>(b.servers.front())];
        if (nested) {
            KueueLevel domain { kDomainLabel, t.blockOfServer, {} };
            for (const SchedulerTopology::Group &b : t.blocks)
                domain.names.push_back(labelValue(b.name));
            levels.push_back(std::move(domain));
        } else {
            notes.push_back("the NVLink domains straddle leaf groups, so they are no level of "
                            "the Topology (Kueue's levels must nest)");
        }
    }
    {
        KueueLevel host { kHostLabel, std::vector<int>(S), {} };
        for (std::size_t s = 0; s < S; ++s) {
            host.domainOfServer[s] = static_cast<int>(s);
            host.names.push_back(hosts[s]);
        }
        levels.push_back(std::move(host));
    }

    // The lowest level with one domain holding every node of the job: required there; none:
    // preferred at the lowest level above the host, so Kueue packs as tightly as it can.
    const int nodes = static_cast<int>(t.jobServers.size());
    std::string requiredLevel, preferredLevel;
    for (auto l = levels.rbegin(); l != levels.rend(); ++l) {
        const int first = l->domainOfServer[static_cast<std::size_t>(t.jobServers.front())];
        const bool one = first >= 0
            && std::all_of(t.jobServers.begin(), t.jobServers.end(),
                [&](int s) { return l->domainOfServer[static_cast<std::size_t>(s)] == first; });
        if (one) {
            requiredLevel = l->label;
            break;
        }
    }
    if (requiredLevel.empty())
        preferredLevel = levels.size() > 1 ? levels[levels.size() - 2].label : kHostLabel;
    // Slices: each block's share of the job in one block (sbatch --segment's counterpart).
    const std::string blockLabel = f.scaleUpDomainServers() > 1
            && std::any_of(levels.begin(), levels.end(),
                [](const KueueLevel &l) { return l.label == kDomainLabel; })
        ? kDomainLabel
        : kLeafLabel;
    const int slice = t.segmentSize();
    const bool sliced = slice < nodes && requiredLevel != blockLabel
        && std::any_of(levels.begin(), levels.end(),
            [&](const KueueLevel &l) { return l.label == blockLabel; });

    std::string out = headerComment(engine,
        "Kueue Topology-Aware Scheduling: Topology, ResourceFlavor, headless Service, Indexed Job "
        "(kubectl apply -f FILE)");
    out += "# Pod index k (batch.kubernetes.io/job-completion-index) is node k of the mapping; "
           "Kueue\n# places pods in index order, so consecutive nodes share the lowest domain "
           "they fit in.\n";
    out += "# Node labels the Topology's levels read (run once per cluster):\n";
    for (std::size_t s = 0; s < S; ++s) {
        std::string line = "#   kubectl label node " + hosts[s] + " --overwrite "
            + std::string(kFabricLabel) + "="
            + labelValue(f.spec().name.empty() ? "fabric" : f.spec().name);
        for (const KueueLevel &l : levels)
            if (l.label != kHostLabel && l.domainOfServer[s] >= 0)
                line
                    += " " + l.label + "=" + l.names[static_cast<std::size_t>(l.domainOfServer[s])];
        out += line + "\n";
    }
    out += "# railyard-node-order:";
    for (int s : t.jobServers)
        out += " " + hosts[static_cast<std::size_t>(s)];
    out += "\n";
    for (const std::string &n : notes)
        out += "# note: " + n + "\n";

    kjson topoLevels = kjson::array();
    for (const KueueLevel &l : levels)
        topoLevels.push_back({ { "nodeLabel", l.label } });
    const kjson topology = { { "apiVersion", "kueue.x-k8s.io/v1beta2" }, { "kind", "Topology" },
        { "metadata", { { "name", job + "-topology" } } },
        { "spec", { { "levels", topoLevels } } } };
    const kjson flavor = { { "apiVersion", "kueue.x-k8s.io/v1beta2" }, { "kind", "ResourceFlavor" },
        { "metadata", { { "name", job + "-flavor" } } },
        { "spec",
            { { "nodeLabels",
                  { { kFabricLabel,
                      labelValue(f.spec().name.empty() ? "fabric" : f.spec().name) } } },
                { "topologyName", job + "-topology" } } } };
    const kjson service
        = { { "apiVersion", "v1" }, { "kind", "Service" }, { "metadata", { { "name", job } } },
              { "spec",
                  { { "clusterIP", "None" },
                      { "selector", { { "batch.kubernetes.io/job-name", job } } } } } };
    kjson annotations = kjson::object();
    if (!requiredLevel.empty())
        annotations["kueue.x-k8s.io/podset-required-topology"] = requiredLevel;
    else
        annotations["kueue.x-k8s.io/podset-preferred-topology"] = preferredLevel;
    if (sliced) {
        annotations["kueue.x-k8s.io/podset-slice-required-topology"] = blockLabel;
        annotations["kueue.x-k8s.io/podset-slice-size"] = std::to_string(slice);
    }
    const int gpus = f.gpusPerServer();
    // torchrun runs a .py program under Python; anything else needs --no-python (torchrun's
    // documentation, as the torchrun export does).
    const std::vector<std::string> program = commandWords("--program", options.program);
    const bool python = program.front().size() > 3
        && program.front().compare(program.front().size() - 3, 3, ".py") == 0;
    const std::string command = "exec torchrun --nnodes=" + std::to_string(nodes)
        + " --nproc-per-node=" + std::to_string(gpus)
        + " --node-rank=\"$JOB_COMPLETION_INDEX\" --master-addr=" + job + "-0." + job
        + " --master-port=" + std::to_string(options.masterPort) + (python ? " " : " --no-python ")
        + quotedWords(program);
    const kjson container = { { "name", "trainer" }, { "image", options.image },
        { "command", kjson::array({ "sh", "-c", command }) },
        { "resources", { { "limits", { { "nvidia.com/gpu", gpus } } } } } };
    const kjson jobObject = { { "apiVersion", "batch/v1" }, { "kind", "Job" },
        { "metadata",
            { { "name", job }, { "labels", { { "kueue.x-k8s.io/queue-name", "railyard" } } },
                { "annotations",
                    { { "railyard/scenario", oneLine(engine.scenario().name) },
                        { "railyard/fabric-hash", fabricHash(f.spec()) },
                        { "railyard/layout", layoutText(engine) } } } } },
        { "spec",
            { { "completionMode", "Indexed" }, { "completions", nodes }, { "parallelism", nodes },
                { "backoffLimit", 0 },
                { "template",
                    { { "metadata", { { "annotations", annotations } } },
                        { "spec",
                            { { "subdomain", job }, { "restartPolicy", "Never" },
                                { "containers", kjson::array({ container }) } } } } } } } };
    for (const kjson *doc : { &topology, &flavor, &service, &jobObject })
        out += "---\n" + jsonDump(*doc, 2) + "\n";
    return out;
}

} // namespace railyard::exportdetail
