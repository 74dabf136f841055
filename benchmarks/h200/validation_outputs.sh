#!/usr/bin/env bash
# What every sim/validation/*.cu prints on the H200, so that tests/test_sim_validation.py can hold
# the simulator's outputs to the GPU's for every program (not only the tensor-core ones). No
# profiler: each program is built with nvcc -O3 -arch=sm_90 -lineinfo (the build run_ncu.sh makes)
# and run once, alone. Under a minute on the GPU machine. From the repository root:
#
#     OUT=/some/folder bash benchmarks/h200/validation_outputs.sh
#
# Writes under $OUT/validation_outputs/:
#   run/PROG.txt     the program's output and its exit code: `result NAME DIGEST` lines (FNV-1a of
#                    the output buffers each kernel wrote, sim/validation/outputs.h) and `values`
#                    lines (bit patterns); each program also checks itself against a host reference
#                    and exits 1 when a result is wrong
#   build/PROG.txt   nvcc's log
#   env.txt          GPU, driver, nvcc; summary.txt: per program exit code and number of lines
# Then, on the development machine:
#   python3 sim/validation/compare.py --outputs OUT/validation_outputs/run --write-outputs sim/validation/h200-outputs.json
#   python3 -m pytest tests/test_sim_validation.py -k outputs
set +e
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
SRC="$ROOT/sim/validation"
DEST=${OUT:-$PWD/out}/validation_outputs
mkdir -p "$DEST/run" "$DEST/build"
BIN=$(mktemp -d "${TMPDIR:-/tmp}/drills-valout-XXXXXX")
trap 'rm -rf "$BIN"' EXIT
start=$SECONDS

CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$(command -v nvcc || echo "$CUDA_HOME/bin/nvcc")}
{
  echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  echo "nvcc: $NVCC"; "$NVCC" --version | tail -2
  nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.max.sm --format=csv 2>&1
} > "$DEST/env.txt" 2>&1
echo "command: OUT=DIR bash benchmarks/h200/validation_outputs.sh: each sim/validation/*.cu built with nvcc -O3 -arch=sm_90 -lineinfo and run once; DIR/validation_outputs/run/PROGRAM.txt is its output" \
  > "$DEST/command.txt"
cat "$DEST/env.txt"

PROGRAMS=()
for f in "$SRC"/*.cu; do PROGRAMS+=("$(basename "$f" .cu)"); done

# Build in parallel, at most as many at once as there are cores.
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 4)}
for p in "${PROGRAMS[@]}"; do
  while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do sleep 0.2; done
  ( timeout 120 "$NVCC" -O3 -arch=sm_90 -lineinfo -o "$BIN/$p" "$SRC/$p.cu" > "$DEST/build/$p.txt" 2>&1
    echo "nvcc exit $?" >> "$DEST/build/$p.txt" ) &
done
wait
echo "built in $((SECONDS - start)) s"

# Run one at a time: each program has the GPU to itself, as under run_ncu.sh.
: > "$DEST/summary.txt"
failed=0
for p in "${PROGRAMS[@]}"; do
  if [ ! -x "$BIN/$p" ]; then
    echo "$p: DID NOT BUILD ($(tail -3 "$DEST/build/$p.txt" | tr '\n' ' '))" | tee -a "$DEST/summary.txt"
    failed=$((failed + 1)); continue
  fi
  ( cd "$BIN" && timeout 60 "./$p" ) > "$DEST/run/$p.txt" 2>&1
  rc=$?
  echo "exit code: $rc" >> "$DEST/run/$p.txt"
  [ "$rc" -eq 0 ] || failed=$((failed + 1))
  echo "$p: exit $rc, $(grep -c '^result' "$DEST/run/$p.txt") result lines, $(grep -c '^values' "$DEST/run/$p.txt") values lines" \
    | tee -a "$DEST/summary.txt"
done
echo "validation_outputs.sh: ${#PROGRAMS[@]} programs, $failed failed or did not build, $((SECONDS - start)) s" \
  | tee -a "$DEST/summary.txt"
exit 0
