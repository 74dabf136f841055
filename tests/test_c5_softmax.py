"""C5 through the C ABI library (ctypes): the GoogleTest file's checks on shapes that Hypothesis
draws, against a float64 softmax. Runs against the reference by default and against the judged file
when the judge sets DRILLS_SUBJECT_LIB."""

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

PROBLEM = manifest.find(manifest.load(), "c5_softmax")
ON_SIM = os.environ.get("DRILLS_BACKEND") == "sim"
XY = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int)  # f(x, y, rows, cols)
VARIANTS = ("softmax_naive", "softmax_online", "softmax_by_width", "softmax_registers", "softmax_split",
            "softmax_fast")


@pytest.fixture(scope="module")
def lib() -> Lib:
    return Lib(library_for(PROBLEM.slug))


def make_input(kind: str, rows: int, cols: int, seed: int) -> np.ndarray:
    """As the GoogleTest file: uniform, scaled (x 1000), neginf (-inf sprinkled, last row all -inf),
    latemax (+8 on each row's last quarter)."""
    x = np.random.default_rng(seed).uniform(-1, 1, (rows, cols)).astype(np.float32)
    x[x == 0] = 0.5  # a zero input hides unwritten outputs
    if kind == "scaled":
        x *= 1000
    elif kind == "neginf":
        r, c = np.indices((rows, cols))
        x[(r * 31 + c) % 5 == 0] = -np.inf
        if rows > 1:
            x[-1] = -np.inf
    elif kind == "latemax":
        x[:, cols - cols // 4:] += 8
    return x


def softmax64(x: np.ndarray) -> np.ndarray:
    x = x.astype(np.float64)
    with np.errstate(invalid="ignore"):
        e = np.exp(x - x.max(axis=1, keepdims=True))  # an all -inf row: exp(NaN), NaN everywhere
        return e / e.sum(axis=1, keepdims=True)


def eps(n: int, t):
    """The relative tolerance tests/c5_softmax_test.cu uses (derived in content/c5.md)."""
    return 2.0 ** -23 * (64 + 1.2 * (t + math.log(n) + 1)) + 2.0 ** -21 * math.sqrt(n)


def check(x: np.ndarray, got: np.ndarray) -> None:
    want = softmax64(x)
    rows, cols = x.shape
    with np.errstate(invalid="ignore"):
        t = x.astype(np.float64).max(axis=1, keepdims=True) - x
        tol = want * eps(cols, np.nan_to_num(t, nan=0.0, posinf=0.0)) + 2.0 ** -126
        tol = tol + PROBLEM.tolerance.atol + PROBLEM.tolerance.rtol * np.abs(want)  # 0 unless an instructor loosens them
        unwritten = got.view(np.uint32) == 0xFFFFFFFF  # the poison: a NaN no arithmetic produces
        ok = np.where(np.isnan(want), np.isnan(got) & ~unwritten, np.abs(got - want) <= tol)
    bad = np.argwhere(~ok)
    lines = [f"[{r}, {c}] expected {want[r, c]:.9g} got {got[r, c]:.9g}" for r, c in bad[:8]]
    assert bad.size == 0, f"{len(bad)} of {want.size} elements wrong\n" + "\n".join(lines)
    live = ~np.isnan(want).any(axis=1)
    sums = got[live].astype(np.float64).sum(axis=1)
    limit = 2 * eps(cols, math.log(cols) + 1) + cols * 2.0 ** -126
    assert np.all(np.abs(sums - 1) <= limit), f"row sums {sums[np.abs(sums - 1) > limit][:4]} are not 1"


def run(lib: Lib, name: str, x: np.ndarray) -> np.ndarray:
    if not lib.entry(name):
        pytest.skip(f"{name} is not defined in this file")
    rows, cols = x.shape
    dx, dy = lib.upload(x), lib.alloc(x.nbytes)
    try:
        lib.poison(dy, x.nbytes)
        lib.call(name, XY, dx, dy, rows, cols)
        err = lib.sync()
        assert err == 0, f"{name} on {rows}x{cols}: {lib.error_name(err)}"
        return lib.download(dy, (rows, cols))
    finally:
        lib.free(dx)
        lib.free(dy)


# Small shapes of every kind quickly; the GoogleTest file runs the large ones.
SMALL = [(1, 1), (2, 31), (3, 33), (5, 513), (1, 4097)]


@pytest.mark.parametrize("name", VARIANTS)
@pytest.mark.parametrize("kind", ("uniform", "scaled", "neginf", "latemax"))
@pytest.mark.parametrize("shape", SMALL, ids=lambda s: f"{s[0]}x{s[1]}")
def test_kinds(lib, name, kind, shape):
    x = make_input(kind, *shape, seed=shape[0] * 1009 + shape[1])
    check(x, run(lib, name, x))


@pytest.mark.parametrize("name", VARIANTS)
@settings(max_examples=8 if ON_SIM else 40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.integers(1, 70), cols=st.integers(1, 2500), kind=st.sampled_from(("uniform", "scaled", "latemax")),
       seed=st.integers(0, 2**31))
def test_random_shapes(lib, name, rows, cols, kind, seed):
    x = make_input(kind, rows, cols, seed)
    check(x, run(lib, name, x))


def test_copy_bound_copies(lib):
    if not lib.entry("copy_vec4"):
        pytest.skip("copy_vec4 is not defined in this file")
    x = make_input("uniform", 7, 45, seed=3)
    assert np.array_equal(run(lib, "copy_vec4", x), x)
