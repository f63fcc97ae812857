#!/usr/bin/env bash
# The slurm-topology export accepted by a real Slurm: Debian 12's slurm-wlm 22.05 with munge
# (railyard.sh installs slurmctld, slurm-client and munge).
#
#   check_slurmctld.sh --cli BUILD/bin/railyard-cli (--scenario SAMPLE.json | --generate 'ARGS')
#                      [--keep]
#
# --generate runs `railyard-cli generate ARGS` for the scenario (a fabric no sample has: pods
# under super-spines, say).
# In a fresh temporary directory: a munge key and a munged on its own socket; a minimal
# slurm.conf (SlurmctldHost=localhost, SlurmUser = the current user, free ports, state, log and
# pid files in the directory, TopologyPlugin=topology/tree, the export's node names as
# State=FUTURE nodes so no slurmd is needed) beside the export's topology.conf; slurmctld -D in
# the background. `scontrol show topology` must then list every switch of the file with the
# same child switches, the same nodes below it and its level (hostlists compared expanded, by
# `scontrol show hostnames`).
# Both daemons are stopped by their pids. Runs as root (CI) or as a normal user. Exit 0 when
# Slurm agrees, 1 naming the first difference, 2 when the tools are missing.
set -uo pipefail

cli="" scenario="" generate="" keep=0
while [ $# -gt 0 ]; do
  case "$1" in
    --cli) cli=$2; shift 2 ;;
    --scenario) scenario=$2; shift 2 ;;
    --generate) generate=$2; shift 2 ;;
    --keep) keep=1; shift ;;
    *) echo "check_slurmctld: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[ -x "$cli" ] && { [ -f "$scenario" ] || [ -n "$generate" ]; } ||
  { echo "check_slurmctld: give --cli and --scenario or --generate" >&2; exit 2; }
PATH=$PATH:/usr/sbin:/sbin
for tool in munged slurmctld scontrol python3; do
  command -v "$tool" >/dev/null || { echo "check_slurmctld: '$tool' not found (railyard.sh installs slurmctld, slurm-client, munge)" >&2; exit 2; }
done

dir=$(mktemp -d /tmp/railyard-slurm.XXXXXX)
chmod 700 "$dir"
munge_pid="" ctld_pid=""
cleanup() {
  # Only the two daemons this script started, by pid.
  [ -n "$ctld_pid" ] && kill "$ctld_pid" 2>/dev/null && wait "$ctld_pid" 2>/dev/null
  [ -n "$munge_pid" ] && kill "$munge_pid" 2>/dev/null && wait "$munge_pid" 2>/dev/null
  if [ $keep -eq 1 ]; then echo "check_slurmctld: kept $dir" >&2; else rm -rf "$dir"; fi
}
trap cleanup EXIT
fail() { echo "check_slurmctld: $*"; for f in "$dir"/slurmctld.log "$dir"/munged.log; do [ -f "$f" ] && { echo "--- $f"; tail -n 20 "$f"; }; done; exit 1; }

if [ -n "$generate" ]; then
  scenario="$dir/generated.json"
  # shellcheck disable=SC2086 # ARGS is a list of words on purpose
  "$cli" generate $generate -o "$scenario" || fail "generate $generate failed"
fi
"$cli" export "$scenario" --format slurm-topology -o "$dir/topology.conf" || fail "the export failed"

# Two free TCP ports (the kernel picks them; a race with another process is unlikely and only
# makes the test fail, never pass wrongly).
read -r ctld_port slurmd_port < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')

# munge: its own key (1024 random bytes, mode 0400) and socket; -F stays in the foreground so
# the pid is the daemon's.
head -c 1024 /dev/urandom > "$dir/munge.key"
chmod 400 "$dir/munge.key"
munged -F --key-file="$dir/munge.key" --socket="$dir/munge.socket" --pid-file="$dir/munged.pid" \
  --log-file="$dir/munged.log" --seed-file="$dir/munged.seed" --force >/dev/null 2>&1 &
munge_pid=$!
for _ in $(seq 50); do [ -S "$dir/munge.socket" ] && break; sleep 0.1; done
[ -S "$dir/munge.socket" ] || fail "munged did not start"

nodes=$(sed -n 's/^SwitchName=[^ ]* Nodes=\([^ ]*\).*/\1/p' "$dir/topology.conf" | paste -sd, -)
[ -n "$nodes" ] || fail "the export has no leaf switch"
user=$(id -un)
mkdir -p "$dir/state" "$dir/spool"
cat > "$dir/slurm.conf" <<CONF
ClusterName=railyard
SlurmctldHost=localhost
SlurmUser=$user
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$dir/munge.socket
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmctldDebug=info
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SchedulerType=sched/builtin
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
TopologyPlugin=topology/tree
NodeName=$nodes CPUs=1 State=FUTURE
PartitionName=all Nodes=ALL Default=YES State=UP
CONF
export SLURM_CONF="$dir/slurm.conf"
slurmctld -D -i -f "$dir/slurm.conf" >"$dir/slurmctld.out" 2>&1 &
ctld_pid=$!
shown=""
for _ in $(seq 100); do
  kill -0 "$ctld_pid" 2>/dev/null || fail "slurmctld exited: $(tail -n 5 "$dir/slurmctld.out")"
  shown=$(scontrol show topology 2>/dev/null) && [ -n "$shown" ] && break
  sleep 0.2
done
[ -n "$shown" ] || fail "scontrol show topology gave nothing"
echo "$shown" > "$dir/shown.txt"

expand() { [ -z "$1" ] && return; scontrol show hostnames "$1" | sort; }
field() { # field LINE KEY
  sed -n "s/.*[[:space:]]$2=\([^[:space:]]*\).*/\1/p" <<<" $1"
}
# A leaf's Nodes are its own; slurmctld lists an upper switch with every node below it and a
# level one above its highest child (topology_tree.c, switch_record_table). The export writes
# children before their parents, so one pass in file order knows every child.
declare -A below level
count=0
while read -r line; do
  case "$line" in SwitchName=*) ;; *) continue ;; esac
  name=$(field "$line" SwitchName)
  got=$(grep -E "^SwitchName=$name " "$dir/shown.txt") || fail "switch $name is not in scontrol show topology"
  children=$(field "$line" Switches)
  want_children=$(expand "$children")
  [ "$want_children" = "$(expand "$(field "$got" Switches)")" ] ||
    fail "switch $name: Switches differ: file '$children', slurmctld '$(field "$got" Switches)'"
  if [ -z "$children" ]; then
    below[$name]=$(expand "$(field "$line" Nodes)")
    level[$name]=0
  else
    below[$name]="" level[$name]=0
    for child in $want_children; do
      [ -n "${level[$child]+x}" ] || fail "switch $name: child $child comes after it in the file"
      below[$name]+="${below[$child]}"$'\n'
      [ $((level[$child] + 1)) -gt "${level[$name]}" ] && level[$name]=$((level[$child] + 1))
    done
    below[$name]=$(sort <<<"${below[$name]}" | sed '/^$/d')
  fi
  [ "${below[$name]}" = "$(expand "$(field "$got" Nodes)")" ] ||
    fail "switch $name: the nodes below it differ: slurmctld '$(field "$got" Nodes)'"
  [ "${level[$name]}" = "$(field "$got" Level)" ] ||
    fail "switch $name: level ${level[$name]} expected, slurmctld $(field "$got" Level)"
  count=$((count + 1))
done < "$dir/topology.conf"
[ $count -gt 0 ] || fail "no switch checked"
listed=$(grep -c '^SwitchName=' "$dir/shown.txt")
[ "$listed" -eq "$count" ] || fail "slurmctld lists $listed switches, the file $count"
echo "check_slurmctld: slurm-wlm $(slurmctld -V | awk '{print $2}') lists all $count switches of $(basename "$scenario")'s topology.conf with their children"
exit 0
