#pragma once

#include "io/nccllog.h"

#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/**
 * The NCCL log reader's part for the GRAPH and TUNING subsystems and the NVLS / CollNet lines
 * (the formats are listed in io/nccllog.h). One per file read: a graph's channel lines follow
 * its Pattern line in the same process, so the graph being read is kept per HOST:PID:TID and
 * handed to its communicator once its channels are in (or when the process starts another).
 */
class NcclSubsysReader
{
public:
    /// Finds the communicator a process's lines belong to (null before its first comm line).
    using CommOf = std::function<NcclLogComm *(const std::string &thread)>;

    explicit NcclSubsysReader(CommOf commOf);

    /// Reads one NCCL INFO line given as words; true when it was one of this reader's lines.
    /// Throws ScenarioError at `where` for one it recognises but cannot read.
    bool read(const std::vector<std::string_view> &w, const std::string &host,
        const std::string &thread, const std::string &where);

    /// Hands every graph still being read to its communicator (at the end of a file).
    void finish();

    /// A process's communicator line: "Init START" or the init line begins a communicator's
    /// initialisation (`complete` false), "Init COMPLETE" ends it. NCCL 2.18 prints the
    /// searched graphs before its first line of the communicator (init.cc: ncclTopoPrintGraph
    /// before "comm %p rank %d nRanks"): graphs read outside an initialisation wait for it.
    void commLine(const std::string &thread, bool complete);

private:
    struct Pending
    {
        NcclLogGraph graph;
        bool open = false;
    };
    void close(const std::string &thread);
    void keep(NcclLogComm &c, const NcclLogGraph &g);
    bool graphLine(const std::vector<std::string_view> &w, const std::string &host,
        const std::string &thread, const std::string &where);
    bool pickLine(const std::vector<std::string_view> &w, const std::string &thread,
        const std::string &where);

    CommOf m_commOf;
    std::map<std::string, Pending> m_pending; ///< thread -> the graph it is printing
    std::map<std::string, std::vector<NcclLogGraph>> m_parked; ///< thread -> graphs before init
    std::map<std::string, bool> m_initialising; ///< thread -> between a comm's start and COMPLETE
    /// comm id -> pick -> index into its picks (a run prints one line per call)
    std::map<std::string, std::map<NcclLogPick, std::size_t>> m_pickIndex;
};

} // namespace railyard
