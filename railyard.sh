#!/usr/bin/env bash
# Railyard's run/test wrapper. On a fresh Debian 12 machine:
#   ./railyard.sh            install what is missing, build (Release) and open the GUI
#   ./railyard.sh test       the same set-up, then run the whole test suite
#   ./railyard.sh bench      the same set-up, then run the engine benchmarks
#   ./railyard.sh build      set-up and build only
#   ./railyard.sh sanitize   the same set-up, then build everything with ASan + UBSan (preset
#                            'asan', build-asan/) and run the whole test suite under it;
#                            --engine: only the suites without widgets (CTest label 'engine':
#                            model, loaders, fuzz regressions, the CLI's own code) but the
#                            validation replays of published runs (label 'validation') and
#                            the end-to-end CLI suites (label 'end-to-end'), what CI runs
#   ./railyard.sh fuzz [SECONDS]  install clang-14 + libFuzzer, build the fuzz preset and fuzz
#                            every reader of outside input (FUZZ_TARGETS) for SECONDS each
#                            (default 600)
#   ./railyard.sh packages [main|sanitize|fuzz|fresh]  print the apt packages a profile installs
#   ./railyard.sh install-profile PROFILE  install one profile's packages, build nothing
#
# Every package the build, the tests or a preset uses must be in these lists: the CTest test
# setup_packages (tests/setup/check_packages.sh) fails otherwise, naming the package.
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(cmake ninja-build g++ qt6-base-dev qt6-charts-dev libqt6opengl6-dev qt6-svg-dev libqt6svg6 qt6-base-dev-tools
          libboost-graph-dev nlohmann-json3-dev libgl1-mesa-dev libbenchmark-dev xvfb xauth
          openmpi-bin libopenmpi-dev fonts-dejavu-core ccache pkgconf libcli11-dev dpkg-dev desktop-file-utils
          groff-base poppler-utils mold libre2-dev python3-jsonschema python3-torch
          slurmctld slurm-client munge prometheus-node-exporter)
# The asan preset needs nothing more: GCC's libasan8/libubsan1 come with g++ (libgcc-12-dev).
SANITIZE_PACKAGES=()
# libclang-rt-14-dev holds libFuzzer and clang's sanitizer runtimes; it is only a Recommends of
# clang-14, which --no-install-recommends skips.
# llvm-14 holds llvm-symbolizer, which turns a fuzz crash's stack into file:line; lld-14 is the
# linker CMake picks beside clang-14 when present (linking 13 fully instrumented targets).
FUZZ_PACKAGES=(clang-14 libclang-rt-14-dev llvm-14 lld-14)
# tests/setup/fresh-machine.sh: a minimal Debian 12 root to run the quick start in.
FRESH_PACKAGES=(debootstrap)

packages_of() {
  case "$1" in
    main) printf '%s\n' "${PACKAGES[@]}" ;;
    sanitize) printf '%s\n' "${PACKAGES[@]}" "${SANITIZE_PACKAGES[@]}" ;;
    fuzz) printf '%s\n' "${PACKAGES[@]}" "${FUZZ_PACKAGES[@]}" ;;
    fresh) printf '%s\n' "${FRESH_PACKAGES[@]}" ;;
    *) echo "railyard: unknown package profile '$1' (main, sanitize, fuzz, fresh)" >&2; return 2 ;;
  esac
}

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}" "$@"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "railyard: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# ccache pays back only from a cache that already holds this tree's compiles. On an empty cache
# each miss preprocesses the file a second time and hashes the suite's 0.4 GB precompiled header
# on top of the compile: ten test suites took 40-42 s through an empty cache against 25-29 s
# without ccache and 11 s from a warm one (docs/performance.md, "Build and CI time"). So a
# developer's builds go through it, and under CI=true only when the cache already holds files
# (a CI machine that keeps its cache between runs); a fresh CI machine builds without it.
# RAILYARD_CCACHE=ON or OFF in the environment decides instead.
ccache_choice=()
choose_ccache() {
  local choice=${RAILYARD_CCACHE:-}
  if [ -z "$choice" ] && [ "${CI:-}" = "true" ]; then
    local files
    files=$(ccache --print-stats 2>/dev/null | awk -F'\t' '$1 == "files_in_cache" { print $2 }')
    if [ "${files:-0}" -gt 0 ]; then choice=ON; else choice=OFF; fi
    echo "railyard: CI build $([ "$choice" = ON ] && echo through || echo without) ccache" \
      "(${files:-0} files in its cache)"
  fi
  ccache_choice=()
  if [ -n "$choice" ]; then ccache_choice=("-DRAILYARD_CCACHE=$choice"); fi
}

configure_and_build() {
  local extra=()
  [ "${CI:-}" = "true" ] && extra+=(-DCMAKE_COMPILE_WARNING_AS_ERROR=ON)
  choose_ccache
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" "${ccache_choice[@]}" ${CMAKE_ARGS:-}
  cmake --build "$BUILD_DIR" --parallel "$(nproc)"
}

# Every fuzz target (tests/fuzz/fuzz_<name>.cpp; the fuzz build preset in CMakePresets.json
# lists the same): each reader of outside input.
FUZZ_TARGETS="scenario mapping topology nccltests cabling preflight hosts hotness searchpart serverpattern lesson autosave cli nccllog traininglog computecal slurmtopo nvsmi catalogue portcounters"

run_fuzzers() {
  local seconds=${1:-600}
  cmake --preset fuzz
  tests/setup/check_packages.sh --cache build-fuzz/CMakeCache.txt --profile fuzz
  cmake --build --preset fuzz --parallel "$(nproc)"
  # RAILYARD_FUZZ_TARGETS="topology cabling" fuzzes a subset.
  # -max_len: inputs up to 1 MiB, so size-dependent defects (quadratic loaders, deep nesting,
  # long rows) are within reach; libFuzzer's default -len_control still grows inputs slowly from
  # the seeds' sizes, so short inputs come first. -timeout: one input may take 10 s - a linear
  # loader reads 1 MiB in well under a second even under ASan + UBSan, so 10 s flags quadratic
  # or exponential work (issue #40: 1.2 MB took 34 s) rather than an honest slow input.
  for target in ${RAILYARD_FUZZ_TARGETS:-$FUZZ_TARGETS}; do
    local corpus="build-fuzz/corpus-$target"
    local dict="tests/fuzz/$target.dict"
    [ -f "$dict" ] || dict=tests/fuzz/scenario.dict
    mkdir -p "$corpus"
    echo "railyard: fuzzing the $target reader for ${seconds}s (corpus $corpus)"
    "build-fuzz/bin/fuzz_$target" "$corpus" "tests/fuzz/corpus/$target" \
      -max_total_time="$seconds" -max_len=1048576 -timeout=10 -rss_limit_mb=4096 \
      -malloc_limit_mb=512 -dict="$dict" -print_final_stats=1
  done
}

cmd=${1:-run}
shift || true
case "$cmd" in
  packages)
    packages_of "${1:-main}"
    exit $? ;;
  install-profile)
    # Installs one profile's packages only (no build): used by tests/setup/fresh-machine.sh.
    mapfile -t wanted < <(packages_of "${1:-main}")
    PACKAGES=()
    install_missing "${wanted[@]}"
    exit 0 ;;
  fuzz)
    install_missing "${FUZZ_PACKAGES[@]}"
    run_fuzzers "$@"
    exit 0 ;;
  sanitize)
    install_missing "${SANITIZE_PACKAGES[@]}"
    choose_ccache
    cmake --preset asan "${ccache_choice[@]}"
    if [ "${1:-}" = "--engine" ]; then
      shift
      cmake --build --preset asan --target railyard_engine_tests --parallel "$(nproc)"
      ctest --preset asan -j "$(nproc)" -L engine -LE 'validation|end-to-end' "$@"
    else
      cmake --build --preset asan --parallel "$(nproc)"
      ctest --preset asan -j "$(nproc)" "$@"
    fi
    exit 0 ;;
esac
install_missing
configure_and_build
case "$cmd" in
  run)
    exec "$BUILD_DIR/bin/railyard" "$@" ;;
  test)
    QT_QPA_PLATFORM=offscreen ctest --test-dir "$BUILD_DIR" --output-on-failure -j "$(nproc)" "$@" ;;
  bench)
    "$BUILD_DIR/bin/bench" "$@" ;;
  build)
    ;;
  *)
    echo "usage: $0 [run|test|bench|build|sanitize|fuzz [SECONDS]|packages [PROFILE]]" >&2; exit 2 ;;
esac
