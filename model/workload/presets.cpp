#include "workload/presets.h"

#include <array>

namespace railyard {

namespace {

struct NamedModel
{
    std::string_view name;
    ModelSpec spec;
};

ModelSpec makeModel(std::string_view name, int layers, int hidden, int heads, int kvHeads, int ffn,
                    bool gated, int seq, int vocab, int experts = 0, int topK = 0)
{
    ModelSpec m;
    m.name = std::string(name);
    m.layers = layers;
    m.hidden = hidden;
    m.heads = heads;
    m.kvHeads = kvHeads;
    m.ffn = ffn;
    m.gatedMlp = gated;
    m.seq = seq;
    m.vocab = vocab;
    m.experts = experts;
    m.topK = topK;
    m.moeLayerFreq = 1;
    return m;
}

/**
 * The published shapes. `seq` is the pre-training sequence length the source reports.
 * gatedMlp = false is the GPT block (LayerNorm, biases, learned positions, tied embeddings);
 * true is the Llama/Mistral block (RMSNorm, SwiGLU, no biases, RoPE, untied output layer).
 */
const std::array<NamedModel, 6> &models()
{
    static const std::array<NamedModel, 6> list{{
        // Brown et al. 2020, "Language Models are Few-Shot Learners", Table 2.1: GPT-3 175B,
        // n_layers 96, d_model 12288, n_heads 96 (d_head 128), n_ctx 2048, d_ff = 4 d_model;
        // the GPT-2 BPE vocabulary of 50257 tokens (Radford et al. 2019).
        {"gpt3-175b", makeModel("gpt3-175b", 96, 12288, 96, 0, 49152, false, 2048, 50257)},
        // Touvron et al. 2023, "Llama 2", §2.2 and Table 1 (GQA for 70B, 4k context) and the
        // released config: 80 layers, hidden 8192, 64 heads, 8 KV heads, SwiGLU 28672, vocab 32000.
        {"llama2-70b", makeModel("llama2-70b", 80, 8192, 64, 8, 28672, true, 4096, 32000)},
        // Llama Team 2024, "The Llama 3 Herd of Models", Table 3 (8B / 70B / 405B: layers
        // 32/80/126, model dim 4096/8192/16384, FFN 14336/28672/53248, heads 32/64/128, 8 KV
        // heads, 128K-token vocabulary = 128256 entries in the released tokenizer) and §3.4:
        // pre-training at sequence length 8192.
        {"llama3-8b", makeModel("llama3-8b", 32, 4096, 32, 8, 14336, true, 8192, 128256)},
        {"llama3-70b", makeModel("llama3-70b", 80, 8192, 64, 8, 28672, true, 8192, 128256)},
        {"llama3-405b", makeModel("llama3-405b", 126, 16384, 128, 8, 53248, true, 8192, 128256)},
        // Jiang et al. 2024, "Mixtral of Experts", Table 1: dim 4096, 32 layers, head_dim 128,
        // hidden_dim 14336, 32 heads, 8 KV heads, context 32768 (pre-trained at 32k), vocab
        // 32000, 8 experts, top-2, every layer MoE.
        {"mixtral-8x7b",
         makeModel("mixtral-8x7b", 32, 4096, 32, 8, 14336, true, 32768, 32000, 8, 2)},
    }};
    return list;
}

struct NamedDevice
{
    std::string_view name;
    DeviceSpec spec;
    DeviceFabricDefaults fabric;
};

DeviceSpec makeDevice(std::string_view name, double bf16, double fp16, double fp8, double hbmGB,
                      double hbmGBps, int sms)
{
    DeviceSpec d;
    d.name = std::string(name);
    d.peakTflopsBf16 = bf16;
    d.peakTflopsFp16 = fp16;
    d.peakTflopsFp8 = fp8;
    d.hbmBytes = hbmGB * 1e9;
    d.hbmGBps = hbmGBps;
    d.streamingMultiprocessors = sms;
    return d;
}

/**
 * Dense (no sparsity) peaks from the vendor datasheets. Scale-up is one GPU's NVLink bandwidth
 * per direction (the datasheet's bidirectional figure halved, in Gbit/s); the NIC is the
 * reference system's compute-fabric adapter per GPU.
 */
const std::array<NamedDevice, 6> &devices()
{
    static const std::array<NamedDevice, 6> list{{
        // NVIDIA A100 Tensor Core GPU datasheet (A100 80GB SXM): BF16/FP16 312 TFLOPS dense,
        // no FP8 (0 = unsupported), 80 GB HBM2e at 2039 GB/s, 108 SMs (A100 whitepaper).
        // NVLink 3: 600 GB/s bidirectional -> 300 GB/s = 2400 Gbit/s per direction; DGX A100
        // uses 8 x HDR 200 Gb/s ConnectX-6 for the compute fabric.
        {"a100-80g", makeDevice("a100-80g", 312.0, 312.0, 0.0, 80.0, 2039.0, 108), {2400.0, 200.0}},
        // NVIDIA H100 datasheet (SXM5): BF16/FP16 989 TFLOPS, FP8 1979 TFLOPS dense (the
        // datasheet's 1979 / 3958 include 2:4 sparsity), 80 GB HBM3 at 3.35 TB/s, 132 SMs.
        // NVLink 4: 900 GB/s bidirectional -> 3600 Gbit/s per direction; DGX H100: 8 x
        // ConnectX-7 NDR 400 Gb/s.
        {"h100-sxm", makeDevice("h100-sxm", 989.0, 989.0, 1979.0, 80.0, 3350.0, 132),
         {3600.0, 400.0}},
        // NVIDIA H200 datasheet (SXM): same Hopper compute as H100 SXM, 141 GB HBM3e at
        // 4.8 TB/s; NVLink 4 (3600 Gbit/s per direction), NDR 400 Gb/s NICs.
        {"h200", makeDevice("h200", 989.0, 989.0, 1979.0, 141.0, 4800.0, 132), {3600.0, 400.0}},
        // NVIDIA HGX/DGX B200 datasheets: per GPU BF16/FP16 2.25 PFLOPS and FP8 4.5 PFLOPS dense
        // (36 / 72 PFLOPS per 8-GPU board with sparsity), 1440 GB HBM3e per 8 GPUs = 180 GB
        // usable (192 GB on the package), 8 TB/s, 148 SMs. NVLink 5: 1.8 TB/s bidirectional ->
        // 7200 Gbit/s per direction; DGX B200 uses 8 x ConnectX-7 at 400 Gb/s (800G ConnectX-8
        // arrives with B300), so 400.
        {"b200", makeDevice("b200", 2250.0, 2250.0, 4500.0, 180.0, 8000.0, 148), {7200.0, 400.0}},
        // GB200 NVL72 (the Blackwell GPU at 1,200 W, per GPU, not per superchip): BF16 2.5 and
        // FP8 5 PFLOPS dense, 8 TB/s HBM3e (glennklockwood.com's GB200 table, ml-engineering;
        // tests/data/published/devices.json), 185 GB as nvidia-smi reports it on Azure ND GB200
        // v6, the B200's 148 SMs; NVLink 5 at 900 GB/s per direction over the 72-GPU rack
        // (7200 Gbit/s), one ConnectX-7 400 Gb/s NIC per GPU. NVIDIA's GB200 NVL72 page: 72
        // Blackwell GPUs in one NVLink domain, 130 TB/s of NVLink bandwidth (72 x 1.8 TB/s),
        // built of 18 compute trays with 2 Grace CPUs and 4 GPUs each (the DGX GB200 user
        // guide's "compute tray": 4 x ConnectX-7 400 Gb/s for the compute fabric).
        {"gb200", makeDevice("gb200", 2500.0, 2500.0, 5000.0, 185.0, 8000.0, 148),
         {7200.0, 400.0, 18, 4}},
        // GB300 NVL72 (Blackwell Ultra): BF16 2.5 / FP8 5 PFLOPS dense, 279 GB HBM3e at 8 TB/s
        // (devices.json), 160 SMs (NVIDIA's Blackwell Ultra brief); NVLink 5 as GB200, one
        // ConnectX-8 800 Gb/s NIC per GPU. NVIDIA's GB300 NVL72 page: 72 Blackwell Ultra GPUs in
        // one NVLink domain (130 TB/s), 18 compute trays of 4 GPUs, ConnectX-8 SuperNICs.
        {"gb300", makeDevice("gb300", 2500.0, 2500.0, 5000.0, 279.0, 8000.0, 160),
         {7200.0, 800.0, 18, 4}},
    }};
    return list;
}

} // namespace

std::optional<ModelSpec> modelPreset(std::string_view name)
{
    for (const NamedModel &m : models()) {
        if (m.name == name)
            return m.spec;
    }
    return std::nullopt;
}

std::vector<std::string> modelPresetNames()
{
    std::vector<std::string> names;
    for (const NamedModel &m : models())
        names.emplace_back(m.name);
    return names;
}

std::optional<DeviceSpec> devicePreset(std::string_view name)
{
    for (const NamedDevice &d : devices()) {
        if (d.name == name)
            return d.spec;
    }
    return std::nullopt;
}

std::vector<std::string> devicePresetNames()
{
    std::vector<std::string> names;
    for (const NamedDevice &d : devices())
        names.emplace_back(d.name);
    return names;
}

DeviceFabricDefaults deviceFabricDefaults(std::string_view deviceName)
{
    for (const NamedDevice &d : devices()) {
        if (d.name == deviceName)
            return d.fabric;
    }
    return DeviceFabricDefaults{};
}

} // namespace railyard
