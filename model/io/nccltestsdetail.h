#pragma once

// What the nccl-tests text and JSON readers (nccltestslog.cpp, nccltestsjson.cpp) share; not
// an interface of its own.

#include "io/nccltestslog.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace railyard::nccltestsdetail {

/// Result rows (sizes) one file may hold, text or JSON. A doubling sweep (-f 2) from 1 B to the
/// 16 GiB nccl-tests allows is 35 sizes and a linear -i sweep of published logs a few hundred;
/// 4,096 leaves room for any real sweep while a calibrate of the largest log stays within
/// seconds (the fit predicts every size on every iteration: 200,000 rows took minutes).
constexpr std::size_t kMaxLogRows = 4096;

bool toInteger(std::string_view w, long long &out);
/// The `*_perf` binary a line names (a command line or "# Collective test concluded: X").
std::string binaryIn(std::string_view line);
/// NCCL_ALGO's value if the line sets it.
std::string ncclAlgoIn(std::string_view line);
/// Sets the log's binary; a second, different one is refused (mixed ops, `file`:`line`).
void setBinary(NcclTestsLog &log, const std::string &name, int line);
/// Appends a row after checking it against the rows before (one op, growing sizes).
void checkRow(NcclTestsLog &log, const NcclTestsRow &r);
/// The -J JSON form of nccl-tests 2.19.6 (src/util.cu).
void parseNcclTestsJson(std::string_view text, NcclTestsLog &log);

} // namespace railyard::nccltestsdetail
