"""Capabilities a process gives up before learner code runs in it or below it (standard library only).

The subject server drops a few (subject_server.py loads this file by path: it runs with `-I -S`,
no drills package); the grader, where bubblewrap cannot drop them (rlimits and unshare-net modes),
starts a submission's child as `python3 -I -S nocaps.py PROGRAM ARGS...`, which drops every one and
then executes PROGRAM. A process without capabilities (not root) loses nothing here.
"""

from __future__ import annotations

import ctypes
import os
import sys

PR_CAPBSET_DROP, PR_SET_NO_NEW_PRIVS, PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL = 24, 38, 47, 4
SETS = ("CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _last_cap() -> int:
    try:
        with open("/proc/sys/kernel/cap_last_cap") as f:
            return int(f.read())
    except (OSError, ValueError):
        return 63  # dropping a capability the kernel does not know is a harmless EINVAL


def drop(caps=None) -> None:
    """caps: the capability numbers to give up, None for all. Out of the bounding set first (while
    CAP_SETPCAP, which that needs, is still effective; an exec cannot bring them back, not even root's,
    whose exec gains only what the bounding, inheritable and ambient sets allow), then out of the
    effective, permitted and inheritable sets; no ambient ones; no new privileges (a setuid
    program or one with file capabilities gains nothing)."""
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    chosen = list(range(_last_cap() + 1) if caps is None else caps)
    for cap in chosen:  # EPERM without CAP_SETPCAP in the effective set: nothing to drop
        libc.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    header = _CapHeader(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3
    data = (_CapData * 2)()
    if libc.capget(ctypes.byref(header), data) != 0:
        return
    for cap in chosen:
        word, bit = divmod(cap, 32)
        if word < 2:
            for name in ("effective", "permitted", "inheritable"):
                setattr(data[word], name, getattr(data[word], name) & ~(1 << bit))
    libc.capset(ctypes.byref(header), data)


def held(pid="self") -> dict[str, int]:
    """The five capability sets of a process and its no_new_privs flag, as /proc shows them."""
    found = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            if key in SETS:
                found[key] = int(value, 16)
            elif key == "NoNewPrivs":
                found[key] = int(value)
    return found


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: nocaps.py PROGRAM [ARGS...]", file=sys.stderr)
        return 2
    drop()
    now = held()
    if now.get("NoNewPrivs") != 1 or any(now.get(s) for s in SETS if s != "CapBnd" or os.geteuid() == 0):
        print("nocaps.py: could not give up every capability", file=sys.stderr)
        return 126  # learner code must not run with one
    try:
        os.execvp(argv[0], argv)
    except OSError as e:
        print(f"nocaps.py: {argv[0]}: {e}", file=sys.stderr)
        return 127


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
