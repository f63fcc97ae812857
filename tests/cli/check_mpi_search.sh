#!/bin/sh
# `mpirun -np 2 railyard-cli search ...` prints exactly what the serial search prints: the two
# ranks each search half of the candidate list, rank 0 gathers and merges, rank 1 prints nothing.
# The same for `railyard-cli fabric-search` (its designs shared the same way).
# Usage: check_mpi_search.sh RAILYARD_CLI
set -eu
cli=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# Under the sanitizers (the asan test preset) the ranks run without LeakSanitizer: Open MPI keeps
# its components' allocations to process exit and its libraries have no frame pointers, so its
# leaks cannot be told from ours by their stacks. The serial run before each mpirun checks the
# same code for leaks.
ranks_asan=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0
set -- search --model llama3-8b --fabric rail-optimised --gpus 32 --global-batch 128 \
  --max-cp 1 --max-micro-batch 1 --schedules 1f1b,gpipe --recompute selective \
  --placements packed,scattered --top 4 --json
"$cli" "$@" >"$dir/serial.json"
# As root Open MPI wants both variables; in a container the shared-memory and self transports
# are all two local ranks need.
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=$ranks_asan \
  mpirun -np 2 --oversubscribe --mca btl self,vader "$cli" "$@" >"$dir/mpi.json"
test -s "$dir/serial.json"
if cmp "$dir/serial.json" "$dir/mpi.json"; then
  echo "mpirun -np 2 search equals the serial search ($(wc -c <"$dir/serial.json") bytes)"
else
  echo "mpirun -np 2 search differs from the serial search:"
  diff "$dir/serial.json" "$dir/mpi.json" | head -20
  exit 1
fi

# fabric-search: the seed job's designs over two ranks.
set -- fabric-search "$(dirname "$0")/../../samples/seed-128.json" --json
"$cli" "$@" >"$dir/fabric-serial.json"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 ASAN_OPTIONS=$ranks_asan \
  mpirun -np 2 --oversubscribe --mca btl self,vader "$cli" "$@" >"$dir/fabric-mpi.json"
test -s "$dir/fabric-serial.json"
if cmp "$dir/fabric-serial.json" "$dir/fabric-mpi.json"; then
  echo "mpirun -np 2 fabric-search equals the serial fabric-search"
else
  echo "mpirun -np 2 fabric-search differs from the serial fabric-search:"
  diff "$dir/fabric-serial.json" "$dir/fabric-mpi.json" | head -20
  exit 1
fi
