"""C2 through the C ABI library (ctypes): the same checks as the GoogleTest file, plus lengths and
offsets that Hypothesis draws. Runs against the reference by default and against the judged file
when the judge sets DRILLS_SUBJECT_LIB.

Float sums are checked against the exact sum (math.fsum) with the tolerance of the GoogleTest file:
(8 sqrt(n) sum|x| + |sum|) * 2^-24; integer sums exactly, modulo 2^32."""

from __future__ import annotations

import ctypes
import math
import os

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import library_for
from drills import manifest
from drills.pipeline.capi import Lib

PROBLEM = manifest.find(manifest.load(), "c2_reduction")
ON_SIM = os.environ.get("DRILLS_BACKEND") == "sim"
U = 2.0 ** -24
XOUT = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)  # f(x, out, n)


@pytest.fixture(scope="module")
def lib() -> Lib:
    return Lib(library_for(PROBLEM.slug))


def random_vector(n: int, seed: int, positive: bool = False) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(-1, 1, n).astype(np.float32)
    x[x == 0] = 0.5  # a zero input hides a skipped element
    return np.abs(x) if positive else x


def random_ints(n: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).integers(-1000, 1000, n, dtype=np.int32)
    x[x == 0] = 1
    return x


def tolerance(x: np.ndarray, exact: float) -> float:
    return (PROBLEM.tolerance.sum_factor * math.sqrt(x.size) * float(np.abs(x.astype(np.float64)).sum()) + abs(exact)) * U


def run_sum(lib: Lib, name: str, x: np.ndarray, offset: int = 0):
    """name(x + offset elements, out) with out poisoned first; returns the value written to out."""
    if not lib.entry(name):
        pytest.skip(f"{name} is not defined in this file")
    padded = np.concatenate([np.zeros(offset, x.dtype), x])
    dx = lib.upload(padded)
    dout = lib.alloc(8)
    try:
        lib.poison(dout, 8)
        lib.call(name, XOUT, dx + offset * x.itemsize, dout, x.size)
        err = lib.sync()
        assert err == 0, f"{name} on n = {x.size}: {lib.error_name(err)}"
        return lib.download(dout, 1, dtype=x.dtype)[0]
    finally:
        lib.free(dx)
        lib.free(dout)


def check_float(lib: Lib, name: str, x: np.ndarray, offset: int = 0) -> None:
    got = float(run_sum(lib, name, x, offset))
    exact = math.fsum(x.astype(np.float64))
    tol = tolerance(x, exact)
    assert abs(got - exact) <= tol, (f"{name} on n = {x.size} (offset {offset}): got {got!r}, "
                                     f"expected {exact!r} +- {tol:.3g}")


def check_int(lib: Lib, x: np.ndarray, offset: int = 0) -> None:
    got = int(run_sum(lib, "reduce_sum_int", x, offset))
    want = int(x.astype(np.int64).sum())
    want = (want + 2**31) % 2**32 - 2**31  # the GPU's int add wraps modulo 2^32
    assert got == want, f"reduce_sum_int on n = {x.size} (offset {offset}): got {got}, expected {want}"


FLOAT_VARIANTS = ("reduce_sum", *PROBLEM.optional_entry_points[:7])
# The largest public length is the GoogleTest file's job; here the others, quickly.
LENGTHS = [m * n for m, n in PROBLEM.shapes if m * n <= 100_000]


@pytest.mark.parametrize("name", FLOAT_VARIANTS)
@pytest.mark.parametrize("n", LENGTHS)
def test_public_lengths(lib, name, n):
    check_float(lib, name, random_vector(n, seed=n))
    check_float(lib, name, random_vector(n, seed=n + 1, positive=True))


@pytest.mark.parametrize("n", LENGTHS)
def test_int_public_lengths(lib, n):
    check_int(lib, random_ints(n, seed=n))


@pytest.mark.parametrize("name", ("reduce_sum", "reduce_atomic", "reduce_warp_shuffle"))
@settings(max_examples=12 if ON_SIM else 40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 5000), offset=st.integers(0, 3), positive=st.booleans(), seed=st.integers(0, 2**31))
def test_random_lengths_and_offsets(lib, name, n, offset, positive, seed):
    check_float(lib, name, random_vector(n, seed, positive), offset)


@settings(max_examples=12 if ON_SIM else 40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 5000), offset=st.integers(0, 3), seed=st.integers(0, 2**31))
def test_int_random_lengths_and_offsets(lib, n, offset, seed):
    check_int(lib, random_ints(n, seed), offset)


def test_int_wraps_like_the_gpu(lib):
    """2^31 - 1 plus one wraps to -2^31 in 32-bit two's complement, on the GPU as here."""
    x = np.array([2**31 - 1, 1, 7, -7], dtype=np.int32)
    check_int(lib, x)


def test_sum_is_deterministic(lib):
    x = random_vector(65537, seed=11)
    results = {float(run_sum(lib, "reduce_sum", x)).hex() for _ in range(4)}
    assert len(results) == 1, f"reduce_sum gave different bits on different calls: {sorted(results)}"


def test_copy_bound_copies(lib):
    if not lib.entry("copy_vec4"):
        pytest.skip("copy_vec4 is not defined in this file")
    x = random_vector(1021, seed=3)
    dx, dy = lib.upload(x), lib.alloc(x.nbytes)
    try:
        lib.poison(dy, x.nbytes)
        lib.call("copy_vec4", (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int), dx, dy, x.size)
        assert lib.sync() == 0
        got = lib.download(dy, x.size)
    finally:
        lib.free(dx)
        lib.free(dy)
    assert np.array_equal(got, x)
