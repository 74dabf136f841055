"""A control group per submission, where the machine lets the grader make one (root, as on a
course server or CI): a process limit that holds for root too (pids.max; RLIMIT_NPROC does not
bind root), and a kill that finds every process of the submission, however it left the tree.
cgroup v2 (one hierarchy) or v1 (the pids hierarchy); None where neither can be written."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

V2 = Path("/sys/fs/cgroup")
V1_PIDS = Path("/sys/fs/cgroup/pids")


class Group:
    def __init__(self, path: Path, pids_max: int):
        self.path, self.pids_max = path, pids_max

    def enter(self) -> None:
        """In the child, before exec (preexec_fn): everything it starts is in the group from the start."""
        with open(self.path / "cgroup.procs", "w") as f:
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
        for _ in range(50):
            try:
                self.path.rmdir()
                return
            except FileNotFoundError:
                return
            except OSError:
                time.sleep(0.05)


def create(token: str, pids_max: int) -> Group | None:
    for parent in ((V2,) if (V2 / "cgroup.controllers").exists() else (V1_PIDS,)):
        path = parent / f"drills-{token}"
        try:
            if parent == V2:
                try:  # the pids controller must be enabled for the root's children
                    (V2 / "cgroup.subtree_control").write_text("+pids")
                except OSError:
                    pass
            path.mkdir()
        except OSError:
            continue
        try:
            (path / "pids.max").write_text(str(pids_max))
        except OSError:
            try:
                path.rmdir()
            except OSError:
                pass
            continue
        return Group(path, pids_max)
    return None
