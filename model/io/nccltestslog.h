#pragma once

#include "cost/nccltestsnames.h" // ncclTestsCollective(), ncclTestsBinary(), ncclTestsBusFactor()

#include "workload/workloadplan.h"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace railyard {

/** One block of a result row: the out-of-place or the in-place measurement. */
struct NcclTestsTiming
{
    bool present = false; ///< false: the block was left empty (nccl-tests trace replay)
    double timeUs = 0.0; ///< time (or cputime under -C 1), microseconds
    double algbw = 0.0; ///< GB/s = 1e9 bytes/s, as nccl-tests prints it
    double busbw = 0.0; ///< GB/s
};

/** One size of an nccl-tests sweep. */
struct NcclTestsRow
{
    long long bytes = 0;
    long long count = 0;
    std::string type; ///< "float", "half", ...
    std::string redop; ///< "sum", "none", ...
    int root = -1;
    NcclTestsTiming outOfPlace;
    NcclTestsTiming inPlace;
    int line = 0; ///< 1-based line in the file (text), or the result's index + 1 (JSON)
};

/**
 * What one nccl-tests run printed, from its text table or from the JSON file it writes with
 * -J. Text: the `size count type redop root` columns, then per block (out-of-place, then
 * in-place) `time algbw busbw #wrong`, with `cputime` under -C 1 and four i_* columns after
 * each #wrong under -I 1 (NVIDIA/nccl-tests src/util.cu, writeResultHeader). JSON (version 2.19.6
 * of nccl-tests, src/util.cu): `args`, `env`, `nccl_version`, `config` with `devices[]`,
 * `results[]` with `out_of_place` / `in_place` objects of `time` (or `cpu_time`), `alg_bw`,
 * `bus_bw`, `nwrong`, and `average_bus_bandwidth.bandwidth`.
 */
struct NcclTestsLog
{
    std::string file;
    /// The run's name: `file`, or "FILE#BINARY" ("FILE#N" when the binary is unknown or
    /// repeated) when the file holds several tables
    std::string name;
    /// `name`, or `file` for a file of one table: how messages and --run bindings name the run.
    const std::string &runName() const { return name.empty() ? file : name; }
    int table = 0; ///< 1-based place of the table in its file when it holds several, else 0
    bool json = false;
    std::string binary; ///< "all_reduce_perf", ... from the command line or the footer; "" unknown
    std::optional<Collective> op; ///< the collective the binary runs (unset: not named in the log)
    /// The world: the highest "#  Rank N ..." line + 1 (an excerpt may list only the last),
    /// JSON: config.devices; 0 when the log lists no rank
    int ranks = 0;
    std::vector<std::string> hosts; ///< per listed rank, in order
    std::string device; ///< the first rank's device name
    std::string
        ncclVersion; ///< as printed ("2.26.2" from "NCCL version 2.26.2+cuda12.8"; JSON: 22602)
    bool cpuTime = false; ///< times are -C 1 CPU times
    std::vector<std::string> args; ///< the command line when the log carries one
    /// NCCL_ALGO as the log shows it (JSON env, "NCCL_ALGO=..." on a quoted command line, or
    /// NCCL's "NCCL_ALGO set by environment to ..."); "" when the log does not say
    std::string ncclAlgo;
    std::string startTime; ///< JSON start_time
    std::vector<NcclTestsRow> rows;
    double averageBusBw = -1.0; ///< the "# Avg bus bandwidth" footer, GB/s; -1 when absent
    int averageLine = 0;
};

/**
 * Parses nccl-tests output: JSON when the text starts with '{', the printed text otherwise,
 * one run per result table. Text is read as consoles keep it: launcher labels (`srun -l`,
 * Open MPI's --tag-output, MPICH's -prepend-rank) and timestamps consistently present are
 * taken off each line (io/launcherlabels.h), the header may lack its '#' or be wrapped onto a
 * second line, the rank list may be missing, and other console text (build output, NCCL INFO
 * lines, shell prompts) is skipped. Each table takes the command line, rank list and NCCL banner
 * printed before it. Throws ScenarioError whose field is "FILE:LINE" (JSON: "FILE:
 * results[i].field") for a truncated or unreadable row, a row or footer reporting wrong results
 * (#wrong > 0, "Out of bounds values : N FAILED"), rows of more than one collective in a table
 * (two binaries, or another type / redop / root), no result row at all, sizes that do not grow
 * (several 0-byte rows excepted: nccl-tests rounds small sizes down to 0), more than 4,096 rows
 * in the file, and negative or non-finite times. Nothing is returned partly read.
 */
std::vector<NcclTestsLog> parseNcclTestsLogs(std::string_view text, const std::string &file);

/// parseNcclTestsLogs() for a file of one run: a second table is refused (FILE:LINE).
NcclTestsLog parseNcclTestsLog(std::string_view text, const std::string &file);

/// Reads and parses `path` (at most 16 MiB), every table of it.
std::vector<NcclTestsLog> readNcclTestsLogs(const std::string &path);

/// Reads and parses `path` (at most 16 MiB), a file of one run.
NcclTestsLog readNcclTestsLog(const std::string &path);

} // namespace railyard
