# Runs a kqcd command twice -- once as a single process, once under mpiexec -- and checks that
# every number of their --json outputs agrees to TOL relative to max(1, |value|) (provenance,
# solver statistics and run times excepted: timings, and iteration counts that rounding may
# shift), the lattice included (the distributed run must report the global one).
# Usage: python3 compare_json_runs.py MPIEXEC NP TOL KQCD ARGS...
import json
import subprocess
import sys

mpiexec, np, tol, kqcd, args = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5:]


def run(cmd):
    r = subprocess.run(cmd, capture_output=True, text=True)
    sys.stderr.write(r.stderr)
    if r.returncode != 0:
        sys.exit(f"{' '.join(cmd)} exited with {r.returncode}")
    return json.loads(r.stdout)


single = run([kqcd] + args)
dist = run([mpiexec, "-n", np, kqcd] + args)
bad = []


def compare(a, b, path):
    if path in ("provenance", "solver", "seconds"):
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
            bad.append(f"{path}: {a!r} single vs {b!r} on {np} ranks")
    elif a != b:
        bad.append(f"{path}: {a!r} vs {b!r}")


compare(single, dist, "")
for line in bad:
    print(line)
print(f"{'FAILED' if bad else 'ok'}: {' '.join(args)} on 1 and {np} ranks")
sys.exit(1 if bad else 0)
