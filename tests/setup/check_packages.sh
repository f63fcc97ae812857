#!/usr/bin/env bash
# Checks that everything a build used comes from railyard.sh's install list, as a fresh Debian 12
# machine would get it from `apt-get install --no-install-recommends`.
#
#   check_packages.sh --cache BUILD/CMakeCache.txt [--profile main|sanitize|fuzz]
#                     [--binary FILE]... [--tool NAME]... [--file PATH]... [--without PKG]...
#
# What counts as "used":
#   - every package config CMake resolved (the cache's *_DIR entries under /usr), by the Debian
#     package that owns its *Config.cmake / *-config.cmake;
#   - every program the cache found by path (FILEPATH entries: the compiler, the build tool,
#     binutils, ccache, pkg-config);
#   - every shared library the given binaries load (ldd), e.g. the sanitizer runtimes;
#   - every tool the tests run (--tool NAME, looked up on PATH);
#   - every other file the tests read from the system (--file PATH: a Python module, say).
# Each owner must lie in the set of packages that `apt-get install --no-install-recommends LIST`
# would install on an empty system: apt-get resolves LIST against an empty dpkg status
# (-o Dir::State::status=/dev/null, --simulate), so alternatives and virtual packages are
# resolved the way apt really resolves them, not over-approximated. Debian's Essential packages
# (always present) are added.
#
# --without PKG drops PKG from the list first: the suite uses it to show that the check fails
# when a needed package is missing. Exit 0 when everything is covered, 1 with one line per
# missing package (naming the file that needs it and the list to add it to), 2 on bad usage.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
cache="" profile=main
binaries=() tools=() files=() without=()
while [ $# -gt 0 ]; do
  case "$1" in
    --cache) cache=$2; shift 2 ;;
    --profile) profile=$2; shift 2 ;;
    --binary) binaries+=("$2"); shift 2 ;;
    --tool) tools+=("$2"); shift 2 ;;
    --file) files+=("$2"); shift 2 ;;
    --without) without+=("$2"); shift 2 ;;
    *) echo "check_packages: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -f "$cache" ] || { echo "check_packages: no CMake cache at '$cache' (pass --cache)" >&2; exit 2; }
for c in dpkg-query apt-get; do
  command -v "$c" >/dev/null || { echo "check_packages: '$c' not found: this check needs a Debian system" >&2; exit 2; }
done

mapfile -t list < <("$top/railyard.sh" packages "$profile")
[ ${#list[@]} -gt 0 ] || { echo "check_packages: railyard.sh lists no packages for profile '$profile'" >&2; exit 2; }
if [ ${#without[@]} -gt 0 ]; then
  kept=()
  for p in "${list[@]}"; do
    skip=0
    for w in "${without[@]}"; do [ "$p" = "$w" ] && skip=1; done
    [ $skip -eq 1 ] || kept+=("$p")
  done
  list=("${kept[@]}")
fi
listname="PACKAGES in railyard.sh"
[ "$profile" = main ] || listname="PACKAGES or the $profile list (railyard.sh packages $profile) in railyard.sh"

# What apt-get would install on an empty system for this list ("Inst pkg (version ...)").
sim=$(apt-get install --simulate --no-install-recommends -qq -o Dir::State::status=/dev/null \
        -o Debug::NoLocking=1 "${list[@]}" 2>&1)
if [ $? -ne 0 ]; then
  echo "check_packages: apt-get cannot resolve the list (run 'apt-get update' once on this machine):" >&2
  echo "$sim" | tail -n 5 >&2
  exit 2
fi
closure=$( { echo "$sim" | awk '$1 == "Inst" {print $2}';
             dpkg-query -W -f='${Package} ${Essential}\n' | awk '$2 == "yes" {print $1}'; } |
           sed 's/:.*$//' | sort -u)
[ -n "$closure" ] || { echo "check_packages: empty closure for '${list[*]}'" >&2; exit 2; }

# Files to check, gathered first and looked up in one dpkg-query call (one call per file costs
# a scan of dpkg's whole file database each time).
missing_tools=()
paths=()
whats=()
need() { # need PATH WHAT
  paths+=("$1")
  whats+=("$2")
}

# 1. Package configs CMake resolved.
while IFS= read -r line; do
  var=${line%%:*}
  dir=${line#*=}
  cfg=$(ls "$dir"/*Config.cmake "$dir"/*-config.cmake 2>/dev/null | head -n 1)
  [ -n "$cfg" ] && need "$(realpath "$cfg")" "$var, found by find_package"
done < <(grep -E '^[A-Za-z0-9_]+_DIR:(PATH|INTERNAL)=/usr' "$cache")

# 2. Every program CMake found by path: compiler, build tool, binutils, ccache, pkg-config.
#    (Libraries found by path, e.g. an optional libGLU, count only when a binary loads them: 3.)
while IFS= read -r line; do
  var=${line%%:*}
  path=${line#*=}
  [ -f "$path" ] && [ -x "$path" ] && [[ "$path" != *.so* ]] && need "$(realpath "$path")" "$var"
done < <(grep -E '^[A-Za-z0-9_]+:FILEPATH=/usr' "$cache")

# 3. Shared libraries the binaries load, but the build's own (the sanitizer build's libraries).
build_dir=$(realpath "$(dirname "$cache")")
for bin in "${binaries[@]}"; do
  [ -x "$bin" ] || { echo "check_packages: --binary '$bin' is not an executable" >&2; exit 2; }
  while IFS= read -r lib; do
    lib=$(realpath "$lib")
    [[ "$lib" == "$build_dir"/* ]] && continue
    need "$lib" "loaded by $(basename "$bin")"
  done < <(ldd "$bin" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// {print $3}')
done

# 4. Tools the tests run.
for tool in "${tools[@]}"; do
  path=$(command -v "$tool")
  if [ -z "$path" ]; then
    missing_tools+=("$tool")
    continue
  fi
  need "$(realpath "$path")" "the tool '$tool' the tests run"
done

# 5. Other files the tests read.
for file in "${files[@]}"; do
  [ -e "$file" ] || { missing_tools+=("$file"); continue; }
  need "$(realpath "$file")" "read by the tests"
done

# path -> owning package (arch qualifier dropped). Debian 12 merges /usr (/bin -> /usr/bin,
# /lib -> /usr/lib): dpkg records either spelling, so both are asked for.
declare -A owner=()
queries=()
for path in "${paths[@]}"; do
  case "$path" in
    /usr/*) queries+=("$path" "${path#/usr}") ;;
    /*) queries+=("$path" "/usr$path") ;;
  esac
done
if [ ${#queries[@]} -gt 0 ]; then
  while IFS= read -r line; do
    pkgs=${line%%: /*}
    file=/${line#*: /}
    pkg=${pkgs%%,*}
    owner[$file]=${pkg%%:*}
  done < <(dpkg-query -S "${queries[@]}" 2>/dev/null || true)
fi

declare -A why=()
checked=0
for i in "${!paths[@]}"; do
  path=${paths[$i]}
  case "$path" in
    /usr/*) alt=${path#/usr} ;;
    *) alt=/usr$path ;;
  esac
  pkg=${owner[$path]:-${owner[$alt]:-}}
  if [ -z "$pkg" ]; then
    echo "check_packages: note: $path (${whats[$i]}) belongs to no Debian package; not checked" >&2
    continue
  fi
  checked=$((checked + 1))
  grep -qx "$pkg" <<<"$closure" && continue
  [ -n "${why[$pkg]:-}" ] || why[$pkg]="$path (${whats[$i]})"
done

if [ ${#why[@]} -gt 0 ] || [ ${#missing_tools[@]} -gt 0 ]; then
  for pkg in "${!why[@]}"; do
    echo "missing package: $pkg, needed by ${why[$pkg]}, is not installed by $listname: add it there"
  done | sort
  for tool in "${missing_tools[@]}"; do
    echo "missing tool: '$tool', which the tests run, is not on PATH: add the package that provides it to $listname"
  done
  exit 1
fi
echo "check_packages: $checked files checked; every owner is installed by $listname (profile $profile, ${#list[@]} packages, closure of $(wc -l <<<"$closure"))"
exit 0
