#!/usr/bin/env bash
# Proves the README's quick start on a machine that has nothing but a minimal Debian 12:
# debootstrap a bookworm root into DIR, clone this repository's HEAD into it, and run
# `./railyard.sh test` inside (chroot, as root, offscreen). Nothing the host has installed can
# help: the chroot starts from Debian's minimal variant and gets only what railyard.sh installs.
#
#   tests/setup/fresh-machine.sh [DIR]     (default /var/tmp/railyard-fresh; needs root)
#
# The minimal root is debootstrapped once into DIR.base and copied afresh to DIR for every run.
#
# It takes a while (debootstrap ~3 min, the install ~2 min, the build and the suite ~15 min on
# 2 cores) and is not part of CI, which itself starts from a fresh machine.
set -euo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
root=${1:-/var/tmp/railyard-fresh}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
[ "$(id -u)" -eq 0 ] || { echo "fresh-machine: run as root (debootstrap and chroot)" >&2; exit 2; }

"$top/railyard.sh" install-profile fresh
# Every run starts from the untouched minimal root (kept in DIR.base, debootstrapped once), so
# nothing an earlier run installed can help this one.
base=$root.base
if [ ! -x "$base/usr/bin/apt-get" ]; then
  echo "fresh-machine: debootstrap bookworm (minbase) into $base"
  rm -rf "$base"
  debootstrap --variant=minbase bookworm "$base" "$mirror"
fi
for fs in dev sys proc; do umount -R "$root/$fs" 2>/dev/null || true; done
rm -rf "$root"
cp -a "$base" "$root"
# git and CA certificates are what a user needs to clone; the rest must come from railyard.sh.
chroot "$root" /usr/bin/env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends git ca-certificates >/dev/null
rm -rf "$root/root/railyard"
git clone -q "$top" "$root/root/railyard"
for fs in proc sys dev; do mountpoint -q "$root/$fs" || mount --rbind "/$fs" "$root/$fs"; done
trap 'for fs in dev sys proc; do umount -R "$root/$fs" 2>/dev/null || true; done' EXIT
cp /etc/resolv.conf "$root/etc/resolv.conf"
echo "fresh-machine: ./railyard.sh test in the chroot"
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin CI=true \
  bash -c 'cd /root/railyard && ./railyard.sh test'
# The other quick-start command opens the GUI on the embedded scenario: here it renders the
# window offscreen to a PNG and exits, which proves the same set-up starts it.
chroot "$root" /usr/bin/env -i HOME=/root PATH=/usr/sbin:/usr/bin:/sbin:/bin QT_QPA_PLATFORM=offscreen \
  bash -c 'cd /root/railyard && ./railyard.sh run --screenshot /root/fresh-main-window.png'
[ -s "$root/root/fresh-main-window.png" ] || { echo "fresh-machine: the GUI wrote no screenshot" >&2; exit 1; }
echo "fresh-machine: both quick-start commands passed on a fresh Debian 12 root"
