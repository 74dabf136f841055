#!/usr/bin/env bash
# SASS evidence for content/c5.md: what ptxas makes of solutions/c5_softmax.cu on sm_90 (Hopper).
# No GPU needed; needs nvcc and cuobjdump (CUDA toolkit, or pip's nvidia-cuda-cuobjdump on PATH).
#   bash benchmarks/c5_sass.sh      # rewrites benchmarks/c5_softmax.sass and benchmarks/c5_registers.txt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvcc -arch=sm_90 -O3 -cubin -o "$tmp/k.cubin" "$root/solutions/c5_softmax.cu" -Xptxas -v 2>"$tmp/ptxas.txt"
cuobjdump -sass "$tmp/k.cubin" >"$tmp/k.sass"
version=$(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p')
{
  echo "// solutions/c5_softmax.cu, nvcc $version -arch=sm_90 -O3 -cubin; cuobjdump -sass"
  echo "// produced by benchmarks/c5_sass.sh on $(date -u +%Y-%m-%d); encodings and blank lines removed"
  for k in 12naive_kernel 13online_kernel 18lane_groups_kernelILi16ELi4ELi2E 17block_rows_kernelILi1024ELi4ELi4E 17tasks_rows_kernelILi512ELi8E; do
    awk -v k="$k" '/Function :/ {on = index($0, k) > 0} on' "$tmp/k.sass" |
      sed -e 's#/\* 0x[0-9a-f]* \*/##' -e 's/[[:space:]]*$//' | grep -v '^[[:space:]]*$'
  done
} >"$here/c5_softmax.sass"
{
  echo "// solutions/c5_softmax.cu, nvcc $version -arch=sm_90 -O3 -Xptxas -v, $(date -u +%Y-%m-%d)"
  grep -E "Compiling entry|Used|spill" "$tmp/ptxas.txt" | sed -e "s/ptxas info    : //" -e "s/_ZN[0-9]*_GLOBAL__N__[0-9a-f_]*_cu_[0-9a-f]*//"
} >"$here/c5_registers.txt"
echo "wrote $here/c5_softmax.sass and $here/c5_registers.txt"
