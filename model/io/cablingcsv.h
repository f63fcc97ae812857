#pragma once

#include "fabric/fabricspec.h"

#include <string>
#include <vector>

namespace railyard {

/**
 * A cabling inventory as CSV, the shape of an LLDP neighbour dump or a DCIM cable export:
 * one cable per line, `a_device,a_port,b_device,b_port,gbps[,latency_us]`. A header line naming
 * those columns may come first, in any order and with further columns (cable ids, labels) that
 * are ignored; without one the columns are positional. Blank lines and lines starting with '#'
 * are skipped; fields may be double-quoted (RFC 4180, "" for a quote). Speeds are Gbit/s: "400",
 * "400G", "400Gbps" and "400 Gb/s" all read as 400; an empty latency takes the tier's default.
 */
struct CablingCsv
{
    std::string file;
    std::vector<Cable> cables;
    std::vector<int> lines; ///< per cable, its line in the file
};

/// Parses the text. Throws ScenarioError("FILE:LINE", reason) at the first bad line: a wrong
/// column count, an empty device or port, a speed that is no positive number.
CablingCsv parseCablingCsv(const std::string &text, const std::string &file);
/// Reads (at most 64 MiB) and parses a file.
CablingCsv loadCablingCsv(const std::string &path);

/** What importCabling() found and changed. */
struct CablingImport
{
    int servers = 0;
    int switches = 0;
    FabricKind kind = FabricKind::RailOptimised;
    std::vector<std::string> notes; ///< what the import decided (kind, server order)
};

/**
 * Makes `spec` the fabric of the inventory: the servers (every device whose ports all name a NIC:
 * an RDMA device of spec.nicDevices, or mlx5_N / nicN / hcaN / ibN / rdmaN; or, with
 * `serverPattern`, every device whose whole name matches that RE2 regular expression, at most
 * 1024 bytes, matched in time linear in the name; ScenarioError("--server-pattern") otherwise)
 * become spec.serverNames, ordered by their scalable unit or leaf and then by name, so a group's
 * servers sit together; the kind is rail-optimised when every leaf's NICs share one index, else
 * top-of-rack; spec.cabling is the cables. Throws ScenarioError naming the file and line of a
 * cable the fabric cannot be built from (Fabric::build's checks, cablingbuilder.h).
 */
CablingImport importCabling(
    FabricSpec &spec, const CablingCsv &csv, const std::string &serverPattern);

} // namespace railyard
