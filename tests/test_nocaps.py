"""Issue 16: a submission holds no capability in any grading mode. bwrap drops them itself
(test_sandbox_visibility); without bwrap (rlimits, unshare-net) the grader starts the child through
drills/pipeline/nocaps.py, and a root grader's child would otherwise keep every one of root's:
CAP_SYS_PTRACE into the checker and the grader, CAP_DAC_OVERRIDE over every file, CAP_SYS_ADMIN."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid

import pytest

from drills.grading import sandbox
from drills.pipeline import nocaps

READ = "grep -E '^(Cap(Inh|Prm|Eff|Bnd|Amb)|NoNewPrivs):' /proc/self/status"
# Empty as any user; the bounding set only a process that held CAP_SETPCAP can empty (a non-root
# one keeps the full set, which no_new_privs makes worthless: no exec can gain from it).
EMPTY = {"CapInh", "CapPrm", "CapEff", "CapAmb", *(("CapBnd",) if os.geteuid() == 0 else ())}


def _sets(text: str) -> dict[str, int]:
    found = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.startswith("Cap"):
            found[key] = int(value, 16)
        elif key == "NoNewPrivs":
            found[key] = int(value)
    return found


def _assert_none(found: dict[str, int], text: str) -> None:
    assert set(found) == {*nocaps.SETS, "NoNewPrivs"}, text
    assert {k: v for k, v in found.items() if k in EMPTY and v} == {}, text
    assert found["NoNewPrivs"] == 1, text


@pytest.mark.parametrize("kind", ["rlimits", "unshare-net"])
def test_a_submission_without_bwrap_holds_no_capability(tmp_path, kind):
    if kind == "unshare-net" and not sandbox.unshare_net():
        kind = "rlimits"  # the same wrapper; nothing to skip
    if os.geteuid() == 0:
        assert nocaps.held()["CapEff"], "the test runs as root: the grader itself holds capabilities"
    # The reader is grep, which the shell forks and executes: a program run below the child gains
    # nothing back by its exec.
    done = sandbox.run_child(["sh", "-c", READ], tmp_path, {"PATH": os.environ["PATH"]}, 60, kind, [], False,
                             uuid.uuid4().hex)
    assert done.code == 0, done.output
    _assert_none(_sets(done.output), done.output)


def test_the_drop_itself_on_a_child_empties_every_set():
    """drop() on a plain child, then an exec: what the kernel shows, read by the exec'd program."""
    code = ("import os, sys; sys.path.insert(0, sys.argv[1]); import nocaps; nocaps.drop(); "
            "os.execvp('sh', ['sh', '-c', sys.argv[2]])")
    text = subprocess.run([sys.executable, "-I", "-S", "-c", code, os.path.dirname(nocaps.__file__), READ],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    _assert_none(_sets(text), text)


def test_the_subject_server_gives_up_only_its_own_few():
    """The subject server's smaller set still goes through the same function: a root process keeps
    the others (the learner's `test` at home is not graded), but never those four."""
    code = ("import json, sys; sys.path.insert(0, sys.argv[1]); import nocaps, subject_server; "
            "subject_server._drop_capabilities(); print(json.dumps(nocaps.held()))")
    text = subprocess.run([sys.executable, "-I", "-S", "-c", code, os.path.dirname(nocaps.__file__)],
                          capture_output=True, text=True, timeout=60, check=True).stdout
    held = json.loads(text)
    for cap in (16, 17, 19, 21):
        assert not held["CapEff"] & (1 << cap) and not held["CapPrm"] & (1 << cap)
        assert not held["CapBnd"] & (1 << cap) or os.geteuid() != 0
    assert held["NoNewPrivs"] == 1


def test_the_wrapper_refuses_to_run_what_it_cannot_strip(monkeypatch, capsys):
    """Learner code never runs with a capability: if the sets are not empty after the drop, the
    wrapper exits 126 instead of executing the program."""
    monkeypatch.setattr(nocaps, "drop", lambda caps=None: None)
    monkeypatch.setattr(nocaps, "held", lambda pid="self": {"CapEff": 1, "NoNewPrivs": 1})
    monkeypatch.setattr(os, "execvp", lambda *a: pytest.fail("executed with a capability"))
    assert nocaps.main(["true"]) == 126
    assert "could not give up" in capsys.readouterr().err
