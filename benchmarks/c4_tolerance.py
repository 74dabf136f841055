"""How close a float32 product comes to C4's tolerance, and whether TF32 would pass it.

The tests accept |C - Ĉ| <= γ_K Σ_k |a_ik b_kj| with γ_K = K u / (1 - K u), u = 2^-24 (content/c4.md §2).
For the test shapes this prints, per shape, the worst |error| / bound of
  - numpy's float32 matmul (a float32 kernel: far inside the bound), and
  - the exact product of TF32-rounded inputs (10-bit mantissa, what a TF32 tensor-core GEMM multiplies):
    outside the bound at small K, inside it from K of about 1000 on.
Inputs uniform in [-1, 1), as in the tests.

    python3 benchmarks/c4_tolerance.py
"""

from __future__ import annotations

import numpy as np

U = 2.0 ** -24


def tf32(x: np.ndarray) -> np.ndarray:
    """Round float32 to TF32 (10 explicit mantissa bits), to nearest."""
    bits = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    bits = ((bits + 0x1000) & 0xFFFFE000).astype(np.uint32)
    return bits.view(np.float32)


def main() -> None:
    rng = np.random.default_rng(20261201)
    print("| M×N×K | float32 worst error / bound | TF32 worst error / bound | TF32 elements over the bound |")
    print("|---|---|---|---|")
    for M, N, K in [(7, 33, 1), (31, 33, 32), (33, 31, 97), (97, 7, 257), (33, 128, 1000), (64, 64, 4096)]:
        a = rng.uniform(-1, 1, (M, K)).astype(np.float32)
        b = rng.uniform(-1, 1, (K, N)).astype(np.float32)
        exact = a.astype(np.float64) @ b.astype(np.float64)
        bound = K * U / (1 - K * U) * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64)))
        f32 = (a @ b).astype(np.float64)
        t = tf32(a).astype(np.float64) @ tf32(b).astype(np.float64)
        print(f"| {M}×{N}×{K} | {np.max(np.abs(f32 - exact) / bound):.3f} | {np.max(np.abs(t - exact) / bound):.2f} "
              f"| {100 * np.mean(np.abs(t - exact) > bound):.1f}% |")


if __name__ == "__main__":
    main()
