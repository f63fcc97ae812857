#!/bin/bash
# Slurm batch script: sbatch FILE [program arguments]
# scenario "seed-128", mapping version 1, 128 ranks
# layout tp 8 x pp 4 x dp 4 x cp 1 x ep 1, order tp-cp-ep-dp-pp
# fabric "rail-optimised-16x8" (rail-optimised, 16 servers x 8 GPUs), fnv1a64:8fb88792f1f422ba
#SBATCH --nodes=16
#SBATCH --ntasks=128
#SBATCH --nodelist=node000,node001,node002,node003,node004,node005,node006,node007,node008,node009,node010,node011,node012,node013,node014,node015
#SBATCH --gpus-per-node=8
#SBATCH --exclusive
#
# Task i is global rank i: srun --distribution=arbitrary places task i on line i of
# SLURM_HOSTFILE (srun(1)). The job holds whole nodes; each task then sees its node's
# GPUs in local-rank order in CUDA_VISIBLE_DEVICES and uses cuda:LOCAL_RANK, which is
# the GPU slot the mapping chose (a wrapper, since --gpu-bind=map_gpu applies one list
# to every node), and its NIC in NCCL_IB_HCA. RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR
# and MASTER_PORT are set for torch.distributed's env:// initialisation.
set -euo pipefail
export SLURM_HOSTFILE="${SLURM_HOSTFILE:-railyard-hosts.${SLURM_JOB_ID:-local}}"
cat > "$SLURM_HOSTFILE" <<'EOF'
node000
node000
node000
node000
node000
node000
node000
node000
node001
node001
node001
node001
node001
node001
node001
node001
node002
node002
node002
node002
node002
node002
node002
node002
node003
node003
node003
node003
node003
node003
node003
node003
node004
node004
node004
node004
node004
node004
node004
node004
node005
node005
node005
node005
node005
node005
node005
node005
node006
node006
node006
node006
node006
node006
node006
node006
node007
node007
node007
node007
node007
node007
node007
node007
node008
node008
node008
node008
node008
node008
node008
node008
node009
node009
node009
node009
node009
node009
node009
node009
node010
node010
node010
node010
node010
node010
node010
node010
node011
node011
node011
node011
node011
node011
node011
node011
node012
node012
node012
node012
node012
node012
node012
node012
node013
node013
node013
node013
node013
node013
node013
node013
node014
node014
node014
node014
node014
node014
node014
node014
node015
node015
node015
node015
node015
node015
node015
node015
EOF
# Node n's GPUs in local-rank order; per rank: its node n, its local rank, its NIC.
export RAILYARD_NODE_GPUS="0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7 0,1,2,3,4,5,6,7"
export RAILYARD_NODE="0 0 0 0 0 0 0 0 1 1 1 1 1 1 1 1 2 2 2 2 2 2 2 2 3 3 3 3 3 3 3 3 4 4 4 4 4 4 4 4 5 5 5 5 5 5 5 5 6 6 6 6 6 6 6 6 7 7 7 7 7 7 7 7 8 8 8 8 8 8 8 8 9 9 9 9 9 9 9 9 10 10 10 10 10 10 10 10 11 11 11 11 11 11 11 11 12 12 12 12 12 12 12 12 13 13 13 13 13 13 13 13 14 14 14 14 14 14 14 14 15 15 15 15 15 15 15 15"
export RAILYARD_LOCAL="0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7"
export RAILYARD_HCAS='mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7 mlx5_0 mlx5_1 mlx5_2 mlx5_3 mlx5_4 mlx5_5 mlx5_6 mlx5_7'
# Every rank first runs the preflight: it exits non-zero, naming the rank, when the
# rank is not on the host, GPU and NIC the run record gives it.
if [ -z "${RAILYARD_CLI:-}" ]; then RAILYARD_CLI='railyard-cli'; fi
export RAILYARD_CLI
if [ -z "${RAILYARD_RECORD:-}" ]; then RAILYARD_RECORD='railyard.mapping.json'; fi
export RAILYARD_RECORD
if [ -z "${MASTER_ADDR:-}" ]; then MASTER_ADDR='node000'; fi
export MASTER_ADDR
export MASTER_PORT="${MASTER_PORT:-29500}"
# NCCL as the engine modelled it (PXN off, algorithm auto).
export NCCL_PXN_DISABLE=1
# No NCCL_TOPO_FILE: the fabric has no PCI bus ids for it (railyard-cli import-topology
# records them from a server's NCCL_TOPO_DUMP_FILE).
srun --ntasks=128 --distribution=arbitrary bash -c '
  set -euo pipefail
  gpus=($RAILYARD_NODE_GPUS); node=($RAILYARD_NODE); lrank=($RAILYARD_LOCAL); hcas=($RAILYARD_HCAS)
  export CUDA_VISIBLE_DEVICES=${gpus[${node[$SLURM_PROCID]}]}
  export LOCAL_RANK=${lrank[$SLURM_PROCID]} RANK=$SLURM_PROCID WORLD_SIZE=$SLURM_NTASKS
  export NCCL_IB_HCA="=${hcas[$SLURM_PROCID]}"
  "$RAILYARD_CLI" preflight "$RAILYARD_RECORD" --mapping-version 1
  exec "$@"' railyard-task "${PYTHON:-python3}" -u 'pretrain_gpt.py' "$@"
