"""C3 through the C ABI library (ctypes): the same checks as the GoogleTest file, plus shapes that
Hypothesis draws with M != N. Runs against the reference by default and against the judged file
when the judge sets DRILLS_SUBJECT_LIB."""

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

PROBLEM = manifest.find(manifest.load(), "c3_transpose")
ON_SIM = os.environ.get("DRILLS_BACKEND") == "sim"


@pytest.fixture(scope="module")
def lib() -> Lib:
    return Lib(library_for(PROBLEM.slug))


def random_matrix(M: int, N: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(-1, 1, (M, N)).astype(np.float32)
    x[x == 0] = 0.5  # a zero input hides unwritten outputs
    return x


def first_mismatches(want: np.ndarray, got: np.ndarray, limit: int = 8) -> str:
    bad = np.argwhere(~(want == got))
    rows = [f"[{r}, {c}] expected {want[r, c]:.6g} got {got[r, c]:.6g}" for r, c in bad[:limit]]
    return f"{len(bad)} of {want.size} elements differ\n" + "\n".join(rows)


XY = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int)  # f(x, y, M, N)


def run_transpose(lib: Lib, name: str, x: np.ndarray) -> np.ndarray:
    if not lib.entry(name):
        pytest.skip(f"{name} is not defined in this file")
    M, N = x.shape
    dx = lib.upload(x)
    dy = lib.alloc(x.nbytes)
    try:
        lib.poison(dy, x.nbytes)
        lib.call(name, XY, dx, dy, M, N)
        err = lib.sync()
        assert err == 0, f"{name} on {M}x{N}: {lib.error_name(err)}"
        return lib.download(dy, (N, M))
    finally:
        lib.free(dx)
        lib.free(dy)


VARIANTS = ("transpose_naive", "transpose_tiled", *PROBLEM.optional_entry_points[:3])
# The two largest public shapes are the GoogleTest file's job; here the small ones, quickly.
SHAPES = [s for s in PROBLEM.shapes if s[0] * s[1] <= 100_000]


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_public_shapes(lib, name, shape):
    x = random_matrix(*shape, seed=shape[0] * 1009 + shape[1])
    got = run_transpose(lib, name, x)
    assert np.array_equal(got, x.T), first_mismatches(x.T, got)


@pytest.mark.parametrize("name", ("transpose_naive", "transpose_tiled"))
@settings(max_examples=12 if ON_SIM else 40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(M=st.integers(1, 200), N=st.integers(1, 200), seed=st.integers(0, 2**31))
def test_random_rectangles(lib, name, M, N, seed):
    if M == N:
        N += 1  # squares hide an M/N swap
    x = random_matrix(M, N, seed)
    got = run_transpose(lib, name, x)
    assert np.array_equal(got, x.T), first_mismatches(x.T, got)


@pytest.mark.parametrize("n", [1, 2, 31, 33, 64, 100])
def test_inplace_square(lib, n):
    if not lib.entry("transpose_inplace_square"):
        pytest.skip("transpose_inplace_square is not defined in this file")
    a = random_matrix(n, n, seed=n)
    da = lib.upload(a)
    try:
        lib.call("transpose_inplace_square", (ctypes.c_void_p, ctypes.c_int), da, n)
        assert lib.sync() == 0
        got = lib.download(da, (n, n))
    finally:
        lib.free(da)
    assert np.array_equal(got, a.T), first_mismatches(a.T, got)


def test_copy_bound_copies(lib):
    if not lib.entry("copy_tiled"):
        pytest.skip("copy_tiled is not defined in this file")
    x = random_matrix(70, 45, seed=3)
    dx, dy = lib.upload(x), lib.alloc(x.nbytes)
    try:
        lib.poison(dy, x.nbytes)
        lib.call("copy_tiled", XY, dx, dy, 70, 45)
        assert lib.sync() == 0
        got = lib.download(dy, (70, 45))
    finally:
        lib.free(dx)
        lib.free(dy)
    assert np.array_equal(got, x), first_mismatches(x, got)
