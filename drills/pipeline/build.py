"""Configure and build one problem's test binary and C ABI library for one file and backend.

The reference (solutions/) is built by CMake in build/<backend>/, the problem's shared build. Any
other file (mine/, `--file`) gets build/<backend>-files/<hash>/ and is swapped into the shared
build: one nvcc compile and two links replayed from CMake's own commands (drills/pipeline/swap.py),
and nothing at all when the file has not changed since. A caller's build_root (the grader's
private folder) gets a CMake build of its own.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import re
import subprocess
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path

from .. import ROOT
from ..manifest import Problem
from . import swap
from .toolchain import gpu_standin, require

BUILD_TIMEOUT = 900


@dataclass
class Subject:
    """A file under judgement, and where its build lives."""
    problem: Problem
    file: Path
    backend: str
    build_dir: Path
    name: str  # "solutions" or "subject"
    swap: bool = False  # compiled into the shared build's products (swap.py), not by CMake
    checker_path: Path | None = None  # the caller's checker (the grader's template), else the build's

    @property
    def test_binary(self) -> Path:
        return self.build_dir / f"{self.problem.slug}_test-{self.name}"

    @property
    def checker(self) -> Path:
        """The problem's checker program (cmake/AddDrill.cmake): one per build tree, whatever the
        subject; a swapped file uses the shared tree's, which never saw the file."""
        if self.checker_path is not None:
            return self.checker_path
        tree = ROOT / "build" / _tree(self.backend) if self.swap else self.build_dir
        return tree / f"{self.problem.slug}_checker"

    @property
    def capi_library(self) -> Path:
        return self.build_dir / f"lib{self.problem.slug}_capi-{self.name}.so"

    @property
    def targets(self) -> list[str]:
        return [f"{self.problem.slug}_test-{self.name}", f"{self.problem.slug}_capi-{self.name}",
                f"{self.problem.slug}_checker"]

    @property
    def outputs(self) -> list[Path]:
        return [self.test_binary, self.capi_library, self.checker]


def _tree(backend: str) -> str:
    return "gpu-standin" if backend == "gpu" and gpu_standin() else backend


def subject_for(problem: Problem, file: Path, backend: str, build_root: Path | None = None) -> Subject:
    file = file.resolve()
    if build_root is not None:
        return Subject(problem, file, backend, build_root, "subject")
    if file == problem.path("solution").resolve():
        return Subject(problem, file, backend, ROOT / "build" / _tree(backend), "solutions")
    digest = hashlib.sha1(f"{problem.number}:{file}".encode()).hexdigest()[:12]
    return Subject(problem, file, backend, ROOT / "build" / f"{_tree(backend)}-files" / digest, "subject",
                   swap=not os.environ.get("DRILLS_NO_SWAP"))



@dataclass
class BuildOutcome:
    ok: bool
    stage: str = ""         # "configure" | "compile" | "link" when not ok
    log: str = ""
    seconds: float = 0.0
    errors: list = None     # [(line, message)] in the subject file, for compile errors
    missing: list = None    # contract functions the linker could not find
    timed_out: bool = False # the compile or link was stopped at its time limit


@contextmanager
def _locked(build_dir: Path):
    """One build at a time per folder: the CLI, watch mode and the web app may overlap."""
    build_dir.mkdir(parents=True, exist_ok=True)
    with open(build_dir / ".drills.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _run(cmd: list[str], cwd: Path, timeout: int = BUILD_TIMEOUT) -> tuple[int, str]:
    try:
        p = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=timeout,
                           errors="replace")
    except subprocess.TimeoutExpired:
        return 124, f"{' '.join(cmd)}: timed out after {timeout} s"
    return p.returncode, p.stdout + p.stderr


def _configured_for(subject: Subject) -> bool:
    cache = subject.build_dir / "CMakeCache.txt"
    if not cache.exists():
        return False
    # A problem added to the manifest since: make would not know its targets yet.
    from ..manifest import MANIFEST
    if MANIFEST.stat().st_mtime > cache.stat().st_mtime:
        return False
    if not (subject.build_dir / "compile_commands.json").exists():
        return False  # configured before the shared build read CMake's commands
    text = cache.read_text(errors="replace")
    want = [f"DRILLS_BACKEND:STRING={_cmake_backend(subject)}"]
    if subject.name == "subject":
        want.append(f"DRILLS_SUBJECT:FILEPATH={subject.file}")
    return all(w in text for w in want)


def configure_args(subject: Subject) -> list[str]:
    args = [require("cmake"), "-S", str(ROOT), "-B", str(subject.build_dir),
            f"-DDRILLS_BACKEND={_cmake_backend(subject)}", "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_EXPORT_COMPILE_COMMANDS=ON"]
    if subject.name == "subject":
        args += [f"-DDRILLS_PROBLEM={subject.problem.number}", f"-DDRILLS_SUBJECT={subject.file}"]
    if os.environ.get("DRILLS_GTEST_SOURCE"):  # machines without libgtest-dev
        args.append(f"-DDRILLS_GTEST_SOURCE={os.environ['DRILLS_GTEST_SOURCE']}")
    return args


def _cmake_backend(subject: Subject) -> str:
    return "sim" if subject.backend == "gpu" and gpu_standin() else subject.backend


def jobs() -> str:
    return os.environ.get("DRILLS_BUILD_JOBS", str(max(1, os.cpu_count() or 1)))


# What the products depend on besides the toolchain: CMake's graph, read without running make.
BUILD_INPUT_SUFFIXES = {".cu", ".cuh", ".h", ".hpp", ".cpp", ".cc", ".c", ".inc", ".cmake", ".txt", ".toml"}
BUILD_INPUT_FOLDERS = ("cmake", "sim", "tests")
NOT_BUILD_INPUTS = {"golden", "grade_fixtures", "web", "__pycache__", "validation"}


def _newest_input(subject: Subject) -> int:
    from ..manifest import MANIFEST
    files = [subject.file, ROOT / "CMakeLists.txt", MANIFEST, ROOT / "drills" / "manifest.py"]
    # Headers beside the subject (a submission folder's own): it may include them.
    files += [f for f in subject.file.parent.iterdir() if f.suffix in (".h", ".cuh", ".hpp")]
    for folder in BUILD_INPUT_FOLDERS:
        for dirpath, dirnames, filenames in os.walk(ROOT / folder):
            dirnames[:] = [d for d in dirnames if d not in NOT_BUILD_INPUTS]
            files += [Path(dirpath) / f for f in filenames if os.path.splitext(f)[1] in BUILD_INPUT_SUFFIXES]
    return max(f.stat().st_mtime_ns for f in files)


def _up_to_date(subject: Subject, targets) -> bool:
    """The products exist and are newer than every input: running make would only spend a second
    or two deciding there is nothing to do (the warm path of `judge.py N`)."""
    outputs = dict(zip(subject.targets, subject.outputs))
    wanted = targets or subject.targets
    if any(t not in outputs for t in wanted):
        return False
    try:
        if not all(outputs[t].exists() for t in wanted):
            return False
        return _stamp(subject, wanted).stat().st_mtime_ns > _newest_input(subject) and _configured_for(subject)
    except (OSError, ValueError):
        return False


def _stamp(subject: Subject, targets) -> Path:
    return subject.build_dir / f".drills-built-{'+'.join(sorted(targets))}"


def build(subject: Subject, targets: list[str] | None = None) -> BuildOutcome:
    require("nvcc")
    started = time.monotonic()
    if subject.swap:
        try:
            return _build_swapped(subject, started)
        except swap.SwapError as e:  # CMake's commands unreadable: build this file the slow way
            subject = replace(subject, swap=False)
            fallback = f"drills: the shared build could not be reused ({e}); building {subject.file.name} with CMake\n"
            outcome = build(subject, targets)
            outcome.log = fallback + outcome.log
            return outcome
    with _locked(subject.build_dir):
        if _up_to_date(subject, targets):
            return BuildOutcome(True, log="up to date", seconds=time.monotonic() - started)
        began = time.time_ns()
        rc, log = _make(subject, targets or subject.targets)
        if rc == 0:  # stamped with the start: an input saved during the build is newer than the stamp
            stamp = _stamp(subject, targets or subject.targets)
            stamp.touch()
            os.utime(stamp, ns=(began, began))
    return _outcome(subject, rc, log, time.monotonic() - started)


def _make(subject: Subject, targets: list[str]) -> tuple[int, str]:
    """Configure when needed and build `targets`; the caller holds the folder's lock."""
    if not _configured_for(subject):
        rc, log = _run(configure_args(subject), ROOT)
        if rc != 0:
            return -1, log
    return _run([require("cmake"), "--build", str(subject.build_dir), "-j", jobs(), "--target", *targets], ROOT)


def _outcome(subject: Subject, rc: int, log: str, elapsed: float, timed_out: bool = False) -> BuildOutcome:
    if rc == 0:
        return BuildOutcome(True, log=log, seconds=elapsed)
    if rc == -1:
        return BuildOutcome(False, "configure", log, elapsed)
    errors = compile_errors(log, subject.file)
    missing = missing_symbols(log, subject.problem.entry_points)
    stage = "link" if missing and not errors else "compile"
    return BuildOutcome(False, stage, log, elapsed, errors, missing, timed_out)


def shared_recipe(problem: Problem, backend: str) -> tuple[dict | None, BuildOutcome | None]:
    """The shared build's commands for `problem`, building the reference first when any input of
    the shared part changed. (recipe, None) or (None, the failed build of the shared part)."""
    reference = subject_for(problem, problem.path("solution"), backend)
    fp = swap.fingerprint(problem, backend)
    ready = lambda r: r is not None and all(p.exists() for p in reference.outputs)
    recipe = swap.load_recipe(reference.build_dir, problem, fp)
    if ready(recipe):
        return recipe, None
    started = time.monotonic()
    with _locked(reference.build_dir):
        recipe = swap.load_recipe(reference.build_dir, problem, fp)  # another judge may have built it meanwhile
        if ready(recipe):
            return recipe, None
        rc, log = _make(reference, reference.targets)
        if rc != 0:
            return None, _outcome(reference, rc, log, time.monotonic() - started)
        recipe = swap.extract(problem, reference.build_dir, reference.name, fp)
        swap.save_recipe(reference.build_dir, problem, recipe)
    return recipe, None


def _build_swapped(subject: Subject, started: float) -> BuildOutcome:
    recipe, failed = shared_recipe(subject.problem, subject.backend)
    if failed is not None:
        failed.log = "drills: the shared build (the reference and the test harness) failed:\n" + failed.log
        return failed
    with _locked(subject.build_dir):
        stamp_file = subject.build_dir / ".stamp"
        stamp = swap.stamp_of(recipe, subject.file)
        if (stamp_file.exists() and stamp_file.read_text() == stamp and subject.test_binary.exists()
                and subject.capi_library.exists()):
            return BuildOutcome(True, log="up to date", seconds=time.monotonic() - started)
        ok, log, timed_out, _ = swap.replay(recipe, subject.file, subject.build_dir, subject.test_binary.name,
                                            subject.capi_library.name)
        if ok:
            stamp_file.write_text(stamp)
    return _outcome(subject, 0 if ok else 1, log, time.monotonic() - started, timed_out)


_NVCC_ERROR = re.compile(r"^(?P<file>[^\s:()][^:()]*?)\((?P<line>\d+)\): (?P<kind>error|catastrophic error): (?P<msg>.*)$")
_GCC_ERROR = re.compile(r"^(?P<file>[^\s:][^:]*?):(?P<line>\d+):(?:\d+:)? (?:fatal )?error: (?P<msg>.*)$")


def compile_errors(log: str, file: Path, limit: int = 5) -> list[tuple[int, str]]:
    """nvcc's (and the host compiler's) first errors that point into `file`."""
    out = []
    for raw in log.splitlines():
        m = _NVCC_ERROR.match(raw.strip()) or _GCC_ERROR.match(raw.strip())
        if not m:
            continue
        try:
            same = Path(m["file"]).resolve() == file.resolve() or Path(m["file"]).name == file.name
        except OSError:
            same = False
        if same:
            out.append((int(m["line"]), m["msg"].strip()))
        if len(out) >= limit:
            break
    return out


def missing_symbols(log: str, entry_points) -> list[str]:
    """Contract functions the linker reports as undefined."""
    found = []
    for name in entry_points:
        if re.search(rf"undefined reference to [`']{re.escape(name)}\(", log) and name not in found:
            found.append(name)
    return found


def _sim_build(target: str):
    """(subject, None) once `target` of the simulator is built in build/sim, or (None, log)."""
    from .. import manifest
    problem = min(manifest.load().values(), key=lambda p: p.number)
    subject = subject_for(problem, problem.path("solution"), "sim")
    outcome = build(subject, [target])
    return (subject, None) if outcome.ok else (None, outcome.log)


def sim_runtime_dir() -> tuple[Path | None, str]:
    """Build the simulator's runtime library in build/sim (once) and return its folder, or
    (None, log) when it does not build."""
    subject, log = _sim_build("drills_cudart_sim")
    return (subject.build_dir / "sim" / "runtime", "") if subject else (None, log)


def sim_replay_tool() -> tuple[Path | None, str]:
    """Build the simulator's op-log replayer (sim/replay, `drills_sim_replay`) beside its runtime
    (once) and return its path, or (None, log) when it does not build. The grader builds it with its
    template and names it in DRILLS_SIM_REPLAY_TOOL (its sandbox cannot build)."""
    given = os.environ.get("DRILLS_SIM_REPLAY_TOOL")
    if given:
        path = Path(given)
        return (path, "") if path.is_file() and os.access(path, os.X_OK) else \
            (None, f"DRILLS_SIM_REPLAY_TOOL={given} is not an executable file")
    subject, log = _sim_build("drills_sim_replay")
    if subject is None:
        return None, log
    tool = subject.build_dir / "sim" / "replay" / "drills_sim_replay"
    return (tool, "") if tool.is_file() else (None, f"drills_sim_replay was built but {tool} is missing")
