"""The manifest's schema: a bad entry stops every subcommand at start-up with one line naming the
problem and the key, exit 2; the good one declares what the core reads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from drills import ROOT, manifest
from drills.pipeline import counters

MANIFEST = (ROOT / "practice" / "problems.toml").read_text(encoding="utf-8")
JUDGE = [sys.executable, str(ROOT / "practice" / "judge.py")]


def checkout_with(tmp_path: Path, text: str) -> Path:
    """A checkout whose manifest is `text`: the other folders are the real ones (links)."""
    (tmp_path / "practice").mkdir()
    (tmp_path / "practice" / "problems.toml").write_text(text, encoding="utf-8")
    for name in ("content", "mine", "solutions", "tests", "drills", "sim", "cmake", "CMakeLists.txt"):
        (tmp_path / name).symlink_to(ROOT / name)
    return tmp_path


BAD = [
    ("misspelt key", ("entry_points = [\"transpose_naive\"", "entry_pionts = [\"transpose_naive\""),
     "problem 78 (c3_transpose), key 'entry_pionts': unknown key"),
    ("unknown version", ("version = 1", "version = 2"), "key 'version': unknown manifest version 2"),
    ("missing file", ('solution = "solutions/c1_vector_add.cu"', 'solution = "solutions/c1_vector_ad.cu"'),
     "problem 71 (c1_vector_add), key 'solution': solutions/c1_vector_ad.cu does not exist"),
    ("duplicate number", ("number = 71", "number = 78"), "key 'number': 78 is also problem c3_transpose's number"),
    ("unknown severity", ('severity = "note"', 'severity = "warn"'),
     "problem 78 (c3_transpose), key 'checks[3].severity': Input should be 'fail' or 'note'"),
    ("check probing no entry point", ('probe = { entry = "reduce_sum"', 'probe = { entry = "reduce_summ"'),
     "problem 77 (c2_reduction), key 'checks[0].probe.entry'"),
]


@pytest.mark.parametrize("what, edit, words", BAD, ids=[b[0] for b in BAD])
@pytest.mark.parametrize("argv", [["list"], ["78"], ["check"], ["grade", "78", "x", "--out", "y"], ["serve", "--no-browser"],
                                  ["sim-run", "a.cu"], ["hint", "78"]], ids=lambda a: a[0])
def test_a_bad_manifest_is_one_line_and_exit_2_for_every_subcommand(tmp_path, what, edit, words, argv):
    old, new = edit
    assert old in MANIFEST
    root = checkout_with(tmp_path, MANIFEST.replace(old, new, 1))
    p = subprocess.run(JUDGE + argv, capture_output=True, text=True, timeout=60, cwd=tmp_path,
                       env={"PATH": "/usr/bin:/bin", "DRILLS_ROOT": str(root), "HOME": str(tmp_path)})
    assert p.returncode == 2, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and words in lines[0], p.stderr
    assert p.stdout == ""


def test_the_schema_knows_the_counters_ops():
    assert set(manifest.OPS) == set(counters.OPS)


def test_every_declared_check_has_a_severity_and_every_problem_a_module_that_loads():
    from drills import problems
    for p in manifest.load().values():
        assert all(c.severity in manifest.SEVERITIES for c in p.checks)
        module = problems.module_for(p)
        assert module is None or callable(module.diagnose_outputs)


def test_tolerance_reaches_the_build():
    text = manifest.cmake_text(manifest.load())
    assert 'SUM_FACTOR "8.0"' in text and 'RTOL "0.0"' in text
