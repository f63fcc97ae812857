#include "workload/elementwise.h"

/**
 * What each stack fuses of a layer's element-wise operations, counted from the model code each
 * stack runs (per token, forward; e = kElementwiseBytes = 2, activations in bf16):
 *
 * Transformer Engine / Megatron (the calibrated count, unchanged): each norm is one kernel
 * (TE LayerNormLinear / fused RMSNorm: read and write e h), the MLP activation one kernel
 * (TE's fused SwiGLU, Megatron's bias_gelu fusion: read (1 or 2) ffn, write ffn), each residual
 * one kernel (Megatron's bias_dropout_add fusion: read 2, write 1, plus a 1-byte dropout mask in
 * the GPT block), the rotary embedding one kernel (TE's fused RoPE: rewrite Q and K). 6 kernels
 * in the Llama block, 5 in the GPT block (no rotary).
 *
 * Eager PyTorch, torchtitan's Llama block (torchtitan/models/llama/model.py and norms.py,
 * Dec 2024; PyTorch's nn.RMSNorm composite, aten/src/ATen/native/layer_norm.cpp rms_norm, does
 * the same operators):
 *  - RMSNorm `(x.float() * rsqrt(x.float().pow(2).mean(-1) + eps)).type_as(x) * weight`: cast to
 *    fp32 (read 2, write 4 bytes per element), pow (4, 4), mean (read 4), add eps and rsqrt (one
 *    value per token), multiply (4, 4), cast back (4, 2), multiply by the weight (2, 2):
 *    36 bytes per element and 8 kernels, per norm.
 *  - apply_rotary_emb: Q and K each cast to fp32 (2, 4), multiplied as complex numbers by
 *    freqs_cis (4, 4) and cast back (4, 2): 20 bytes per element and 3 kernels, per tensor.
 *  - repeat_kv (grouped-query attention, before F.scaled_dot_product_attention, which takes
 *    equal head counts): expand + reshape copies K and V to the query heads, reading kvDim and
 *    writing a x headDim per token each: 2 kernels. The attention output's
 *    transpose(1, 2).contiguous() is free: the flash kernel writes (b, s, heads, d) already.
 *  - FeedForward `w2(silu(w1(x)) * w3(x))`: silu (2, 2) and the product (4, 2): 10 bytes per ffn
 *    element, 2 kernels.
 *  - the two residual adds (read 2, write 1), as above.
 *  28 kernels. GPT-style eager blocks (MPT in llm-foundry) run nn.LayerNorm and GeLU as single
 *  native kernels and their biases in the GEMM epilogue (addmm), and MPT trains with
 *  resid_pdrop 0 (no dropout kernel): the Transformer Engine count.
 *
 * torch.compile (TorchInductor, PyTorch docs "TorchInductor" and torch/_inductor/scheduler.py:
 * vertical fusion of pointwise producers into their consumers, reductions with their pointwise
 * epilogues and prologues): each norm is one kernel computing in fp32 registers (read and write
 * e), rotary one kernel per tensor (2), SwiGLU one (read 2 ffn, write ffn), the residual add
 * after attention fuses into the following norm (read 2, write 2 in one kernel, the separate
 * norm read saved), the last residual one kernel; the K/V repeat stays two copies, since the
 * attention kernel is an extern call that needs materialised inputs. 8 kernels.
 *
 * The backward runs the matching gradient kernels: computemodel.cpp books it at twice the
 * forward bytes and kernels. For the eager RMSNorm the autograd graph reads and writes about
 * 2.5 times its forward, rotary once, silu * up about 1.8 times: twice on average.
 */
namespace railyard::compute {

Fusion fusionOf(const std::optional<SoftwareStack> &stack, bool compile)
{
    if (stack == SoftwareStack::Fsdp2 || stack == SoftwareStack::Composer)
        return compile ? Fusion::Inductor : Fusion::Eager;
    return Fusion::TransformerEngine;
}

ElementwiseTraffic layerElementwise(const Shape &x, bool moe, Fusion fusion)
{
    const double e = kElementwiseBytes;
    const double w = attentionWidth(x);
    const double up = x.gated ? 2.0 : 1.0;
    const bool eager = fusion == Fusion::Eager;
    const bool inductor = fusion == Fusion::Inductor;
    const bool rmsEager = eager && !x.gptStyle;
    ElementwiseTraffic out;
    // Two norms over the sequence-sharded hidden state.
    const double rmsNormBytes = 36.0; // per element, eager composite RMSNorm (above)
    out.bytes += 2.0 * (rmsEager ? rmsNormBytes : 2.0 * e) * x.spTokens * x.h;
    out.kernels += rmsEager ? 16.0 : 2.0;
    // Residual adds (the GPT block's fused dropout writes a 1-byte mask); Inductor folds the
    // first into the following norm: its read of the sum is saved, one kernel fewer.
    out.bytes += 2.0 * (3.0 * e + (x.gptStyle ? 1.0 : 0.0)) * x.spTokens * x.h;
    out.kernels += 2.0;
    if (inductor) {
        out.bytes -= e * x.spTokens * x.h;
        out.kernels -= 1.0;
    }
    // Rotary embedding on Q and K (Llama block).
    if (!x.gptStyle) {
        const double rotaryBytes = 20.0; // per element, eager complex-number rotary (above)
        out.bytes += (eager ? rotaryBytes : 2.0 * e) * x.tokens * (w + x.kvDim) / x.t;
        out.kernels += eager ? 6.0 : (inductor ? 2.0 : 1.0);
    }
    // K and V repeated to the query heads before SDPA (torchtitan's repeat_kv).
    if (x.repeatKv && x.kvDim < w && fusion != Fusion::TransformerEngine) {
        out.bytes += 2.0 * e * x.tokens * (x.kvDim + w) / x.t;
        out.kernels += 2.0;
    }
    // The dense MLP's activation (MoE layers: computemodel.cpp books the experts' own).
    if (!moe) {
        if (rmsEager && x.gated) {
            out.bytes += 5.0 * e * x.tokens * x.ffn / x.t; // silu (1, 1), product (2, 1)
            out.kernels += 2.0;
        } else {
            out.bytes += (up + 1.0) * e * x.tokens * x.ffn / x.t;
            out.kernels += 1.0;
        }
    }
    return out;
}

} // namespace railyard::compute
