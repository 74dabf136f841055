"""`judge.py grade N SUBMISSIONS_DIR --out OUT_DIR [--hidden HIDDEN.toml] [--jobs N] ...` and
`judge.py grade --merge OUT_DIR... --out MERGED`: the instructor's batch (drills/grading/)."""

from __future__ import annotations

import signal
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .. import manifest
from ..manifest import ManifestError
from . import GradeError, gradebook, hidden as hidden_mod, sandbox, template
from .batch import Grader
from .submissions import Submission, discover
from ..pipeline.toolchain import ToolchainError, backend_unavailable, pick_backend, require



def add_arguments(p) -> None:
    p.add_argument("number", nargs="?", help="problem number or slug (`judge.py list` shows them)")
    p.add_argument("submissions", nargs="?", help="folder: one subfolder or .cu file per submission")
    p.add_argument("--out", required=True, help="where grades.csv and one .json + .feedback.md per submission go")
    p.add_argument("--hidden", help="HIDDEN.toml: [N] shapes = [[M, N], ...] seed = 7 per problem N (keep it outside the repository)")
    p.add_argument("--jobs", type=int, default=1, help="submissions judged at once (default 1)")
    p.add_argument("--backend", choices=("auto", "gpu", "sim"), default="auto")
    p.add_argument("--timeout", type=float, default=120, help="seconds for one submission's tests (default 120)")
    p.add_argument("--build-timeout", type=float, default=60, help="seconds for one submission's compile and link (default 60)")
    p.add_argument("--memory-mb", type=int, default=4096,
                   help="address-space limit per process, sim backend only (default 4096)")
    p.add_argument("--max-file-mb", type=int, default=64,
                   help="largest file or output a submission may write (default 64)")
    p.add_argument("--sandbox", choices=("auto", "bwrap", "rlimits"), default="auto",
                   help="auto: bubblewrap when it works here, else rlimits only")
    p.add_argument("--only", action="append", metavar="NAME", help="grade only this submission (repeatable)")
    p.add_argument("--shard", metavar="K/N", help="grade every N-th submission from the K-th (0-based; "
                   "e.g. $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT)")
    p.add_argument("--force", action="store_true", help="grade again even when a result is up to date")
    p.add_argument("--cache", help="where the shared build is kept (default build/grade, or $DRILLS_GRADE_CACHE)")
    p.add_argument("--merge", nargs="+", metavar="OUT_DIR", help="combine these OUT_DIRs into --out instead of grading")


def _interrupt(signum, frame):
    raise KeyboardInterrupt  # SIGTERM (a scheduler's cancel) ends the batch like Ctrl-C: cleaned up


def main(args) -> int:
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _interrupt)
    try:
        return _main(args)
    except (GradeError, ManifestError, ToolchainError) as e:
        print(f"drills: {e}", file=sys.stderr)
        return 2


def _main(args) -> int:
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise GradeError(f"--out {out}: exists and is not a folder")
    if args.merge:
        if args.number or args.submissions:
            raise GradeError("--merge takes OUT_DIRs only: judge.py grade --merge OUT_DIR... --out MERGED")
        path, notes = gradebook.merge([Path(d) for d in args.merge], out)
        for n in notes:
            print(f"drills: {n}")
        print(f"drills: merged {len(args.merge)} folder(s) into {path}")
        return 0
    if not args.number or not args.submissions:
        raise GradeError("usage: judge.py grade N SUBMISSIONS_DIR --out OUT_DIR [--hidden HIDDEN.toml]")
    problems = manifest.load()
    problem = manifest.find(problems, args.number)
    subs_dir = Path(args.submissions)
    if not subs_dir.is_dir():
        raise GradeError(f"{subs_dir}: no such folder of submissions")
    if args.jobs < 1 or args.timeout <= 0 or args.build_timeout <= 0 or args.memory_mb < 256 or args.max_file_mb < 1:
        raise GradeError("--jobs, --timeout and --build-timeout must be positive, --memory-mb at least 256, "
                         "--max-file-mb at least 1")
    hidden = hidden_mod.Hidden()
    if args.hidden:
        hidden, warnings = hidden_mod.load(Path(args.hidden), problem, problems)
        for w in warnings:
            print(f"drills: warning: {w}", file=sys.stderr)
    backend = pick_backend(args.backend)
    why = backend_unavailable(backend)
    if why:
        raise GradeError(f"cannot use the {backend} backend: {why}")
    require("nvcc")
    require("cmake")
    kind, sandbox_note = sandbox.pick(args.sandbox, backend == "gpu")

    found = discover(subs_dir, problem)
    subs = select(found, args.only, args.shard, subs_dir)
    out.mkdir(parents=True, exist_ok=True)

    cache = Path(args.cache) if args.cache else template.default_cache()
    tmpl, lock = template.prepare(problem, backend, cache)
    try:
        grader = Grader(args, problem, backend, hidden, tmpl, kind, sandbox_note, out)
        print(f"drills: grading #{problem.number} on {backend}; sandbox: {sandbox_note}")
        grader.reference()
        started = time.monotonic()
        todo = [s for s in subs if args.force or not grader.up_to_date(s)]
        skipped = len(subs) - len(todo)
        with ThreadPoolExecutor(max_workers=args.jobs) as pool:
            try:
                list(pool.map(grader.grade, todo))
            except KeyboardInterrupt:
                grader.stopping = True  # what was cut short is not recorded, so a re-run grades it
                sandbox.kill_all()
                raise
        path = gradebook.write_csv(out, keep={s.name for s in found})  # a removed submission's row goes
    finally:
        lock.release()
    total = time.monotonic() - started
    per = f" ({total / len(todo):.1f} s of batch time per submission)" if todo else ""
    print(f"drills: graded {len(todo)} submission(s) in {total:.1f} s with --jobs {args.jobs}{per}"
          f"{f'; {skipped} up to date, not graded again' if skipped else ''}; gradebook: {path}")
    return 0


def select(subs: list[Submission], only, shard: str | None, where: Path) -> list[Submission]:
    """--only NAME... and --shard K/N (every N-th from the K-th, in name order)."""
    if not subs:
        raise GradeError(f"{where}: no submissions (expected one subfolder or .cu file per student)")
    if only:
        unknown = sorted(set(only) - {s.name for s in subs})
        if unknown:
            raise GradeError(f"--only: no submission named {', '.join(unknown)} in {where}")
        subs = [s for s in subs if s.name in only]
    if shard:
        try:
            k, n = (int(v) for v in shard.split("/"))
            if not (n > 0 and 0 <= k < n):
                raise ValueError
        except ValueError:
            raise GradeError(f"--shard {shard!r}: write K/N with 0 <= K < N") from None
        subs = subs[k::n]
    return subs
