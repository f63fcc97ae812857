#pragma once

#include <string>
#include <vector>

namespace railyard {

/**
 * One row of a port mapping file: the counters of `host`/`device`:`port` measure the fabric
 * link from node `from` to node `to` (names as reports print them: "node003/nic3",
 * "leaf-su0-rail3", "spine-p0-1"); the port's transmitted bytes cross from -> to, its received
 * bytes to -> from. `*` in host, device or port matches any name; an empty field matches a
 * counter that has none (a network interface has no port).
 */
struct PortMapEntry
{
    std::string host, device, port, from, to;
    int line = 0;
};

/**
 * A mapping file as CSV: `host,device,port,from,to`, one port a line; a header naming those
 * columns (in any order, other columns ignored) may come first. Blank lines and lines starting
 * with '#' are skipped; fields may be double-quoted (RFC 4180).
 */
struct PortMap
{
    std::string file;
    std::vector<PortMapEntry> entries;

    /// The first row matching the port (rows are tried in file order), or nullptr.
    const PortMapEntry *find(
        const std::string &host, const std::string &device, const std::string &port) const;
};

/// Throws ScenarioError("FILE:LINE", reason) for a row without five fields or an empty node.
PortMap parsePortMap(const std::string &text, const std::string &file);
/// Reads (at most 64 MiB) and parses a file.
PortMap loadPortMap(const std::string &path);

} // namespace railyard
