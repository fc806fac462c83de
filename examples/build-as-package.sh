#!/usr/bin/env bash
# Install kqcd from the openmp build and build and run the examples against the installed
# package, as an outside project would. Usage: examples/build-as-package.sh REPO
set -euo pipefail
repo=${1:?usage: build-as-package.sh REPO}
prefix=$repo/build/install-openmp
rm -rf "$prefix" "$repo/build/examples"
cmake --install "$repo/build/openmp" --prefix "$prefix" >/dev/null
# An installed kqcd holds no path into the source or build tree: its reference data comes from KQCD_DATA_DIR.
if [ -e "$prefix/bin/kqcd-data-dir" ] || grep -q -a -F "$repo/" "$prefix/bin/kqcd"; then
  echo "examples: the installed kqcd refers to the checkout $repo" >&2
  exit 1
fi
cmake -S "$repo/examples" -B "$repo/build/examples" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix" >/dev/null
cmake --build "$repo/build/examples"
OMP_PROC_BIND=false "$repo/build/examples/hello_kqcd/hello_kqcd"
OMP_PROC_BIND=false "$repo/build/examples/pion_mass/pion_mass" "$repo/../shared/data/milc-l8888-b6.0.milc" 0.135
# The README's program: a header line and one line per timeslice of the 8^4 lattice.
out=$(OMP_PROC_BIND=false "$repo/build/examples/quick_start/quick_start" "$repo/../shared/data/milc-l8888-b6.0.milc")
printf '%s\n' "$out"
if [ "$(printf '%s\n' "$out" | grep -c '^ *[0-9]')" != 8 ]; then
  echo "examples: quick_start printed no correlator of 8 timeslices" >&2
  exit 1
fi
echo "examples: 3 passed, 0 failed"
