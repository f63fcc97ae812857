#!/usr/bin/env bash
# Railyard's run/test wrapper. On a fresh Debian 12 machine:
#   ./railyard.sh            install what is missing, build (Release) and open the GUI
#   ./railyard.sh test       the same set-up, then run the whole test suite
#   ./railyard.sh bench      the same set-up, then run the engine benchmarks
#   ./railyard.sh build      set-up and build only
set -euo pipefail
cd "$(dirname "$0")"

BUILD_DIR=${BUILD_DIR:-build}
PACKAGES=(cmake ninja-build g++ qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6svg6 qt6-base-dev-tools
          libboost-graph-dev nlohmann-json3-dev libgl1-mesa-dev libbenchmark-dev xvfb xauth
          openmpi-bin fonts-dejavu-core)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "railyard: installing ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

configure_and_build() {
  local extra=()
  [ "${CI:-}" = "true" ] && extra+=(-DCMAKE_COMPILE_WARNING_AS_ERROR=ON)
  cmake -S . -B "$BUILD_DIR" -G Ninja -DCMAKE_BUILD_TYPE=Release "${extra[@]}" ${CMAKE_ARGS:-}
  cmake --build "$BUILD_DIR" --parallel "$(nproc)"
}

cmd=${1:-run}
shift || true
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
    echo "usage: $0 [run|test|bench|build]" >&2; exit 2 ;;
esac
