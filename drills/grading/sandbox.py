"""One submission's process tree: bubblewrap when it works here, rlimits always, a wall-time limit,
and a kill that reaches every process the submission started.

bwrap: the whole file system read-only, /tmp, /dev/shm and the submission's private folder
size-limited tmpfs (a total limit on what it writes; only result.json reaches the grader), fresh
/dev (the GPU's device nodes on the gpu backend), no network, its own PID namespace (so killing
bwrap ends everything inside), killed with the grader.
unshare-net (no bwrap, but util-linux unshare may take the network away): rlimits, no network.
rlimits: CPU seconds, address space (sim only: CUDA's driver reserves more address space than any
sensible limit), file size (which also caps output: see capped.py), processes, no core files.
Every mode: no capabilities (every set empty, as root too) and no new privileges.
Where the grader may make a cgroup (root): processes and memory limited there too, on both
backends (cgroup.py).
Without bwrap nothing stops a submission from writing where the grader's user may write (each
file is capped, their total is not), or from using the network; the gradebook's `sandbox` column
says which one ran.
"""

from __future__ import annotations

import functools
import os
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

from ..pipeline import nocaps
from . import GradeError, cgroup

NOCAPS = Path(nocaps.__file__)  # run by path, as the subject server loads it
PIDS_MAX = 512  # processes and threads of one submission (build, judge, simulator threads) under a cgroup


@functools.lru_cache(maxsize=4)
def bwrap_works(gpu: bool = False) -> str | None:
    """None when bubblewrap can build our sandbox here, else why not."""
    exe = shutil.which("bwrap")
    if not exe:
        return "bubblewrap is not installed (apt-get install bubblewrap)"
    try:
        p = subprocess.run(wrap(["true"], Path("/"), [], gpu), capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"bwrap did not run: {e}"
    if p.returncode != 0:
        return "bwrap cannot create namespaces here: " + (p.stderr.strip().splitlines() or ["?"])[-1]
    return None


@functools.lru_cache(maxsize=1)
def unshare_net() -> list[str] | None:
    """util-linux `unshare` that takes the network away (root, or unprivileged user namespaces)."""
    exe = shutil.which("unshare")
    if not exe:
        return None
    for cmd in ([exe, "--net"], [exe, "--net", "--map-root-user"]):
        try:
            if subprocess.run([*cmd, "true"], capture_output=True, timeout=30).returncode == 0:
                return cmd
        except (OSError, subprocess.TimeoutExpired):
            continue
    return None


def pick(requested: str, gpu: bool) -> tuple[str, str]:
    """(kind, note): kind is 'bwrap', 'unshare-net' (rlimits, no network) or 'rlimits'."""
    why = None
    if requested != "rlimits":
        why = bwrap_works(gpu)
        if why is None:
            return "bwrap", "bwrap (read-only file system, no network) + rlimits"
        if requested == "bwrap":
            raise GradeError(f"--sandbox bwrap: {why}")
    reason = why or "asked for with --sandbox rlimits"
    if requested != "rlimits" and unshare_net():
        return "unshare-net", f"rlimits + no network (unshare; {reason}): no file-system isolation"
    return "rlimits", f"rlimits only ({reason}): no network or file-system isolation"


HOMES = (Path("/root"), Path("/home"))
TMP_MB = 256
SHM_MB = 64
# The child's folder: its HOME, TMPDIR, build folder and whatever else it writes there, in total.
WORK_MB = 1536
WRITABLE_MB = TMP_MB + SHM_MB + WORK_MB  # all a submission can write under bwrap (and result.json, one file)
GRADER_FILES = ("src", "spec.json", ".empty")  # what the grader put in the folder: read-only inside
RESULT = "result.json"  # the one file of the folder the child writes for the grader (RLIMIT_FSIZE bounds it)


def _sized(path: str, mb: int) -> list[str]:
    """A size-limited tmpfs: a total limit on what may be written there (RLIMIT_FSIZE is per file)."""
    return ["--size", str(mb << 20), "--tmpfs", path]


def wrap(argv: list[str], work: Path, readable: list[Path], gpu: bool, hide: list[Path] = ()) -> list[str]:
    """hide: what a submission must not read (the repository's solutions, OUT, the submissions
    folder, the hidden-cases file). Home folders are emptied too, except the paths in `readable`
    under them (a Python installed in a home folder). A hidden file stays where it was, empty
    (an empty file bound over it), so what checks that it exists still finds it."""
    # /dev/shm: a fresh /dev has one as large as half the RAM, and the GPU's bound /dev the host's
    # own, shared with every other process: both replaced by a small one of the submission's own.
    cmd = [shutil.which("bwrap") or "bwrap", "--ro-bind", "/", "/", "--proc", "/proc",
           *(["--dev-bind", "/dev", "/dev"] if gpu else ["--dev", "/dev"]), *_sized("/dev/shm", SHM_MB),
           *_sized("/tmp", TMP_MB)]
    for home in HOMES:
        if home.is_dir() and not _inside(work, home):
            cmd += ["--tmpfs", str(home)]
    for path in readable:  # what /tmp's fresh tmpfs or an emptied home would hide
        if path.exists() and (str(path).startswith("/tmp/") or any(_inside(path, h) for h in HOMES)):
            cmd += ["--ro-bind", str(path), str(path)]
    for path in hide:
        if path.is_dir():
            cmd += ["--tmpfs", str(path)]
            # a directory's files are replaced one by one where they must keep existing
        elif path.exists():  # an empty regular file, so what checks that it is a file still finds one
            empty = work / ".empty"
            if not empty.exists():
                empty.write_bytes(b"")
                empty.chmod(0o444)
            cmd += ["--ro-bind", str(empty), str(path)]
    for path in readable:  # what the build and run need, even where it lies inside a hidden folder
        if path.exists() and any(path != h and _inside(path, h) for h in hide if h.is_dir()):
            cmd += ["--ro-bind", str(path), str(path)]
    if str(work) != "/":
        # The folder is a size-limited tmpfs (one limit on everything written there, not one per
        # file) holding the grader's files read-only and the result file; nothing else written
        # in it reaches the disk.
        cmd += _sized(str(work), WORK_MB)
        for name in GRADER_FILES:
            if (work / name).exists():
                cmd += ["--ro-bind", str(work / name), str(work / name)]
        if (work / RESULT).is_file():
            cmd += ["--bind", str(work / RESULT), str(work / RESULT)]
        for name in ("home", "tmp", "build"):
            if (work / name).is_dir():
                cmd += ["--dir", str(work / name)]
    # --cap-drop ALL: as root, bwrap would leave the submission CAP_SYS_PTRACE, which ignores
    # PR_SET_DUMPABLE 0 and reaches the checker's and the judge's memory and file descriptors.
    cmd += ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", str(work),
            "--", *argv]
    return cmd


def _inside(path: Path, folder: Path) -> bool:
    try:
        path.resolve().relative_to(folder)
        return True
    except ValueError:
        return False


RUNNING: dict[str, int] = {}  # token -> pid of every child now running, for kill_all()


def kill_all() -> None:
    """Ctrl-C: end every submission's process tree now (they run in their own sessions)."""
    for token, pid in list(RUNNING.items()):
        kill_tree(pid, token)
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass


@dataclass
class Finished:
    code: int | None          # None when killed for the wall-time limit
    seconds: float
    output: str               # the child's own stdout/stderr (the grader's messages, not the submission's)


def _descendants(pid: int) -> list[int]:
    try:
        return [c.pid for c in psutil.Process(pid).children(recursive=True)]
    except psutil.Error:
        return []


def _tagged(token: str) -> list[int]:
    """Processes whose environment carries this submission's token: the ones that left the tree
    (a daemon that called setsid and was re-parented to init)."""
    found = []
    for proc in psutil.process_iter():
        if proc.pid == os.getpid():
            continue
        try:
            if proc.environ().get("DRILLS_GRADE_TOKEN") == token:
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found


def kill_tree(pid: int, token: str) -> None:
    for _ in range(5):
        victims = set(_descendants(pid)) | set(_tagged(token))
        if not victims:
            return
        for v in victims:
            try:
                psutil.Process(v).kill()
            except psutil.Error:
                pass
        time.sleep(0.05)


def no_capabilities(argv: list[str]) -> list[str]:
    """argv run with every capability set empty and no new privileges, as bwrap's --cap-drop ALL
    does: a root grader's rlimits-only child would otherwise keep all of root's (CAP_SYS_PTRACE into
    the checker and the grader, CAP_DAC_OVERRIDE, CAP_SYS_ADMIN...). RLIMIT_NPROC still does not bind
    uid 0; the cgroup does."""
    return [sys.executable, "-I", "-S", str(NOCAPS), *argv]


def run_child(argv: list[str], work: Path, env: dict, wall_s: float, kind: str, readable: list[Path],
              gpu: bool, token: str, hide: list[Path] = (), memory_mb: int | None = None) -> Finished:
    """memory_mb: the submission's memory (its processes, and under bwrap the tmpfs it writes to,
    which is added), held by the cgroup where there is one, on either backend."""
    if kind == "bwrap":
        cmd = wrap(argv, work, readable, gpu, hide)
    elif kind == "unshare-net":
        cmd = [*(unshare_net() or []), "--", *no_capabilities(argv)]
    else:
        cmd = no_capabilities(argv)
    env = dict(env, DRILLS_GRADE_TOKEN=token)
    started = time.monotonic()
    log = work / "child.log"
    memory = ((memory_mb + (WRITABLE_MB if kind == "bwrap" else 0)) << 20) if memory_mb else None
    group = cgroup.create(token, PIDS_MAX, memory)
    with open(log, "wb") as out:
        proc = subprocess.Popen(cmd, cwd=work, env=env, stdout=out, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True,
                                preexec_fn=group.enter if group else None)
        RUNNING[token] = proc.pid
        try:
            code = proc.wait(timeout=wall_s)
        except subprocess.TimeoutExpired:
            code = None
        RUNNING.pop(token, None)
        if group:
            group.kill()
        kill_tree(proc.pid, token)
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            pass
        proc.wait()
    with open(log, "rb") as f:
        text = f.read(64 * 1024).decode(errors="replace")
    return Finished(code, time.monotonic() - started, text)


def child_argv(spec_path: Path) -> list[str]:
    return [sys.executable, "-m", "drills.grading.child", str(spec_path)]
