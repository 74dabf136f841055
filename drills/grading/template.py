"""What a submission's build shares with every other: built once, cached, then only read.

A from-scratch build of one submission configures CMake (~6 s), compiles the simulator (~25 s)
and the GoogleTest harness (~10 s) before the 2-second compile of the submission itself. The
template is a CMake build tree of the problem whose subject is the reference solution, built
once per (problem, backend, sources). From it we take CMake's own commands for the steps that
involve the subject: compiling it (compile_commands.json) and linking the test program and the
C ABI library (link.txt). A submission then replays those three commands in its private folder,
with its file and its outputs substituted; the harness objects, GoogleTest and the simulator's
runtime are read from the template, never written. Replaying CMake's commands rather than copying
a build tree (CMake refuses a moved tree) or re-running CMake (6 s per submission) keeps the
flags identical to `judge.py test` by construction; `prepare` proves the recipe on the reference
before any submission runs.

Layout: <cache>/<backend>-<number>-<fingerprint>/{tree/, recipe.json, ready}. The fingerprint
hashes every input of the shared part (CMake files, sim/, the test harness, the manifest row,
the reference, nvcc's version), so an edit anywhere there builds a new template. A grade run
holds a shared lock on the template it uses; older templates are deleted only when no run holds
them.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import shlex
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from .. import ROOT
from ..pipeline.build import jobs
from ..manifest import Problem, cmake_text
from ..pipeline.toolchain import require
from . import GradeError

CONFIGURE_TIMEOUT = 600
BUILD_TIMEOUT = 1800


@dataclass
class Template:
    problem: Problem
    backend: str
    root: Path
    recipe: dict

    @property
    def tree(self) -> Path:
        return self.root / "tree"

    @property
    def replay_tool(self) -> Path | None:
        """drills_sim_replay, built with the template (the simulator backend)."""
        tool = self.tree / "sim" / "replay" / "drills_sim_replay"
        return tool if tool.is_file() else None

    @property
    def reference_capi(self) -> Path:
        """The template's own subject is the reference: its C ABI library holds the copy bound."""
        return self.tree / f"lib{self.problem.slug}_capi-subject.so"

    @property
    def checker(self) -> Path:
        """The checker program (cmake/AddDrill.cmake): confirms a submission's passes from its
        outputs, in a process that never loads the submission; built once, with the template."""
        return self.tree / f"{self.problem.slug}_checker"


def _inputs(problem: Problem) -> list[Path]:
    files = [ROOT / "CMakeLists.txt", ROOT / "drills" / "manifest.py", problem.path("solution"),
             problem.path("gtest"), problem.path("capi")]
    for folder in ("cmake", "sim", "tests/support"):
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    files += (ROOT / "tests").glob(f"{problem.slug}*.h")
    return sorted(set(files))


def _tool_version(tool: str) -> str:
    try:
        return subprocess.run([require(tool), "--version"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired):
        return ""


def fingerprint(problem: Problem, backend: str) -> str:
    h = hashlib.sha256()
    h.update(f"{backend}\n{problem.number}\n{cmake_text({problem.number: problem})}".encode())
    h.update(_tool_version("nvcc").encode() + _tool_version("cmake").encode())
    for f in _inputs(problem):
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:12]


def _run(cmd, cwd: Path, timeout: int, what: str) -> str:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, errors="replace", timeout=timeout)
    except subprocess.TimeoutExpired:
        raise GradeError(f"preparing the shared build: {what} took longer than {timeout} s") from None
    if p.returncode != 0:
        tail = (p.stdout + p.stderr).strip().splitlines()[-15:]
        raise GradeError(f"preparing the shared build: {what} failed:\n" + "\n".join(tail))
    return p.stdout + p.stderr


def _expand_rsp(tokens: list[str], cwd: Path) -> list[str]:
    """@file arguments CMake writes for object lists, inlined; linkLibs.rsp-style ones too."""
    out = []
    for t in tokens:
        if t.startswith("@") and (cwd / t[1:]).is_file():
            out += shlex.split((cwd / t[1:]).read_text())
        else:
            out.append(t)
    return out


def _substitute(tokens: list[str], replace: dict[str, str], what: str) -> list[str]:
    out, seen = [], set()
    for t in tokens:
        if t in replace:
            seen.add(t)
            out.append(replace[t])
        else:
            out.append(t)
    if seen != set(replace):
        raise GradeError(f"preparing the shared build: cannot read CMake's {what} command "
                         f"(missing {sorted(set(replace) - seen)})")
    return out


def _output_after_o(tokens: list[str], what: str) -> str:
    if tokens.count("-o") != 1:
        raise GradeError(f"preparing the shared build: CMake's {what} command has no single -o")
    return tokens[tokens.index("-o") + 1]


def extract_recipe(problem: Problem, tree: Path, subject: Path) -> dict:
    """The compile and link commands CMake uses for the subject, with placeholders."""
    entries = json.loads((tree / "compile_commands.json").read_text())
    mine = [e for e in entries if Path(e["file"]).resolve() == subject.resolve()]
    if len(mine) != 1:
        raise GradeError("preparing the shared build: the subject's compile command is missing")
    compile_tokens = shlex.split(mine[0]["command"])
    obj = _output_after_o(compile_tokens, "compile")
    compile_cmd = _substitute(compile_tokens, {mine[0]["file"]: "{source}", obj: "{object}"}, "compile")

    def link(target: str) -> list[str]:
        text = (tree / "CMakeFiles" / f"{target}.dir" / "link.txt").read_text()
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) != 1:
            raise GradeError(f"preparing the shared build: {target} links in {len(lines)} steps; expected one")
        tokens = _expand_rsp(shlex.split(lines[0]), tree)
        out = _output_after_o(tokens, f"{target} link")
        return _substitute(tokens, {obj: "{object}", out: "{output}"}, f"{target} link")

    slug = problem.slug
    return {"cwd": str(mine[0].get("directory", tree)), "compile": compile_cmd,
            "link_test": link(f"{slug}_test-subject"), "link_capi": link(f"{slug}_capi-subject")}


def replay(recipe: dict, source: Path, out_dir: Path, slug: str, test_name: str, env=None,
           timeout: float = 120) -> tuple[bool, str, bool]:
    """Compile `source` and link both products into out_dir. (ok, log, timed_out)."""
    obj = out_dir / "subject.o"
    steps = [
        [a.replace("{source}", str(source)).replace("{object}", str(obj)) for a in recipe["compile"]],
        [a.replace("{object}", str(obj)).replace("{output}", str(out_dir / test_name)) for a in recipe["link_test"]],
        [a.replace("{object}", str(obj)).replace("{output}", str(out_dir / f"lib{slug}_capi-subject.so"))
         for a in recipe["link_capi"]],
    ]
    log = []
    for cmd in steps:
        try:
            p = subprocess.run(cmd, cwd=recipe["cwd"], capture_output=True, text=True, errors="replace",
                               timeout=timeout, env=env)
        except subprocess.TimeoutExpired:
            log.append(f"{Path(cmd[0]).name}: stopped after {timeout:.0f} s")
            return False, "\n".join(log), True
        log.append(p.stdout + p.stderr)
        if p.returncode != 0:
            return False, "\n".join(log), False
    return True, "\n".join(log), False


class _Lock:
    def __init__(self, path: Path, mode: int):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.f = open(path, "a")
        fcntl.flock(self.f, mode)

    def release(self):
        self.f.close()


def prepare(problem: Problem, backend: str, cache: Path, say=print) -> tuple[Template, _Lock]:
    """The template for (problem, backend), built now if missing. Returns it with a shared lock
    that keeps it from being pruned; release the lock when grading is over."""
    fp = fingerprint(problem, backend)
    key = f"{backend}-{problem.number}"
    root = cache / f"{key}-{fp}"
    build_lock = _Lock(cache / f"{key}.lock", fcntl.LOCK_EX)
    try:
        if not (root / "ready").exists():
            say(f"drills: building what every submission of #{problem.number} shares ({backend}); "
                f"once, in {root} ...")
            _build(problem, backend, root)
        in_use = _Lock(root / "in-use.lock", fcntl.LOCK_SH)
        _prune(cache, key, root)
    finally:
        build_lock.release()
    return Template(problem, backend, root, json.loads((root / "recipe.json").read_text())), in_use


def _build(problem: Problem, backend: str, root: Path) -> None:
    if root.exists():
        shutil.rmtree(root)
    tree = root / "tree"
    tree.mkdir(parents=True)
    subject = problem.path("solution").resolve()
    _run([require("cmake"), "-S", str(ROOT), "-B", str(tree), "-G", "Unix Makefiles",
          f"-DDRILLS_BACKEND={backend}", "-DCMAKE_BUILD_TYPE=Release", f"-DDRILLS_PROBLEM={problem.number}",
          f"-DDRILLS_SUBJECT={subject}", "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"], ROOT, CONFIGURE_TIMEOUT,
         "CMake configure")
    slug = problem.slug
    _run([require("cmake"), "--build", str(tree), "-j", jobs(), "--target", f"{slug}_test-subject",
          f"{slug}_capi-subject", f"{slug}_checker",
          # the technique checks' replay (drills/pipeline/oplog_replay.py): the sandbox cannot build it
          *(["drills_sim_replay"] if backend == "sim" else [])], ROOT, BUILD_TIMEOUT, "the build of the reference")
    recipe = extract_recipe(problem, tree, subject)
    # Prove the recipe: the reference, replayed into a scratch folder, must link and list its tests.
    scratch = root / "verify"
    scratch.mkdir()
    ok, log, _ = replay(recipe, subject, scratch, slug, "test")
    if not ok:
        raise GradeError("preparing the shared build: replaying CMake's commands on the reference failed:\n"
                         + log[-2000:])
    _run([str(scratch / "test"), "--gtest_list_tests"], scratch, 120, "listing the reference's tests")
    shutil.rmtree(scratch)
    (root / "recipe.json").write_text(json.dumps(recipe, indent=1))
    (root / "ready").write_text("")


def _prune(cache: Path, key: str, keep: Path) -> None:
    """Templates of older sources, unless a grade run still holds them."""
    for old in cache.glob(f"{key}-*"):
        if old == keep or not old.is_dir():
            continue
        try:
            f = open(old / "in-use.lock", "a")
        except OSError:
            continue
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            f.close()
            continue
        shutil.rmtree(old, ignore_errors=True)
        f.close()


def default_cache() -> Path:
    return Path(os.environ.get("DRILLS_GRADE_CACHE") or ROOT / "build" / "grade")
