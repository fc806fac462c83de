# Checks the JSON of a quick `kqcd bench` suite run and of the other JSON-emitting commands:
# every record carries a full provenance object (flags naming the target options actually used),
# every family of the suite ran, %copy follows from GB/s and the copy measured in the same run,
# solves converged to the requested residual (checked by the solver's own true residual), and
# the table on stdout has a row per record.
# Usage: python3 check_bench_json.py KQCD DATA_DIR EXPECTED_FLAG... (e.g. -march=native)
import json
import os
import subprocess
import sys
import tempfile

kqcd, data = sys.argv[1], sys.argv[2]
expected_flags = sys.argv[3:]
KEYS = ["git", "kqcd_version", "kokkos_version", "backend", "device", "threads", "compiler", "flags", "date"]
bad = []


def run(args):
    r = subprocess.run([kqcd] + args, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"kqcd {' '.join(args)} exited with {r.returncode}:\n{r.stderr}")
    return r


def check_provenance(where, p):
    if not isinstance(p, dict):
        bad.append(f"{where}: no provenance object")
        return
    for k in KEYS:
        if k not in p or p[k] in ("", None) or (k == "threads" and p[k] < 1):
            bad.append(f"{where}: provenance.{k} missing or empty ({p.get(k)!r})")
    for flag in expected_flags:
        if flag not in p.get("flags", ""):
            bad.append(f"{where}: provenance.flags lacks {flag}: {p.get('flags')!r}")
    if "kokkos_arch=" not in p.get("flags", ""):
        bad.append(f"{where}: provenance.flags does not name the Kokkos architecture")


with tempfile.TemporaryDirectory() as tmp:
    out = os.path.join(tmp, "suite.json")
    config = os.path.join(data, "milc-l8888-b6.0.milc")
    r = run(["bench", "--lattices", "4x4x4x4,4x4x4x8", "--quick", "--configs", config, "--out", out])
    with open(out) as f:
        suite = json.load(f)
progress = [l for l in r.stderr.splitlines() if "[kqcd bench] case" in l and "done" not in l]
check_provenance("suite", suite.get("provenance"))
copy = suite["copy_gbytes_per_s"]
if not copy or any(v <= 0 for v in copy.values()):
    bad.append(f"copy_gbytes_per_s: {copy}")
records = suite["results"]
families = {rec.get("family") for rec in records}
for fam in ["dslash", "solver", "contract", "smear", "flow", "heatbath", "io"]:
    if fam not in families:
        bad.append(f"family {fam} did not run")
ops = {rec["case"] for rec in records if rec.get("family") == "dslash"}
if ops != {"dslash", "eo", "clover", "clover-dynamic", "twisted", "twisted-clover"}:
    bad.append(f"Dslash operators run: {sorted(ops)}")
lattices = {tuple(rec["lattice"]) for rec in records if rec.get("family") == "dslash"}
if lattices != {(4, 4, 4, 4), (4, 4, 4, 8)}:
    bad.append(f"Dslash lattices run: {sorted(lattices)}")
gauges = {rec["gauge"] for rec in records if rec.get("family") == "solver"}
if config not in gauges or len(gauges) != 2:
    bad.append(f"solver gauge fields: {sorted(gauges)}")
for i, rec in enumerate(records):
    where = f"record {i} ({rec.get('benchmark')} {rec.get('case', '')} {rec.get('precision')})"
    check_provenance(where, rec.get("provenance"))
    if rec.get("backend") != rec.get("provenance", {}).get("backend"):
        bad.append(f"{where}: backend {rec.get('backend')} differs from provenance")
    if "gbytes_per_s" in rec:
        pct = 100 * rec["gbytes_per_s"] / copy[rec["backend"]]
        if abs(pct - rec["percent_of_copy"]) > 1e-6 * pct or rec["copy_gbytes_per_s"] != copy[rec["backend"]]:
            bad.append(f"{where}: percent_of_copy {rec['percent_of_copy']} != 100 GB/s / copy {pct}")
        if not rec.get("byte_model"):
            bad.append(f"{where}: GB/s without a byte model")
    if rec.get("family") == "dslash" and not rec["gflops"] > 0:
        bad.append(f"{where}: gflops {rec['gflops']}")
    if rec.get("family") == "solver":
        if rec.get("copy_gbytes_per_s") != copy[rec["backend"]]:
            bad.append(f"{where}: copy_gbytes_per_s {rec.get('copy_gbytes_per_s')} is not the run's copy")
        if rec.get("layout") not in ("scalar", "simd"):
            bad.append(f"{where}: layout {rec.get('layout')}")
        if rec["status"] != "converged" or not rec["true_residual"] <= rec["tol"]:
            bad.append(f"{where}: {rec['status']}, true residual {rec['true_residual']} (tol {rec['tol']})")
        if not 0 < rec["operator_fraction"] <= 1:
            bad.append(f"{where}: operator fraction {rec['operator_fraction']}")
        if "outer_operator" in rec:  # single right-hand-side solves: each operator inside the solve and bare
            ops = [rec[k] for k in ("outer_operator", "sloppy_operator") if k in rec]
            if sum(op["applications"] for op in ops) != rec["operator_applications"]:
                bad.append(f"{where}: operators' applications {[op['applications'] for op in ops]} do not add up to {rec['operator_applications']}")
            for op in ops:
                if not (op["gflops"] > 0 and op["bare_gflops"] > 0 and op["in_solver_fraction"] > 0):
                    bad.append(f"{where}: operator rates {op}")
if len(progress) == 0:
    bad.append("no per-case progress line on stderr")
rows = [l for l in r.stdout.splitlines() if any(l.startswith(rec["benchmark"] + " ") for rec in records)]
if len(rows) != len(records):
    bad.append(f"table: {len(rows)} rows for {len(records)} records")
lines = r.stdout.splitlines()
if not lines or not lines[0].startswith("kqcd ") or not any(l.startswith("GB/s and %copy") for l in lines[-4:]):
    bad.append("table: not the head (provenance) first and the byte model last")

# Single benchmarks and the other JSON outputs carry provenance too.
singles = {
    "bench dslash": ["bench", "dslash", "--lattice", "4x4x4x4", "--quick", "--json"],
    "bench cg": ["bench", "cg", "--lattice", "4x4x4x4", "--quick", "--json"],
    "bench contract": ["bench", "contract", "--lattice", "4x4x4x4", "--quick", "--json"],
    "info": ["info", "--json"],
    "plaquette": ["plaquette", "--config", os.path.join(data, "milc-l4444.milc"), "--json"],
    "smear": ["smear", "--config", os.path.join(data, "milc-l4444.milc"), "--method", "stout", "--steps", "1", "--json"],
    "flow": ["flow", "--config", os.path.join(data, "milc-l4444.milc"), "--eps", "0.1", "--tmax", "0.1", "--json"],
}
for name, args in singles.items():
    doc = json.loads(run(args).stdout)
    check_provenance(name, doc.get("provenance"))
for kind in ["io", "smear", "heatbath"]:
    doc = json.loads(run(["bench", kind, "--lattice", "4x4x4x4", "--quick", "--json"]).stdout)
    check_provenance(f"bench {kind}", doc.get("provenance"))
    for rec in doc["results"]:
        check_provenance(f"bench {kind} record", rec.get("provenance"))

for b in bad:
    print("FAIL:", b)
print(f"{len(records)} suite records, {len(progress)} progress lines; {len(bad)} problems")
sys.exit(1 if bad else 0)
