"""What this machine can run: nvcc, CMake, a GPU, the simulator."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess

from .. import ROOT


class ToolchainError(Exception):
    """A tool the judge needs is missing. The message says what to do."""


def require(tool: str) -> str:
    path = shutil.which(tool)
    if path:
        return path
    hints = {
        "nvcc": "install the CUDA Toolkit and put its bin/ on PATH (nvcc compiles even without a GPU)",
        "cmake": "install CMake 3.24 or newer (apt-get install cmake, or pip install cmake)",
    }
    raise ToolchainError(f"{tool} not found: {hints.get(tool, 'install it and put it on PATH')}")


@functools.lru_cache(maxsize=1)
def gpu_name() -> str | None:
    """The first GPU's name when one answers, else None. DRILLS_NO_GPU=1 pretends there is none."""
    if os.environ.get("DRILLS_NO_GPU"):
        return None
    if gpu_standin():
        return STANDIN_NAME
    smi = shutil.which("nvidia-smi")
    if not smi:
        return None
    try:
        out = subprocess.run([smi, "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                             text=True, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    names = [line.strip() for line in out.stdout.splitlines() if line.strip()]
    return names[0] if out.returncode == 0 and names else None


STANDIN_NAME = "simulator standing in for a GPU (DRILLS_GPU_STANDIN=sim)"


def gpu_standin() -> bool:
    """DRILLS_GPU_STANDIN=sim: the `gpu` backend builds for the simulator (in build/gpu-standin) and
    runs as far as the judge can tell as a GPU would: its simulator events never reach the result
    and only the judge's watchdog stops a hang. The GPU backend's own machinery (the watchdog, the
    simulator's replay, what reaches the verdict) is so tested on a machine without a GPU. Never a
    learner's setting: the stand-in still stops a launch that races or runs out of bounds."""
    return os.environ.get("DRILLS_GPU_STANDIN") == "sim"


def simulator_available() -> bool:
    """The simulator's sources are in this checkout (it is built with the sim backend)."""
    return (ROOT / "sim" / "runtime" / "CMakeLists.txt").exists() and (ROOT / "sim" / "engine" / "CMakeLists.txt").exists()


def pick_backend(requested: str) -> str:
    """auto: the GPU when one answers, otherwise the simulator."""
    if requested in ("gpu", "sim"):
        return requested
    return "gpu" if gpu_name() else "sim"


def backend_unavailable(backend: str) -> str | None:
    """Why a backend cannot run here, or None when it can."""
    if backend == "gpu" and not gpu_name():
        return "no GPU answers on this machine (nvidia-smi finds none); use --backend sim"
    if backend == "sim" and not simulator_available():
        return "the simulator (sim/) is not in this checkout"
    return None
