"""A problem added by a manifest entry and its own files only, with no edit to the core.

In a copy of the checkout, a throwaway problem (#901, a copy kernel) gets its entry in the copy's
practice/problems.toml, a chapter, a skeleton, a reference, the contract header, a GoogleTest file,
a C ABI table, a technique check and a problem module with its messages. The copy's own judge then
judges it end to end on the simulator: the reference passes with its check, the skeleton fails
with the module's diagnosis. The core (drills/ outside drills/problems/, CMake, the test support)
stays byte for byte what it is in this checkout.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from result_schema import assert_valid_result

from drills import ROOT
from drills.pipeline.toolchain import backend_unavailable

pytestmark = pytest.mark.skipif(bool(backend_unavailable("sim") or not shutil.which("nvcc")),
                                reason="needs nvcc and the simulator sources")

NOT_COPIED = (".git", "build", ".hypothesis", ".pytest_cache", "__pycache__", "test-results", ".device", ".whl", ".gl")

ENTRY = '''
[[problem]]
number = 901
slug = "c9_copy"
chapter = "C9"
title = { zh = "拷贝（一次性的测试题）", en = "Copy (a throwaway problem)" }
difficulty = "简单"
content = "content/c9.md"
mine = "mine/c9_copy.cu"
solution = "solutions/c9_copy.cu"
gtest = "tests/c9_copy_test.cu"
capi = "tests/c9_copy_capi.cu"
module = "c9_copy"
entry_points = ["tile_copy"]
tolerance = { rtol = 0.0, atol = 0.0 }
shapes = ["1x1", "31x33", "70x45", "256x300"]

[[problem.checks]]
id = "coalesced-access"
severity = "fail"
title = { zh = "全局读写合并", en = "global loads and stores coalesced" }
probe = { entry = "tile_copy", dims = { M = 256, N = 256 }, args = ["in:M*N", "out:M*N", "M", "N"] }
rule = { per_line = ["global_ld", "global_st"], at_most = "ideal" }

[problem.diagnosis]
evidence = ["wrong", "unwritten"]

[[problem.hints]]
zh = "一个线程拷一个元素。"
en = "One thread copies one element."
[[problem.hints]]
zh = "threadIdx.x 对应列。"
en = "threadIdx.x indexes the column."
[[problem.hints]]
zh = "检查 r < M 且 c < N。"
en = "Check r < M and c < N."
'''

FILES = {
    "content/c9.md": "# C9 拷贝\n\n一次性的测试题。\n",
    "content/en/c9.md": "# C9 Copy\n\nA throwaway problem.\n",
    "tests/c9_copy.h": "#pragma once\nvoid tile_copy(const float* x, float* y, int M, int N);\n",
    "mine/c9_copy.cu": """#include "../tests/c9_copy.h"
void tile_copy(const float* x, float* y, int M, int N) {
  // TODO: launch a kernel that copies x (M x N) to y.
}
""",
    "solutions/c9_copy.cu": """#include <cuda_runtime.h>
__global__ void copy_kernel(const float* x, float* y, int M, int N) {
  const int c = blockIdx.x * 32 + threadIdx.x, r = blockIdx.y * 8 + threadIdx.y;
  if (r < M && c < N) y[(size_t)r * N + c] = x[(size_t)r * N + c];
}
void tile_copy(const float* x, float* y, int M, int N) {
  if (M <= 0 || N <= 0) return;
  copy_kernel<<<dim3((N + 31) / 32, (M + 7) / 8), dim3(32, 8)>>>(x, y, M, N);
}
""",
    "tests/c9_copy_test.cu": """#include "c9_copy.h"
#include "support/drills_test.h"

namespace {
class Copy : public ::testing::TestWithParam<drills::Shape> {};

TEST_P(Copy, MatchesHostReference) {
  const int M = GetParam().first, N = GetParam().second;
  const size_t n = static_cast<size_t>(M) * N;
  const std::vector<float> x = drills::random_floats(n, M * 31u + N);
  drills::DeviceBuffer<float> dx(n), dy(n);
  DRILLS_CUDA_OK(cudaMemcpy(dx.get(), x.data(), dx.bytes(), cudaMemcpyHostToDevice));
  DRILLS_CUDA_OK(drills::poison(dy));
  tile_copy(dx.get(), dy.get(), M, N);
  DRILLS_CUDA_OK(cudaDeviceSynchronize());
  std::vector<float> got(n);
  DRILLS_CUDA_OK(drills::download(got.data(), dy.get(), dy.bytes()));
  const auto same = drills::matrices_equal(x, got, M, N);
  if (!same) {
    size_t wrong = 0, unwritten = 0;
    for (size_t i = 0; i < n; ++i) { wrong += !(got[i] == x[i]); unwritten += std::isnan(got[i]); }
    ::testing::Test::RecordProperty("wrong", std::to_string(wrong));
    ::testing::Test::RecordProperty("unwritten", std::to_string(unwritten));
  }
  EXPECT_TRUE(same);
}

std::string name(const ::testing::TestParamInfo<drills::Shape>& info) {
  return "copy_" + drills::shape_name(info.param);
}
INSTANTIATE_TEST_SUITE_P(C9, Copy, ::testing::ValuesIn(drills::test_shapes()), name);
}  // namespace
""",
    "tests/c9_copy_capi.cu": """#include "c9_copy.h"
#include "support/drills_capi.h"

extern "C" const DrillsEntry drills_entries[] = {
    {"tile_copy", reinterpret_cast<void*>(tile_copy)},
    {nullptr, nullptr},
};

extern "C" int drills_time_variant(const char*, const long long*, int, int, int, float*, double*) { return -1; }
""",
    "drills/problems/c9_copy.py": '''"""Problem 901 (a throwaway copy): one output-pattern diagnosis."""
from ..manifest import Problem
from ..pipeline.diagnose import evidence_int
from ..result import Result

DIAGNOSES = ("nothing-copied",)
STORE_LINE_DIAGNOSES = ()


def diagnose_outputs(problem: Problem, result: Result) -> None:
    failed = [t for t in result.tests if t["status"] == "fail" and "wrong" in t.get("evidence", {})]
    if failed and all(evidence_int(t["evidence"], "unwritten") == evidence_int(t["evidence"], "wrong") for t in failed):
        result.diagnose("nothing-copied", cases=len(failed))


def probe_reference(entry: str, dims: dict, inputs: list) -> list:
    return [(inputs[0], 0.0)]
''',
    "drills/problems/c9_copy.toml": '''[diagnosis]
nothing-copied = { zh = "{cases} 个用例里 y 一个元素也没有被写。", en = "y was not written at all in {cases} case(s)." }
''',
}


def digest(folder: Path, skip=()) -> dict:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file() and "__pycache__" not in p.parts
            and not any(str(p.relative_to(folder)).startswith(s) for s in skip)}


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    copy = tmp_path_factory.mktemp("throwaway") / "drills"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    manifest = copy / "practice" / "problems.toml"
    manifest.write_text(manifest.read_text(encoding="utf-8") + ENTRY, encoding="utf-8")
    for rel, text in FILES.items():
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_text(text, encoding="utf-8")
    return copy


def judge(checkout: Path, *args: str) -> dict:
    p = subprocess.run([sys.executable, str(checkout / "practice" / "judge.py"), "901", "--backend", "sim", "--json",
                        "--no-perf", *args], cwd=checkout, capture_output=True, text=True, timeout=1500)
    assert p.returncode in (0, 1, 2), p.stderr
    return assert_valid_result(json.loads(p.stdout))


def test_the_core_is_untouched(checkout):
    core = ("drills", "CMakeLists.txt", "cmake", "tests/support", "practice/judge.py")
    for part in core:
        here, there = ROOT / part, checkout / part
        if here.is_file():
            assert here.read_bytes() == there.read_bytes(), part
        else:
            skip = ("problems/c9_copy",)
            assert digest(here, skip) == digest(there, skip), f"{part} differs"


def test_the_reference_passes_with_its_check(checkout):
    r = judge(checkout, "--solution")
    assert r["status"] == "pass", r["message"]["en"]
    assert [(c["id"], c["status"]) for c in r["checks"]] == [("coalesced-access", "pass")]
    assert len([t for t in r["tests"] if t["status"] == "pass"]) == 4


def test_the_skeleton_fails_with_the_modules_diagnosis(checkout):
    r = judge(checkout)
    assert r["status"] == "fail", r["message"]["en"]
    assert [d["id"] for d in r["diagnoses"]][:1] == ["nothing-copied"]
    assert "y was not written at all in 4 case(s)" in r["diagnoses"][0]["message"]["en"]
