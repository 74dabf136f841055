"""Issue 16: what a submission's processes can read in the grading sandbox (bubblewrap). Runs a
shell in the sandbox exactly as the grader starts a submission's child, with the paths the grader
hides, and looks for every secret: the reference, another student's file, OUT (with the reference
run's result), the hidden-cases file, home folders. Fast: no build."""

from __future__ import annotations

import os
import shutil
import site
import sys
import time
import uuid
from pathlib import Path

import pytest

from drills import ROOT, manifest
from drills.grading import sandbox

SECRET = "SECRET-" + uuid.uuid4().hex


@pytest.fixture
def course(tmp_path):
    if sandbox.bwrap_works(False):
        pytest.fail(f"bubblewrap must work here (setup.sh installs it): {sandbox.bwrap_works(False)}")
    out = tmp_path / "out"
    subs = tmp_path / "subs" / "alice"
    subs.mkdir(parents=True)
    out.mkdir()
    (out / ".reference.json").write_text(SECRET)
    (subs / "c3_transpose.cu").write_text(SECRET)
    hidden = tmp_path / "hidden.toml"
    hidden.write_text(SECRET)
    home_secret = Path("/root") / f".drills-test-{uuid.uuid4().hex}"
    home_secret.write_text(SECRET)
    work = tmp_path / "work"
    work.mkdir()
    yield out, subs.parent, hidden, home_secret, work
    home_secret.unlink()


def run_in_sandbox(work: Path, script: str, hide: list[Path]) -> str:
    readable = [ROOT, Path(sys.prefix), Path(sys.base_prefix), *(Path(p) for p in site.getsitepackages())]
    done = sandbox.run_child(["sh", "-c", script], work, {"PATH": os.environ["PATH"], "PYTHONPATH": str(ROOT)}, 60, "bwrap", readable,
                             False, uuid.uuid4().hex, hide)
    return done.output


def test_a_submission_reads_no_reference_no_other_submission_no_out_no_hidden_file_no_home(course):
    out, subs, hidden, home_secret, work = course
    ref = ROOT / "solutions" / "c3_transpose.cu"
    hide = [*(p for p in (ROOT / "solutions").rglob("*") if p.is_file()), out, subs, hidden]
    script = (f"cat '{ref}' '{out}/.reference.json' '{subs}/alice/c3_transpose.cu' '{hidden}' '{home_secret}';"
              f" echo LISTING; ls -a /root /home; echo END-LISTING; echo python: $(python3 -c 'import drills; print(1)' 2>&1 | tail -1);"
              f" test -f '{ref}' && echo reference-path-exists")
    text = run_in_sandbox(work, script, hide)
    assert SECRET not in text, text
    assert "__global__" not in text, "the reference's source was readable"
    listing = text.split("LISTING", 1)[1].split("END-LISTING", 1)[0]
    assert home_secret.name not in listing, "the home folder's listing was readable"
    assert "python: 1" in text, "the toolchain (Python in a home folder) must stay readable"
    assert "reference-path-exists" in text  # the manifest still finds its files (empty)


def test_an_include_of_the_reference_by_absolute_path_finds_nothing(course):
    out, subs, hidden, _, work = course
    ref = ROOT / "solutions" / "c3_transpose.cu"
    (work / "t.cpp").write_text(f'#include "{ref}"\nint main() {{ return 0; }}\n')
    hide = [*(p for p in (ROOT / "solutions").rglob("*") if p.is_file()), out, subs, hidden]
    cxx = shutil.which("g++") or shutil.which("c++")
    (work / "src").mkdir()
    (work / "t.cpp").rename(work / "src" / "t.cpp")  # where the grader puts a submission
    text = run_in_sandbox(work, f"{cxx} -E src/t.cpp -o t.i && grep -c __global__ t.i || echo NO-KERNEL-SOURCE", hide)
    assert "NO-KERNEL-SOURCE" in text, text


def test_a_submission_that_links_outside_itself_is_refused_before_it_is_copied(tmp_path):
    from drills.grading.batch import escaping_link
    from drills.grading.submissions import discover
    problem = manifest.find(manifest.load(), "78")
    subs = tmp_path / "subs"
    (subs / "bob").mkdir(parents=True)
    (subs / "bob" / "c3_transpose.cu").symlink_to(ROOT / "solutions" / "c3_transpose.cu")
    (subs / "carol.cu").symlink_to(ROOT / "solutions" / "c3_transpose.cu")
    (subs / "dave").mkdir()
    (subs / "dave" / "real.cu").write_text("// mine\n")
    (subs / "dave" / "c3_transpose.cu").symlink_to("real.cu")  # inside the submission: allowed
    found = {s.name: s for s in discover(subs, problem)}
    assert escaping_link(found["bob"]) == "bob/c3_transpose.cu"
    assert escaping_link(found["carol"]) == "carol.cu"
    assert escaping_link(found["dave"]) is None


def test_a_fork_bomb_is_held_by_the_process_limit_and_leaves_nothing(tmp_path):
    import psutil
    from drills.grading import cgroup
    if os.geteuid() != 0:
        pytest.skip("the cgroup process limit is for a grader run as root (RLIMIT_NPROC covers other users)")
    probe = cgroup.create("probe-" + uuid.uuid4().hex, 8)
    assert probe is not None, "as root the grader must be able to make a cgroup here (CI runs as root)"
    probe.kill()
    token = uuid.uuid4().hex
    work = tmp_path / "work"
    work.mkdir()
    bomb = "b() { b | b & }; b; sleep 3; echo still-here"
    started = time.monotonic()
    done = sandbox.run_child(["bash", "-c", bomb], work, {"PATH": os.environ["PATH"]}, 15, "rlimits", [], False, token)
    assert time.monotonic() - started < 40
    time.sleep(0.5)
    left = [p.pid for p in psutil.process_iter() if _tagged(p, token)]
    assert not left, f"processes left: {left}"
    assert psutil.Process().num_threads() < 50


def _tagged(p, token) -> bool:
    import psutil
    try:
        return p.environ().get("DRILLS_GRADE_TOKEN") == token and p.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def test_what_a_submission_writes_is_bounded_in_total_not_only_per_file(tmp_path):
    """Every place a submission can write under bwrap: its folder (the working directory), HOME,
    TMPDIR, the build folder, /tmp and /dev/shm (a fresh /dev has one as large as half the RAM).
    Each fills up at its tmpfs's limit; together they stay within sandbox.WRITABLE_MB, and nothing
    but result.json reaches the disk. du stays on each place's own file system (-x): a checkout under
    /tmp (a CI clone) is bound read-only inside the sandbox's /tmp and is not the submission's writing."""
    work = tmp_path / "work"
    for d in ("home", "tmp", "build", "src"):
        (work / d).mkdir(parents=True)
    (work / "spec.json").write_text("{}")
    (work / sandbox.RESULT).write_bytes(b"")
    places = ["/tmp", "/dev/shm", str(work), f"{work}/home", f"{work}/tmp", f"{work}/build"]
    fill = ("for d in {places}; do i=0; while [ $i -lt 40 ]; do "
            "head -c 50000000 /dev/zero > $d/f$i 2>/dev/null || break; i=$((i+1)); done; "
            "echo $d: $(du -smx $d | cut -f1); done; echo all: $(du -smcx {w} /tmp /dev/shm | tail -1 | cut -f1); "
            "echo result > {w}/result.json; echo forged > {w}/spec.json 2>/dev/null || echo spec-read-only"
            ).format(places=" ".join(places), w=work)
    started = time.monotonic()
    text = run_in_sandbox(work, fill, [])
    sizes = dict(line.rsplit(": ", 1) for line in text.strip().splitlines() if ": " in line)
    assert set(places) | {"all"} <= set(sizes), text
    assert int(sizes["all"]) <= sandbox.WRITABLE_MB + 16, sizes
    assert int(sizes["/tmp"]) <= sandbox.TMP_MB + 4 and int(sizes["/dev/shm"]) <= sandbox.SHM_MB + 4, sizes
    assert "spec-read-only" in text and (work / "spec.json").read_text() == "{}"
    assert (work / sandbox.RESULT).read_text() == "result\n"  # the one way out
    on_disk = sum(f.stat().st_size for f in work.rglob("*") if f.is_file() and f.name != "child.log")
    assert on_disk < 2**20, f"{on_disk} bytes reached the disk"
    assert time.monotonic() - started < 60


def test_memory_is_held_by_the_cgroup_on_either_backend(tmp_path):
    """RLIMIT_AS is set on the simulator only (CUDA's driver reserves more address space than any
    limit); the cgroup's memory limit holds for both, and for root."""
    from drills.grading import cgroup
    if os.geteuid() != 0:
        pytest.skip("the cgroup memory limit is for a grader run as root")
    probe = cgroup.create("probe-" + uuid.uuid4().hex, 8, 256 << 20)
    assert probe is not None and probe.memory_max, "as root the grader must be able to limit memory here"
    probe.kill()
    work = tmp_path / "work"
    work.mkdir()
    grab = "b = bytearray(1 << 30); b[::4096] = b'x' * len(b[::4096]); print('allocated', len(b))"
    started = time.monotonic()
    done = sandbox.run_child([sys.executable, "-c", grab], work, {"PATH": os.environ["PATH"]}, 60, "rlimits", [],
                             True, uuid.uuid4().hex, memory_mb=256)
    assert "allocated" not in done.output and done.code not in (0, None), done.output
    assert time.monotonic() - started < 30


def test_a_submission_holds_no_capability_even_when_the_grader_is_root(course):
    """As root, bubblewrap leaves the submission CAP_SYS_PTRACE unless told otherwise, and that
    capability ignores PR_SET_DUMPABLE 0: the checker's and the grader's memory and descriptors
    would be open to it. Every set is empty inside the sandbox."""
    *_, work = course
    text = run_in_sandbox(work, "grep -E '^Cap(Inh|Prm|Eff|Bnd|Amb):' /proc/self/status", [])
    caps = dict(line.split(":", 1) for line in text.strip().splitlines() if line.startswith("Cap"))
    assert set(caps) == {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}, text
    assert all(int(v, 16) == 0 for v in caps.values()), text
