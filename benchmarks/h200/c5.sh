#!/usr/bin/env bash
# C5 (softmax, problem 82) on an H200 in one run of about four minutes. From the repository root:
#
#   OUT=/some/dir bash benchmarks/h200/c5.sh        # results in $OUT/c5/
#   LIGHT=1 OUT=/some/dir bash benchmarks/h200/c5.sh  # no SASS dump, no ncu: check, timings, sanitizers
#
# Needs nvcc (sm_90), python3 with torch, ncu and compute-sanitizer; no GoogleTest, no internet.
# Every step runs even when an earlier one failed; steps.txt says which failed.
#
#   env.txt           GPU, driver, nvcc, torch
#   ptxas.txt         -Xptxas -v of the bench build: registers, spills, shared memory per kernel
#   sass.txt          SASS of the key kernels (cuobjdump)
#   check.csv         every variant and sweep configuration against the float64 reference (worst
#                     error / tolerance), 14 shapes incl. 1x1, 3x33, 5x4097, 3x262147, 2x1048576,
#                     four kinds of input, softmax_fast also on rows one float past 16 bytes
#   time.csv          median of 30 CUDA-event timings after warm-up, fresh random input per
#                     variant: copy kernel, cudaMemcpy, the ladder and the sweep at the 7 perf shapes
#   torch.csv         torch.softmax(x, dim=-1) and y.copy_(x), same shapes, same statistic
#   summary.txt       per shape: copy, torch, each ladder step, the best sweep configuration
#   ncu.csv           Nsight Compute (--clock-control none): DRAM bytes read/written, L2 traffic,
#                     occupancy, time, for the kernels the chapter's claims rest on
#   sanitizer-*.txt   compute-sanitizer memcheck, racecheck, synccheck on small shapes
set -u
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
OUT="${OUT:-/tmp/out}"
R="$OUT/c5"
mkdir -p "$R"
B="$R/build"
mkdir -p "$B"
STEPS="$R/steps.txt"
: > "$STEPS"
T0=$(date +%s)

exec 3>&1  # the terminal: step reports go there and to steps.txt, never into a result file
step() {  # step NAME TIMEOUT_S COMMAND...: run, record rc and seconds, never stop the script
  local name=$1 limit=$2 t rc
  shift 2
  t=$(date +%s)
  timeout "$limit" "$@"
  rc=$?
  echo "$name rc=$rc seconds=$(( $(date +%s) - t ))" | tee -a "$STEPS" >&3
  [ $rc -ne 0 ] && echo "FAILED: $name (rc=$rc)" | tee -a "$STEPS" >&3
  return 0
}

env_info() {
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -2
  python3 -c "import torch; print('torch', torch.__version__, torch.version.cuda)"
  date -u +%Y-%m-%dT%H:%M:%SZ
}
step env 30 bash -c "$(declare -f env_info); env_info" > "$R/env.txt" 2>&1

step build 240 nvcc -arch=sm_90 -O3 -std=c++17 -lineinfo -Xptxas -v -o "$B/c5_bench" \
  "$ROOT/benchmarks/c5_softmax_bench.cu" 2> "$R/ptxas.txt"

dump_sass() {
  nvcc -arch=sm_90 -O3 -std=c++17 -cubin -o "$B/c5.cubin" "$ROOT/solutions/c5_softmax.cu" &&
    cuobjdump -sass "$B/c5.cubin" | awk '/Function : /{keep = ($0 ~ /online_kernel|block_rows_kernelILi1024ELi4ELi4E|lane_groups_kernelILi16ELi4ELi2E|naive_kernel/)} keep'
}
[ "${LIGHT:-0}" = 1 ] || step sass 120 bash -c "$(declare -f dump_sass); B='$B' ROOT='$ROOT' dump_sass" > "$R/sass.txt" 2>&1

step info 30 "$B/c5_bench" info >> "$R/env.txt" 2>&1
step check 150 "$B/c5_bench" check > "$R/check.csv" 2> "$R/check.err"
step time 150 "$B/c5_bench" time 30 > "$R/time.csv" 2> "$R/time.err"

cat > "$B/torch_softmax.py" <<'EOF'
import sys, torch
shapes = [(4096, 8192), (16384, 16384), (65536, 1024), (262144, 128), (1024, 65536), (64, 1048576), (8192, 4097)]
def median_ms(f, warmup=5, reps=30):
    for _ in range(warmup): f()
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); f(); b.record(); b.synchronize(); ts.append(a.elapsed_time(b))
    ts.sort(); return ts[len(ts) // 2]
print("shape,torch_softmax_ms,torch_copy_ms,torch_softmax_gbps,pct_of_torch_copy,max_abs_diff_vs_float64")
for r, c in shapes:
    x = torch.rand(r, c, device="cuda") * 2 - 1
    y = torch.empty_like(x)
    s = median_ms(lambda: torch.softmax(x, dim=-1))
    cp = median_ms(lambda: y.copy_(x))
    ref = torch.softmax(x[:8].double(), dim=-1)
    diff = (torch.softmax(x[:8], dim=-1).double() - ref).abs().max().item()
    gb = 2 * r * c * 4 / (s * 1e-3) / 1e9
    print(f"{r}x{c},{s:.4f},{cp:.4f},{gb:.0f},{100 * cp / s:.1f},{diff:.3g}", flush=True)
    del x, y
    torch.cuda.empty_cache()
EOF
step torch 120 python3 "$B/torch_softmax.py" > "$R/torch.csv" 2> "$R/torch.err"

summarize() {
python3 - "$R" <<'EOF'
import csv, sys, collections
R = sys.argv[1]
rows = list(csv.DictReader(open(f"{R}/time.csv")))
try:
    torch = {r["shape"]: r for r in csv.DictReader(open(f"{R}/torch.csv"))}
except (OSError, csv.Error):
    torch = {}
by = collections.defaultdict(list)
for r in rows: by[r["shape"]].append(r)
for shape, rs in by.items():
    copy = next(r for r in rs if r["name"] == "copy_vec4")
    print(f"== {shape}: copy kernel {float(copy['gbps']):.0f} GB/s ({copy['ms']} ms)")
    t = torch.get(shape)
    if t:
        print(f"   torch.softmax {t['torch_softmax_ms']} ms = {100 * float(copy['ms']) / float(t['torch_softmax_ms']):.1f}% of copy kernel")
    for r in rs:
        if r["kind"] == "ladder":
            vs = f", {float(t['torch_softmax_ms']) / float(r['ms']):.2f}x torch" if t else ""
            print(f"   {r['name']:<20} {r['ms']:>8} ms {r['gbps']:>6} GB/s {r['pct_copy_kernel']:>6}% of copy{vs}")
    sw = sorted((r for r in rs if r["kind"] == "sweep"), key=lambda r: float(r["ms"]))
    for i, r in enumerate(sw[:5]):
        print(f"   {'best' if i == 0 else '    '} sweep {r['name']:<18} {r['ms']:>8} ms {r['pct_copy_kernel']:>6}% of copy")
EOF
}
step summary 30 bash -c "R='$R'; $(declare -f summarize); summarize" > "$R/summary.txt" 2>&1

# Nsight Compute: one ncu process per (variant, shape); only the softmax/copy kernels are profiled.
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_op_read_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,sm__warps_active.avg.pct_of_peak_sustained_active,dram__throughput.avg.pct_of_peak_sustained_elapsed,smsp__inst_executed.sum,launch__registers_per_thread,launch__grid_size,launch__block_size
profile() {  # profile VARIANT SHAPE
  echo "### $1 $2"
  ncu --clock-control none --csv --metrics "$METRICS" -k regex:'naive|online|lane_groups|block_rows|copy_vec4' \
    "$B/c5_bench" one "$1" "$2" 2>&1 | grep -v '^==PROF==' 
}
run_ncu() {
  for pair in "copy_vec4 4096x8192" "softmax_naive 4096x8192" "softmax_online 4096x8192" \
              "softmax_online 1024x65536" "softmax_online 64x1048576" "softmax_online 262144x128" \
              "softmax_by_width 262144x128" "softmax_fast 4096x8192" "softmax_fast 262144x128" \
              "softmax_fast 1024x65536" "softmax_fast 64x1048576" "softmax_fast 8192x4097" "softmax_fast 16384x16384"; do
    profile $pair
  done
  echo "### torch.softmax 4096x8192"
  ncu --clock-control none --csv --metrics "$METRICS" -k regex:'SoftMax|softmax|Softmax' --launch-count 1 \
    python3 -c "import torch; x = torch.rand(4096, 8192, device='cuda'); torch.softmax(x, dim=-1); torch.cuda.synchronize()" 2>&1 | grep -v '^==PROF=='
}
[ "${LIGHT:-0}" = 1 ] || step ncu 200 bash -c "B='$B' METRICS='$METRICS'; $(declare -f profile run_ncu); run_ncu" > "$R/ncu.csv" 2>&1

for tool in memcheck racecheck synccheck; do
  step "sanitizer-$tool" 90 compute-sanitizer --tool "$tool" --error-exitcode 3 "$B/c5_bench" sanitize > "$R/sanitizer-$tool.txt" 2>&1
done

echo "total seconds=$(( $(date +%s) - T0 ))" | tee -a "$STEPS" >&3
