#!/usr/bin/env bash
# Install kqcd from a build tree and build and run the examples against the installed package, as
# an outside project would (the ctest examples.as_package). Usage: examples/build-as-package.sh REPO [BUILD]
set -euo pipefail
repo=${1:?usage: build-as-package.sh REPO [BUILD]}
build=${2:-$repo/build/openmp}
prefix=$build/install
examples=$build/examples
rm -rf "$prefix" "$examples"
cmake --install "$build" --prefix "$prefix" >/dev/null
# An installed kqcd holds no path into the source or build tree: its reference data comes from KQCD_DATA_DIR.
if [ -e "$prefix/bin/kqcd-data-dir" ] || grep -q -a -F "$repo/" "$prefix/bin/kqcd"; then
  echo "examples: the installed kqcd refers to the checkout $repo" >&2
  exit 1
fi
launcher=()
if command -v ccache >/dev/null; then launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache); fi
# The examples compile as the installed build did (the test build's -Og is enough to run them).
release_flags=$(sed -n 's/^CMAKE_CXX_FLAGS_RELEASE:STRING=//p' "$build/CMakeCache.txt")
cmake -S "$repo/examples" -B "$examples" -G Ninja -DCMAKE_BUILD_TYPE=Release "-DCMAKE_CXX_FLAGS_RELEASE=${release_flags:--O3 -DNDEBUG}" \
  -DCMAKE_PREFIX_PATH="$prefix" "${launcher[@]}" >/dev/null
cmake --build "$examples"
OMP_PROC_BIND=false "$examples/hello_kqcd/hello_kqcd"
OMP_PROC_BIND=false "$examples/pion_mass/pion_mass" "$repo/../shared/data/milc-l8888-b6.0.milc" 0.135
# The README's program: a header line and one line per timeslice of the 8^4 lattice.
out=$(OMP_PROC_BIND=false "$examples/quick_start/quick_start" "$repo/../shared/data/milc-l8888-b6.0.milc")
printf '%s\n' "$out"
if [ "$(printf '%s\n' "$out" | grep -c '^ *[0-9]')" != 8 ]; then
  echo "examples: quick_start printed no correlator of 8 timeslices" >&2
  exit 1
fi
# HISQ mesons on MILC's sample lattice: pion5 at t = 0 for m = 0.01 as MILC prints it (2.793146e-01).
out=$(OMP_PROC_BIND=false "$examples/staggered_mesons/staggered_mesons" "$repo/../shared/data/milc-l8888-b6.0.milc" hisq 0.01,0.05)
printf '%s\n' "$out"
if ! printf '%s\n' "$out" | grep -q '^ 0  2\.7931458'; then
  echo "examples: staggered_mesons did not print MILC's pion5(0) = 2.793146e-01 for m = 0.01" >&2
  exit 1
fi
# Moebius domain wall on the 4^4 sample: the pion and the residual mass, which falls from Ls 4 to 8.
mres() { OMP_PROC_BIND=false "$examples/domain_wall/domain_wall" "$repo/../shared/data/milc-l4444.milc" "$1" 0.1 2>/dev/null | sed -n 's/^# m_res \([^ ]*\).*/\1/p'; }
m4=$(mres 4); m8=$(mres 8)
echo "domain_wall: m_res ${m4:-none} at Ls 4, ${m8:-none} at Ls 8"
if [ -z "$m4" ] || [ -z "$m8" ] || ! awk -v a="$m4" -v b="$m8" 'BEGIN { exit !(b > 0 && b < a / 4) }'; then
  echo "examples: domain_wall's residual mass did not fall from Ls 4 to Ls 8" >&2
  exit 1
fi
echo "examples: 5 passed, 0 failed"
