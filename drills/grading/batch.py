"""One batch: the reference run that proves the settings and fixes the cases, then each
submission in a fresh private folder and sandboxed child process, scored, written to OUT_DIR."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import site
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import psutil

from .. import ROOT
from ..pipeline.render import default_lang
from ..messages import say
from ..result import error
from . import GradeError, feedback, gradebook, sandbox, scoring
from .submissions import Submission

RESULT_CAP = 32 * 2**20
MAX_SUBMISSION = 64 * 2**20  # bytes copied into the sandbox per submission
KEEP_ENV = ("PATH", "LANG", "LANGUAGE", "LD_LIBRARY_PATH", "DRILLS_LANG", "DRILLS_SIM_DEVICE", "TERM")


class Grader:
    def __init__(self, args, problem, backend, hidden, tmpl, kind, note, out: Path):
        self.args, self.problem, self.backend, self.hidden = args, problem, backend, hidden
        self.tmpl, self.kind, self.note, self.out = tmpl, kind, note, out
        self.lang = args.lang or default_lang()
        self.sim_threads = max(1, (os.cpu_count() or 1) // args.jobs)
        self.limits = {"cpu_s": int((args.build_timeout + args.timeout * 2) * self.sim_threads + 30),
                       "memory_mb": args.memory_mb if backend == "sim" else None,
                       "file_mb": args.max_file_mb, "nproc": _nproc_limit(args.jobs)}
        self.key = hashlib.sha256(json.dumps([
            problem.number, backend, hidden.fingerprint(), scoring.table(problem), tmpl.root.name,
            args.timeout, args.build_timeout, self.limits["memory_mb"], args.max_file_mb, kind]).encode()).hexdigest()[:16]
        self.cases: list[dict] = []
        self.checks: list[str] = []
        self.done = 0
        self.stopping = False
        self.print_lock = threading.Lock()

    # -- the reference: proves the settings, and fixes the list of cases -----------------------
    def reference(self) -> None:
        path = self.out / ".reference.json"
        d = None
        if path.exists():
            try:
                d = json.loads(path.read_text())
            except json.JSONDecodeError:
                d = None
        if not d or d.get("grading_key") != self.key:
            sub = Submission("reference", self.problem.path("solution"), self.problem.path("solution"))
            d = self.run(sub)
            d["grading_key"] = self.key
            gradebook.write_atomic(path, json.dumps(d, ensure_ascii=False, indent=1))
        if d["status"] != "pass":
            raise GradeError(f"the reference solution does not pass with these settings ({self.backend}, "
                             f"hidden cases, --timeout {self.args.timeout:g}): {d['message']['en']} "
                             f"(details: {path})")
        self.cases = scoring.universe(d, self.problem, self.hidden.shapes)
        self.checks = scoring.reference_checks(d)

    # -- one submission ---------------------------------------------------------------------------
    def up_to_date(self, sub: Submission) -> bool:
        path = self.out / f"{sub.name}.json"
        try:
            d = json.loads(path.read_text())
            return d["grading"]["key"] == self.key and path.stat().st_mtime > sub.newest_mtime()
        except (OSError, json.JSONDecodeError, KeyError, TypeError):
            return False

    def grade(self, sub: Submission) -> None:
        started = time.monotonic()
        try:
            size = sub.size()
            if sub.file is None:
                d = error(self.problem.number, sub.why, sub.source.name, diagnosis=sub.why_id).to_dict()
            elif (link := escaping_link(sub)) is not None:
                d = error(self.problem.number, say("grading.symlink", path=link), sub.source.name,
                          diagnosis="symlink-refused").to_dict()
            elif size > MAX_SUBMISSION:
                d = error(self.problem.number, say("grading.too-large", mib=MAX_SUBMISSION >> 20), sub.source.name,
                          diagnosis="submission-too-large").to_dict()
            else:
                d = self.run(sub)
        except Exception as e:  # never stop the batch
            d = error(self.problem.number, say("grading.grader-error", error=repr(e)), diagnosis="grader-error").to_dict()
        if self.stopping:
            return
        seconds = round(time.monotonic() - started, 2)
        d["grading"] = {
            "submission": sub.name, "source": str(sub.source), "problem": self.problem.number,
            "backend": self.backend, "hidden_fingerprint": self.hidden.fingerprint(), "key": self.key,
            "graded_at": time.time(), "seconds": seconds, "sandbox": self.kind, "sandbox_note": self.note,
            "limits": dict(self.limits, timeout_s=self.args.timeout, build_timeout_s=self.args.build_timeout),
            "hidden_case_names": [c["name"] for c in self.cases if c["hidden"]],
            "scoring": scoring.score(d, self.problem, self.cases, self.checks, self.backend),
        }
        gradebook.write_atomic(self.out / f"{sub.name}.json", json.dumps(d, ensure_ascii=False, indent=1))
        gradebook.write_atomic(self.out / f"{sub.name}.feedback.md",
                               feedback.render(d, self.lang, self.hidden.shapes, self.problem.title_in(self.lang)))
        with self.print_lock:
            self.done += 1
            sc = d["grading"]["scoring"]
            print(f"  {sub.name:<24} {d['status']:<5} {sc['score']:>6g}/{sc['max_score']:g}  "
                  f"{sc['cases']['passed']}/{sc['cases']['total']} cases  {seconds:.1f} s"
                  f"{'  ' + d['diagnoses'][0]['id'] if d.get('diagnoses') else ''}", flush=True)

    def run(self, sub: Submission) -> dict:
        """Judge one file in a fresh private folder, in the sandbox; the folder is gone afterwards."""
        work = Path(tempfile.mkdtemp(prefix="drills-grade-"))
        try:
            src = work / "src"
            src.mkdir()
            if sub.source.is_dir():
                shutil.copytree(sub.source, src / sub.source.name, symlinks=True)
                file = src / sub.source.name / sub.file.relative_to(sub.source)
            else:
                file = src / sub.source.name
                shutil.copy2(sub.source, file)
            for d in ("home", "tmp", "build"):
                (work / d).mkdir()
            result = work / sandbox.RESULT
            result.write_bytes(b"")  # the one file the sandbox lets out (sandbox.wrap)
            spec = {
                "problem": self.problem.number, "backend": self.backend, "file": str(file), "work": str(work),
                "src_prefix": str(src), "display_prefix": "", "recipe": self.tmpl.recipe,
                "reference_capi": str(self.tmpl.reference_capi), "checker": str(self.tmpl.checker),
                "replay_tool": str(getattr(self.tmpl, "replay_tool", None) or ""),
                "timeout": self.args.timeout,
                "build_timeout": self.args.build_timeout, "limits": self.limits, "perf": True,
                "extra_shapes": [list(s) for s in self.hidden.shapes], "seed": self.hidden.seed,
            }
            spec_path = work / "spec.json"
            spec_path.write_text(json.dumps(spec))
            wall = self.args.build_timeout + self.args.timeout + 30
            if self.hidden.shapes:
                wall += self.args.timeout  # the hidden cases run in a test process of their own
            if self.backend == "gpu":
                wall += self.args.timeout  # timing a passing submission
            readable = [ROOT, self.tmpl.root, Path(sys.prefix), Path(sys.base_prefix),
                        *(Path(p) for p in site.getsitepackages() + [site.getusersitepackages()])]
            done = sandbox.run_child(sandbox.child_argv(spec_path), work, self._env(work), wall, self.kind,
                                     readable, self.backend == "gpu", uuid.uuid4().hex, self._hidden_paths(),
                                     memory_mb=self.args.memory_mb)
            if done.code is None:
                return error(self.problem.number, say("grading.time-limit", seconds=wall), sub.file.name,
                             diagnosis="time-limit").to_dict()
            try:
                # The child ends normally after writing the result. A submission's process runs as
                # the same user in the same sandbox: if it wrote result.json and then killed the
                # child, the file is not the child's.
                if done.code != 0:
                    raise ValueError("the child did not end normally")
                if not result.is_file() or not 0 < result.stat().st_size <= RESULT_CAP:
                    raise ValueError("no result")
                d = json.loads(result.read_text())
                if not isinstance(d, dict) or d.get("status") not in ("pass", "fail", "error"):
                    raise ValueError("not a result")
                return d
            except (OSError, ValueError):
                return error(self.problem.number, say("grading.no-result", code=done.code), sub.file.name,
                             log=done.output[-4000:], diagnosis="grader-error").to_dict()
        finally:
            shutil.rmtree(work, ignore_errors=True)

    def _hidden_paths(self) -> list[Path]:
        """What no submission may read: the references (files kept, empty, so the manifest still
        finds them), OUT, the other submissions, the hidden-cases file."""
        refs = [p for p in (ROOT / "solutions").rglob("*") if p.is_file()]
        paths = [*refs, self.out.resolve()]
        if getattr(self.args, "submissions", None):
            paths.append(Path(self.args.submissions).resolve())
        if getattr(self.args, "hidden", None):
            paths.append(Path(self.args.hidden).resolve())
        return paths

    def _env(self, work: Path) -> dict:
        env = {k: v for k, v in os.environ.items()
               if k in KEEP_ENV or k.startswith(("LC_", "CUDA", "NVIDIA"))}
        env.update({
            "HOME": str(work / "home"), "TMPDIR": str(work / "tmp"), "XDG_CACHE_HOME": str(work / "home" / ".cache"),
            "PYTHONPATH": str(ROOT), "PYTHONDONTWRITEBYTECODE": "1", "PYTHONUSERBASE": site.getuserbase(),
            "HYPOTHESIS_STORAGE_DIRECTORY": str(work / "home" / "hypothesis"),
            "DRILLS_SIM_THREADS": str(self.sim_threads),
            "DRILLS_SIM_WATCHDOG": str(max(2, min(60, int(self.args.timeout / 4)))),
        })
        return env


def escaping_link(sub: Submission) -> str | None:
    """The first symbolic link in a submission that leads outside it (a link to the reference, to
    another student's file, to /etc...), as a path relative to the submissions folder; else None.
    The copy into the sandbox keeps links as links; this keeps them from being judged at all."""
    root = sub.source
    if root.is_symlink():
        return root.name
    if not root.is_dir():
        return None
    top = root.resolve()
    for dirpath, dirnames, filenames in os.walk(root):
        for name in dirnames + filenames:
            p = Path(dirpath) / name
            if p.is_symlink():
                try:
                    p.resolve(strict=False).relative_to(top)
                except (ValueError, RuntimeError):
                    return str(p.relative_to(root.parent))
    return None


def _nproc_limit(jobs: int) -> int | None:
    """RLIMIT_NPROC counts all of the user's processes; root is exempt, so none is set for root."""
    if os.geteuid() == 0:
        return None
    uid = os.getuid()
    mine = 0
    for proc in psutil.process_iter(["uids"]):
        uids = proc.info.get("uids")
        mine += bool(uids and uids.real == uid)
    return mine + 256 * (jobs + 1)
