#pragma once

// Inputs for the loaders' size-scaling checks (io_tst_loaderscaling) and speed benchmark
// (bench_loaders): for each reader of outside files, a valid input of a requested size and one
// the reader refuses only after reading it whole (the most work a refusal does). Built in
// memory; sizes are approximate (whole rows, objects or elements).

#include "cost/costengine.h"
#include "scenario/scenario.h"

#include <cstddef>
#include <memory>
#include <string>

namespace railyard::testinputs {

/// A scenario of `servers` x 8 GPUs, TP 8 x DP servers, a small model (a loader's input, not a
/// study).
Scenario loaderScenario(int servers);

/// {"a":[{},{},...]} of about `bytes` bytes: what every JSON loader parses before its checks.
std::string jsonObjects(std::size_t bytes);

/// A valid scenario file of about `bytes` bytes: a fabric of `servers` x 8 GPUs and as many
/// mapping snapshots (each of every slot) as the size needs.
std::string scenarioText(std::size_t bytes, int servers);

/// An engine and its mapping-json run record (about 230 bytes a rank); `invalid` has its last
/// rank moved onto rank 0's slot, refused after the last row.
struct RecordInput
{
    std::unique_ptr<CostEngine> engine;
    std::string text;
    std::string invalid;
};
RecordInput recordInput(std::size_t bytes);

/// An all_reduce_perf table of `rows` result rows (sizes growing by 1 KiB, `-i 1024`);
/// `invalid` cuts the last row short.
std::string ncclTestsLog(int rows, bool invalid = false);

/// A cabling inventory of `rows` NIC-to-leaf cables; `invalid` ends in a row without a speed.
std::string cablingCsv(int rows, bool invalid = false);

/// An NCCL topology dump of one server with `gpus` GPUs (each under its own PCI switch, with a
/// NIC beside it); `invalid` gives the last GPU the first one's device index.
std::string ncclTopologyXml(int gpus, bool invalid = false);

/// A --hosts file of `servers` lines; `invalid` repeats the first name on the last line.
std::string hostsFile(int servers, bool invalid = false);

/// A hotness file of `experts` token counts, CSV; `invalid` ends in a word.
std::string hotnessCsv(int experts, bool invalid = false);

} // namespace railyard::testinputs
