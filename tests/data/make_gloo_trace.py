#!/usr/bin/python3
"""Makes real PyTorch profiler traces of a 2-process gloo job on CPU (tests/io/tst_glootrace).

Two processes (torch.multiprocessing.spawn) join one job through a rendezvous file
(init_method="file://..."); beside the default group (ranks 0 and 1) they make a second
process group over the same ranks (dist.new_group([0, 1])), the way a job keeps its
data-parallel group apart from the world. Each step: a matrix product, an all-reduce on the
default group, another product, an all-reduce and a broadcast on the second group.
torch.profiler records steps 1-3 (step 0 is its warm-up) and each rank exports its Chrome
trace to OUT/rank{R}.json, as torch.profiler writes it (nothing is edited here).

Usage: make_gloo_trace.py OUT_DIR
Exit 0 when both traces are written; the processes end with the script (spawn joins them,
and each dies with it when it is killed).
"""
import ctypes
import datetime
import os
import signal
import sys
import tempfile

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import ProfilerActivity, profile, schedule

WORLD = 2
STEPS = 4  # 1 warm-up + 3 recorded
SIZE = 256  # a 256 x 256 float32 matrix: 256 KiB per collective, milliseconds of CPU work


def worker(rank, init_file, out_dir):
    # Killed with the script (the test stops it on a time-out): PR_SET_PDEATHSIG = 1,
    # prctl(2), so no rank is left waiting in a collective.
    ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)
    # A collective whose peer is gone fails after 2 minutes instead of waiting for ever.
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank,
                            world_size=WORLD, timeout=datetime.timedelta(seconds=120))
    second = dist.new_group([0, 1])
    torch.set_num_threads(1)  # two processes on a shared machine
    torch.manual_seed(rank)
    x = torch.randn(SIZE, SIZE)
    w = torch.randn(SIZE, SIZE)
    path = os.path.join(out_dir, "rank%d.json" % rank)
    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=0, warmup=1, active=STEPS - 1),
                 on_trace_ready=lambda p: p.export_chrome_trace(path)) as prof:
        for _ in range(STEPS):
            y = x @ w
            dist.all_reduce(y)
            z = y @ w
            dist.all_reduce(z, group=second)
            dist.broadcast(z, 0, group=second)
            prof.step()
    dist.barrier()
    dist.destroy_process_group()


def main():
    if len(sys.argv) != 2:
        sys.stderr.write("usage: make_gloo_trace.py OUT_DIR\n")
        return 2
    out_dir = sys.argv[1]
    with tempfile.TemporaryDirectory() as rendezvous:
        mp.spawn(worker, args=(os.path.join(rendezvous, "init"), out_dir), nprocs=WORLD)
    for rank in range(WORLD):
        if not os.path.isfile(os.path.join(out_dir, "rank%d.json" % rank)):
            sys.stderr.write("make_gloo_trace: rank %d wrote no trace\n" % rank)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
