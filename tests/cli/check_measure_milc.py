# Checks `kqcd measure --action asqtad|hisq --json` on MILC's sample lattice against MILC's own
# output: milc_qcd ks_spectrum/test/ks_spectrum_deflate_{asqtad,hisq}.2 (lat.sample.l8888 =
# ../shared/data/milc-l8888-b6.0.milc, u0 = 1, Naik epsilon 0, antiperiodic time, colour point
# source at the origin, mass 0.01), the POINT_PION (pion5) correlator of its corrfile as MILC
# printed it (7 significant digits). Also checks that the multi-mass run gives every mass's
# correlators as a run of that mass alone.
# Usage: python3 check_measure_milc.py KQCD SHARED_DATA ACTION
import json
import subprocess
import sys

kqcd, data, action = sys.argv[1], sys.argv[2], sys.argv[3]
milc = {
    "hisq": [2.793146e-01, 6.301089e-02, 1.830683e-02, 1.090211e-02, 3.832617e-03, 1.024369e-02, 1.623110e-02, 6.151892e-02],
    "asqtad": [5.469160e-01, 1.342161e-01, 4.594214e-02, 2.627205e-02, 1.510786e-02, 2.710703e-02, 5.012888e-02, 1.480071e-01],
}[action]


def measure(masses):
    args = [kqcd, "measure", "--action", action, "--config", f"{data}/milc-l8888-b6.0.milc", "--mass", masses,
            "--bc", "p,p,p,a", "--source", "point:0,0,0,0", "--tol", "1e-10", "--json"]
    run = subprocess.run(args, capture_output=True, text=True)
    sys.stderr.write(run.stderr)
    if run.returncode != 0:
        sys.exit(f"kqcd measure exited with {run.returncode}")
    return json.loads(run.stdout)


bad = 0
both = measure("0.01,0.05")
got = both["mesons"][0]["correlators"]["pion5"]
for t, (g, w) in enumerate(zip(got, milc)):
    rel = abs(g - w) / w
    print(f"{action} pion5 t={t}: {g:.9e} MILC {w:.6e} rel {rel:.1e}")
    if rel > 1e-6:
        bad += 1
alone = measure("0.05")
for label, c in alone["mesons"][0]["correlators"].items():
    other = both["mesons"][1]["correlators"][label]
    diff = max(abs(a - b) for a, b in zip(c, other)) / max(abs(a) for a in alone["mesons"][0]["correlators"]["pion5"])
    if diff > 1e-8:
        print(f"mass 0.05 {label}: multi-mass and single-mass runs differ by {diff:.1e}")
        bad += 1
if len(both["solver"]) != 3:
    print("expected three source colours")
    bad += 1
sys.exit(1 if bad else 0)
