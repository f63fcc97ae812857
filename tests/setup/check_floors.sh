#!/usr/bin/env bash
# Checks that no include in model/ runs up to a higher floor: a folder includes only its own
# files and those of the floors below it (docs/architecture.md, "Repository layout").
#
#   check_floors.sh [--source TOP]
#
# The floors, lowest first. `document/` is the undoable document layer (its own target, the
# only one with Qt) on top of the engine.
#   base      units, names, errors, limits, file and JSON readers
#   fabric    the fabric graph, its builders, the router
#   layout    degrees, the Megatron rank layout, placements, the mapping
#   workload  model, training, device and serving specs, compute model, names
#   scenario  the Scenario value and its file format (readers, writer, section checks)
#   cost      the cost engine and checkScenario()
#   export    exports of the mapping, the run record
#   io        reports as text and JSON, readers of NCCL topology, nccl-tests logs, cabling
#   studies   A/B comparison, failure remap, inference pools
#   optimise  placement optimiser, parallel-layout search
#   document  ScenarioDocument, commands, Evaluator
# Exit 0 when every include points down or sideways; 1 with one line per include that points
# up (FILE:LINE: the include, and the two floors); 2 on bad usage.
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
[ "${1:-}" = "--source" ] && { top=$2; shift 2; }
[ $# -eq 0 ] || { echo "check_floors: unknown argument '$1'" >&2; exit 2; }

floors=(base fabric layout workload scenario cost export io studies optimise document)
declare -A level=()
for i in "${!floors[@]}"; do level[${floors[$i]}]=$i; done

# Every folder of model/ must have a floor: a new folder fails here until it is placed.
status=0
for dir in "$top"/model/*/; do
  name=$(basename "$dir")
  [ -n "${level[$name]+x}" ] || { echo "model/$name/: no floor (add it to check_floors.sh and docs/architecture.md)"; status=1; }
done

checked=0
while IFS= read -r hit; do
  file=${hit%%:*}
  rest=${hit#*:}
  line=${rest%%:*}
  target=$(sed -E 's/.*#include "([a-z_]+)\/.*/\1/' <<<"$rest")
  from=$(cut -d/ -f2 <<<"${file#"$top"/}")
  checked=$((checked + 1))
  [ -n "${level[$target]+x}" ] || continue # not a model folder (a library's own header)
  if [ "${level[$target]}" -gt "${level[$from]}" ]; then
    echo "${file#"$top"/}:$line: includes $target/ (floor ${level[$target]}) from $from/ (floor ${level[$from]}): an include may only point down"
    status=1
  fi
done < <(grep -rnE '^#include "[a-z_]+/' --include='*.h' --include='*.cpp' "$top/model")
[ "$checked" -gt 100 ] || { echo "check_floors: only $checked includes found under $top/model"; exit 2; }
[ $status -eq 0 ] && echo "check_floors: $checked includes in model/, none points up (${floors[*]})"
exit $status
