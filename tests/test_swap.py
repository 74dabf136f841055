"""The swap build's stamp (drills/pipeline/swap.py): a learner's file is recompiled when it or any
file it #includes changes, and only then. A file judged, its helpers.cuh edited, judged again: the
second verdict is the edited header's, not the first build's."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from drills import ROOT, manifest
from drills.pipeline import swap
from drills.pipeline.judge import judge
from drills.pipeline.toolchain import backend_unavailable

RECIPE = {"fingerprint": "f", "cwd": "/", "compile": ["nvcc", "-c", "{source}", "-o", "{object}"]}


def _tree(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "learner.cu").write_text('#include <cstdio>\n#include "helpers.cuh"\n#include <shared.h>\nint main() {}\n')
    (tmp_path / "helpers.cuh").write_text('#pragma once\n  #  include "deeper/more.cuh"\n')
    (tmp_path / "deeper").mkdir()
    (tmp_path / "deeper" / "more.cuh").write_text("#pragma once\n#if 0\n#include \"later.cuh\"\n#endif\n")
    (tmp_path / "inc" / "shared.h").write_text("#pragma once\n")
    return dict(RECIPE, compile=RECIPE["compile"] + ["-I", str(tmp_path / "inc")])


def test_include_dirs_from_the_compile_command(tmp_path):
    recipe = dict(RECIPE, cwd=str(tmp_path), compile=["nvcc", "-Ia", "-I", "b", "--include-path=c", "-isystem", "d"])
    assert swap.include_dirs(recipe) == [tmp_path / "a", tmp_path / "b", tmp_path / "c"]


def test_include_dirs_from_cmakes_options_file_without_the_toolkits(tmp_path):
    """CMake passes the -I folders in an --options-file; the toolkit's own include folder is the
    compiler's (its identity is in the fingerprint), not followed."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        (tmp_path / "cuda" / "bin").mkdir(parents=True)
        nvcc = tmp_path / "cuda" / "bin" / "nvcc"
        nvcc.write_text("#!/bin/sh\n")
        nvcc.chmod(0o755)
    toolkit_include = Path(nvcc).resolve().parent.parent / "include"
    (tmp_path / "includes.rsp").write_text(f"-I{toolkit_include} -I{tmp_path / 'mine'} -I rel\n")
    recipe = dict(RECIPE, cwd=str(tmp_path), compile=[str(nvcc), "--options-file", "includes.rsp", "-c", "{source}"])
    assert swap.include_dirs(recipe) == [tmp_path / "mine", tmp_path / "rel"]


def test_local_includes_are_found_as_the_compiler_finds_them(tmp_path):
    recipe = _tree(tmp_path)
    found = swap.local_includes(tmp_path / "learner.cu", swap.include_dirs(recipe))
    assert found == [("helpers.cuh", (tmp_path / "helpers.cuh").resolve()),
                     ("shared.h", (tmp_path / "inc" / "shared.h").resolve()),
                     ("deeper/more.cuh", (tmp_path / "deeper" / "more.cuh").resolve()),
                     ("more.cuh:later.cuh", None)]  # quoted, under #if 0, found nowhere: <cstdio> is the system's


@pytest.mark.parametrize("edit", ["helpers.cuh", "deeper/more.cuh", "inc/shared.h", "deeper/later.cuh"])
def test_stamp_follows_every_included_file(tmp_path, edit):
    recipe = _tree(tmp_path)
    source = tmp_path / "learner.cu"
    before = swap.stamp_of(recipe, source)
    assert swap.stamp_of(recipe, source) == before  # nothing changed: nothing to rebuild
    target = tmp_path / edit
    target.write_text((target.read_text() if target.exists() else "") + "// edited\n")
    assert swap.stamp_of(recipe, source) != before, f"editing {edit} left the stamp as it was"


def test_a_header_beside_the_file_shadows_one_in_an_include_folder(tmp_path):
    recipe = _tree(tmp_path)
    source = tmp_path / "learner.cu"
    before = swap.stamp_of(recipe, source)
    source.write_text(source.read_text().replace("<shared.h>", '"shared.h"'))
    quoted = swap.stamp_of(recipe, source)
    (tmp_path / "shared.h").write_text("#pragma once\n")  # same bytes, another file: the compiler's pick changes
    assert len({before, quoted, swap.stamp_of(recipe, source)}) == 3


needs_sim = pytest.mark.skipif(bool(backend_unavailable("sim") or not shutil.which("nvcc")),
                               reason="needs nvcc and the simulator")


@needs_sim
def test_editing_an_included_header_changes_the_verdict():
    """End to end through the judge's swap build (problem 71 on the simulator). The file lives at a
    fixed path, as the golden cases do, so repeated runs reuse one build folder."""
    tmp_path = ROOT / "build" / "swap-src"
    tmp_path.mkdir(parents=True, exist_ok=True)
    problem = next(p for p in manifest.load().values() if p.chapter == "C1")
    base = (ROOT / "tests" / "golden" / "c1" / "base.cu").read_text()
    body = "if (i < n) c[i] = a[i] + b[i];"
    assert body in base
    learner = tmp_path / "learner.cu"
    learner.write_text(base.replace("#include <cuda_runtime.h>\n", '#include <cuda_runtime.h>\n#include "helpers.cuh"\n', 1)
                       .replace(body, "if (i < n) c[i] = combine(a[i], b[i]);", 1))
    helpers = tmp_path / "helpers.cuh"
    helpers.write_text("#pragma once\n__device__ inline float combine(float x, float y) { return x + y; }\n")
    first = judge(problem, learner, "sim", run_pytest=False, perf=False, timeout=120)
    assert first.status == "pass", first.message["en"]
    helpers.write_text("#pragma once\n__device__ inline float combine(float x, float y) { return x - y; }\n")
    second = judge(problem, learner, "sim", run_pytest=False, perf=False, timeout=120)
    assert second.status == "fail", f"helpers.cuh now subtracts, yet: {second.message['en']}"
    helpers.write_text("#pragma once\n__device__ inline float combine(float x, float y) { return y + x; }\n")
    third = judge(problem, learner, "sim", run_pytest=False, perf=False, timeout=120)
    assert third.status == "pass", third.message["en"]
