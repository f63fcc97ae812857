#!/bin/sh
# Regenerates the pictures of docs/getting-started.md with the explorer's own --screenshot,
# offscreen on a 1280x720 screen (the size the layout tests check), from the samples.
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
