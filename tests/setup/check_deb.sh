#!/usr/bin/env bash
# Builds the Debian package from an already built tree and checks it like a user would:
#
#   check_deb.sh --build BUILD_DIR --version X.Y.Z
#
#   1. `cpack -G DEB` (into a temporary directory; nothing is rebuilt) makes one .deb whose
#      control fields are filled in and whose Depends (from dpkg-shlibdeps) name the Qt runtime
#      libraries the GUI loads;
#   2. `dpkg -x` unpacks it into a staging root: the binaries, the desktop entry (checked with
#      desktop-file-validate), the icons, the man page (rendered by groff without a warning),
#      the bash completion (bash -n) and the samples are where the FHS puts them;
#   3. the staged railyard-cli and railyard print their version without a display, railyard-cli
#      loads no Qt library, and it evaluates the staged samples/seed-128.json;
#   4. `DESTDIR=... cmake --install BUILD --prefix /usr` installs the same files as the package.
# Exit 0 when all holds, 1 with one line per failure.
set -uo pipefail

build="" version=""
while [ $# -gt 0 ]; do
  case "$1" in
    --build) build=$2; shift 2 ;;
    --version) version=$2; shift 2 ;;
    *) echo "check_deb: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -f "$build/CPackConfig.cmake" ] || { echo "check_deb: no CPackConfig.cmake in '$build' (pass --build)" >&2; exit 2; }
[ -n "$version" ] || { echo "check_deb: pass --version" >&2; exit 2; }

work=$(mktemp -d "${TMPDIR:-/tmp}/railyard-deb.XXXXXX")
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# 1. The package.
start=$(date +%s%N)
if ! cpack -G DEB --config "$build/CPackConfig.cmake" -B "$work/pkg" >"$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"
  echo "FAIL: cpack -G DEB failed"
  exit 1
fi
milliseconds=$(( ($(date +%s%N) - start) / 1000000 ))
mapfile -t debs < <(ls "$work"/pkg/*.deb 2>/dev/null)
[ ${#debs[@]} -eq 1 ] || { echo "FAIL: expected one .deb, got ${#debs[@]}: ${debs[*]}"; exit 1; }
deb=${debs[0]}
echo "package: $(basename "$deb"), $(stat -c %s "$deb") bytes, cpack took ${milliseconds} ms"

field() { dpkg-deb -f "$deb" "$1"; }
[ "$(field Package)" = railyard ] && pass "Package: railyard" || fail "Package is '$(field Package)', not railyard"
[ "$(field Version)" = "$version" ] && pass "Version: $version" || fail "Version is '$(field Version)', not $version"
for f in Maintainer Section Homepage Description Architecture Installed-Size; do
  [ -n "$(field "$f")" ] && pass "$f: $(field "$f" | head -n 1)" || fail "the $f field is empty"
done
[[ "$(field Maintainer)" =~ ^[^\<]+\ \<[^@\>]+@[^\>]+\>$ ]] || fail "Maintainer '$(field Maintainer)' is not 'Name <email>'"
depends=$(field Depends)
echo "Depends: $depends"
# The package names, without their versions: "libc6 (>= 2.34), libqt6core6 (...)" -> libc6 ...
mapfile -t names < <(sed 's/([^)]*)//g; s/,/\n/g' <<<"$depends" | tr -d ' ' | grep -v '^$')
for lib in libc6 libstdc++6 libqt6core6 libqt6gui6 libqt6widgets6 libqt6charts6 libqt6svg6; do
  printf '%s\n' "${names[@]}" | grep -Fqx "$lib" && pass "Depends lists $lib" || fail "Depends does not list $lib"
done

# 2. What it unpacks to.
root="$work/root"
dpkg -x "$deb" "$root" || { echo "FAIL: dpkg -x failed"; exit 1; }
for path in usr/bin/railyard usr/bin/railyard-cli; do
  [ -x "$root/$path" ] && pass "$path is executable" || fail "$path is missing or not executable"
done
for path in usr/share/applications/railyard.desktop \
            usr/share/icons/hicolor/scalable/apps/railyard.svg \
            usr/share/icons/hicolor/256x256/apps/railyard.png \
            usr/share/man/man1/railyard-cli.1 \
            usr/share/bash-completion/completions/railyard-cli \
            usr/share/railyard/samples/seed-128.json; do
  [ -s "$root/$path" ] && pass "$path is there" || fail "$path is missing or empty"
done
desktop="$root/usr/share/applications/railyard.desktop"
out=$(desktop-file-validate "$desktop" 2>&1) && [ -z "$out" ] && pass "desktop-file-validate accepts railyard.desktop" \
  || fail "desktop-file-validate: $out"
grep -qx 'Exec=railyard %f' "$desktop" && grep -qx 'Icon=railyard' "$desktop" \
  && pass "the desktop entry runs railyard with its icon" || fail "the desktop entry's Exec or Icon is wrong"
png="$root/usr/share/icons/hicolor/256x256/apps/railyard.png"
# PNG signature, then the IHDR chunk: width and height as 4-byte big-endian integers.
[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] \
  && [ "$(od -An -j16 -N8 -tx1 "$png" | tr -d ' \n')" = 0000010000000100 ] \
  && pass "railyard.png is a 256x256 PNG" || fail "railyard.png is not a 256x256 PNG"
man="$root/usr/share/man/man1/railyard-cli.1"
head -n 5 "$man" | grep -q '^\.TH RAILYARD\\-CLI 1' && pass "the man page has .TH" || fail "the man page has no .TH line"
warnings=$(groff -man -Tutf8 -ww -z "$man" 2>&1)
[ -z "$warnings" ] && pass "groff renders the man page without a warning" || fail "groff: $warnings"
completion="$root/usr/share/bash-completion/completions/railyard-cli"
bash -n "$completion" && pass "the bash completion parses (bash -n)" || fail "bash -n rejects the completion"

# 3. The staged binaries.
cli="$root/usr/bin/railyard-cli"
got=$("$cli" --version 2>&1)
[ "$got" = "railyard-cli $version" ] && pass "railyard-cli --version: $got" || fail "railyard-cli --version printed '$got'"
got=$(env -u DISPLAY -u WAYLAND_DISPLAY -u QT_QPA_PLATFORM "$root/usr/bin/railyard" --version 2>&1)
[ "$got" = "railyard $version" ] && pass "railyard --version (no display): $got" || fail "railyard --version printed '$got'"
needed=$(readelf -d "$cli" | awk '/NEEDED/ {print $NF}' | tr -d '[]' | tr '\n' ' ')
echo "railyard-cli needs: $needed"
grep -q 'libQt6' <<<"$needed" && fail "railyard-cli loads Qt: $needed" || pass "railyard-cli loads no Qt library"
cmp -s "$completion" <("$cli" completion bash) && pass "the installed completion is what 'railyard-cli completion bash' prints" \
  || fail "the installed completion differs from 'railyard-cli completion bash'"
sample="$root/usr/share/railyard/samples/seed-128.json"
if report=$("$cli" evaluate "$sample" 2>&1); then
  echo "staged evaluate, first line: $(head -n 1 <<<"$report")"
  grep -q '^Scenario *seed-128$' <<<"$report" && grep -q '^Iteration ' <<<"$report" \
    && pass "the staged railyard-cli evaluates the staged seed-128.json" \
    || fail "the staged evaluate printed no scenario/iteration lines"
else
  fail "the staged railyard-cli evaluate failed: $report"
fi

# 4. cmake --install with DESTDIR installs exactly the package's files.
if DESTDIR="$work/destdir" cmake --install "$build" --prefix /usr >"$work/install.log" 2>&1; then
  diff <(cd "$root" && find . -type f | sort) <(cd "$work/destdir" && find . -type f | sort) >"$work/files.diff" \
    && pass "DESTDIR cmake --install installs the package's $(cd "$root" && find . -type f | wc -l) files" \
    || fail "cmake --install and the package differ: $(tr '\n' ' ' <"$work/files.diff")"
else
  cat "$work/install.log"
  fail "DESTDIR=... cmake --install failed"
fi

if [ $failures -gt 0 ]; then
  echo "check_deb: $failures check(s) failed"
  exit 1
fi
echo "check_deb: every check passed"
