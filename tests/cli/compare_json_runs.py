# Runs a kqcd command twice -- once as a single process, once under mpiexec -- and checks that
# every number of their --json outputs agrees to TOL relative to max(1, |value|) (provenance,
# solver statistics, run times and the layout excepted: timings, and iteration counts that rounding
# may shift), the lattice included (the distributed run must report the global one). With --layouts
# instead of MPIEXEC NP, the two runs are one process each with --layout scalar and --layout simd;
# with --mpi-simd, one process with --layout scalar and NP ranks with --layout simd.
# Usage: python3 compare_json_runs.py MPIEXEC NP TOL KQCD ARGS...
#        python3 compare_json_runs.py --layouts TOL KQCD ARGS...
#        python3 compare_json_runs.py --mpi-simd MPIEXEC NP TOL KQCD ARGS...
import json
import subprocess
import sys


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited with {r.returncode}")
    return json.loads(r.stdout)


if sys.argv[1] == "--layouts":
    tol, kqcd, args = float(sys.argv[2]), sys.argv[3], sys.argv[4:]
    what = ("the scalar layout", "the SIMD layout")
    first = run([kqcd] + args + ["--layout", "scalar"])
    second = run([kqcd] + args + ["--layout", "simd"])
elif sys.argv[1] == "--mpi-simd":
    mpiexec, np, tol, kqcd, args = sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5], sys.argv[6:]
    what = ("1 rank on the scalar layout", f"{np} ranks on the SIMD layout")
    first = run([kqcd] + args + ["--layout", "scalar"])
    second = run([mpiexec, "-n", np, kqcd] + args + ["--layout", "simd"])
else:
    mpiexec, np, tol, kqcd, args = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5:]
    what = ("1 rank", f"{np} ranks")
    first = run([kqcd] + args)
    second = run([mpiexec, "-n", np, kqcd] + args)
bad = []


def compare(a, b, path):
    if path in ("provenance", "solver", "seconds", "layout"):
        return
    if isinstance(a, dict):
        if set(a) != set(b):
            bad.append(f"{path}: keys {sorted(a)} vs {sorted(b)}")
        for k in a:
            if k in b:
                compare(a[k], b[k], f"{path}.{k}" if path else k)
    elif isinstance(a, list):
        if len(a) != len(b):
            bad.append(f"{path}: length {len(a)} vs {len(b)}")
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]")
    elif isinstance(a, (int, float)) and not isinstance(a, bool):
        if abs(a - b) > tol * max(1.0, abs(a)):
            bad.append(f"{path}: {a!r} on {what[0]} vs {b!r} on {what[1]}")
    elif a != b:
        bad.append(f"{path}: {a!r} vs {b!r}")


compare(first, second, "")
for line in bad:
    print(line)
print(f"{'FAILED' if bad else 'ok'}: {' '.join(args)} on {what[0]} and {what[1]}")
sys.exit(1 if bad else 0)
