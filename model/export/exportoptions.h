#pragma once

#include <string>
#include <vector>

namespace railyard {

/** Knobs of the exporters; the defaults give the files documented in the README. */
struct ExportOptions
{
    /// Host name per server (index = server); empty = the fabric's server names.
    std::vector<std::string> hosts;
    /// Rankfile: logical CPU cores per host to share out over the GPU indexes (GPU g of G gets
    /// cores [g*C/G, (g+1)*C/G)); 0 = one core per GPU, core g for GPU g.
    int cpusPerHost = 0;
    /// torchrun / slurm: the rendezvous port.
    int masterPort = 29500;
    /// torchrun / slurm: the training program and its fixed arguments.
    std::string program = "pretrain_gpt.py";
    /// nccl-plan: NIC i of a server is the RDMA device <prefix><i> (NCCL_IB_HCA).
    std::string hcaPrefix = "mlx5_";
    /// nccl-plan: JSON instead of the shell script.
    bool jsonPlan = false;
    /// Written into mapping-json as "generator" (the CLI puts "railyard-cli <version>").
    std::string generator = "railyard";
};

} // namespace railyard
