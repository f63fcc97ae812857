# Megatron-LM arguments (bash arrays; source this file)
# scenario "seed-128", mapping version 1, 128 ranks
# layout tp 8 x pp 4 x dp 4 x cp 1 x ep 1, order tp-cp-ep-dp-pp
# fabric "rail-optimised-16x8" (rail-optimised, 16 servers x 8 GPUs), fnv1a64:8fb88792f1f422ba
# world size 128: dp = world / (tp * pp * cp) = 4 is derived by Megatron.
MEGATRON_PARALLEL_ARGS=(
  --tensor-model-parallel-size 8
  --pipeline-model-parallel-size 4
  --sequence-parallel
)
MEGATRON_TRAINING_ARGS=(
  --micro-batch-size 1
  --global-batch-size 64
  --use-distributed-optimizer
  --overlap-grad-reduce
  --recompute-granularity selective
  --bf16
)
MEGATRON_MODEL_ARGS=(
  --num-layers 80
  --hidden-size 8192
  --num-attention-heads 64
  --group-query-attention
  --num-query-groups 8
  --ffn-hidden-size 28672
  --position-embedding-type rope
  --normalization RMSNorm
  --disable-bias-linear
  --swiglu
  --untie-embeddings-and-output-weights
  --attention-dropout 0.0
  --hidden-dropout 0.0
  --seq-length 4096
  --max-position-embeddings 4096
)
# vocabulary: 32000 tokens (set by the tokenizer). Fused attention: --use-flash-attn (older Megatron-LM) or --attention-backend flash (newer).
# usage: torchrun ... pretrain_gpt.py "${MEGATRON_PARALLEL_ARGS[@]}" "${MEGATRON_TRAINING_ARGS[@]}" "${MEGATRON_MODEL_ARGS[@]}" <data, tokenizer, optimizer args>
