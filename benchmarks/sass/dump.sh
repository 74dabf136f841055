#!/usr/bin/env bash
# SASS evidence for the chapters: what ptxas makes of the references' kernels on sm_90 (Hopper).
# No GPU needed. Needs nvcc and cuobjdump (CUDA toolkit, or `pip install nvidia-cuda-cuobjdump
# nvidia-cuda-nvdisasm` and their bin/ on PATH).
#   bash benchmarks/sass/dump.sh          # rewrites benchmarks/sass/*.sass and registers.txt
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# kernel name (a substring of the mangled name) -> output file, per reference
dump() {  # dump SOURCE OUT KERNEL...
  local src=$1 out=$2; shift 2
  nvcc -arch=sm_90 -O3 -cubin -o "$tmp/k.cubin" "$root/$src" -Xptxas -v 2>"$tmp/ptxas.txt"
  cuobjdump -sass "$tmp/k.cubin" >"$tmp/k.sass"
  {
    echo "// $src, nvcc $(nvcc --version | sed -n 's/.*release \([0-9.]*\).*/\1/p') -arch=sm_90 -O3 -cubin; cuobjdump -sass"
    echo "// produced by benchmarks/sass/dump.sh on $(date -u +%Y-%m-%d); encodings and blank lines removed"
    for k in "$@"; do
      awk -v k="$k" '/Function :/ {on = index($0, k) > 0} on' "$tmp/k.sass" |
        sed -e 's#/\* 0x[0-9a-f]* \*/##' -e 's/[[:space:]]*$//' | grep -v '^[[:space:]]*$'
    done
  } >"$here/$out"
  {
    echo "== $src"
    grep -E "Compiling entry|Used" "$tmp/ptxas.txt" | sed -e "s/ptxas info    : //" -e "s/_ZN[0-9]*_GLOBAL__N__[0-9a-f_]*_cu_[0-9a-f]*//"
  } >>"$here/registers.txt"
}

: >"$here/registers.txt"
dump solutions/c1_vector_add.cu c1_vector_add.sass 25add_one_per_thread_kernel 22add_grid_stride_kernel 15add_vec4_kernelILi1 15add_vec4_kernelILi4
dump solutions/c2_reduction.cu c2_reduction.sass 28interleaved_divergent_kernel 17sequential_kernel 16first_add_kernel grid_stride_kernelIfLi1ELb0
dump solutions/c3_transpose.cu c3_transpose.sass transpose_tile_kernelINS_10PaddedTileENS_13RowMajorOrder 22transpose_naive_kernel
echo "wrote $here/*.sass and $here/registers.txt"
