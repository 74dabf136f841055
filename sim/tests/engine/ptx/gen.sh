#!/bin/sh
# Regenerates the checked-in PTX fixtures (needs nvcc 13). Run from this directory.
set -e
for f in *.cu; do
  nvcc -ptx -lineinfo -arch=compute_80 -O3 -o "${f%.cu}.ptx" "$f"
done
