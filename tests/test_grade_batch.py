"""The grader end to end on the simulator: the batch of tests/grade_fixtures/78 (a right answer, a
wrong one, one that does not compile, one that never finishes, one that reads device memory from
the host, one that prints without end, one that writes outside its folder). Each gets its own
correct row, the batch ends in bounded time, and nothing outside OUT_DIR and the temporary folders
is written. Then the fallback without bubblewrap, and re-running only what changed."""

from __future__ import annotations

import csv
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fixture_patch import materialise
from result_schema import assert_valid_result

from drills import ROOT
from drills.grading import sandbox, template
from drills.pipeline.toolchain import backend_unavailable

FIXTURES = ROOT / "tests" / "grade_fixtures" / "78"  # folders as they are; <name>.patch against base.cu
HIDDEN = ROOT / "tests" / "grade_fixtures" / "hidden.toml"
HIDDEN_SHAPES = ("130x67", "67x130", "3x1100", "1100x3")
VANDAL_TARGETS = ("drills-vandal-was-here.txt", "/tmp/drills-vandal-was-here.txt")  # relative: to the checkout
EXPECT = {  # submission: (status, first diagnosis id or None)
    "right": ("pass", None),
    "wrong": ("fail", "copy-not-transpose"),
    "broken": ("error", "compile-error"),
    "hang": ("error", "timeout"),
    "host_deref": ("error", "host-deref-device-pointer"),
    "chatty": ("error", "output-limit"),
    "two_files": ("error", "several-contract-files"),
    "vandal": ("pass", None),
}
# Seconds of tests per submission. The hang is stopped by the watchdog (a quarter of it) long before.
# The wrong answer's pytest run needs about 2 CPU-s (it was 8, most of it Hypothesis's explain phase,
# now off in conftest.py); 60 leaves room for a machine shared by several builds.
TIMEOUT = 60

pytestmark = pytest.mark.skipif(
    not (shutil.which("nvcc") and shutil.which("cmake")) or backend_unavailable("sim") is not None,
    reason="grading needs nvcc, CMake and the simulator")


NOT_COPIED = (".git", "build", ".hypothesis", ".pytest_cache", "__pycache__", "test-results", ".device", ".whl", ".gl")


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> tuple[Path, Path]:
    """A copy of the checkout to grade from, so that the check "nothing else was written" cannot be
    confused by other work in this one (tests running beside us write .hypothesis/, build/, ...),
    and the shared build, prepared from the copy before anything is snapshotted (it is the
    grader's own build, made once; submissions only read it). The same sources give the same
    fingerprint, so the copy reuses the checkout's build/grade across sessions."""
    copy = tmp_path_factory.mktemp("checkout") / "drills"
    shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(*NOT_COPIED))
    cache = template.default_cache()
    prepare = ("import sys; from pathlib import Path; from drills import manifest; "
               "from drills.grading import template; "
               "template.prepare(manifest.load()[78], 'sim', Path(sys.argv[2]))[1].release()")
    # cwd: the copy's drills package is the one `python -c` imports.
    p = subprocess.run([sys.executable, "-c", prepare, str(copy), str(cache)], capture_output=True, text=True,
                       timeout=1800, cwd=copy, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    assert p.returncode == 0, p.stdout + p.stderr
    return copy, cache


def snapshot(root: Path) -> dict:
    out = {}
    for dirpath, dirnames, filenames in os.walk(root):
        # Python's bytecode caches are not the grader's writing: __pycache__ beside the sources, or
        # build/pycache where drills keeps them (drills.bytecode_env).
        dirnames[:] = [d for d in dirnames if d not in (".git", "__pycache__", ".pytest_cache")
                       and not (d == "pycache" and Path(dirpath).name == "build")]
        for f in filenames:
            p = Path(dirpath) / f
            try:
                st = p.lstat()
            except OSError:
                continue
            out[str(p.relative_to(root))] = (st.st_mtime_ns, st.st_size)
    return out


def grade(root: Path, tmp: Path, subs: Path, out: Path, *extra: str) -> tuple[subprocess.CompletedProcess, float]:
    """`judge.py grade` from the copy `root`, with the shared build from the fixture."""
    env = dict(os.environ, TMPDIR=str(tmp / "tmp"), HOME=str(tmp / "home"), PYTHONDONTWRITEBYTECODE="1",
               DRILLS_LANG="en")
    for d in ("tmp", "home"):
        (tmp / d).mkdir(exist_ok=True)
    started = time.monotonic()
    p = subprocess.run([sys.executable, str(root / "practice" / "judge.py"), "grade", "78", str(subs),
                        "--out", str(out), "--hidden", str(HIDDEN), "--backend", "sim", "--timeout", str(TIMEOUT),
                        "--cache", str(template.default_cache()),
                        *extra], capture_output=True, text=True, env=env, cwd=tmp, timeout=900)
    return p, time.monotonic() - started


def submissions_folder(dest: Path) -> Path:
    """The class's submissions as the grader sees them: the folders copied, each <name>.patch
    applied to base.cu as <name>.cu."""
    dest.mkdir(parents=True, exist_ok=True)
    for entry in sorted(FIXTURES.iterdir()):
        if entry.is_dir():
            shutil.copytree(entry, dest / entry.name)
        elif entry.suffix == ".patch":
            materialise(entry, FIXTURES / "base.cu", dest / f"{entry.stem}.cu")
    return dest


def rows(out: Path) -> dict:
    with (out / "grades.csv").open(newline="") as f:
        return {r["submission"]: r for r in csv.DictReader(f)}


def check_row(row: dict, status: str, diagnosis: str | None) -> None:
    assert row["status"] == status, row
    if diagnosis:
        assert row["diagnoses"].split(";")[0] == diagnosis, row
    if status == "pass":
        assert row["score"] == row["max_score"] and row["cases_passed"] == row["cases_total"], row
        assert row["hidden_passed"] == row["hidden_total"] == "4", row  # 2 hidden shapes x 2 entry points
    else:
        assert float(row["score"]) < float(row["max_score"]), row


def test_batch_each_submission_gets_its_own_row(repo, tmp_path):
    root, cache = repo
    isolated = sandbox.pick("auto", gpu=False)[0] == "bwrap"
    names = [n for n in EXPECT if isolated or n != "vandal"]  # without bwrap the vandal would succeed
    targets = [root / t for t in VANDAL_TARGETS]
    for target in targets:
        target.unlink(missing_ok=True)
    before = snapshot(root), snapshot(cache)
    out = tmp_path / "out"
    subs = submissions_folder(tmp_path / "subs")
    p, seconds = grade(root, tmp_path, subs, out, "--jobs", "2", *(f"--only={n}" for n in names))
    assert p.returncode == 0, p.stdout + p.stderr
    assert seconds < 400, f"the batch took {seconds:.0f} s"

    got = rows(out)
    assert sorted(got) == sorted(names)
    for name in names:
        check_row(got[name], *EXPECT[name])
        assert got[name]["sandbox"] == ("bwrap" if isolated else got[name]["sandbox"])
        assert_valid_result(json.loads((out / f"{name}.json").read_text()))
        fb = (out / f"{name}.feedback.md").read_text()
        assert not any(s in fb for s in HIDDEN_SHAPES), fb
    assert "hidden cases" in (out / "wrong.feedback.md").read_text()

    # Nothing outside OUT_DIR and the temporary folders: the repository (the shared build
    # included), HOME and TMPDIR are as they were.
    for old, new in zip(before, (snapshot(root), snapshot(cache))):
        changed = sorted(k for k in set(old) | set(new) if old.get(k) != new.get(k))
        assert changed == [], changed
    assert list((tmp_path / "home").iterdir()) == []
    assert list((tmp_path / "tmp").iterdir()) == []
    assert not any(t.exists() for t in targets)

    # Run again: everything is up to date.
    p, _ = grade(root, tmp_path, subs, out, "--jobs", "2", *(f"--only={n}" for n in names))
    assert p.returncode == 0 and "graded 0 submission(s)" in p.stdout, p.stdout + p.stderr


def test_without_bwrap_rlimits_still_stop_output_and_hangs(repo, tmp_path):
    root, _ = repo
    every = submissions_folder(tmp_path / "every")
    subs = tmp_path / "subs"
    subs.mkdir()
    for name in ("chatty.cu", "hang.cu", "right"):
        src = every / name
        (shutil.copytree if src.is_dir() else shutil.copy2)(src, subs / name)
    out = tmp_path / "out"
    p, _ = grade(root, tmp_path, subs, out, "--jobs", "2", "--sandbox", "rlimits", "--memory-mb", "2048")
    assert p.returncode == 0, p.stdout + p.stderr
    got = rows(out)
    for name in ("chatty", "hang", "right"):
        check_row(got[name], *EXPECT[name])
        assert got[name]["sandbox"] == "rlimits"
    assert list((tmp_path / "tmp").iterdir()) == []

    # Only a submission whose source is newer than its result is graded again.
    time.sleep(0.05)
    (subs / "right" / "transpose.cu").touch()
    p, _ = grade(root, tmp_path, subs, out, "--jobs", "2", "--sandbox", "rlimits", "--memory-mb", "2048")
    assert p.returncode == 0 and "graded 1 submission(s)" in p.stdout and "2 up to date" in p.stdout, p.stdout
    assert rows(out)["right"]["status"] == "pass"
