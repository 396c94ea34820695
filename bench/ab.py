#!/usr/bin/env python3
"""bench/ab.py - side-by-side wall times of whole commands, alternated.

usage: bench/ab.py N 'COMMAND A' 'COMMAND B' ...

Runs the commands one after another, N rounds, so that a noisy machine's slow and fast
moments fall on all of them alike, and prints each one's median and least wall time in ms
(output discarded; Python's subprocess adds about 0.5 ms to every run).  A command that
exits non-zero is reported as FAIL."""
import statistics
import subprocess
import sys
import time


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    rounds = int(sys.argv[1])
    cmds = sys.argv[2:]
    times = [[] for _ in cmds]
    for _ in range(rounds):
        for k, cmd in enumerate(cmds):
            t0 = time.perf_counter()
            r = subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
            times[k].append((time.perf_counter() - t0) * 1000)
            if r.returncode:
                print("FAIL", cmd)
    for k, cmd in enumerate(cmds):
        print("%9.2f ms  min %8.2f  %s" % (statistics.median(times[k]), min(times[k]), cmd))


if __name__ == "__main__":
    main()
