"""C1 through the C ABI library (ctypes): the same checks as the GoogleTest file, plus lengths and
pointer offsets that Hypothesis draws. Runs against the reference by default and against the judged
file when the judge sets DRILLS_SUBJECT_LIB."""

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

PROBLEM = manifest.find(manifest.load(), "c1_vector_add")
ON_SIM = os.environ.get("DRILLS_BACKEND") == "sim"
GUARD = 4  # poisoned floats after c's last element: a write there is a bug
F32 = np.dtype(np.float32).itemsize


@pytest.fixture(scope="module")
def lib() -> Lib:
    return Lib(library_for(PROBLEM.slug))


def random_vector(n: int, seed: int) -> np.ndarray:
    x = np.random.default_rng(seed).uniform(-1, 1, n).astype(np.float32)
    x[x == 0] = 0.5  # a zero input hides unwritten outputs
    return x


def first_mismatches(want: np.ndarray, got: np.ndarray, limit: int = 8) -> str:
    bad = np.flatnonzero(~(want == got))
    rows = [f"[0, {i}] expected {want[i]:.6g} got {got[i]:.6g}" for i in bad[:limit]]
    return f"{len(bad)} of {want.size} elements differ\n" + "\n".join(rows)


ABC = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)  # f(a, b, c, n)


def run_add(lib: Lib, name: str, a: np.ndarray, b: np.ndarray, offsets=(0, 0, 0)) -> np.ndarray:
    """c = name(a, b) with a, b, c starting offsets[k] floats past an aligned address; returns c and
    the GUARD floats after it."""
    if not lib.entry(name):
        pytest.skip(f"{name} is not defined in this file")
    n = a.size
    oa, ob, oc = offsets
    da = lib.upload(np.concatenate([np.zeros(oa, np.float32), a]))
    db = lib.upload(np.concatenate([np.zeros(ob, np.float32), b]))
    cbytes = (oc + n + GUARD) * F32
    dc = lib.alloc(cbytes)
    try:
        lib.poison(dc, cbytes)
        lib.call(name, ABC, da + oa * F32, db + ob * F32, dc + oc * F32, n)
        err = lib.sync()
        assert err == 0, f"{name} on n = {n}: {lib.error_name(err)}"
        return lib.download(dc, oc + n + GUARD)[oc:]
    finally:
        lib.free(da)
        lib.free(db)
        lib.free(dc)


def check(got: np.ndarray, a: np.ndarray, b: np.ndarray, what: str) -> None:
    n = a.size
    want = a + b  # float32 + float32: the same IEEE add as the GPU's
    assert np.array_equal(got[:n], want), f"{what}: " + first_mismatches(want, got[:n])
    assert np.isnan(got[n:]).all(), f"{what}: wrote past c[n - 1] (c[n] .. c[n + {GUARD - 1}] must stay untouched)"


VARIANTS = (*PROBLEM.entry_points, *PROBLEM.optional_entry_points[:2])
# The largest public length is the GoogleTest file's job; here the others, quickly.
LENGTHS = [m * n for m, n in PROBLEM.shapes if m * n <= 100_000]


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("n", LENGTHS)
def test_public_lengths(lib, name, n):
    a, b = random_vector(n, seed=n), random_vector(n, seed=n + 1)
    check(run_add(lib, name, a, b), a, b, f"{name} on n = {n}")


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=12 if ON_SIM else 40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(n=st.integers(1, 3000), offsets=st.tuples(*[st.integers(0, 3)] * 3), seed=st.integers(0, 2**31))
def test_random_lengths_and_offsets(lib, name, n, offsets, seed):
    a, b = random_vector(n, seed), random_vector(n, seed + 1)
    check(run_add(lib, name, a, b, offsets), a, b, f"{name} on n = {n}, offsets {offsets}")


@pytest.mark.parametrize("offset", [0, 1, 2, 3])
def test_copy_bound_copies(lib, offset):
    if not lib.entry("copy_vec4"):
        pytest.skip("copy_vec4 is not defined in this file")
    x = random_vector(1021, seed=3)
    dx = lib.upload(np.concatenate([np.zeros(offset, np.float32), x]))
    nbytes = (offset + x.size) * F32
    dy = lib.alloc(nbytes)
    try:
        lib.poison(dy, nbytes)
        lib.call("copy_vec4", (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int), dx + offset * F32,
                 dy + offset * F32, x.size)
        assert lib.sync() == 0
        got = lib.download(dy, offset + x.size)[offset:]
    finally:
        lib.free(dx)
        lib.free(dy)
    assert np.array_equal(got, x), first_mismatches(x, got)
