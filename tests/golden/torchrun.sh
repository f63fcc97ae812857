#!/bin/sh
# torchrun launch: run this script on every node
# scenario "seed-128", mapping version 1, 128 ranks
# layout tp 8 x pp 4 x dp 4 x cp 1 x ep 1, order tp-cp-ep-dp-pp
# fabric "rail-optimised-16x8" (rail-optimised, 16 servers x 8 GPUs), fnv1a64:8fb88792f1f422ba
# torchrun numbers ranks node-major (RANK = node_rank * nproc_per_node + LOCAL_RANK)
# and the program uses cuda:LOCAL_RANK, so each node lists its GPUs in local-rank order
# in CUDA_VISIBLE_DEVICES. RAILYARD_HOST overrides the host name matched below.
set -eu
MASTER_ADDR=${MASTER_ADDR:-node000}
MASTER_PORT=${MASTER_PORT:-29500}
case "${RAILYARD_HOST:-$(hostname -s)}" in
  node000) NODE_RANK=0; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 0-7
  node001) NODE_RANK=1; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 8-15
  node002) NODE_RANK=2; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 16-23
  node003) NODE_RANK=3; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 24-31
  node004) NODE_RANK=4; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 32-39
  node005) NODE_RANK=5; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 40-47
  node006) NODE_RANK=6; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 48-55
  node007) NODE_RANK=7; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 56-63
  node008) NODE_RANK=8; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 64-71
  node009) NODE_RANK=9; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 72-79
  node010) NODE_RANK=10; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 80-87
  node011) NODE_RANK=11; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 88-95
  node012) NODE_RANK=12; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 96-103
  node013) NODE_RANK=13; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 104-111
  node014) NODE_RANK=14; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 112-119
  node015) NODE_RANK=15; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 ;;  # ranks 120-127
  *) echo "$0: host ${RAILYARD_HOST:-$(hostname -s)} is not in this mapping" >&2; exit 1 ;;
esac
export CUDA_VISIBLE_DEVICES
exec torchrun --nnodes=16 --node-rank="$NODE_RANK" --nproc-per-node=8 \
  --master-addr="$MASTER_ADDR" --master-port="$MASTER_PORT" \
  pretrain_gpt.py "$@"
