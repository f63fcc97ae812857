#!/bin/sh
# Regenerates the pictures of docs/getting-started.md and docs/whiteboard-session.md with the
# explorer's own --screenshot, offscreen on screens of the sizes the layout tests check
# (1280x720, 1920x1080, 1920x1080 at QT_SCALE_FACTOR=2), from the samples.
#   docs/images/regenerate.sh [BINDIR]      BINDIR holds railyard and railyard-cli (build/bin)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
bin=$(cd "${1:-$top/build/bin}" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Qt's offscreen platform takes its screen from a JSON description (as tests/gui/tst_layout.cpp
# writes it): one 1280x720 screen at 96 dpi.
cat > "$work/screen.json" <<'JSON'
{"windowFrameMargins": false, "screens": [{"name": "doc", "x": 0, "y": 0, "width": 1280, "height": 720, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}
JSON
export QT_QPA_PLATFORM="offscreen:configfile=$work/screen.json"
seed="$top/samples/seed-128.json"

# 1. The window as it opens on the example job.
"$bin/railyard" --size 1280x720 --screenshot "$here/getting-started-window.png" "$seed"

# 2. After swapping ranks 0 and 9, against the job as it was (the baseline pinned first).
"$bin/railyard-cli" export "$seed" --swap 0:9 --format mapping-json -o "$work/swapped.mapping.json"
"$bin/railyard-cli" import-mapping "$seed" --mapping "$work/swapped.mapping.json" -o "$work/seed-128.json"
"$bin/railyard" --size 1280x720 --baseline "$seed" --panel compare \
    --screenshot "$here/getting-started-swap.png" "$work/seed-128.json"

# 3. The export dialog on the Slurm format.
"$bin/railyard" --size 1280x720 --export-dialog slurm \
    --screenshot "$here/getting-started-export.png" "$seed"

# 4. The whiteboard sample in the window and on the stage (presentation mode, a small room) at
#    each size the stage's layout test checks.
shot() { # NAME WIDTH HEIGHT SCALE [--presentation]
  name=$1 w=$2 h=$3 scale=$4
  shift 4
  printf '{"windowFrameMargins": false, "screens": [{"name": "doc", "x": 0, "y": 0, "width": %d, "height": %d, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}]}' \
    "$w" "$h" > "$work/screen-$name.json"
  lw=$(awk "BEGIN { print int($w / $scale) }") lh=$(awk "BEGIN { print int($h / $scale) }")
  QT_SCALE_FACTOR=$scale QT_QPA_PLATFORM="offscreen:configfile=$work/screen-$name.json" \
    "$bin/railyard" --size "${lw}x${lh}" --room small "$@" \
    --screenshot "$here/stage-$name.png" "$top/samples/seed-128-whiteboard.json"
}
shot 1280x720 1280 720 1
shot 1280x720-presentation 1280 720 1 --presentation
shot 1920x1080 1920 1080 1
shot 1920x1080-presentation 1920 1080 1 --presentation
shot scale2 1920 1080 2
shot scale2-presentation 1920 1080 2 --presentation
