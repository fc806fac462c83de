# Runs a kqcd command twice -- once as a single process, once under mpiexec -- and checks that
# every number of their --json outputs agrees to TOL relative to the value, floored at FLOOR times
# the largest magnitude of the list it stands in (a correlator's small entries carry the absolute
# error of its large ones), the lattice included (the distributed run must report the global one).
# The solver's records are compared too: the same convergence, iteration counts within what
# rounding may shift, and true residuals below the requested --tol on both runs. Provenance, run
# times (the multigrid setup's too) and the layout are not compared. With --layouts instead of
# MPIEXEC NP, the two runs are one process each with --layout scalar and --layout simd; with
# --mpi-simd, one process with --layout scalar and NP ranks with --layout simd. With --solvers,
# one process with --solver cg and one with --solver mg followed by the MG_ARGS given before KQCD
# (comma-separated): the iteration counts are then not compared, and the multigrid run's own record
# ("multigrid", "solver_method") is skipped.
# Usage: python3 compare_json_runs.py MPIEXEC NP TOL KQCD ARGS...
#        python3 compare_json_runs.py --layouts TOL KQCD ARGS...
#        python3 compare_json_runs.py --solvers TOL MG_ARGS KQCD ARGS...
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
elif sys.argv[1] == "--solvers":
    tol, mg_args, kqcd, args = float(sys.argv[2]), sys.argv[3].split(","), sys.argv[4], sys.argv[5:]
    what = ("CG", "multigrid")
    first = run([kqcd] + args + ["--solver", "cg"])
    second = run([kqcd] + args + ["--solver", "mg"] + mg_args)
    for skip in ("multigrid", "solver_method"):
        first.pop(skip, None)
        second.pop(skip, None)
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
FLOOR = 1e-6  # entries below this fraction of their list's largest are compared against that fraction


def numbers(x):
    """Every number inside x (nested lists), as floats."""
    if isinstance(x, list):
        return [v for y in x for v in numbers(y)]
    return [float(x)] if isinstance(x, (int, float)) and not isinstance(x, bool) else []


def compare_solver(a, b, path):
    """Per solve: the same convergence, iterations within max(2, 10%), true residuals below --tol."""
    if len(a) != len(b):
        bad.append(f"{path}: {len(a)} vs {len(b)} solves")
        return
    want = float(args[args.index("--tol") + 1]) if "--tol" in args else None
    for i, (x, y) in enumerate(zip(a, b)):
        where = f"{path}[{i}]"
        if x.get("converged") != y.get("converged"):
            bad.append(f"{where}.converged: {x.get('converged')} vs {y.get('converged')}")
        ix, iy = x["iterations"], y["iterations"]
        if sys.argv[1] != "--solvers" and abs(ix - iy) > max(2, 0.1 * max(ix, iy)):
            bad.append(f"{where}.iterations: {ix} on {what[0]} vs {iy} on {what[1]}")
        for r in (x["true_residual"], y["true_residual"]):
            if want is not None and not r <= want:
                bad.append(f"{where}.true_residual: {r} above the requested {want}")


def compare(a, b, path, scale=0.0):
    if path in ("provenance", "seconds", "layout", "multigrid.setup_s"):
        return
    if path == "multigrid.iterations_per_level":  # counts of solves that agree to rounding
        for i, (x, y) in enumerate(zip(a, b)):
            if len(a) != len(b) or abs(x - y) > max(2, 0.1 * max(x, y)):
                bad.append(f"{path}[{i}]: {x} vs {y}")
        return
    if path == "solver":
        compare_solver(a, b, path)
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
        inner = max((abs(v) for v in numbers(a)), default=0.0)
        for i, (x, y) in enumerate(zip(a, b)):
            compare(x, y, f"{path}[{i}]", max(scale, inner) if isinstance(x, list) else inner)
    elif isinstance(a, (int, float)) and not isinstance(a, bool):
        if abs(a - b) > tol * max(abs(a), abs(b), FLOOR * scale):
            bad.append(f"{path}: {a!r} on {what[0]} vs {b!r} on {what[1]}")
    elif a != b:
        bad.append(f"{path}: {a!r} vs {b!r}")


compare(first, second, "")
for line in bad:
    print(line)
print(f"{'FAILED' if bad else 'ok'}: {' '.join(args)} on {what[0]} and {what[1]}")
sys.exit(1 if bad else 0)
