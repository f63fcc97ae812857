/**
 * The MPI side of `railyard-cli search`: MPI is initialised only when mpirun started the
 * process, so the plain CLI never touches it. Built against Open MPI's C API when CMake's
 * find_package(MPI COMPONENTS C) found it (RAILYARD_HAVE_MPI), else a stub that says so.
 */
#include "mpisearch.h"

#include "usageerror.h"

#include <cstdlib>

#ifdef RAILYARD_HAVE_MPI
#include <mpi.h>
#endif

namespace railyard::cli {

bool launchedByMpirun()
{
    return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
}

#ifdef RAILYARD_HAVE_MPI

MpiWorld::MpiWorld()
{
    int initialised = 0;
    MPI_Initialized(&initialised);
    if (!initialised)
        MPI_Init(nullptr, nullptr);
    MPI_Comm_rank(MPI_COMM_WORLD, &m_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &m_size);
}

MpiWorld::~MpiWorld()
{
    int finalised = 0;
    MPI_Finalized(&finalised);
    if (!finalised)
        MPI_Finalize();
}

std::vector<std::string> MpiWorld::gatherOnRoot(const std::string &mine) const
{
    const int length = static_cast<int>(mine.size());
    std::vector<int> lengths(static_cast<std::size_t>(m_size), 0);
    MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD);
    std::vector<int> offsets(static_cast<std::size_t>(m_size), 0);
    int total = 0;
    for (std::size_t r = 0; r < lengths.size(); ++r) {
        offsets[r] = total;
        total += lengths[r];
    }
    std::string all(m_rank == 0 ? static_cast<std::size_t>(total) : 0, '\0');
    MPI_Gatherv(mine.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
        0, MPI_COMM_WORLD);
    std::vector<std::string> out;
    if (m_rank == 0)
        for (std::size_t r = 0; r < lengths.size(); ++r)
            out.push_back(all.substr(
                static_cast<std::size_t>(offsets[r]), static_cast<std::size_t>(lengths[r])));
    return out;
}

void MpiWorld::abort(int code) const
{
    MPI_Abort(MPI_COMM_WORLD, code);
    std::exit(code);
}

#else

MpiWorld::MpiWorld()
{
    throw UsageError("started by mpirun, but this railyard-cli was built without MPI "
                     "(libopenmpi-dev was missing when CMake configured it); rebuild with it, "
                     "or run the shards with --shard I/N and join them with railyard-cli merge",
        false);
}

MpiWorld::~MpiWorld() = default;

std::vector<std::string> MpiWorld::gatherOnRoot(const std::string &mine) const
{
    return { mine };
}

void MpiWorld::abort(int code) const
{
    std::exit(code);
}

#endif

} // namespace railyard::cli
