#!/usr/bin/env bash
# Builds the gauge reader fuzzers (tests/fuzz, clang++ with libFuzzer, ASan and UBSan) into
# BUILD_DIR (default build/fuzz) and runs each for KQCD_FUZZ_SECONDS seconds (default 60), one
# process each: first over the regression inputs of tests/fuzz/regressions/<format>/, then fuzzing
# from the seeds (tests/fuzz/seeds/<format>/ and the reference files of ../shared/data). Exits 1 if
# any fuzzer finds a crash, a sanitizer report, a leak, a timeout or an exception other than
# kqcd::io_error (the input is kept in BUILD_DIR/artifacts/<format>/: copy it to
# tests/fuzz/regressions/<format>/ once fixed); 77 (ctest SKIP) if clang++ or libFuzzer is missing.
#   tests/fuzz/run_fuzzers.sh [FORMAT...]      FORMAT: nersc ildg milc (default: all three)
set -uo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${BUILD_DIR:-$repo/build/fuzz}
seconds=${KQCD_FUZZ_SECONDS:-60}
max_len=${KQCD_FUZZ_MAX_LEN:-131072}
shared_data=${KQCD_SHARED_DATA:-$repo/../shared/data}
cxx=${KQCD_FUZZ_CXX:-clang++}
formats=("$@")
[ ${#formats[@]} -gt 0 ] || formats=(nersc ildg milc)

say() { printf '[fuzz] %s\n' "$*"; }
if ! command -v "$cxx" >/dev/null; then
  say "SKIP: $cxx is not installed (the openmp root of tools/dev has it: tools/dev run -- $0)"
  exit 77
fi
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
printf 'extern "C" int LLVMFuzzerTestOneInput(const unsigned char*, unsigned long) { return 0; }\n' >"$probe/p.cpp"
if ! "$cxx" -fsanitize=fuzzer "$probe/p.cpp" -o "$probe/p" 2>"$probe/log"; then
  say "SKIP: $cxx cannot link -fsanitize=fuzzer (libFuzzer missing: Debian package libclang-rt-dev):"
  cat "$probe/log"
  exit 77
fi

say "building the fuzzers in $build"
if ! { [ -f "$build/CMakeCache.txt" ] || cmake -S "$here" -B "$build" -G Ninja -DCMAKE_CXX_COMPILER="$cxx"; } ||
  ! cmake --build "$build" -j "${KQCD_FUZZ_BUILD_JOBS:-2}"; then
  say "FAILED: building the fuzzers"
  exit 1
fi

export OMP_NUM_THREADS=1 OMP_PROC_BIND=false
export LSAN_OPTIONS="suppressions=$here/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
declare -A data_glob=([nersc]="*.cfg *.nersc" [ildg]="*.ildg" [milc]="*.milc")
failed=0
for format in "${formats[@]}"; do
  fuzzer=$build/fuzz_$format
  [ -x "$fuzzer" ] || { say "FAILED: no fuzzer for format '$format'"; failed=1; continue; }
  artifacts=$build/artifacts/$format
  corpus=$build/corpus/$format
  mkdir -p "$artifacts" "$corpus"
  mapfile -t regressions < <(find "$here/regressions/$format" -type f ! -name '*.md' 2>/dev/null | sort)
  if [ ${#regressions[@]} -gt 0 ]; then
    say "$format: ${#regressions[@]} regression inputs"
    if ! "$fuzzer" -artifact_prefix="$artifacts/" "${regressions[@]}" >"$build/regressions-$format.log" 2>&1; then
      tail -n 40 "$build/regressions-$format.log"
      say "FAILED: $format: a regression input crashes again (log: $build/regressions-$format.log)"
      failed=1
      continue
    fi
  fi
  seeds=("$here/seeds/$format")
  (cd "$shared_data" 2>/dev/null && for f in ${data_glob[$format]}; do [ -f "$f" ] && echo "$shared_data/$f"; done) >"$build/data-$format.txt"
  mapfile -t data_seeds <"$build/data-$format.txt"
  mkdir -p "$build/seeds-data/$format"
  for f in "${data_seeds[@]}"; do ln -sf "$f" "$build/seeds-data/$format/"; done
  say "$format: fuzzing for ${seconds}s (corpus $corpus, seeds ${seeds[*]} and ${#data_seeds[@]} files of $shared_data)"
  "$fuzzer" "$corpus" "${seeds[@]}" "$build/seeds-data/$format" -max_total_time="$seconds" -max_len="$max_len" \
    -timeout=20 -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$build/fuzz-$format.log" 2>&1
  rc=$?
  grep -E '^(#[0-9]+ +DONE|stat::number_of_executed_units|stat::peak_rss_mb|Done [0-9]+ runs)' "$build/fuzz-$format.log" | sed "s/^/[fuzz] $format: /"
  if [ $rc -ne 0 ]; then
    tail -n 60 "$build/fuzz-$format.log"
    say "FAILED: $format fuzzer found a problem (exit $rc); input kept in $artifacts/, log $build/fuzz-$format.log"
    failed=1
  else
    say "$format: no finding"
  fi
done
exit $failed
