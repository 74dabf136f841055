"""C4 through the C ABI library (ctypes): the GoogleTest file's check on a few public shapes, plus
shapes that Hypothesis draws with M, N and K all different. Runs against the reference by default
and against the judged file when the judge sets DRILLS_SUBJECT_LIB.

Tolerance (content/c4.md §2): |C - Ĉ| <= γ_K Σ_k |a_ik b_kj|, γ_K = K u / (1 - K u), u = 2^-24,
the worst case of a float32 dot product of length K in any summation order."""

from __future__ import annotations

import ctypes
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import library_for
from drills import manifest
from drills.pipeline.capi import Lib

PROBLEM = manifest.find(manifest.load(), "c4_sgemm")
ON_SIM = os.environ.get("DRILLS_BACKEND") == "sim"
U = 2.0 ** -24


@pytest.fixture(scope="module")
def lib() -> Lib:
    return Lib(library_for(PROBLEM.slug))


def random_matrix(rows: int, cols: int, seed: int, scale: float = 1.0) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(-1, 1, (rows, cols)).astype(np.float32)
    x[x == 0] = 0.5  # a zero input hides unwritten outputs
    return x * np.float32(scale)  # a power of two: exact


def bound(a: np.ndarray, b: np.ndarray, want: np.ndarray) -> np.ndarray:
    """γ_K Σ|a||b|, plus the manifest's atol and rtol (0 unless an instructor loosens them)."""
    K = a.shape[1]
    gamma = K * U / (1 - K * U)
    tol = PROBLEM.tolerance
    return gamma * (np.abs(a.astype(np.float64)) @ np.abs(b.astype(np.float64))) + tol.atol + tol.rtol * np.abs(want)


def first_mismatches(want: np.ndarray, got: np.ndarray, allowed: np.ndarray, limit: int = 8) -> str:
    bad = np.argwhere(~(np.abs(got - want) <= allowed))
    rows = [f"[{r}, {c}] expected {want[r, c]:.7g} got {got[r, c]:.7g} (allowed error {allowed[r, c]:.3g})"
            for r, c in bad[:limit]]
    return f"{len(bad)} of {want.size} elements differ\n" + "\n".join(rows)


ABC = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int, ctypes.c_int)


def run_sgemm(lib: Lib, name: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if not lib.entry(name):
        pytest.skip(f"{name} is not defined in this file")
    (M, K), N = a.shape, b.shape[1]
    da, db = lib.upload(a), lib.upload(b)
    dc = lib.alloc(M * N * 4)
    try:
        lib.poison(dc, M * N * 4)
        lib.call(name, ABC, da, db, dc, M, N, K)
        err = lib.sync()
        assert err == 0, f"{name} on M={M}, N={N}, K={K}: {lib.error_name(err)}"
        return lib.download(dc, (M, N))
    finally:
        for p in (da, db, dc):
            lib.free(p)


def check(lib: Lib, name: str, M: int, N: int, K: int, seed: int, scale_a: float = 1.0, scale_b: float = 1.0) -> None:
    a, b = random_matrix(M, K, seed, scale_a), random_matrix(K, N, seed + 1, scale_b)
    got = run_sgemm(lib, name, a, b)
    want = a.astype(np.float64) @ b.astype(np.float64)
    allowed = bound(a, b, want)
    assert np.all(np.abs(got - want) <= allowed), first_mismatches(want, got, allowed)


CONTRACT = ("sgemm_naive", "sgemm_tiled", "sgemm_fast")
# The small public shapes; the large ones are the GoogleTest file's job.
SHAPES = [s for s in PROBLEM.shapes if s[0] * s[1] * s[2] <= 300_000]


@pytest.mark.parametrize("name", CONTRACT)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
def test_public_shapes(lib, name, shape):
    check(lib, name, *shape, seed=sum(shape))


@pytest.mark.parametrize("name", CONTRACT)
@settings(max_examples=6 if ON_SIM else 40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(M=st.integers(1, 70), N=st.integers(1, 70), K=st.integers(1, 90), seed=st.integers(0, 2**31),
       scale_a=st.sampled_from((2.0 ** -20, 1.0, 2.0 ** 20)), scale_b=st.sampled_from((2.0 ** -10, 1.0, 2.0 ** 10)))
def test_random_shapes(lib, name, M, N, K, seed, scale_a, scale_b):
    """The bound scales with the inputs' magnitudes (Σ|a b|): tested from 2^-30 to 2^30 times the unit range."""
    if M == N:
        N += 1  # a square C hides an M/N swap
    if K in (M, N):
        K += 2
    check(lib, name, M, N, K, seed, scale_a, scale_b)

