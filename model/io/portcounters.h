#pragma once

#include <string>
#include <vector>

namespace railyard {

/**
 * One reading of one port's data counters: the bytes it sent (tx) and received (rx). A port is
 * named by its host (a server or a switch, from a launcher prefix "node001: ", a label, or the
 * file), its device (an RDMA device "mlx5_0", a network interface "eth0", a switch) and its port
 * ("1", "swp5"; empty for a network interface).
 *
 * Either a snapshot of cumulative counters (`window` 0, `time` the epoch second it was taken, or
 * NaN when the file does not say) or the bytes counted over a window of `window` seconds.
 */
struct PortSample
{
    std::string host, device, port;
    double tx = 0.0; ///< bytes (IB data counters already multiplied by 4: they count words)
    double rx = 0.0;
    double time = 0.0; ///< seconds since the epoch; NaN = unknown
    double window = 0.0; ///< > 0: tx and rx are the bytes of that many seconds
    std::string file;
    int line = 0;
};

/** What one counter file held. `format` is "perfquery", "prometheus" or "csv". */
struct PortCounterFile
{
    std::string file;
    std::string format;
    std::vector<PortSample> samples;
};

/**
 * Reads per-port counters, telling the format by content:
 *
 * - **perfquery -x** (infiniband-diags): blocks opened by `# Port extended counters: Lid L port
 *   P` (or `# Port counters:`) with dotted fields `PortXmitData:.......N`; PortXmitData and
 *   PortRcvData count 4-byte words (IBA spec 1.3, vol. 1, PortCounters and
 *   PortCountersExtended: "in units of 32 bits"), so the bytes are 4 N. The device is the CA of
 *   the `perfquery ... -C mlx5_0 -P 1` command line echoed before the block (a shell's `set -x`
 *   "+ perfquery ..." or an `echo`), else "lid L"; a line holding only a number (`date +%s.%N`)
 *   is the time of the blocks after it.
 * - **Prometheus text exposition** (HELP/TYPE lines, labels, optional millisecond timestamps):
 *   node exporter's `node_infiniband_port_data_{transmitted,received}_bytes_total{device,port}`
 *   and `node_network_{transmit,receive}_bytes_total{device}`, the InfiniBand fabric exporter's
 *   `infiniband_switch_port_{transmit,receive}_data_bytes_total{switch,port}` and SNMP exporter's
 *   `ifHCOutOctets` / `ifHCInOctets` {ifName} (switch ports); other series are skipped. The host
 *   is a `host`, `hostname`, `instance` (its port stripped) or `switch` label, else the prefix.
 * - **CSV**: `host,device,port,tx_bytes,rx_bytes,seconds` (or without `host`), a header naming
 *   the columns in any order optional; `seconds` makes the bytes those of a window that long;
 *   a `timestamp` column instead makes them cumulative counters read at that epoch second.
 *
 * Every line may carry a launcher's labels (launcherlabels.h) and a host prefix "HOST: " as
 * pdsh and clush print it. Throws ScenarioError("FILE:LINE", reason) for a malformed counter
 * line, ScenarioError(FILE, ...) when the file holds no counter at all.
 */
PortCounterFile parsePortCounters(const std::string &text, const std::string &file);
/// 2,048 hosts' node exporter scrapes with the netdev and infiniband collectors are ~20 KB each
/// (40 MB); a pdsh-gathered full scrape of every collector is ~100 KB a host (200 MB). 256 MiB
/// holds either and keeps a mistaken argument (a core dump, a disk image) from being read whole.
inline constexpr long long kMaxPortCounterBytes = 256ll << 20;

/// The largest counter value read, in bytes: a 64-bit IB word counter's limit times 4 (2^66,
/// IBA PortCountersExtended). A value above it is refused: no port counts that far.
inline constexpr double kMaxCounterBytes = 73786976294838206464.0;
/// The largest rate accepted, bytes per second: 10^15 (8 Pbit/s), thousands of times any port's
/// line rate (1.6 Tbit/s today), so only a wrong window or a garbled counter reaches it.
inline constexpr double kMaxPortRate = 1e15;

/// Reads (at most kMaxPortCounterBytes) and parses a file.
PortCounterFile loadPortCounters(const std::string &path);

/** A port's traffic over the window: bytes per second each way. */
struct PortRate
{
    std::string host, device, port;
    double txRate = 0.0; ///< bytes/s
    double rxRate = 0.0;
    double window = 0.0; ///< seconds the rate is averaged over
    std::string where; ///< FILE:LINE of the reading the rate ends with
};

/**
 * Rates from the samples of all files, in the order given: a port's windowed readings give
 * their bytes over their seconds; its cumulative readings give (last - first) over the time
 * between them - `windowSeconds` when > 0, else the two readings' timestamps. Throws
 * ScenarioError naming FILE:LINE for a counter that goes backwards (a reset or a wrap), a port
 * read only once, or two readings without a time between them and no `windowSeconds`.
 */
std::vector<PortRate> portRates(const std::vector<PortCounterFile> &files, double windowSeconds);

/// "host/device:port" as messages name a port.
std::string portText(const std::string &host, const std::string &device, const std::string &port);

} // namespace railyard
