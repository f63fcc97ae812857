#pragma once

#include <string_view>
#include <vector>

namespace railyard {

/**
 * The lines of console output with the labels launchers and log collectors put before each
 * line taken off: a timestamp (ISO 8601 "2026-12-06T04:51:00.123Z", "2026-12-06 04:51:00,123",
 * either in square brackets; kubectl logs --timestamps, journald exports, CI consoles), then
 * one launcher label: Slurm's `srun -l` ("0: ", "12: "), Open MPI's --tag-output / --output tag
 * ("[1,0]<stdout>:", "[1,0]<stderr>:") and MPICH / Intel MPI's -prepend-rank / -l ("[0] ").
 * A kind of label is taken off only where it is consistently present: on a result-table header
 * line ("size count type ...") or on at least half of the non-empty lines; elsewhere the lines
 * are left as they are. Line i of the result is line i + 1 of the text.
 */
std::vector<std::string_view> unlabelledLines(std::string_view text);

} // namespace railyard
