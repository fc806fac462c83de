# Checks `kqcd measure --json` output for the free-field twisted-boundary anchor of
# ../shared/data/README.md: prop_corr and mesons[15] against the analytic C(t) to 1e-8 relative.
# Usage: python3 check_measure_free.py KQCD
import json
import subprocess
import sys

args = [sys.argv[1], "measure", "--config", "unit:4x4x4x8", "--kappa", "0.1",
        "--bc", "t:0.6283185307179586,t:1.2566370614359172,p,p", "--source", "point:0,0,0,0", "--json"]
run = subprocess.run(args, capture_output=True, text=True)
sys.stderr.write(run.stderr)
if run.returncode != 0:
    sys.exit(f"kqcd measure exited with {run.returncode}")
j = json.loads(run.stdout)
half = [0.550448083033058, 0.018777681287702, 0.00191303562650173, 0.000304754934667099, 0.000111618726903212]
want = half + half[3:0:-1]
bad = 0
progress = [l for l in run.stderr.splitlines() if "solve" in l]
if len(progress) != 12 or len(j["solver"]) != 12:
    print(f"expected 12 solves and 12 progress lines, got {len(j['solver'])} and {len(progress)}")
    bad += 1
for key, got in (("prop_corr", j["prop_corr"]), ("mesons[15]", j["mesons"][15])):
    for t, (g, w) in enumerate(zip(got, want)):
        rel = abs(g - w) / w
        print(f"{key} t={t}: {g:.15e} README {w:.15e} rel {rel:.2e}")
        if rel > 1e-8:
            bad += 1
if len(j["mesons"]) != 16 or any(len(row) != 8 for row in j["mesons"]):
    print("mesons is not 16 arrays of 8")
    bad += 1
sys.exit(1 if bad else 0)
