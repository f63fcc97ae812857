#pragma once

#include <string>
#include <vector>

namespace railyard::cli {

/// Whether this process was started by mpirun (Open MPI's OMPI_COMM_WORLD_SIZE or PMIx's
/// PMIX_RANK in the environment). Only then does railyard-cli initialise MPI.
bool launchedByMpirun();

/**
 * MPI_COMM_WORLD for the time of one command: MPI_Init on construction, MPI_Finalize on
 * destruction (Open MPI's C API). When railyard-cli was configured without MPI the constructor
 * throws UsageError saying so.
 */
class MpiWorld
{
public:
    MpiWorld();
    ~MpiWorld();
    MpiWorld(const MpiWorld &) = delete;
    MpiWorld &operator=(const MpiWorld &) = delete;

    int rank() const { return m_rank; }
    int size() const { return m_size; }
    /// Every rank's text, in rank order, on rank 0 (MPI_Gather of the lengths, MPI_Gatherv of
    /// the bytes); empty on the other ranks.
    std::vector<std::string> gatherOnRoot(const std::string &mine) const;
    /// Ends every rank (MPI_Abort) after a failure on one of them.
    [[noreturn]] void abort(int code) const;

private:
    int m_rank = 0;
    int m_size = 1;
};

} // namespace railyard::cli
