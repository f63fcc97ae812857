#pragma once

#include <map>
#include <optional>
#include <string>

namespace railyard {

/**
 * What a rank sees of itself at start-up: its environment, its host name and, where the
 * machine has it, `nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv,noheader`.
 */
struct PreflightEnvironment
{
    std::map<std::string, std::string> env; ///< the variables that are set
    std::string hostname;
    std::optional<std::string> nvidiaSmi; ///< the query's output; nullopt = no nvidia-smi
};

/** Where the rank runs according to its environment, once the check has passed. */
struct PreflightPlace
{
    int rank = -1;
    std::string host;
    int gpu = -1; ///< physical GPU index
    std::string hca; ///< "" when NCCL_IB_HCA is not set
};

/**
 * The run-time check that "logical rank, GPU slot, NIC slot and switch port stay together":
 * reads a mapping-json run record and the rank's environment and throws ScenarioError with a
 * one-line reason when the rank is not where the record puts it.
 *
 * - rank: RANK (torchrun, the Slurm export's wrapper), else SLURM_PROCID, else
 *   OMPI_COMM_WORLD_RANK (Open MPI), else PMI_RANK (the first that is set: under torchrun
 *   started by srun, SLURM_PROCID numbers the nodes, RANK the ranks);
 * - world size: WORLD_SIZE, SLURM_NTASKS or OMPI_COMM_WORLD_SIZE against the record;
 * - host: the host name, or its short name before the first '.', against the record's
 *   (RAILYARD_HOST overrides the host name, as in the torchrun export);
 * - GPU: the one the rank uses is CUDA_VISIBLE_DEVICES[LOCAL_RANK] (cuda:LOCAL_RANK, the
 *   launchers' convention), the only entry when one GPU is visible, GPU LOCAL_RANK when the
 *   variable is unset; UUIDs are resolved through nvidia-smi. With nvidia-smi, the GPU must
 *   exist and, when the record has its PCI bus ID, be that device;
 * - NIC: NCCL_IB_HCA, when set, must name the record's RDMA device.
 *
 * `mappingVersion` > 0 also requires the record to be that version (a stale record left
 * from an earlier mapping is caught before any rank starts); a negative one is refused.
 *
 * The record itself must pass what import-mapping checks (checkRunRecord in runrecord.h: every
 * rank once, slots unique and inside the record's fabric, coordinates of its layout, the world
 * size); its problems are refused with `recordName` (the file) and the field.
 */
PreflightPlace checkPreflight(const std::string &recordText,
    const PreflightEnvironment &environment, int mappingVersion = 0,
    const std::string &recordName = "record");

} // namespace railyard
