"""The checker needs no GPU: it never launches a kernel (its contract functions are no-op stubs and
the bytes it checks come from the subject's records), so on either backend it links its own runtime
(tests/support/drills_checker_cudart.cpp) and opens no CUDA context. A GPU in exclusive-process
compute mode then holds the subject's context only, where a checker that opened one of its own
turned every run into an error."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest

from drills import ROOT, manifest
from drills.pipeline import build as builder

CUDART = ROOT / "tests" / "support" / "drills_checker_cudart.cpp"
ERRORS = ROOT / "sim" / "runtime" / "errors.cpp"
NO_RUNTIME = ("libcudart", "libcuda.", "libdrills_cudart_sim")


def needed(binary) -> list[str]:
    out = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    return [line.split("[", 1)[1].rstrip("]") for line in out.splitlines() if "(NEEDED)" in line]


def cuda_include() -> str:
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    return str((os.path.dirname(os.path.realpath(nvcc))) + "/../include")


def test_the_runtime_holds_no_device_memory_and_never_reads_it(tmp_path):
    """Allocations are address space no one may touch, uploads and memsets are checked against them
    and land nowhere, a copy out of device memory is refused, and a host dereference faults."""
    prog = tmp_path / "t.cpp"
    prog.write_text(r'''
#include <cuda_runtime_api.h>
#include <cstdio>
#include <cstring>
#include <vector>
int main(int argc, char** argv) {
  float* d = nullptr;
  std::vector<float> h(1000, 1.5f);
  if (cudaMalloc((void**)&d, 4000) != cudaSuccess || !d) return 10;
  if (cudaMemcpy(d, h.data(), 4000, cudaMemcpyHostToDevice) != cudaSuccess) return 11;
  if (cudaMemset(d, 0xff, 4000) != cudaSuccess) return 12;
  if (cudaMemcpy(d + 1, h.data(), 4000, cudaMemcpyHostToDevice) != cudaErrorInvalidValue) return 13;  // past the end
  if (cudaGetLastError() != cudaErrorInvalidValue || cudaGetLastError() != cudaSuccess) return 14;
  if (cudaMemcpy(h.data(), d, 4000, cudaMemcpyDeviceToHost) != cudaErrorNotSupported) return 15;
  if (h[0] != 1.5f) return 16;  // nothing was written into the host buffer
  if (cudaMemcpy(h.data(), d, 4000, cudaMemcpyDefault) != cudaErrorNotSupported) return 17;
  if (cudaDeviceSynchronize() != cudaSuccess) return 18;
  if (std::strcmp(cudaGetErrorName(cudaErrorNotSupported), "cudaErrorNotSupported") != 0) return 19;
  int local = 0;
  if (cudaFree(&local) != cudaErrorInvalidValue || cudaFree(d) != cudaSuccess) return 20;
  if (argc > 1) {  // a host read of a device pointer
    float* again = nullptr;
    cudaMalloc((void**)&again, 64);
    std::printf("%f\n", again[0]);
    return 21;
  }
  std::puts("ok");
  return 0;
}
''')
    exe = tmp_path / "t"
    cxx = shutil.which("g++") or shutil.which("c++")
    subprocess.run([cxx, "-std=c++17", "-I", cuda_include(), str(prog), str(CUDART), str(ERRORS), "-o", str(exe)],
                   check=True, capture_output=True, timeout=300)
    assert not any(n.startswith(NO_RUNTIME) for n in needed(exe))
    ran = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stdout) == (0, "ok\n"), ran
    deref = subprocess.run([str(exe), "deref"], capture_output=True, text=True, timeout=60)
    assert deref.returncode == -11, deref  # SIGSEGV: the pages are reserved, not readable


def test_the_simulator_builds_checker_links_no_cuda_runtime():
    problem = min(manifest.load().values(), key=lambda p: p.number)
    subject = builder.subject_for(problem, problem.path("solution"), "sim")
    outcome = builder.build(subject, [f"{problem.slug}_checker"])
    assert outcome.ok, outcome.log[-3000:]
    libs = needed(subject.build_dir / f"{problem.slug}_checker")
    assert libs and not any(n.startswith(NO_RUNTIME) for n in libs), libs


def test_a_gpu_builds_checker_links_no_cuda_runtime_and_runs_without_a_gpu(tmp_path):
    """The GPU build's checker (its cases include the GPU-only shapes), configured and built here,
    where there may be no GPU at all: it runs every case to its end, each failing only for want of
    the subject's records."""
    problem = min(manifest.load().values(), key=lambda p: p.number)
    tree = tmp_path / "gpu"
    configure = subprocess.run(
        ["cmake", "-S", str(ROOT), "-B", str(tree), "-DDRILLS_BACKEND=gpu", "-DCMAKE_CUDA_ARCHITECTURES=90",
         f"-DDRILLS_PROBLEM={problem.number}", f"-DDRILLS_SUBJECT={problem.path('solution')}",
         f"-DPython3_EXECUTABLE={sys.executable}"], capture_output=True, text=True, timeout=600)
    assert configure.returncode == 0, configure.stdout[-3000:] + configure.stderr[-3000:]
    made = subprocess.run(["cmake", "--build", str(tree), "--target", f"{problem.slug}_checker", "-j",
                           os.environ.get("DRILLS_BUILD_JOBS", "2")], capture_output=True, text=True, timeout=900)
    assert made.returncode == 0, made.stdout[-3000:] + made.stderr[-3000:]
    checker = tree / f"{problem.slug}_checker"
    libs = needed(checker)
    assert libs and not any(n.startswith(NO_RUNTIME) for n in libs), libs
    env = {k: v for k, v in os.environ.items() if not k.startswith("DRILLS_")}
    ran = subprocess.run([str(checker)], capture_output=True, text=True, timeout=300, env=env)
    assert ran.returncode == 1, ran.stdout[-2000:] + ran.stderr[-2000:]
    cases = ran.stdout.count("[ RUN      ]")
    assert cases > 0 and ran.stdout.count("no output was recorded for this case") >= cases, ran.stdout[-2000:]
    assert "CUDA driver" not in ran.stdout + ran.stderr and "no CUDA-capable device" not in ran.stdout + ran.stderr
