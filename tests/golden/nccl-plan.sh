#!/bin/sh
# nccl-tests measurement plan: sh FILE
# scenario "seed-128", mapping version 1, 128 ranks
# layout tp 8 x pp 4 x dp 4 x cp 1 x ep 1, order tp-cp-ep-dp-pp
# fabric "rail-optimised-16x8" (rail-optimised, 16 servers x 8 GPUs), fnv1a64:8fb88792f1f422ba
#
# The seed's order: the fixed-(d,p) TP group, then adjacent-p boundaries, then the
# fixed-(p,t) DP reduction (then EP / CP groups), each with the workload's real message
# size, first one group alone, then every group of its kind at once ("-all"), each
# process pinned to the GPU and NIC of this mapping. Compare nccl-tests' busbw column
# (GB/s = 1e9 bytes/s) with the engine's prediction above each run.
# sendrecv_perf with 2 ranks sends both ways at once; links are full duplex, so its
# time compares with one direction's prediction.
# Every run pins NCCL_ALGO to the algorithm of the prediction where NCCL has it and
# sets NCCL_PXN_DISABLE=1 (the fabric model has no PXN; NCCL enables it by default).
# The script stops at the first run whose mpirun fails or whose log reports wrong
# values (nccl-tests' #wrong columns, "Out of bounds values"), naming the run.
#
# Needs: nccl-tests built with MPI=1 (github.com/NVIDIA/nccl-tests), Open MPI's mpirun,
# ssh to every host and $RESULTS on a file system every host sees.
# Environment: NCCL_TESTS_DIR (./build), HCA_PREFIX (NIC i is ${HCA_PREFIX}i, default
# mlx5_), MPIRUN (mpirun), MPIRUN_ARGS (extra options), RESULTS (./nccl-results).
set -eu
NCCL_TESTS_DIR=${NCCL_TESTS_DIR:-./build}
HCA_PREFIX=${HCA_PREFIX:-mlx5_}
MPIRUN=${MPIRUN:-mpirun}
MPIRUN_ARGS=${MPIRUN_ARGS:-}
RESULTS=${RESULTS:-./nccl-results}
mkdir -p "$RESULTS"
# Run by mpirun for every process: world rank r takes the r-th word of RY_GPUS / RY_NICS.
cat > "$RESULTS/ry-bind.sh" <<'EOF'
#!/bin/sh
r=${OMPI_COMM_WORLD_RANK:?ry-bind.sh runs under Open MPI mpirun}
g=$(echo "$RY_GPUS" | cut -d' ' -f$((r + 1)))
n=$(echo "$RY_NICS" | cut -d' ' -f$((r + 1)))
export CUDA_VISIBLE_DEVICES="$g" NCCL_TESTS_DEVICE=0 NCCL_IB_HCA="=${RY_HCA_PREFIX}${n}"
exec "$@"
EOF
# Prints the number of wrong values a nccl-tests log reports (nothing when 0): the
# data rows' #wrong columns (found from the header) and the "Out of bounds values" line.
ry_wrong() {
  awk '/^#/ && /#wrong/ { n = 0; for (i = 2; i <= NF; i++) if ($i == "#wrong") col[++n] = i - 1; next }
    /Out of bounds values/ { split($0, a, ":"); v = a[2] + 0; if (v > oob) oob = v; next }
    /^#/ { next }
    $1 ~ /^[0-9]+$/ { for (k = 1; k <= n; k++) { v = $(col[k]); if (v ~ /^[0-9]+$/) rows += v } }
    END { w = rows > oob ? rows : oob; if (w > 0) print w }' "$1"
}
# ry_test NAME SPLIT HOSTS GPUS NICS ALGO BINARY ARGS...: one run, output in $RESULTS/NAME.log
ry_test() {
  name=$1 split=$2 hosts=$3 gpus=$4 nics=$5 algo=$6 bin=$7
  shift 7
  log="$RESULTS/$name.log"
  printf '%s\n' $hosts > "$RESULTS/$name.hosts"
  rm -f "$RESULTS/$name.status"
  echo "== $name"
  { st=0
    $MPIRUN $MPIRUN_ARGS -np "$(wc -l < "$RESULTS/$name.hosts")" \
      --hostfile "$RESULTS/$name.hosts" --map-by seq --bind-to none \
      -x RY_GPUS="$gpus" -x RY_NICS="$nics" -x RY_HCA_PREFIX="$HCA_PREFIX" \
      -x NCCL_TESTS_SPLIT="$split" -x NCCL_PXN_DISABLE=1 ${algo:+-x NCCL_ALGO=$algo} \
      sh "$RESULTS/ry-bind.sh" "$NCCL_TESTS_DIR/$bin" -g 1 "$@" 2>&1 || st=$?
    echo "$st" > "$RESULTS/$name.status"
  } | tee "$log"
  st=$(cat "$RESULTS/$name.status" 2>/dev/null || echo 1)
  if [ "$st" != 0 ]; then
    echo "$0: run $name failed: mpirun exited with status $st (log: $log)" >&2
    exit 1
  fi
  wrong=$(ry_wrong "$log")
  if [ -n "$wrong" ]; then
    echo "$0: run $name failed: nccl-tests reports $wrong wrong values (log: $log)" >&2
    exit 1
  fi
}

# ==== tp groups (fixed (d, p): tensor parallel) ====

# tp-all-gather-67108864: all-gather of 67108864 B (67.1 MB): attention all-gather (20 per micro-batch), attention all-gather (backward) (20 per micro-batch), attention all-gather (backward re-gather) (20 per micro-batch), MLP all-gather (20 per micro-batch), MLP all-gather (backward) (20 per micro-batch), MLP all-gather (backward re-gather) (20 per micro-batch), embedding gradient (1 per micro-batch), output-layer all-gather (1 per micro-batch), output-layer all-gather (backward re-gather) (1 per micro-batch)
# ranks 0-7 (first d0 p0 t0 c0 e0) on node000:0 node000:1 node000:2 node000:3 node000:4 node000:5 node000:6 node000:7 (host:GPU)
# predicted: 195.1 us, algbw 343.97 GB/s, busbw 300.97 GB/s (bottleneck node000/gpu0 -> node000/nvswitch)
# NCCL_ALGO: Ring
ry_test tp-all-gather-67108864 "DIV 8" "node000 node000 node000 node000 node000 node000 node000 node000" "0 1 2 3 4 5 6 7" "0 1 2 3 4 5 6 7" "Ring" all_gather_perf -b 67108864 -e 67108864 -d bfloat16

# tp-all-gather-67108864-all: all-gather of 67108864 B (67.1 MB): attention all-gather (20 per micro-batch), attention all-gather (backward) (20 per micro-batch), attention all-gather (backward re-gather) (20 per micro-batch), MLP all-gather (20 per micro-batch), MLP all-gather (backward) (20 per micro-batch), MLP all-gather (backward re-gather) (20 per micro-batch), embedding gradient (1 per micro-batch), output-layer all-gather (1 per micro-batch), output-layer all-gather (backward re-gather) (1 per micro-batch)
# 4 groups at once, 32 ranks (engine phase "tp fwd stage 0: attention all-gather")
# predicted: 195.1 us, algbw 343.97 GB/s, busbw 300.97 GB/s (bottleneck node000/gpu0 -> node000/nvswitch)
# NCCL_ALGO: Ring
ry_test tp-all-gather-67108864-all "DIV 8" "node000 node000 node000 node000 node000 node000 node000 node000 node001 node001 node001 node001 node001 node001 node001 node001 node002 node002 node002 node002 node002 node002 node002 node002 node003 node003 node003 node003 node003 node003 node003 node003" "0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7" "0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7" "Ring" all_gather_perf -b 67108864 -e 67108864 -d bfloat16

# tp-reduce-scatter-67108864: reduce-scatter of 67108864 B (67.1 MB): attention reduce-scatter (20 per micro-batch), attention reduce-scatter (backward) (20 per micro-batch), MLP reduce-scatter (20 per micro-batch), MLP reduce-scatter (backward) (20 per micro-batch), embedding output (1 per micro-batch), output-layer reduce-scatter (1 per micro-batch)
# ranks 0-7 (first d0 p0 t0 c0 e0) on node000:0 node000:1 node000:2 node000:3 node000:4 node000:5 node000:6 node000:7 (host:GPU)
# predicted: 195.1 us, algbw 343.97 GB/s, busbw 300.97 GB/s (bottleneck node000/gpu0 -> node000/nvswitch)
# NCCL_ALGO: Ring
ry_test tp-reduce-scatter-67108864 "DIV 8" "node000 node000 node000 node000 node000 node000 node000 node000" "0 1 2 3 4 5 6 7" "0 1 2 3 4 5 6 7" "Ring" reduce_scatter_perf -b 67108864 -e 67108864 -d bfloat16

# tp-reduce-scatter-67108864-all: reduce-scatter of 67108864 B (67.1 MB): attention reduce-scatter (20 per micro-batch), attention reduce-scatter (backward) (20 per micro-batch), MLP reduce-scatter (20 per micro-batch), MLP reduce-scatter (backward) (20 per micro-batch), embedding output (1 per micro-batch), output-layer reduce-scatter (1 per micro-batch)
# 4 groups at once, 32 ranks (engine phase "tp fwd stage 0: attention reduce-scatter")
# predicted: 195.1 us, algbw 343.97 GB/s, busbw 300.97 GB/s (bottleneck node000/gpu0 -> node000/nvswitch)
# NCCL_ALGO: Ring
ry_test tp-reduce-scatter-67108864-all "DIV 8" "node000 node000 node000 node000 node000 node000 node000 node000 node001 node001 node001 node001 node001 node001 node001 node001 node002 node002 node002 node002 node002 node002 node002 node002 node003 node003 node003 node003 node003 node003 node003 node003" "0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7" "0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7" "Ring" reduce_scatter_perf -b 67108864 -e 67108864 -d bfloat16

# tp-all-reduce-16384: all-reduce of 16384 B (16.4 kB): cross-entropy all-reduce (3 per micro-batch)
# ranks 96-103 (first d0 p3 t0 c0 e0) on node012:0 node012:1 node012:2 node012:3 node012:4 node012:5 node012:6 node012:7 (host:GPU)
# predicted: 23.6 us, algbw 0.70 GB/s, busbw 1.22 GB/s (bottleneck node012/gpu0 -> node012/nvswitch)
# NCCL_ALGO: Ring
ry_test tp-all-reduce-16384 "DIV 8" "node012 node012 node012 node012 node012 node012 node012 node012" "0 1 2 3 4 5 6 7" "0 1 2 3 4 5 6 7" "Ring" all_reduce_perf -b 16384 -e 16384 -d float

# tp-all-reduce-16384-all: all-reduce of 16384 B (16.4 kB): cross-entropy all-reduce (3 per micro-batch)
# 4 groups at once, 32 ranks (engine phase "tp fwd stage 3: cross-entropy all-reduce")
# predicted: 23.6 us, algbw 0.70 GB/s, busbw 1.22 GB/s (bottleneck node012/gpu0 -> node012/nvswitch)
# NCCL_ALGO: Ring
ry_test tp-all-reduce-16384-all "DIV 8" "node012 node012 node012 node012 node012 node012 node012 node012 node013 node013 node013 node013 node013 node013 node013 node013 node014 node014 node014 node014 node014 node014 node014 node014 node015 node015 node015 node015 node015 node015 node015 node015" "0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7" "0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7 0 1 2 3 4 5 6 7" "Ring" all_reduce_perf -b 16384 -e 16384 -d float

# ==== pp groups (adjacent stages: pipeline boundaries) ====

# pp-boundary-0-1: send-recv of 8388608 B (8.39 MB): boundary 0->1 activation (and its gradient back)
# ranks 0, 32 (first d0 p0 t0 c0 e0) on node000:0 node004:0 (host:GPU)
# predicted: 170.8 us, algbw 49.12 GB/s, busbw 49.12 GB/s (bottleneck node000/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: NCCL's choice
ry_test pp-boundary-0-1 "DIV 2" "node000 node004" "0 0" "0 0" "" sendrecv_perf -b 8388608 -e 8388608 -d bfloat16

# pp-boundary-0-1-all: send-recv of 8388608 B (8.39 MB): boundary 0->1 activation (and its gradient back)
# 32 groups at once, 64 ranks (engine phase "pp fwd boundary 0->1")
# predicted: 170.8 us, algbw 49.12 GB/s, busbw 49.12 GB/s (bottleneck node000/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: NCCL's choice
ry_test pp-boundary-0-1-all "DIV 2" "node000 node004 node000 node004 node000 node004 node000 node004 node000 node004 node000 node004 node000 node004 node000 node004 node001 node005 node001 node005 node001 node005 node001 node005 node001 node005 node001 node005 node001 node005 node001 node005 node002 node006 node002 node006 node002 node006 node002 node006 node002 node006 node002 node006 node002 node006 node002 node006 node003 node007 node003 node007 node003 node007 node003 node007 node003 node007 node003 node007 node003 node007 node003 node007" "0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7" "0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7" "" sendrecv_perf -b 8388608 -e 8388608 -d bfloat16

# pp-boundary-1-2: send-recv of 8388608 B (8.39 MB): boundary 1->2 activation (and its gradient back)
# ranks 32, 64 (first d0 p1 t0 c0 e0) on node004:0 node008:0 (host:GPU)
# predicted: 170.8 us, algbw 49.12 GB/s, busbw 49.12 GB/s (bottleneck node004/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: NCCL's choice
ry_test pp-boundary-1-2 "DIV 2" "node004 node008" "0 0" "0 0" "" sendrecv_perf -b 8388608 -e 8388608 -d bfloat16

# pp-boundary-1-2-all: send-recv of 8388608 B (8.39 MB): boundary 1->2 activation (and its gradient back)
# 32 groups at once, 64 ranks (engine phase "pp fwd boundary 1->2")
# predicted: 170.8 us, algbw 49.12 GB/s, busbw 49.12 GB/s (bottleneck node004/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: NCCL's choice
ry_test pp-boundary-1-2-all "DIV 2" "node004 node008 node004 node008 node004 node008 node004 node008 node004 node008 node004 node008 node004 node008 node004 node008 node005 node009 node005 node009 node005 node009 node005 node009 node005 node009 node005 node009 node005 node009 node005 node009 node006 node010 node006 node010 node006 node010 node006 node010 node006 node010 node006 node010 node006 node010 node006 node010 node007 node011 node007 node011 node007 node011 node007 node011 node007 node011 node007 node011 node007 node011 node007 node011" "0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7" "0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7" "" sendrecv_perf -b 8388608 -e 8388608 -d bfloat16

# pp-boundary-2-3: send-recv of 8388608 B (8.39 MB): boundary 2->3 activation (and its gradient back)
# ranks 64, 96 (first d0 p2 t0 c0 e0) on node008:0 node012:0 (host:GPU)
# predicted: 170.8 us, algbw 49.12 GB/s, busbw 49.12 GB/s (bottleneck node008/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: NCCL's choice
ry_test pp-boundary-2-3 "DIV 2" "node008 node012" "0 0" "0 0" "" sendrecv_perf -b 8388608 -e 8388608 -d bfloat16

# pp-boundary-2-3-all: send-recv of 8388608 B (8.39 MB): boundary 2->3 activation (and its gradient back)
# 32 groups at once, 64 ranks (engine phase "pp fwd boundary 2->3")
# predicted: 170.8 us, algbw 49.12 GB/s, busbw 49.12 GB/s (bottleneck node008/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: NCCL's choice
ry_test pp-boundary-2-3-all "DIV 2" "node008 node012 node008 node012 node008 node012 node008 node012 node008 node012 node008 node012 node008 node012 node008 node012 node009 node013 node009 node013 node009 node013 node009 node013 node009 node013 node009 node013 node009 node013 node009 node013 node010 node014 node010 node014 node010 node014 node010 node014 node010 node014 node010 node014 node010 node014 node010 node014 node011 node015 node011 node015 node011 node015 node011 node015 node011 node015 node011 node015 node011 node015 node011 node015" "0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7" "0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7 0 0 1 1 2 2 3 3 4 4 5 5 6 6 7 7" "" sendrecv_perf -b 8388608 -e 8388608 -d bfloat16

# ==== dp groups (fixed (p, t): data-parallel gradient sync) ====

# dp-reduce-scatter-8690761728: reduce-scatter of 8690761728 B (8.69 GB): dense gradient reduce-scatter (1 per iteration)
# ranks 0, 8, 16, 24 (first d0 p0 t0 c0 e0) on node000:0 node001:0 node002:0 node003:0 (host:GPU)
# predicted: 138733.7 us, algbw 62.64 GB/s, busbw 46.98 GB/s (bottleneck node000/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: Ring
ry_test dp-reduce-scatter-8690761728 "DIV 4" "node000 node001 node002 node003" "0 0 0 0" "0 0 0 0" "Ring" reduce_scatter_perf -b 8690761728 -e 8690761728 -d float

# dp-reduce-scatter-8690761728-all: reduce-scatter of 8690761728 B (8.69 GB): dense gradient reduce-scatter (1 per iteration)
# 32 groups at once, 128 ranks (engine phase "dp sync: dense gradient reduce-scatter")
# predicted: 138733.7 us, algbw 62.64 GB/s, busbw 46.98 GB/s (bottleneck node012/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: Ring
ry_test dp-reduce-scatter-8690761728-all "DIV 4" "node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015" "0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7" "0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7" "Ring" reduce_scatter_perf -b 8690761728 -e 8690761728 -d float

# dp-all-gather-4345380864: all-gather of 4345380864 B (4.35 GB): dense parameter all-gather (1 per iteration)
# ranks 0, 8, 16, 24 (first d0 p0 t0 c0 e0) on node000:0 node001:0 node002:0 node003:0 (host:GPU)
# predicted: 69392.5 us, algbw 62.62 GB/s, busbw 46.97 GB/s (bottleneck node000/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: Ring
ry_test dp-all-gather-4345380864 "DIV 4" "node000 node001 node002 node003" "0 0 0 0" "0 0 0 0" "Ring" all_gather_perf -b 4345380864 -e 4345380864 -d bfloat16

# dp-all-gather-4345380864-all: all-gather of 4345380864 B (4.35 GB): dense parameter all-gather (1 per iteration)
# 32 groups at once, 128 ranks (engine phase "dp sync: dense parameter all-gather")
# predicted: 69392.5 us, algbw 62.62 GB/s, busbw 46.97 GB/s (bottleneck node012/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: Ring
ry_test dp-all-gather-4345380864-all "DIV 4" "node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node000 node001 node002 node003 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node004 node005 node006 node007 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node008 node009 node010 node011 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015 node012 node013 node014 node015" "0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7" "0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7 0 0 0 0 1 1 1 1 2 2 2 2 3 3 3 3 4 4 4 4 5 5 5 5 6 6 6 6 7 7 7 7" "Ring" all_gather_perf -b 4345380864 -e 4345380864 -d bfloat16

# dp-reduce-scatter-8556544000: reduce-scatter of 8556544000 B (8.56 GB): dense gradient reduce-scatter (1 per iteration)
# ranks 32, 40, 48, 56 (first d0 p1 t0 c0 e0) on node004:0 node005:0 node006:0 node007:0 (host:GPU)
# predicted: 136591.9 us, algbw 62.64 GB/s, busbw 46.98 GB/s (bottleneck node004/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: Ring
ry_test dp-reduce-scatter-8556544000 "DIV 4" "node004 node005 node006 node007" "0 0 0 0" "0 0 0 0" "Ring" reduce_scatter_perf -b 8556544000 -e 8556544000 -d float

# dp-all-gather-4278272000: all-gather of 4278272000 B (4.28 GB): dense parameter all-gather (1 per iteration)
# ranks 32, 40, 48, 56 (first d0 p1 t0 c0 e0) on node004:0 node005:0 node006:0 node007:0 (host:GPU)
# predicted: 68321.6 us, algbw 62.62 GB/s, busbw 46.96 GB/s (bottleneck node004/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: Ring
ry_test dp-all-gather-4278272000 "DIV 4" "node004 node005 node006 node007" "0 0 0 0" "0 0 0 0" "Ring" all_gather_perf -b 4278272000 -e 4278272000 -d bfloat16

# dp-reduce-scatter-8690765824: reduce-scatter of 8690765824 B (8.69 GB): dense gradient reduce-scatter (1 per iteration)
# ranks 96, 104, 112, 120 (first d0 p3 t0 c0 e0) on node012:0 node013:0 node014:0 node015:0 (host:GPU)
# predicted: 138733.7 us, algbw 62.64 GB/s, busbw 46.98 GB/s (bottleneck node012/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: Ring
ry_test dp-reduce-scatter-8690765824 "DIV 4" "node012 node013 node014 node015" "0 0 0 0" "0 0 0 0" "Ring" reduce_scatter_perf -b 8690765824 -e 8690765824 -d float

# dp-all-gather-4345382912: all-gather of 4345382912 B (4.35 GB): dense parameter all-gather (1 per iteration)
# ranks 96, 104, 112, 120 (first d0 p3 t0 c0 e0) on node012:0 node013:0 node014:0 node015:0 (host:GPU)
# predicted: 69392.5 us, algbw 62.62 GB/s, busbw 46.97 GB/s (bottleneck node012/nic0 -> leaf-su0-rail0)
# NCCL_ALGO: Ring
ry_test dp-all-gather-4345382912 "DIV 4" "node012 node013 node014 node015" "0 0 0 0" "0 0 0 0" "Ring" all_gather_perf -b 4345382912 -e 4345382912 -d bfloat16
