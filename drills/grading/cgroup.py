"""A control group per submission, where the machine lets the grader make one (root, as on a
course server or CI): a process limit and a memory limit that hold for root too (pids.max and
memory.max; RLIMIT_NPROC does not bind root, and RLIMIT_AS cannot be set for CUDA's driver, which
reserves more address space than any sensible limit), and a kill that finds every process of the
submission, however it left the tree. cgroup v2 (one hierarchy) or v1 (the pids and memory
hierarchies); None where no process limit can be written. The memory limit is best effort: a
machine whose memory controller the grader cannot use keeps the process limit alone
(Group.memory_max says which)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

V2 = Path("/sys/fs/cgroup")
V1_PIDS = Path("/sys/fs/cgroup/pids")
V1_MEMORY = Path("/sys/fs/cgroup/memory")


class Group:
    def __init__(self, path: Path, pids_max: int, extra: list[Path] = (), memory_max: int | None = None):
        self.path, self.pids_max = path, pids_max
        self.extra = list(extra)      # v1: the memory hierarchy's group beside the pids one
        self.memory_max = memory_max  # bytes, or None when no memory limit holds

    def enter(self) -> None:
        """In the child, before exec (preexec_fn): everything it starts is in the group from the start."""
        for path in (self.path, *self.extra):
            with open(path / "cgroup.procs", "w") as f:
                f.write(str(os.getpid()))

    def pids(self) -> list[int]:
        try:
            return [int(x) for x in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill(self) -> None:
        """SIGKILL every process in the group until it is empty (a fork bomb forks while it is
        being killed, but cannot pass pids.max), then remove it."""
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            pids = self.pids()
            if not pids:
                break
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
            time.sleep(0.02)
        for path in (self.path, *self.extra):
            _remove(path)


def _remove(path: Path) -> None:
    for _ in range(50):
        try:
            path.rmdir()
            return
        except FileNotFoundError:
            return
        except OSError:
            time.sleep(0.05)


def _write(path: Path, text: str) -> bool:
    try:
        path.write_text(text)
        return True
    except OSError:
        return False


def create(token: str, pids_max: int, memory_max: int | None = None) -> Group | None:
    """memory_max: bytes for the group's memory (its processes and the files they write to a
    tmpfs), or None for no memory limit."""
    name = f"drills-{token}"
    if (V2 / "cgroup.controllers").exists():
        path = V2 / name
        _write(V2 / "cgroup.subtree_control", "+pids")  # the controllers must be on for the root's children
        if memory_max:
            _write(V2 / "cgroup.subtree_control", "+memory")
        try:
            path.mkdir()
        except OSError:
            return None
        if not _write(path / "pids.max", str(pids_max)):
            _remove(path)
            return None
        held = memory_max if memory_max and _write(path / "memory.max", str(memory_max)) else None
        if held:
            _write(path / "memory.swap.max", "0")
        return Group(path, pids_max, memory_max=held)
    path = V1_PIDS / name
    try:
        path.mkdir()
    except OSError:
        return None
    if not _write(path / "pids.max", str(pids_max)):
        _remove(path)
        return None
    extra, held = [], None
    if memory_max and V1_MEMORY.is_dir():
        mem = V1_MEMORY / name
        try:
            mem.mkdir()
            if _write(mem / "memory.limit_in_bytes", str(memory_max)):
                _write(mem / "memory.memsw.limit_in_bytes", str(memory_max))  # no escape to swap
                extra, held = [mem], memory_max
            else:
                _remove(mem)
        except OSError:
            pass
    return Group(path, pids_max, extra, held)
