#include "loaderinputs.h"

#include "export/exporters.h"
#include "scenario/scenariofile.h"
#include "workload/presets.h"

#include <cstdio>

namespace railyard::testinputs {

Scenario loaderScenario(int servers)
{
    Scenario s;
    s.name = "loader-input";
    s.fabric.kind = FabricKind::RailOptimised;
    s.fabric.servers = servers;
    s.fabric.gpusPerServer = 8;
    s.fabric.serversPerSu = 32;
    s.fabric.switchRadix = servers > 8192 ? 128 : 64; // 64 pods at most with three tiers
    s.degrees = { 8, 1, servers, 1, 1 };
    s.model = *modelPreset("llama3-8b");
    s.device = *devicePreset("h100-sxm");
    s.training.microBatch = 1;
    s.training.globalBatch = servers;
    return s;
}

std::string jsonObjects(std::size_t bytes)
{
    std::string t = "{\"a\":[{}";
    t.reserve(bytes + 8);
    while (t.size() < bytes)
        t += ",{}";
    return t + "]}";
}

std::string scenarioText(std::size_t bytes, int servers)
{
    Scenario s = loaderScenario(servers);
    Snapshot snap;
    snap.degrees = s.degrees;
    snap.globalBatch = s.training.globalBatch;
    const int gpus = servers * 8;
    for (int r = 0; r < gpus; ++r)
        snap.slots.push_back(gpus - 1 - r);
    // One snapshot's size, then as many as the size needs (one text written at the end).
    std::string text = scenarioToText(s);
    snap.name = "v0";
    snap.takenAt = "2026-01-01T00:00:00";
    s.snapshots.push_back(snap);
    const std::size_t each = scenarioToText(s).size() - text.size();
    while (text.size() + each * s.snapshots.size() < bytes) {
        snap.name = "v" + std::to_string(s.snapshots.size());
        s.snapshots.push_back(snap);
    }
    return scenarioToText(s);
}

RecordInput recordInput(std::size_t bytes)
{
    RecordInput in;
    const int servers = std::max<int>(1, static_cast<int>(bytes / 230 / 8));
    in.engine = std::make_unique<CostEngine>(loaderScenario(servers));
    in.text = exportText(*in.engine, ExportFormat::MappingJson);
    in.invalid = in.text;
    const std::size_t last = in.invalid.rfind("\"slot\":");
    const std::size_t comma = in.invalid.find(',', last);
    in.invalid.replace(last, comma - last, "\"slot\":0");
    const std::size_t gpu = in.invalid.find("\"gpu\":", last);
    in.invalid.replace(gpu, in.invalid.find(',', gpu) - gpu, "\"gpu\":0");
    const std::size_t server = in.invalid.rfind("\"server\":", last);
    in.invalid.replace(server, in.invalid.find(',', server) - server, "\"server\":0");
    return in;
}

std::string ncclTestsLog(int rows, bool invalid)
{
    // nccl-tests' all_reduce_perf header and rows (src/common.cu's printf formats).
    std::string t = "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup "
                    "iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n#\n"
                    "# Using devices\n";
    for (int r = 0; r < 8; ++r)
        t += "#  Rank  " + std::to_string(r) + " Group  0 Pid  4000" + std::to_string(r)
            + " on   node000 device  " + std::to_string(r)
            + " [0000:19:00] NVIDIA H100 80GB HBM3\n";
    t += "#\n#                                                              out-of-place          "
         "             in-place\n"
         "#       size         count      type   redop    root     time   algbw   busbw #wrong   "
         "  time   algbw   busbw #wrong\n"
         "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)          "
         "  (us)  (GB/s)  (GB/s)\n";
    char line[200];
    for (int i = 0; i < rows; ++i) {
        const long long size = 1024ll * (i + 1); // growing, as nccl-tests' -i step
        const double us = 20.0 + static_cast<double>(size) / 3.0e5;
        const double alg = static_cast<double>(size) / us / 1e3;
        std::snprintf(line, sizeof line,
            "%12lld  %12lld     float     sum      -1  %7.2f  %6.2f  %6.2f      0  %7.2f  %6.2f  "
            "%6.2f      0\n",
            size, size / 4, us, alg, alg * 1.75, us, alg, alg * 1.75);
        t += line;
    }
    if (invalid)
        t.resize(t.size() - 40); // the last row cut inside its timing block
    return t + "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.0\n#\n";
}

std::string cablingCsv(int rows, bool invalid)
{
    std::string t = "# device,port,peer,peer port,gbps\n";
    for (int i = 0; i < rows; ++i) {
        const int server = i / 8;
        const int rail = i % 8;
        t += "node" + std::to_string(server) + ",mlx5_" + std::to_string(rail) + ",leaf"
            + std::to_string(rail) + ",p" + std::to_string(server) + ","
            + (invalid && i + 1 == rows ? "" : "400") + "\n";
    }
    return t;
}

std::string ncclTopologyXml(int gpus, bool invalid)
{
    // The shape of NCCL's NCCL_TOPO_DUMP_FILE (src/graph/xml.cc): CPU, PCI switches, GPUs with
    // their NVLinks, NICs.
    std::string t
        = "<system version=\"1\">\n  <cpu numaid=\"0\" affinity=\"ffff\" arch=\"x86_64\">\n";
    char bus[16];
    for (int g = 0; g < gpus; ++g) {
        std::snprintf(bus, sizeof bus, "%04x:%02x", g / 256, g % 256);
        const int dev = invalid && g + 1 == gpus && gpus > 1 ? 0 : g;
        t += "    <pci busid=\"" + std::string(bus)
            + ":00.0\" class=\"0x060400\">\n"
              "      <pci busid=\""
            + bus
            + ":01.0\" class=\"0x030200\">\n"
              "        <gpu dev=\""
            + std::to_string(dev) + "\" sm=\"90\" rank=\"" + std::to_string(g)
            + "\" gdr=\"1\"><nvlink target=\"0000:00:00.0\" count=\"18\" "
              "tclass=\"0x068000\"/></gpu>\n      </pci>\n"
              "      <pci busid=\""
            + bus + ":02.0\" class=\"0x020700\"><nic><net name=\"mlx5_" + std::to_string(g)
            + "\" dev=\"" + std::to_string(g)
            + "\" speed=\"400000\" port=\"1\" gdr=\"1\"/></nic></pci>\n    </pci>\n";
    }
    return t + "  </cpu>\n</system>\n";
}

std::string hostsFile(int servers, bool invalid)
{
    std::string t = "# one host per server\n";
    for (int i = 0; i < servers; ++i)
        t += "node" + std::to_string(invalid && i + 1 == servers ? 0 : i) + "\n";
    return t;
}

std::string hotnessCsv(int experts, bool invalid)
{
    std::string t = "# token counts per expert\n";
    for (int i = 0; i < experts; ++i)
        t += std::to_string(1000 + (i * 7919) % 997) + (i % 8 == 7 ? "\n" : ",");
    return t + (invalid ? "many\n" : "\n");
}

} // namespace railyard::testinputs
