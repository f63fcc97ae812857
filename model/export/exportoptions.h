#pragma once

#include <string>
#include <vector>

namespace railyard {

/** Knobs of the exporters; the defaults give the files documented in the README. */
struct ExportOptions
{
    /// Host name per server (index = server); empty = the fabric's server names.
    std::vector<std::string> hosts;
    /// Rankfile / slurm: logical CPU cores per host, at least one per GPU, shared out per NUMA
    /// node over its GPUs (exportcommon.h, coresOfGpu; by default GPU g of G gets cores
    /// [g*C/G, (g+1)*C/G)); 0 = rankfile: core g for GPU g, slurm: no CPU binding.
    int cpusPerHost = 0;
    /// torchrun / slurm: the rendezvous port.
    int masterPort = 29500;
    /// torchrun / slurm: the training program and its fixed arguments.
    std::string program = "pretrain_gpt.py";
    /// NIC i of a server is the RDMA device <prefix><i> (NCCL_IB_HCA) unless the fabric names
    /// its NICs (nic_devices): nccl-plan, slurm, torchrun and the run record.
    std::string hcaPrefix = "mlx5_";
    /// nccl-plan: JSON instead of the shell script.
    bool jsonPlan = false;
    /// torchrun / slurm: every rank runs `railyard-cli preflight RECORD` before the program
    /// (RAILYARD_CLI and RAILYARD_RECORD override both at run time).
    bool preflight = true;
    /// torchrun / slurm: the run record (mapping-json export) the preflight checks against.
    std::string record = "railyard.mapping.json";
    /// slurm, torchrun (and pytorchjob, which runs it), rankfile: the NCCL_TOPO_FILE the ranks
    /// use when it exists where they start (the nccl-topo export, written beside the script);
    /// only when the fabric has the PCI bus ids that export needs.
    std::string ncclTopoFile = "railyard.nccl-topo.xml";
    /// pytorchjob: the container image of the training pods (it needs torchrun, the program
    /// and, for the preflight, railyard-cli).
    std::string image = "nvcr.io/nvidia/pytorch:24.12-py3";
    /// Written into mapping-json as "generator" (the CLI puts "railyard-cli <version>").
    std::string generator = "railyard";
};

} // namespace railyard
