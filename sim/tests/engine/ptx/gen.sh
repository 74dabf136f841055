#!/bin/sh
# Regenerates the checked-in PTX fixtures (needs nvcc 13). Run from this directory.
# Files named *_sm90.cu use sm_90 instructions (stmatrix) and are compiled for compute_90.
set -e
for f in *.cu; do
  arch=compute_80
  case "$f" in *_sm90.cu) arch=compute_90 ;; esac
  nvcc -ptx -lineinfo -arch=$arch -O3 -o "${f%.cu}.ptx" "$f"
done
