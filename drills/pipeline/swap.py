"""A file judged for the first time costs one nvcc compile, not a CMake build.

The problem's shared build is the CMake tree build/<backend>/, where the reference
(solutions/) is built with everything every file shares: the test harness, GoogleTest, the C ABI
table and, for the simulator, its runtime. From that tree we take CMake's own commands for the
steps that involve the reference (its compile command from compile_commands.json, the link lines
of the test program and of the C ABI library from link.txt) and replay them for any other file,
with the file and the outputs substituted, into that file's own folder
(build/<backend>-files/<hash>/). The flags are CMake's by construction; the shared objects are
only read. The grader does the same for submissions (drills/grading/template.py), in its own cache.

A fingerprint of every input of the shared part (CMake files, sim/, the harness, the manifest row,
the reference, the compiler) decides when the tree must be rebuilt; a stamp in the file's folder
(the fingerprint, the file's bytes and those of every file it #includes) decides when the file must
be recompiled: a warm judge of
an unchanged file compiles nothing and runs no make.
"""

from __future__ import annotations

import hashlib
import json
import re
import shlex
import shutil
import subprocess
import time
from pathlib import Path

from .. import ROOT
from ..manifest import Problem, cmake_text

RECIPE_VERSION = 1
STEP_TIMEOUT = 300  # one nvcc compile of a learner's file takes seconds; a hung compiler must not hold the judge


class SwapError(Exception):
    """The shared tree's commands could not be read: the caller falls back to a CMake build."""


def inputs(problem: Problem) -> list[Path]:
    files = [ROOT / "CMakeLists.txt", ROOT / "drills" / "manifest.py", problem.path("solution"),
             problem.path("gtest"), problem.path("capi")]
    for folder in ("cmake", "sim", "tests/support"):
        files += [p for p in (ROOT / folder).rglob("*") if p.is_file() and "__pycache__" not in p.parts]
    files += (ROOT / "tests").glob(f"{problem.slug}*.h")
    return sorted(set(files))


def _tool_id(tool: str) -> str:
    """The compiler's identity without running it: its resolved path, size and time."""
    path = shutil.which(tool)
    if not path:
        return ""
    real = Path(path).resolve()
    st = real.stat()
    return f"{real}:{st.st_size}:{st.st_mtime_ns}"


def fingerprint(problem: Problem, backend: str) -> str:
    h = hashlib.sha256()
    from .toolchain import gpu_standin
    standin = "standin" if backend == "gpu" and gpu_standin() else ""
    h.update(f"{RECIPE_VERSION}\n{backend}{standin}\n{cmake_text({problem.number: problem})}\n".encode())
    h.update((_tool_id("nvcc") + _tool_id("cmake")).encode())
    for f in inputs(problem):
        h.update(str(f.relative_to(ROOT)).encode() + b"\0" + f.read_bytes() + b"\0")
    return h.hexdigest()[:16]


def recipe_path(tree: Path, problem: Problem) -> Path:
    return tree / f".drills-recipe-{problem.slug}.json"


def load_recipe(tree: Path, problem: Problem, fp: str) -> dict | None:
    path = recipe_path(tree, problem)
    try:
        recipe = json.loads(path.read_text())
    except (OSError, json.JSONDecodeError):
        return None
    return recipe if recipe.get("fingerprint") == fp else None


def _expand_rsp(tokens: list[str], cwd: Path) -> list[str]:
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
        seen.add(t) if t in replace else None
        out.append(replace.get(t, t))
    if seen != set(replace):
        raise SwapError(f"cannot read CMake's {what} command (missing {sorted(set(replace) - seen)})")
    return out


def _output_after_o(tokens: list[str], what: str) -> str:
    if tokens.count("-o") != 1:
        raise SwapError(f"CMake's {what} command has no single -o")
    return tokens[tokens.index("-o") + 1]


def _drop_depfile(tokens: list[str]) -> list[str]:
    """-MD/-MT/-MF write make's dependency file next to the shared tree's object: not ours to write."""
    out, skip = [], False
    for t in tokens:
        if skip:
            skip = False
            continue
        if t in ("-MT", "-MF"):
            skip = True
            continue
        if t in ("-MD", "-MMD"):
            continue
        out.append(t)
    return out


def extract(problem: Problem, tree: Path, name: str, fp: str) -> dict:
    """The compile and link commands CMake uses for subject `name` (solutions) of `problem`."""
    source = problem.path("solution").resolve()
    try:
        entries = json.loads((tree / "compile_commands.json").read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise SwapError(f"no compile_commands.json in {tree}: {e}") from None
    mine = [e for e in entries if Path(e["file"]).resolve() == source and f"_code-{name}.dir" in e["command"]]
    if len(mine) != 1:
        raise SwapError(f"{len(mine)} compile commands for {source} in {tree}")
    tokens = shlex.split(mine[0]["command"])
    obj = _output_after_o(tokens, "compile")
    compile_cmd = _drop_depfile(_substitute(tokens, {mine[0]["file"]: "{source}", obj: "{object}"}, "compile"))
    cwd = Path(mine[0].get("directory") or tree)

    def link(target: str) -> list[str]:
        text = (tree / "CMakeFiles" / f"{target}.dir" / "link.txt").read_text()
        lines = [line for line in text.splitlines() if line.strip()]
        if len(lines) != 1:
            raise SwapError(f"{target} links in {len(lines)} steps; expected one")
        tokens = _expand_rsp(shlex.split(lines[0]), tree)
        out = _output_after_o(tokens, f"{target} link")
        return _substitute(tokens, {obj: "{object}", out: "{output}"}, f"{target} link")

    slug = problem.slug
    return {"fingerprint": fp, "cwd": str(cwd), "tree": str(tree), "compile": compile_cmd,
            "link_test": link(f"{slug}_test-{name}"), "link_capi": link(f"{slug}_capi-{name}")}


def save_recipe(tree: Path, problem: Problem, recipe: dict) -> None:
    path = recipe_path(tree, problem)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(recipe, indent=1))
    tmp.replace(path)


_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*([<"])([^>"\r\n]+)[>"]', re.MULTILINE)
MAX_INCLUDES = 256  # a learner's file reaches a handful; this only bounds a pathological tree


def include_dirs(recipe: dict) -> list[Path]:
    """The -I folders of the recipe's compile command and of its --options-file (CMake puts them
    there), relative ones against its cwd, in order. Folders inside the compiler's own installation
    (-I/usr/local/cuda/include) and -isystem ones are left out: the toolkit's headers belong to the
    compiler, whose identity is in the fingerprint."""
    cwd = Path(recipe["cwd"])
    tokens = list(recipe["compile"])
    compiler = shutil.which(tokens[0]) if tokens else None
    toolkit = Path(compiler).resolve().parent.parent if compiler else None
    expanded: list[str] = []
    for i, t in enumerate(tokens):
        rsp = tokens[i + 1] if t in ("--options-file", "-optf") and i + 1 < len(tokens) else \
            t.split("=", 1)[1] if t.startswith(("--options-file=", "-optf=")) else None
        if rsp:
            try:
                expanded += shlex.split((cwd / rsp).read_text())
            except OSError:
                pass
        expanded.append(t)
    out = []
    for i, t in enumerate(expanded):
        if t in ("-I", "--include-path") and i + 1 < len(expanded):
            folder = expanded[i + 1]
        elif t.startswith("-I") and len(t) > 2:
            folder = t[2:]
        elif t.startswith("--include-path="):
            folder = t.split("=", 1)[1]
        else:
            continue
        path = cwd / folder
        if toolkit is not None and toolkit != Path("/") and path.resolve().is_relative_to(toolkit):
            continue
        out.append(path)
    return out


def local_includes(source: Path, dirs: list[Path]) -> list[tuple[str, Path | None]]:
    """Every file `source` reaches through #include, found as the compiler finds it: "x.h" beside the
    including file first, then in `dirs`; <x.h> in `dirs` only (not found there: a system header).
    (spelling, path or None when a quoted name is found nowhere), in the order first reached. Every
    #include line counts, those under #if too: a header that may be compiled in is an input."""
    seen: dict[Path, None] = {}
    out: list[tuple[str, Path | None]] = []
    todo = [source.resolve()]
    while todo and len(out) < MAX_INCLUDES:
        current = todo.pop(0)
        try:
            text = current.read_bytes()
        except OSError:
            continue
        for m in _INCLUDE.finditer(text):
            quoted, name = m[1] == b'"', m[2].decode(errors="replace").strip()
            where = ([current.parent] if quoted else []) + dirs
            found = next((d / name for d in where if (d / name).is_file()), None)
            if found is None:
                if quoted:  # a compile error now; the file's appearance must change the stamp
                    out.append((f"{current.name}:{name}", None))
                continue
            found = found.resolve()
            if found not in seen:
                seen[found] = None
                out.append((name, found))
                todo.append(found)
    return out


def stamp_of(recipe: dict, source: Path) -> str:
    """The shared build's fingerprint, the file's bytes and those of every file it includes (a
    learner's helpers.cuh beside it, or one in an -I folder): editing any of them rebuilds."""
    h = hashlib.sha256(recipe["fingerprint"].encode() + b"\0" + source.read_bytes())
    for name, path in local_includes(source, include_dirs(recipe)):
        h.update(b"\0" + name.encode() + b"\0" + (str(path).encode() + b"\0" + path.read_bytes() if path else b"missing"))
    return h.hexdigest()


def replay(recipe: dict, source: Path, out_dir: Path, test_name: str, capi_name: str,
           timeout: float = STEP_TIMEOUT) -> tuple[bool, str, bool, float]:
    """Compile `source` and link the test program and the C ABI library into out_dir.
    (ok, log, timed_out, seconds). The outputs appear only when every step succeeded, so a failed
    compile never leaves the previous file's programs to be run."""
    out_dir.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    obj = out_dir / "subject.o"
    test_tmp, capi_tmp = out_dir / (test_name + ".new"), out_dir / (capi_name + ".new")
    steps = [
        [a.replace("{source}", str(source)).replace("{object}", str(obj)) for a in recipe["compile"]],
        [a.replace("{object}", str(obj)).replace("{output}", str(test_tmp)) for a in recipe["link_test"]],
        [a.replace("{object}", str(obj)).replace("{output}", str(capi_tmp)) for a in recipe["link_capi"]],
    ]
    for stale in (out_dir / test_name, out_dir / capi_name, out_dir / ".stamp"):
        stale.unlink(missing_ok=True)
    log = []
    for cmd in steps:
        try:
            p = subprocess.run(cmd, cwd=recipe["cwd"], capture_output=True, text=True, errors="replace",
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            log.append(f"{Path(cmd[0]).name}: stopped after {timeout:.0f} s")
            return False, "\n".join(log), True, time.monotonic() - started
        log.append(p.stdout + p.stderr)
        if p.returncode != 0:
            return False, "\n".join(log), False, time.monotonic() - started
    test_tmp.replace(out_dir / test_name)
    capi_tmp.replace(out_dir / capi_name)
    return True, "\n".join(log), False, time.monotonic() - started
