#pragma once

#include <string>
#include <vector>

namespace railyard {

/**
 * NVLink domains from `nvidia-smi -q`: on a multi-node NVLink system (GB200/GB300 NVL72) each
 * GPU's "Fabric" section reports the ClusterUUID of its NVLink domain and the CliqueId of its
 * partition inside it; GPUs with the same pair share one NVLink fabric (NVIDIA's MNNVL user
 * guide, "Verifying the NVLink domain"). nvidia-smi prints no host name, so the input is either
 * its output collected over hosts by pdsh or clush, every line prefixed "HOST: ", or one host's
 * plain output, named after its file ("node07.txt" is node07).
 */
struct NvlinkDomainRecord
{
    std::string host;
    std::string domain; ///< "ClusterUUID/CliqueId", "" when the GPU is in no domain (N/A)
    std::string where; ///< FILE:LINE of its ClusterUUID
};

/// Whether the text holds a ClusterUUID line.
bool looksLikeNvidiaSmiFabric(const std::string &text);

/// The hosts' domain records, one per host (its GPUs must agree). Throws ScenarioError at
/// FILE:LINE: a ClusterUUID that is not a UUID or N/A, a CliqueId that is not a number, a host
/// whose GPUs report different domains, a host name Slurm could not hold, no ClusterUUID line.
std::vector<NvlinkDomainRecord> parseNvidiaSmiFabric(
    const std::string &text, const std::string &file);

/// Groups records (from one or several files) into domains in order of first appearance, each
/// with the FILE:LINE of its first host. Hosts without a domain (N/A) are refused when others
/// have one; when none has, each host is its own domain. A host listed twice with different
/// domains is refused.
void groupNvlinkDomains(const std::vector<NvlinkDomainRecord> &records,
    std::vector<std::vector<std::string>> &domains, std::vector<std::string> &where);

} // namespace railyard
