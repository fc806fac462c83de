#!/usr/bin/env python3
"""What a build spent its time on, from Ninja's log: the slowest steps and the total per folder.

Usage: tools/build_times.py [BUILD_DIR] [--top N]    (default build/openmp, 15)

Times are wall seconds per step as Ninja ran them: with more jobs than cores they include waiting
for a core, so compare steps of one build, not of builds with other job counts.
"""
import argparse
import collections
import os
import sys


def read_log(path):
    """The latest record of each output: {output: seconds}."""
    steps = {}
    with open(path) as f:
        header = f.readline()
        if not header.startswith("# ninja log"):
            sys.exit(f"{path}: not a Ninja log (first line {header.strip()!r})")
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) < 4:
                continue
            start, end, output = int(fields[0]), int(fields[1]), fields[3]
            steps[output] = (end - start) / 1000.0
    return steps


def folder(output):
    """Group: generated kernel instances apart, else the first two path components."""
    if "/instances/" in output:
        return "kernel instances"
    parts = output.split("/")
    return "/".join(parts[:2]) if len(parts) > 2 else parts[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("build_dir", nargs="?", default="build/openmp")
    parser.add_argument("--top", type=int, default=15)
    args = parser.parse_args()
    log = os.path.join(args.build_dir, ".ninja_log")
    if not os.path.exists(log):
        sys.exit(f"{log}: no Ninja log (build with the Ninja generator first)")
    steps = {k: v for k, v in read_log(log).items() if k.endswith(".o")}
    total = sum(steps.values())
    print(f"{len(steps)} compile steps, {total:.0f} s in all")
    print(f"\nslowest {args.top}:")
    for out, sec in sorted(steps.items(), key=lambda kv: -kv[1])[: args.top]:
        print(f"  {sec:7.1f} s  {out}")
    by = collections.defaultdict(lambda: [0, 0.0])
    for out, sec in steps.items():
        by[folder(out)][0] += 1
        by[folder(out)][1] += sec
    print("\nper folder:")
    for name, (n, sec) in sorted(by.items(), key=lambda kv: -kv[1][1]):
        print(f"  {sec:7.0f} s  {100 * sec / total:4.0f}%  {n:3d} files  {name}")


if __name__ == "__main__":
    main()
