"""ctypes access to a chapter's C ABI library (tests/support/drills_capi.cu): device memory,
the file's host functions by name, and event timing. Used by pytest and by the GPU timing."""

from __future__ import annotations

import ctypes
import statistics
from pathlib import Path

import numpy as np

WARMUP, REPS = 5, 50


class Lib:
    """One chapter C ABI library (tests/support/drills_capi.cu)."""

    def __init__(self, path: Path):
        self.dll = ctypes.CDLL(str(path), mode=ctypes.RTLD_LOCAL)
        self.dll.drills_entry.restype = ctypes.c_void_p
        self.dll.drills_entry.argtypes = [ctypes.c_char_p]
        self.dll.drills_malloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
        self.dll.drills_free.argtypes = [ctypes.c_void_p]
        self.dll.drills_to_device.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self.dll.drills_to_host.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t]
        self.dll.drills_memset.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_size_t]
        self.dll.drills_time_variant.argtypes = [ctypes.c_char_p, ctypes.POINTER(ctypes.c_longlong), ctypes.c_int,
                                                 ctypes.c_int, ctypes.c_int, ctypes.POINTER(ctypes.c_float),
                                                 ctypes.POINTER(ctypes.c_double)]
        self.dll.drills_time_memcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int,
                                                ctypes.c_int, ctypes.POINTER(ctypes.c_float)]
        self.dll.drills_error_name.restype = ctypes.c_char_p
        self.dll.drills_error_name.argtypes = [ctypes.c_int]

    def entry(self, name: str):
        return self.dll.drills_entry(name.encode())

    def check(self, err: int, what: str):
        if err:
            raise RuntimeError(f"{what}: {self.dll.drills_error_name(err).decode()}")

    def alloc(self, nbytes: int) -> int:
        p = ctypes.c_void_p()
        self.check(self.dll.drills_malloc(ctypes.byref(p), nbytes), "cudaMalloc")
        return p.value

    def call(self, name: str, signature: tuple, *args) -> None:
        """Call the file's host function `name`; pytest skips when the file does not define it."""
        fn = self.entry(name)
        if not fn:
            import pytest
            pytest.skip(f"{name} is not defined in this file")
        ctypes.CFUNCTYPE(None, *signature)(fn)(*args)

    def upload(self, array: np.ndarray) -> int:
        array = np.ascontiguousarray(array)
        ptr = self.alloc(array.nbytes)
        self.check(self.dll.drills_to_device(ptr, array.ctypes.data, array.nbytes), "cudaMemcpy H2D")
        return ptr

    def download(self, ptr: int, shape, dtype=np.float32) -> np.ndarray:
        out = np.empty(shape, dtype=dtype)
        self.check(self.dll.drills_to_host(out.ctypes.data, ptr, out.nbytes), "cudaMemcpy D2H")
        return out

    def poison(self, ptr: int, nbytes: int) -> None:
        """0xFF bytes: NaN as float, so an element nobody wrote never matches."""
        self.check(self.dll.drills_memset(ptr, 0xFF, nbytes), "cudaMemset")

    def free(self, ptr: int) -> None:
        self.dll.drills_free(ptr)

    def sync(self) -> int:
        return self.dll.drills_sync()

    def error_name(self, err: int) -> str:
        return self.dll.drills_error_name(err).decode()

    def time_variant(self, name: str, dims) -> tuple[float, float] | None:
        """(median ms, bytes one call moves) for a named host function, or None if undefined."""
        samples = (ctypes.c_float * REPS)()
        moved = ctypes.c_double()
        arr = (ctypes.c_longlong * len(dims))(*dims)
        err = self.dll.drills_time_variant(name.encode(), arr, len(dims), WARMUP, REPS, samples, ctypes.byref(moved))
        if err == -1:
            return None
        if err == -2:
            raise ValueError(f"{name}: bad shape {dims}")
        self.check(err, f"timing {name}")
        return statistics.median(samples), moved.value

    def memcpy_ms(self, dst, src, nbytes) -> float:
        samples = (ctypes.c_float * REPS)()
        self.check(self.dll.drills_time_memcpy(dst, src, nbytes, WARMUP, REPS, samples), "cudaMemcpy")
        return statistics.median(samples)


