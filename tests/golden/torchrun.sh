#!/bin/sh
# torchrun launch: run this script on every node
# scenario "seed-128", mapping version 1, 128 ranks
# layout tp 8 x pp 4 x dp 4 x cp 1 x ep 1, order tp-cp-ep-dp-pp
# fabric "rail-optimised-16x8" (rail-optimised, 16 servers x 8 GPUs), fnv1a64:8fb88792f1f422ba
# torchrun numbers ranks node-major (RANK = node_rank * nproc_per_node + LOCAL_RANK)
# and the program uses cuda:LOCAL_RANK, so each node lists its GPUs in local-rank order
# in CUDA_VISIBLE_DEVICES, and each rank gets its NIC in NCCL_IB_HCA. The host is
# matched by its short name (an FQDN matches too); RAILYARD_HOST overrides it.
set -eu
if [ -z "${MASTER_ADDR:-}" ]; then MASTER_ADDR='node000'; fi
MASTER_PORT="${MASTER_PORT:-29500}"
# Every rank first runs the preflight: it exits non-zero, naming the rank, when the
# rank is not on the host, GPU and NIC the run record gives it.
if [ -z "${RAILYARD_CLI:-}" ]; then RAILYARD_CLI='railyard-cli'; fi
export RAILYARD_CLI
if [ -z "${RAILYARD_RECORD:-}" ]; then RAILYARD_RECORD='railyard.mapping.json'; fi
export RAILYARD_RECORD
host="${RAILYARD_HOST:-$(hostname)}"
case "${host%%.*}" in
  'node000') NODE_RANK=0; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 0-7
  'node001') NODE_RANK=1; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 8-15
  'node002') NODE_RANK=2; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 16-23
  'node003') NODE_RANK=3; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 24-31
  'node004') NODE_RANK=4; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 32-39
  'node005') NODE_RANK=5; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 40-47
  'node006') NODE_RANK=6; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 48-55
  'node007') NODE_RANK=7; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 56-63
  'node008') NODE_RANK=8; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 64-71
  'node009') NODE_RANK=9; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 72-79
  'node010') NODE_RANK=10; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 80-87
  'node011') NODE_RANK=11; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 88-95
  'node012') NODE_RANK=12; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 96-103
  'node013') NODE_RANK=13; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 104-111
  'node014') NODE_RANK=14; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 112-119
  'node015') NODE_RANK=15; CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7; RY_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7' ;;  # ranks 120-127
  *) echo "$0: host $host is not in this mapping" >&2; exit 1 ;;
esac
export CUDA_VISIBLE_DEVICES RY_HCAS
# NCCL as the engine modelled it (PXN off, algorithm auto).
export NCCL_PXN_DISABLE=1
# No NCCL_TOPO_FILE: the fabric has no PCI bus ids for it (railyard-cli import-topology
# records them from a server's NCCL_TOPO_DUMP_FILE).
exec torchrun --nnodes=16 --node-rank="$NODE_RANK" --nproc-per-node=8 \
  --master-addr="$MASTER_ADDR" --master-port="$MASTER_PORT" --no-python \
  sh -c 'set -eu
n=$((LOCAL_RANK + 1)); NCCL_IB_HCA="=$(echo "$RY_HCAS" | cut -d" " -f$n)"
export NCCL_IB_HCA
"$RAILYARD_CLI" preflight "$RAILYARD_RECORD" --mapping-version 1
exec "$@"' railyard-rank \
  "${PYTHON:-python3}" -u 'pretrain_gpt.py' "$@"
